"""What an engine tells a player, in the player's language: `reason(error, language)` (issue 24).

The engines write their messages to players (why a move, an order or an option is refused) as
an English message id with named placeholders and its values (`engine.core.Message`, carried by
`IllegalMove`, `OrderError` and `OptionError`). This module translates the id with the engine
catalogue (`pbem/translations/<language>/LC_MESSAGES/engine.mo`, docs/i18n.md) and fills in the
same values; a value that is itself a Message (a clause, an "a or b" list) is translated too,
while notation and names stay as the engine wrote them. A message the catalogue lacks stays
English, and an exception without a message id reads as `str(error)`.

Only the standard library (gettext) is used, so the web, the mail side and the API can all
call it; it reads the catalogues once per language and keeps them.
"""

from __future__ import annotations

import functools
import gettext
from pathlib import Path
from typing import Any

from engine.core import Listing, Message
from pbem import i18n

DOMAIN = "engine"
LOCALE_DIR = Path(__file__).resolve().parent / "translations"


def reason(error: BaseException, language: str | None) -> str:
    """The error's message in `language` ("nl", "de-AT", ...; English when pbem does not speak it)."""
    message = getattr(error, "message", None)
    if not isinstance(message, Message):
        return str(error)
    catalogue = translations(i18n.normalize(language) or i18n.DEFAULT)
    try:
        return _render(message, catalogue)
    except (KeyError, ValueError, TypeError):  # a translation that broke a placeholder: the English, not an error
        return str(error)


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
