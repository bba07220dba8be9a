"""The languages pbem speaks, and which of them a reader wants.

English is the source language; Dutch, German and French have catalogues under
`pbem/translations/` (docs/i18n.md). The web reads a user's language (`User.language`) and,
for a visitor without an account, the browser's Accept-Language header. Outside a Flask
request (the mails, the worker, the CLI) `texts(language)` gives the same catalogues through
the standard library's `gettext`: a mail is written in its recipient's language, which the
code writing it passes in. This module needs only the standard library (no Flask, no Babel):
every layer that writes to a person may use it.
"""

from __future__ import annotations

import gettext as _gettext
from functools import lru_cache
from pathlib import Path

LANGUAGES = ("en", "nl", "de", "fr")
DEFAULT = "en"
# Each language by its own name, as a reader looks for it in a list.
NAMES = {"en": "English", "nl": "Nederlands", "de": "Deutsch", "fr": "Français"}
MAX_HEADER = 1000  # longer Accept-Language headers are read only this far
DOMAIN = "messages"  # the catalogues' domain: the web's and the mails' strings are one set of .po files
TRANSLATIONS = Path(__file__).resolve().parent / "translations"


def normalize(code: str | None) -> str | None:
    """The language of a code ("de", "DE", "de-AT", "fr_CH"), if pbem speaks it; else None."""
    if not isinstance(code, str):
        return None
    primary = code.strip().replace("_", "-").split("-", 1)[0].lower()
    return primary if primary in LANGUAGES else None


def best_match(accept_language: str | None, default: str | None = DEFAULT) -> str | None:
    """The language pbem speaks that an Accept-Language header (RFC 9110) prefers most, else `default`.

    "fr-CH, fr;q=0.9, en;q=0.8" gives "fr"; "es, de;q=0.5" gives "de"; a language with q=0
    is refused; "*" stands for any language not named otherwise (pbem's first, English, if
    none is left); equal weights keep the header's order. A header that cannot be read gives
    `default`.
    """
    if not accept_language:
        return default
    ranked: list[tuple[float, int, str]] = []
    refused: set[str] = set()
    for position, part in enumerate(accept_language[:MAX_HEADER].split(",")):
        tag, _, params = part.strip().partition(";")
        tag = tag.strip()
        if not tag:
            continue
        weight = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    weight = float(value.strip())
                except ValueError:
                    weight = 0.0
                if not 0.0 <= weight <= 1.0:
                    weight = 0.0
        if tag == "*":
            ranked.append((weight, position, "*"))
            continue
        language = normalize(tag)
        if language is None:
            continue
        if weight <= 0.0:
            refused.add(language)
        else:
            ranked.append((weight, position, language))
    named = {language for _, _, language in ranked}
    for weight, _, language in sorted(ranked, key=lambda item: (-item[0], item[1])):
        if weight <= 0.0:
            break
        if language == "*":
            rest = [x for x in LANGUAGES if x not in named and x not in refused]
            if rest:
                return rest[0]
            continue
        if language not in refused:
            return language
    return default


def N_(message: str) -> str:
    """Mark a message for the catalogues where it is written down (a table, an error raised); it is
    translated later, where its reader's language is known (`Texts.gettext(message)`)."""
    return message


@lru_cache(maxsize=None)
def translator(language: str | None) -> _gettext.NullTranslations:
    """The compiled catalogue of a language (English, the source language, for one pbem does not speak).

    Read once per process. A language of LANGUAGES whose `.mo` is missing raises OSError:
    the catalogues ship with the package (docs/i18n.md), so that is a broken installation.
    """
    code = normalize(language) or DEFAULT
    if code == DEFAULT:
        return _gettext.NullTranslations()
    return _gettext.translation(DOMAIN, TRANSLATIONS, languages=[code])


class Texts:
    """The messages of one language, called as Flask-Babel's are: named values as keywords.

    `texts("de").gettext("Game %(game)s is over.", game=12)` gives "Partie 12 ist zu Ende.".
    A message is formatted only when values are given (so a message without values may hold a
    bare "%"). pybabel finds `_("...")` and `.gettext("...")` / `.ngettext(...)` calls in the code.
    """

    def __init__(self, language: str | None):
        self.language = normalize(language) or DEFAULT
        self._catalogue = translator(self.language)

    def gettext(self, message: str, **values) -> str:
        text = self._catalogue.gettext(message)
        return text % values if values else text

    def ngettext(self, singular: str, plural: str, num: int, **values) -> str:
        """The form for `num` (also given to the message as %(num)d)."""
        return self._catalogue.ngettext(singular, plural, num) % {"num": num, **values}


@lru_cache(maxsize=None)
def texts(language: str | None) -> Texts:
    """The messages of a language (English for None or one pbem does not speak)."""
    return Texts(language)
