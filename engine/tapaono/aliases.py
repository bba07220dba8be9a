"""Tapaono in German and Dutch words: aliases of the notation (issue 24).

The English notation (docs/games/tapaono.md) is what the engine writes and stores; a player
may also type the German words of the rules page (shared/rules/tapaono.de.txt, quoted below)
and Dutch words. Where the German page has no word for a decision, and for every Dutch word
(no Dutch text is among Tapaono's sources), the word is plain German or Dutch, or the one the
Dutch manuals of Tongiaki and Discovery use for the same act; those are marked `# ours`.

An alias is read only where the English reading failed, and means exactly the English word:
`notation()` stays English. No alias is a word of the English notation (tests/engine/tapaono/
test_aliases.py). Fields (`q,r`), piece numbers and card names are written as in English (the
German page names no card but "Transport +2", which is English too). Left out (LEFT_OUT):
"befreien" and "ziehen", which the page uses for two different decisions each.
"""

from __future__ import annotations

from engine.core import Aliases

ACTIONS = Aliases({
    # de "1. Bewegen", "jeden seiner drei Spielsteine ein Feld ... bewegen"; nl ours
    "move": {"de": ("bewegen",), "nl": ("verplaatsen", "bewegen")},
    "stop": {"de": ("stopp",), "nl": ("stoppen",)},  # ours: the page has no word for it
    # de "bis zu fünf Befehle in beliebiger Reihenfolge gespielt werden", "Befehle, die ausgespielt
    # worden sind"; nl ours
    "play": {"de": ("ausspielen", "spielen"), "nl": ("spelen",)},
    # de "Einige Befehle dürfen ... für eine spätere Runde (Depot) aufgehoben werden", "gilt sie als
    # deponiert"; nl ours
    "keep": {"de": ("aufheben", "deponieren"), "nl": ("bewaren",)},
    "use": {"de": ("verwenden",), "nl": ("gebruiken",)},  # ours
    # the card Landing; de (Tongiaki) "auf einer Königsinsel zu landen"; nl (Tongiaki) "Landing"
    "land": {"de": ("landen",), "nl": ("landen",)},
    # the card Star jump: de "einen seiner Spielsteine von einem Stern zu einem anderen verschieben"
    "jump": {"de": ("verschieben", "springen"), "nl": ("springen",)},
    # the card Recall: de "Ein Spielstein des Spielers geht zurück zum Spawn"; nl ours
    "recall": {"de": ("zurück", "zurueck"), "nl": ("terug",)},
    # Raid and Loss: de "Feldmarken, die er vom Spielfeld entfernen kann"; nl (Discovery) "verwijderen"
    "remove": {"de": ("entfernen",), "nl": ("verwijderen",)},
    "skip": {"de": ("passen",), "nl": ("passen", "overslaan")},  # ours
    # de "3. Würfeln"; nl ours
    "roll": {"de": ("würfeln", "wuerfeln"), "nl": ("gooien", "dobbelen")},
    # de "Erobern/Befreien mittels Würfeln", "Felder ... erobern"; nl ours
    "take": {"de": ("erobern",), "nl": ("veroveren",)},
    # de "nachdem ... der Spieler seine Runde beendet hat"; nl (Discovery) "zijn beurt beëindigen"
    "end": {"de": ("beenden", "ende"), "nl": ("beëindigen", "einde")},
    # P17: de "Dieser [Spielmodus] darf während der Partie wenn beide Spieler übereinstimmen geändert
    # werden"; the words are ours
    "propose": {"de": ("vorschlagen",), "nl": ("voorstellen",)},
    "accept": {"de": ("annehmen",), "nl": ("aannemen", "accepteren")},
    "decline": {"de": ("ablehnen",), "nl": ("weigeren", "afwijzen")},
})

# The modes after `propose`: de "Normal", "Schnell", "Absolut", "Frei" (the German "Normal" is the
# English word already); nl ours.
MODES = Aliases({
    "normal": {"nl": ("normaal",)},
    "fast": {"de": ("schnell",), "nl": ("snel",)},
    "absolute": {"de": ("absolut",), "nl": ("absoluut",)},
    "free": {"de": ("frei",), "nl": ("vrij",)},
})

# `take none` and the order `roll all` (ours).
WORDS = Aliases({
    "none": {"de": ("keine", "nichts"), "nl": ("geen", "niets")},
    "all": {"de": ("alle",), "nl": ("alle",)},
})

LEFT_OUT = {
    "de": {
        "befreien": "frees fields after a roll (take) and by Raid or Loss (remove): \"welche Felder er befreit\"",
        "ziehen": "a card is drawn (\"Befehl ziehen\") and a piece moves (\"Der Zug eines Spielsteins\")",
    },
}

_ARGUMENTS = {"propose": MODES, "take": WORDS, "roll": WORDS}


def english(words: list[str], kinds: tuple[str, ...]) -> list[str]:
    """The words of a line with the aliases of its command and of its mode, `none` or `all` in English."""
    if not words:
        return words
    head = words[0] if words[0] in kinds else ACTIONS.english(words[0]) or words[0]
    table = _ARGUMENTS.get(head)
    if table is None:
        return [head, *words[1:]]
    return [head, *(table.english(w) or w for w in words[1:])]
