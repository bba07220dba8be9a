"""Why something a person asked for is refused, in their language: `reason(error, language)` (issue 24).

The engines write their messages to players (why a move, an order or an option is refused) as
an English message id with named placeholders and its values (`engine.core.Message`, carried by
`IllegalMove`, `OrderError` and `OptionError`). This module translates the id with the engine
catalogue (`pbem/translations/<language>/LC_MESSAGES/engine.mo`, docs/i18n.md) and fills in the
same values; a value that is itself a Message (a clause, an "a or b" list) is translated too,
while notation and names stay as the engine wrote them. A message the catalogue lacks stays
English, and an exception without a message id reads as `str(error)`.

The service's own refusals (`pbem.games.GameError`, `pbem.accounts.AccountError`, the
schedule's errors, the mail commands' `CommandError`) are `Refusal`s: an English message of the
`messages` catalogue, marked with `pbem.i18n.N_` where it is raised, and its named values;
`str(error)` is the English sentence and `error.text(language)` (or `reason(error, language)`)
the sentence in the reader's language. A refusal that stands for an engine's (an illegal move, a
refused option) keeps that error as its `cause` and reads as the engine's reason.

Only the standard library (gettext) is used, so the web, the mail side and the API can all
call it; it reads the catalogues once per language and keeps them.
"""

from __future__ import annotations

import functools
import gettext
import re
from pathlib import Path
from typing import Any

from engine.core import Listing, Message
from pbem import i18n
from pbem.i18n import N_

DOMAIN = "engine"
LOCALE_DIR = Path(__file__).resolve().parent / "translations"


class Refusal(Exception):
    """Something a person asked for that cannot be done; the message says why, in one sentence.

    `raise NotYourTurnError(N_("It is not your turn in game %(game)d: %(name)s is to move."), game=12,
    name="Ann")`: the message is English, marked for the catalogues, with named placeholders; the
    values fill them in every language. A value may itself be a Refusal or an engine's error (a
    clause after a colon), translated with the sentence. `cause`, an engine's error (IllegalMove,
    OrderError, OptionError) or another Refusal, is the whole reason: its text in each language.
    """

    def __init__(self, message: str, /, *, cause: BaseException | None = None, **values: Any):
        self.message, self.values, self.cause = message, values, cause
        english = {name: str(value) if isinstance(value, BaseException) else value for name, value in values.items()}
        super().__init__(message % english if values else message)

    def text(self, language: str | None) -> str:
        """The reason in `language` (English for one pbem does not speak)."""
        if self.cause is not None:
            return reason(self.cause, language)
        if not self.values:
            return i18n.texts(language).gettext(self.message)
        values = {name: reason(value, language) if isinstance(value, BaseException) else value
                  for name, value in self.values.items()}
        try:
            return i18n.texts(language).gettext(self.message, **values)
        except (KeyError, ValueError, TypeError):  # a translation that broke a placeholder: the English
            return str(self)


def reason(error: BaseException, language: str | None) -> str:
    """The error's message in `language` ("nl", "de-AT", ...; English when pbem does not speak it)."""
    if isinstance(error, Refusal):
        return error.text(language)
    message = getattr(error, "message", None)
    if not isinstance(message, Message):
        return str(error)
    catalogue = translations(i18n.normalize(language) or i18n.DEFAULT)
    try:
        return _render(message, catalogue)
    except (KeyError, ValueError, TypeError):  # a translation that broke a placeholder: the English, not an error
        return str(error)


# Why a game ended, when the players resigned: the English the service stores in the result.
RESIGNED = N_("Resigned: %(names)s.")
_RESIGNED = re.compile(r"Resigned: (.+)\.", re.S)


def result_reason(rules: Any, state: Any, result: dict, language: str | None) -> str:
    """Why a finished game ended, in `language`.

    A result keeps its reason in English (results and archives store it so). The engine's
    sentence is found again as its Message in the result of the final state (`Result.message`);
    the service's resignation by its English form. Any other reason stays as it is.
    """
    english = result.get("reason") or ""
    final = rules.result(state) if state is not None and rules.is_over(state) else None
    if final is not None and final.message is not None and str(final.message) == english:
        try:
            return _render(final.message, translations(i18n.normalize(language) or i18n.DEFAULT))
        except (KeyError, ValueError, TypeError):
            return english
    resigned = _RESIGNED.fullmatch(english)
    if resigned:
        return i18n.texts(language).gettext(RESIGNED, names=resigned.group(1))
    return english


@functools.cache
def translations(language: str) -> gettext.NullTranslations:
    """The engine catalogue of one language (English: none, the message ids are the English)."""
    return gettext.translation(DOMAIN, LOCALE_DIR, languages=[language], fallback=True)


def _render(message: Message, catalogue: gettext.NullTranslations) -> str:
    text = catalogue.gettext(message.message_id)
    if not message.params:
        return text
    return text % {name: _value(value, catalogue) for name, value in message.params.items()}


def _value(value: Any, catalogue: gettext.NullTranslations) -> Any:
    if isinstance(value, Message):
        return _render(value, catalogue)
    if isinstance(value, Listing):
        return value.separator.join(str(_value(item, catalogue)) for item in value.items)
    return value
