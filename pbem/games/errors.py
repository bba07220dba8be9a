"""The errors of the game service: what a player asked for that cannot be done, and why.

Each has a one-sentence message for the player and a `code` the web and the API map to a
status. Anything that is not a `GameError` is a bug or an outage.
"""

from __future__ import annotations


class GameError(Exception):
    """Something a player asked for that cannot be done; the message says why, in one sentence."""

    code = "error"


class NotFoundError(GameError):
    code = "not_found"


class NotAllowedError(GameError):
    code = "not_allowed"


class GameStateError(GameError):
    code = "game_state"


class NotYourTurnError(GameError):
    code = "not_your_turn"


class StalePositionError(GameError):
    code = "stale_position"


class IllegalMoveError(GameError):
    code = "illegal_move"
