"""Other languages (issue 24): German and Dutch words as aliases of the Tapaono notation.

An alias is read exactly as its English word; the notation the engine writes stays English;
no alias is a word of the English notation, so no text valid before means something else now.
"""

from __future__ import annotations

import random

import pytest

from engine.core import Aliases, IllegalMove, OrderError, derive_seed, fold
from engine.tapaono import aliases
from engine.tapaono.board import LABELS
from engine.tapaono.moves import KINDS
from engine.tapaono.state import Mode, Phase

from tests.engine.tapaono.test_modes import conquest
from tests.engine.tapaono.test_orders import mail
from tests.engine.tapaono.util import R, at, play, position, seed_for, texts

LANGUAGES = ("de", "nl")
TABLES = (aliases.ACTIONS, aliases.MODES, aliases.WORDS)
ENGLISH = set(KINDS) | set(LABELS) | set(Mode.ALL) | {"none", "all", "transport", "+2"}


def all_aliases():
    return [(english, language, word) for table in TABLES for english, languages in table.table.items()
            for language, words in languages.items() for word in words]


def translate(text: str, language: str, rng: random.Random) -> str:
    """An English notation in German or Dutch words (any case)."""
    words = text.split()
    kind = words[0]
    words[0] = rng.choice(aliases.ACTIONS.of(language)[kind])
    if kind == "propose":
        words[1] = rng.choice(aliases.MODES.of(language).get(words[1], (words[1],)))
    if kind == "take" and words[1:] == ["none"]:
        words[1] = rng.choice(aliases.WORDS.of(language)["none"])
    return " ".join(w.upper() if rng.random() < 0.3 else w.capitalize() if rng.random() < 0.3 else w for w in words)


def test_no_alias_is_a_word_of_the_english_notation():
    for english, language, word in all_aliases():
        assert word not in ENGLISH and fold(word) not in ENGLISH, (english, language, word)
        assert not fold(word).lstrip("(-").replace(",", "").replace("-", "").isdigit(), word  # no field, no piece
    for language in LANGUAGES:
        assert set(aliases.ACTIONS.of(language)) == set(KINDS)
    # the German "Normal" is the English word: no alias
    assert "normal" not in aliases.MODES.of("de")


def test_words_used_for_two_decisions_are_left_out():
    for word in aliases.LEFT_OUT["de"]:
        assert all(table.english(word) is None for table in TABLES), word
    st = R.setup(2, {}, 3)
    with pytest.raises(IllegalMove, match="There is no move 'befreien'; the moves are: move, stop"):
        R.parse(st, "befreien 1,2")
    with pytest.raises(ValueError, match="stands for both"):
        Aliases({"take": {"de": ("befreien",)}, "remove": {"de": ("befreien",)}})


def _positions(games: int, options: dict, every: int = 1):
    for game in range(games):
        chooser = random.Random(game)
        s = R.setup(2, options, derive_seed(game, "aliases"))
        step = 0
        while R.to_move(s) is not None and step < 400:
            if step % every == 0:
                yield s
            s = R.apply(s, chooser.choice(R.legal_moves(s)))
            step += 1


@pytest.mark.parametrize("options", [{}, {"mode": "fast", "mode_change": False}])
def test_every_legal_move_reads_the_same_in_english_with_or_without_aliases_and_in_german_and_dutch(
        options, monkeypatch):
    rng = random.Random(24)
    kinds = set()
    for s in _positions(4, options, every=2):
        for move in R.legal_moves(s):
            text = R.notation(s, move)
            assert R.parse(s, text) == move, text
            for language in LANGUAGES:
                other = translate(text, language, rng)
                assert R.parse(s, other) == move, (text, other)
                assert R.notation(s, R.parse(s, other)) == text  # written back in English
            kinds.add(move.kind)
    assert len(kinds) >= 10, kinds
    samples = [(s, R.notation(s, m), m) for s in _positions(2, options, every=5) for m in R.legal_moves(s)]
    for name in ("ACTIONS", "MODES", "WORDS"):
        monkeypatch.setattr(aliases, name, Aliases({}))
    monkeypatch.setattr(aliases, "_ARGUMENTS", {})
    assert all(R.parse(s, text) == move for s, text, move in samples)


def test_p5_p9_german_and_dutch_moves_in_a_seeded_game_are_the_english_moves():
    found = {}
    for s in _positions(6, {}):
        for move in R.legal_moves(s):
            found.setdefault(move.kind, (s, move))
    s, move = found["move"]
    text = R.notation(s, move)  # move <piece> <field>
    assert R.parse(s, text.replace("move", "Bewegen")) == R.parse(s, text.replace("move", "verplaatsen")) == move
    s, move = found["roll"]
    piece = move.args[0]
    assert R.parse(s, f"würfeln {piece}") == R.parse(s, f"WUERFELN {piece}") == R.parse(s, f"gooien {piece}") == move
    s, move = found["take"]
    fields = R.notation(s, move).split(" ", 1)[1]
    assert R.parse(s, f"erobern {fields}") == R.parse(s, f"veroveren {fields}") == move
    assert R.parse(s, "erobern keine") == R.parse(s, "veroveren geen") == R.parse(s, "take none")
    s, move = found["end"]
    assert R.parse(s, "beenden") == R.parse(s, "einde") == R.parse(s, "beëindigen") == move
    assert R.notation(s, R.parse(s, "Beenden")) == "end"


def test_p8_p17_cards_and_modes():
    s = play(position(pieces=[(1, 0), (3, 3), (-5, 0), None, None, None], deck=["conquer-three"]), "move 1 2,0")
    assert texts(s)[:2] == ["keep", "use"]
    assert R.parse(s, "aufheben") == R.parse(s, "deponieren") == R.parse(s, "bewaren") == R.parse(s, "keep")
    assert R.parse(s, "verwenden") == R.parse(s, "gebruiken") == R.parse(s, "use")
    st = conquest(depots=(["conquer-six"], []))
    assert "propose fast" in texts(st)
    assert R.parse(st, "vorschlagen schnell") == R.parse(st, "voorstellen snel") == R.parse(st, "propose fast")
    assert R.parse(st, "Vorschlagen Absolut") == R.parse(st, "voorstellen absoluut") == R.parse(st, "propose absolute")
    assert R.parse(st, "vorschlagen frei") == R.parse(st, "voorstellen vrij") == R.parse(st, "propose free")
    assert R.notation(st, R.parse(st, "vorschlagen schnell")) == "propose fast"
    st = play(st, "propose fast", "end")
    assert texts(st) == ["accept", "decline"]
    assert R.parse(st, "annehmen") == R.parse(st, "aannemen") == R.parse(st, "accept")
    assert R.parse(st, "ablehnen") == R.parse(st, "weigeren") == R.parse(st, "decline")

def test_a_wrong_word_gets_the_engines_reason():
    s = R.setup(2, {}, 3)
    with pytest.raises(IllegalMove, match="There is no move 'laufen'; the moves are: move, stop, play"):
        R.parse(s, "laufen 1 2,-6")
    with pytest.raises(IllegalMove, match="Your pieces are 1, 2 and 3, not '4'"):
        R.parse(s, "bewegen 4 2,-6")
    with pytest.raises(IllegalMove, match="There is no field 9,9 on the board"):
        R.parse(s, "verplaatsen 1 9,9")
    with pytest.raises(IllegalMove, match="The modes are normal, fast, absolute, free, not 'langsam'"):
        R.parse(s, "vorschlagen langsam")


def test_p9_orders_in_german_and_dutch_are_the_english_orders():
    st = position(pieces=[(1, -3), (3, -1), (3, -5), (-2, 3), None, None], depots=(["transport"], []),
                  deck=["conquer-three", "raid"], rounds=(5, 4), seed=seed_for(3, 2, 5), owner={(4, -3): 1})
    seat = st.turn
    assert R.parse_order(st, seat, "würfeln alle") == R.parse_order(st, seat, "gooien alle") \
        == R.parse_order(st, seat, "roll all")
    assert R.parse_order(st, seat, "Würfeln 2 1") == R.parse_order(st, seat, "roll 2 1")
    english = R.parse_order(st, seat, "take 1 1,-4 2,-5 3,-4")
    assert R.parse_order(st, seat, "erobern 1 1,-4 2,-5 3,-4") == R.parse_order(st, seat, "veroveren 1 1,-4 2,-5 3,-4") \
        == english
    assert R.order_notation(R.parse_order(st, seat, "erobern 3 keine")) == "take 3 none"
    assert R.parse_order(st, seat, "entfernen 4,-3") == R.parse_order(st, seat, "verwijderen 4,-3") \
        == R.parse_order(st, seat, "remove 4,-3")
    assert R.parse_order(st, seat, "aufheben") == R.parse_order(st, seat, "keep")
    with pytest.raises(OrderError, match="Name each piece only once"):
        R.parse_order(st, seat, "würfeln 2 2")


def test_the_docs_example_mail_in_german_and_in_dutch():
    """The round in one mail of docs/games/tapaono.md, typed in German and in Dutch: the same round."""
    english = ("move 1 2,-4", "keep", "move 2 4,-1", "move 3 3,-6", "roll all", "take 1 1,-4 2,-5 3,-4 1,-3",
               "take 2 5,-1 4,0 3,0", "take 3 2,-6 4,-6 3,-5", "end")
    german = ("bewegen 1 2,-4", "aufheben", "bewegen 2 4,-1", "bewegen 3 3,-6", "würfeln alle",
              "erobern 1 1,-4 2,-5 3,-4 1,-3", "erobern 2 5,-1 4,0 3,0", "erobern 3 2,-6 4,-6 3,-5", "beenden")
    dutch = ("verplaatsen 1 2,-4", "bewaren", "verplaatsen 2 4,-1", "verplaatsen 3 3,-6", "gooien alle",
             "veroveren 1 1,-4 2,-5 3,-4 1,-3", "veroveren 2 5,-1 4,0 3,0", "veroveren 3 2,-6 4,-6 3,-5", "einde")
    ends = []
    for lines in (english, german, dutch):
        st = position(pieces=[(1, -3), (3, -1), (3, -5), (-2, 3), None, None], depots=(["transport"], []),
                      deck=["conquer-three", "raid"], rounds=(5, 4), seed=seed_for(3, 2, 5), owner={(4, -3): 1})
        st, queue = mail(st, *lines)
        assert R.to_move(st) == 1 and queue == ()
        ends.append(R.state_hash(st))
        assert R.view(st, None)["last_move"] == {"seat": 0, "move": "end"}  # written back in English
    assert ends[0] == ends[1] == ends[2]
