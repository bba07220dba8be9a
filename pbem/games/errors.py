"""The errors of the game service: what a player asked for that cannot be done, and why.

Each has a one-sentence message for the player, a `code` (the API's `reason`) and the HTTP
status the web and the API answer it with (`http_status`, written here once). Anything that is
not a `GameError` is a bug or an outage.

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
    http_status = 400


class NotFoundError(GameError):
    code = "not_found"
    http_status = 404


class NotAllowedError(GameError):
    code = "not_allowed"
    http_status = 403


class GameStateError(GameError):
    code = "game_state"
    http_status = 409


class NotYourTurnError(GameError):
    code = "not_your_turn"
    http_status = 409


class StalePositionError(GameError):
    code = "stale_position"
    http_status = 409


class IllegalMoveError(GameError):
    code = "illegal_move"
    http_status = 422


class NotNeededError(IllegalMoveError):
    """A standing order for a decision that will not come in the rest of the turn (the game went past
    it, or chance settled it: engine.OrderNotNeeded); no mistake of the player's (issue 33)."""
