"""Tongiaki's notation in the words of its manuals: Dutch, German and French aliases (issue 24).

The English notation (docs/games/tongiaki.md) is what the engine writes and stores; a player
may also type the action words and compass directions of the published manuals
(shared/rules/tongiaki.nl.txt, .de.txt, .fr.txt), quoted beside each word below. An alias is
read only where the English reading of that word failed, and it means exactly the English
word: `notation()` stays English.

No alias equals a word of the English notation (commands, `from`, directions, island names
and their parts, water letters A..P, colours): tests/engine/tongiaki/test_aliases.py checks it.
Left out because they would clash (LEFT_OUT): the French short directions `NO` (nord-ouest)
and `SO` (sud-ouest), which are the Dutch and German `NO` (noordoost/Nordost, NE) and `SO`
(Südost, SE). The manuals' `O` (oost/Ost/ouest) is no Tongiaki direction (the hexes have no
east or west side), so the water tile O keeps its one meaning.
"""

from __future__ import annotations

from engine.core import Aliases

from .tiles import SIDE_WORDS

ACTIONS = Aliases({
    # nl "2 schepen plaatsen op het starteiland TONGA"; de "zwei Schiffe auf TONGA einsetzen";
    # fr "poser deux bateaux sur TONGA"
    "place": {"nl": ("plaatsen",), "de": ("einsetzen",), "fr": ("poser",)},
    # nl "Vermeerderen"; de "Vermehren"; fr l'action "Ajouter"
    "expand": {"nl": ("vermeerderen",), "de": ("vermehren",), "fr": ("ajouter",)},
    # nl "Koning worden"; de "König werden"; fr "Devenir roi"
    "king": {"nl": ("koning",), "de": ("könig", "koenig"), "fr": ("roi",)},
    # nl "Nieuw stichten"; de "Neubesiedlung"; fr "fonder une nouvelle colonie"
    "settle": {"nl": ("stichten",), "de": ("neubesiedlung",), "fr": ("fonder",)},
    # nl "Emigreren"; de "Auswanderung", "ausgewandert"; fr "émigration"
    "emigrate": {"nl": ("emigreren",), "de": ("auswandern",), "fr": ("émigrer",)},
    # nl "Landing", "het strand waar deze op landt"; de "Landung", "auf einer Königsinsel zu landen";
    # fr "débarquer sur cette île"
    "land": {"nl": ("landen",), "de": ("landen",), "fr": ("débarquer",)},
    # nl "aan welke plek ... je een nieuwe tegel wilt leggen"; de "deckt nun solange Karten auf und
    # legt sie ... an"; fr "Il tire alors des cartes et les pose comme il veut"
    "tile": {"nl": ("tegel",), "de": ("karte",), "fr": ("carte",)},
})

# T18: nl "al je schepen van het speelbord nemen"; de "ein beliebiges Schiff von einer Insel
# nehmen"; fr "prendre un bateau de son choix d'une île". Read only after `expand <island> <beach>`.
FROM = Aliases({"from": {"nl": ("van",), "de": ("von",), "fr": ("de",)}})

# The compass of the manuals (nl noord, oost, zuid, west; de Nord, Ost, Süd, West; fr nord, est,
# sud, ouest). Hyphens do not matter (noord-oost, sud-est), as in English.
SIDES = Aliases({
    "N": {"nl": ("noord",), "de": ("nord",), "fr": ("nord",)},
    "NE": {"nl": ("no", "noordoost"), "de": ("no", "nordost"), "fr": ("nordest",)},
    "SE": {"nl": ("zo", "zuidoost"), "de": ("so", "südost", "suedost"), "fr": ("sudest",)},
    "S": {"nl": ("z", "zuid"), "de": ("süd", "sued"), "fr": ("sud",)},
    "SW": {"nl": ("zw", "zuidwest"), "de": ("südwest", "suedwest"), "fr": ("sudouest",)},
    "NW": {"nl": ("noordwest",), "de": ("nordwest",), "fr": ("nordouest",)},
})

# Words of the manuals that are not aliases, and why.
LEFT_OUT = {
    "fr": {"no": "nord-ouest (NW) in French, but NO is north-east (NE) in Dutch and German",
           "so": "sud-ouest (SW) in French, but SO is south-east (SE) in German"},
}


def kind(word: str) -> str:
    """The English command a first word names (itself if it is no alias)."""
    return ACTIONS.english(word) or word


def side(word: str | None) -> int | None:
    """The world side (0..5) an English or alias direction names, or None."""
    if word is None:
        return None
    key = word.replace("-", "")
    if key in SIDE_WORDS:
        return SIDE_WORDS[key]
    english = SIDES.english(key)
    return None if english is None else SIDE_WORDS[english.lower()]


def is_from(word: str | None) -> bool:
    """Whether the word is `from` (T18) or one of its aliases."""
    return word is not None and (word == "from" or FROM.english(word) == "from")
