"""AccountError, the refusal of every module of pbem.accounts (below them all, so each may raise it)."""

from __future__ import annotations

from pbem.reasons import Refusal


class AccountError(Refusal):
    """A request about an account that cannot be done; the message says why, in one sentence.

    Raised with an English message marked for the catalogues (`N_`) and its named values, as a
    GameError: `str(error)` is the English, `error.text(language)` the reader's language."""
