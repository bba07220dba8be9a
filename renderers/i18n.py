"""The words of the pictures and of the board in text, in their reader's language.

`renderers` imports only `engine` and Pillow, so it does not read the catalogues itself: a
caller passes the messages of the reader's language as `texts=`, an object with
`gettext(message, **values)` and `ngettext(singular, plural, num, **values)` (the way
`pbem.i18n.texts(language)` and Flask-Babel call them: named placeholders, `%(num)d` the
count of a plural). Without one, ENGLISH writes the messages as they are, so the English
pictures and texts are exactly what the code says.

Every sentence is one message with named placeholders (docs/i18n.md). Lists are joined by
`join` with the language's own "and" / "or". Notation (moves, coordinates, beach numbers,
compass sides, card names, a colour inside a move such as `land green Tonga 2`) stays as it
is: it is what players type. A player's colour told in a sentence ("Ann (blue) is to move",
"mit Grün") is a word of the reader's language: `colour_word`. pybabel finds the messages
by their `.gettext(` / `.ngettext(` calls and `N_(` marks (babel.cfg).
"""

from __future__ import annotations

from typing import Protocol


class Texts(Protocol):
    """The messages of one language (pbem.i18n.Texts is one)."""

    def gettext(self, message: str, **values) -> str: ...

    def ngettext(self, singular: str, plural: str, num: int, **values) -> str: ...


class English:
    """The messages as written in the code: the source language needs no catalogue."""

    language = "en"

    def gettext(self, message: str, **values) -> str:
        return message % values if values else message

    def ngettext(self, singular: str, plural: str, num: int, **values) -> str:
        return (singular if num == 1 else plural) % {"num": num, **values}


ENGLISH = English()


def N_(message: str) -> str:
    """Mark a message for the catalogues where it is written down; it is translated where it is used."""
    return message


# The players' colours of every title (engine.core.Rules.colours and each title's own), as words of a
# sentence. The translations are nouns, so that "mit %(colour)s" and "Spieler %(colour)s" read right.
COLOUR_WORDS = {
    "blue": N_("blue"), "green": N_("green"), "orange": N_("orange"), "purple": N_("purple"), "red": N_("red"),
    "yellow": N_("yellow"), "black": N_("black"), "grey": N_("grey"),
}


def colour_word(texts: Texts, colour: str) -> str:
    """A player's colour (as the view names it, 'green') in the reader's words ('Grün'); an unknown one as it is."""
    message = COLOUR_WORDS.get(colour)
    return texts.gettext(message) if message else colour


def join(texts: Texts, words: list[str], last: str = "and") -> str:
    """'a', 'a and b', 'a, b and c' ('or' with last="or") in the reader's language."""
    words = [w for w in words if w]
    if len(words) <= 1:
        return "".join(words)
    items = ", ".join(words[:-1])
    if last == "or":
        return texts.gettext("%(items)s or %(last)s", items=items, last=words[-1])
    return texts.gettext("%(items)s and %(last)s", items=items, last=words[-1])
