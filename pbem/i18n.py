"""The languages pbem speaks, and which of them a reader wants.

English is the source language; Dutch, German and French have catalogues under
`pbem/translations/` (docs/i18n.md). The web reads a user's language (`User.language`) and,
for a visitor without an account, the browser's Accept-Language header; the mail side will
use the same list for `/language`. This module needs only the standard library (no Flask):
every layer that writes to a person may use it.
"""

from __future__ import annotations

LANGUAGES = ("en", "nl", "de", "fr")
DEFAULT = "en"
# Each language by its own name, as a reader looks for it in a list.
NAMES = {"en": "English", "nl": "Nederlands", "de": "Deutsch", "fr": "Français"}
MAX_HEADER = 1000  # longer Accept-Language headers are read only this far


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
