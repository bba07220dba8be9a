"""The errors of the game service: what a player asked for that cannot be done, and why.

Each has a one-sentence message for the player and a `code` the web and the API map to a
status. Anything that is not a `GameError` is a bug or an outage.

The message is English, marked for the catalogues where it is raised (`pbem.i18n.N_`), with
its named values: `str(error)` is the English sentence (logs, the CLI, bots by default) and
`error.text(language)` the sentence in a reader's language (`pbem.reasons.Refusal`). An
`IllegalMoveError` (or a `GameError` made from an engine's refused option) keeps the engine's
error as its `cause` and reads as the engine's reason, translated with the engine catalogue.
"""

from __future__ import annotations

from pbem.reasons import Refusal


class GameError(Refusal):
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
