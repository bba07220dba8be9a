"""Carcassonne: The Discovery in Dutch and German words: aliases of the notation (issue 24).

The English notation (docs/games/discovery.md) is what the engine writes and stores; a player
may also type the Dutch words of the source text (shared/rules/discovery.nl.txt, the Dutch
edition "Overzee", quoted below) and German words. No German text is among the sources: the
German words are the ones the German manuals of Tongiaki and Tapaono use for the same acts
(Schiffe "einsetzen", Karten "anlegen", Feldmarken "entfernen") or plain German, and say so.

An alias is read only where the English reading failed, and means exactly the English word:
`notation()` stays English. No alias is a word of the English notation (tests/engine/discovery/
test_aliases.py). Left out (LEFT_OUT): the German `See` (lake), which as side letters is S+E and
so already names a segment in English.
"""

from __future__ import annotations

from engine.core import Aliases

ACTIONS = Aliases({
    # nl "1. Landtegel leggen", "De speler moet een nieuwe landtegel trekken en die aanleggen";
    # de (Tongiaki) "Ozeankarte aufgedeckt und angelegt"
    "place": {"nl": ("leggen", "aanleggen"), "de": ("anlegen",)},
    # nl "een horige uit diens voorraad op de zojuist aangelegde tegel zetten", "opnieuw inzetten";
    # de (Tongiaki) "Schiffe ... einsetzen"
    "deploy": {"nl": ("zetten", "inzetten"), "de": ("einsetzen",)},
    # nl "een eerder daar geplaatste horige terug te nemen", "een horige verwijderen";
    # de (Tapaono) "Feldmarken ... vom Spielfeld entfernen"; "zurücknehmen" (plain German)
    "remove": {"nl": ("terugnemen", "verwijderen"), "de": ("zurücknehmen", "zuruecknehmen", "entfernen")},
    # nl "mag de speler ... ook passen en zijn beurt beëindigen"; de "passen" (plain German)
    "pass": {"nl": ("passen",), "de": ("passen",)},
})

# Terrains (a segment that touches no side is named by its terrain): nl "laagland", "graslanden",
# "bergen", "de berg", "zee"; de plain German. Dutch "meer" (a lake) and German "Meer" (the sea)
# are both the sea: a lake is an inner sea.
TERRAINS = Aliases({
    "grassland": {"nl": ("laagland", "grasland"), "de": ("grasland", "wiese")},
    "mountain": {"nl": ("berg", "bergen"), "de": ("berg", "gebirge")},
    "sea": {"nl": ("zee", "meer"), "de": ("meer",)},
    "island": {"nl": ("eiland",), "de": ("insel",)},
})

# Side letters of a segment: nl N, O (oost), Z (zuid), W; de N, O (Ost), S, W.
SIDE_LETTERS = {"o": "e", "z": "s"}
_LETTERS = set("neswoz+,- ")
_TO_ENGLISH = str.maketrans(SIDE_LETTERS)

LEFT_OUT = {
    "de": {"see": "der See (a lake): as side letters S+E, already a segment in English"},
}


def kind(word: str) -> str:
    """The English move a first word names (itself if it is no alias)."""
    return ACTIONS.english(word) or word


def segment(text: str) -> str:
    """A segment as the player wrote it, in English words: a terrain alias, or sides with O and Z."""
    english = TERRAINS.english(text)
    if english is not None:
        return english
    if set(text) <= _LETTERS and set(text) & set(SIDE_LETTERS):  # never an English name: it has O or Z
        return text.translate(_TO_ENGLISH)
    return text
