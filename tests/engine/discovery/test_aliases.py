"""Other languages (issue 24): Dutch and German words as aliases of the Discovery notation.

An alias is read exactly as its English word; the notation the engine writes stays English;
no alias is a word of the English notation, so no text valid before means something else now.
"""

from __future__ import annotations

import random

import pytest

from engine.core import Aliases, IllegalMove, Order, OrderError, derive_seed, fold
from engine.discovery import aliases
from engine.discovery.moves import KINDS
from engine.discovery.position import build_position
from engine.discovery.state import Phase
from engine.discovery.tiles import SIDES, TERRAIN_WORDS

from tests.engine.discovery.helpers import RULES as R, play

LANGUAGES = ("nl", "de")
# Every word of the English notation: the moves, the words `place` and `deploy` also take, the side
# letters, the terrains.
ENGLISH = (set(KINDS) | {"at", "tile", "r", "rot", "rotation", "from", "on", "lake", "island"}
           | set(SIDES.lower()) | set(TERRAIN_WORDS))
LETTERS = {"nl": str.maketrans("ES", "OZ"), "de": str.maketrans("E", "O")}  # oost, zuid / Ost


def all_aliases():
    return [(english, language, word) for table in (aliases.ACTIONS, aliases.TERRAINS)
            for english, languages in table.table.items() for language, words in languages.items() for word in words]


def translate(text: str, language: str, rng: random.Random) -> str:
    """An English notation in Dutch or German words (any case)."""
    kind, _, rest = text.partition(" ")
    words = [rng.choice(aliases.ACTIONS.of(language)[kind])] + rest.split()
    if kind in ("deploy", "remove"):
        name = words[-1]
        terrain = aliases.TERRAINS.of(language).get(name.lower())
        words[-1] = rng.choice(terrain) if terrain else name.translate(LETTERS[language])
        if not terrain and rng.random() < 0.5:
            words[-1] = words[-1].replace("+", "")  # `zo` as well as `Z+O`
    return " ".join(w.upper() if rng.random() < 0.3 else w.capitalize() if rng.random() < 0.3 else w for w in words)


def test_no_alias_is_a_word_of_the_english_notation():
    for english, language, word in all_aliases():
        assert word not in ENGLISH and fold(word) not in ENGLISH, (english, language, word)
        # nor a string of side letters, which names a segment in English
        assert not set(fold(word).upper()) <= set(SIDES), word
    assert not set(aliases.SIDE_LETTERS) & set(SIDES.lower())
    for language in LANGUAGES:
        assert set(aliases.ACTIONS.of(language)) == set(KINDS)


def test_a_word_that_would_mean_two_things_is_left_out():
    # der See (a lake) is the side letters S+E: it keeps its English meaning.
    assert aliases.TERRAINS.english("see") is None and aliases.segment("see") == "see"
    assert "see" in aliases.LEFT_OUT["de"]
    # nl meer (a lake) and de Meer (the sea) are one alias: a lake is an inner sea.
    assert aliases.TERRAINS.english("meer") == "sea"
    assert aliases.segment("zo") == "se" and aliases.segment("n+o") == "n+e" and aliases.segment("s+e") == "s+e"


def _positions(games: int, options: dict, every: int = 1):
    for game in range(games):
        chooser = random.Random(game)
        s = R.setup(2 + game % 4, options, derive_seed(game, "aliases"))
        step = 0
        while R.to_move(s) is not None:
            if step % every == 0:
                yield s
            s = R.apply(s, chooser.choice(R.legal_moves(s)))
            step += 1


@pytest.mark.parametrize("options", [{}, {"double": True}])
def test_every_legal_move_reads_the_same_in_english_with_or_without_aliases_and_in_dutch_and_german(
        options, monkeypatch):
    rng = random.Random(24)
    kinds, terrains = set(), set()
    for s in _positions(4, options, every=3):
        for move in R.legal_moves(s):
            text = R.notation(s, move)
            assert R.parse(s, text) == move, text
            for language in LANGUAGES:
                other = translate(text, language, rng)
                assert R.parse(s, other) == move, (text, other)
                assert R.notation(s, R.parse(s, other)) == text  # written back in English
            kinds.add(move.kind)
            terrains |= {text.split()[-1]} & set(TERRAIN_WORDS)
    assert kinds == set(KINDS) and terrains
    samples = [(s, R.notation(s, m), m) for s in _positions(2, options, every=5) for m in R.legal_moves(s)]
    monkeypatch.setattr(aliases, "ACTIONS", Aliases({}))
    monkeypatch.setattr(aliases, "TERRAINS", Aliases({}))
    monkeypatch.setattr(aliases, "SIDE_LETTERS", {})
    assert all(R.parse(s, text) == move for s, text, move in samples)


def _follow_phase(want):
    """The first position of a seeded random game where a legal move's notation satisfies want."""
    for s in _positions(10, {}):
        for move in R.legal_moves(s):
            if want(R.notation(s, move)):
                return s, move
    raise AssertionError("no such position")


def test_d6_d7_d9_d10_dutch_and_german_moves_in_seeded_games_are_the_english_moves():
    s, move = _follow_phase(lambda t: t.startswith("place"))
    text = R.notation(s, move)
    assert R.parse(s, text.replace("place", "leggen")) == R.parse(s, text.replace("place", "ANLEGEN")) == move
    s, move = _follow_phase(lambda t: t.startswith("deploy") and "E" in t and "S" in t)
    name = R.notation(s, move).split()[1]
    assert R.parse(s, "zetten " + name.replace("E", "O").replace("S", "Z")) == move
    assert R.parse(s, "Einsetzen " + name.replace("E", "o").replace("+", "")) == move
    assert R.notation(s, R.parse(s, "einsetzen " + name.replace("E", "O"))) == f"deploy {name}"
    # der See is not a lake alias: `see` stays the English side letters S+E.
    assert R.parse(s, "einsetzen see") == R.parse(s, "deploy s+e")
    s, move = _follow_phase(lambda t: t.startswith("remove"))
    x_y, name = R.notation(s, move).split()[1:]
    for text in (f"terugnemen {x_y} {name.replace('S', 'Z')}", f"verwijderen {x_y} {name}",
                 f"zurücknehmen {x_y} {name}", f"entfernen {x_y} {name.replace('E', 'O')}"):
        assert R.parse(s, text) == move, text
    assert R.parse(s, "passen") == R.parse(s, "pass")


def test_d9_a_lake_in_dutch_and_german():
    s, move = _follow_phase(lambda t: t in ("deploy sea", "deploy grassland", "deploy mountain"))
    word = R.notation(s, move).split()[1]
    for language in LANGUAGES:
        for alias in aliases.TERRAINS.of(language)[word]:
            assert R.parse(s, f"{aliases.ACTIONS.of(language)['deploy'][0]} {alias}") == move, alias


def test_a_wrong_word_gets_the_engines_reason():
    s = R.setup(2, {}, 1)
    with pytest.raises(IllegalMove, match="Unknown move 'zeilen 0,1 90'; write place 1,0 90"):
        R.parse(s, "zeilen 0,1 90")
    with pytest.raises(IllegalMove, match="The rotation is 0, 90, 180 or 270 degrees clockwise, not 45"):
        R.parse(s, "leggen 0,1 45")
    s, move = _follow_phase(lambda t: t.startswith("deploy"))
    with pytest.raises(IllegalMove, match="The tile just placed has no segment 'oost'"):
        R.parse(s, "zetten oost")  # sides are letters: O, not oost
    with pytest.raises(IllegalMove, match="First place your tile"):
        R.parse(R.setup(2, {}, 1), "zetten N")


def drawn_seven():
    """As in test_orders: seat 0 holds tile 7 (all mountain); its navigator stands on the start tile's sea."""
    return build_position(2, [(1, 0, -1, 0)], [(0, 0, 0, "N")], current=7, deck=(7, 5))


def test_d9_d10_orders_in_dutch_and_german_are_the_english_orders():
    state = drawn_seven()
    assert state.phase is Phase.PLACE
    english = R.parse_order(state, 0, "deploy w")
    assert R.parse_order(state, 0, "zetten W") == R.parse_order(state, 0, "einsetzen w") == english
    assert R.parse_order(state, 0, "inzetten N+O+Z+W") == R.parse_order(state, 0, "deploy N+E+S+W")
    assert R.order_notation(R.parse_order(state, 0, "einsetzen NOSW")) == "deploy N+E+S+W"
    assert R.parse_order(state, 0, "verwijderen 0,0 n") == R.parse_order(state, 0, "entfernen 0,0 N") \
        == Order("exact", ("remove", (0, 0, "N")))
    assert R.parse_order(state, 0, "passen") == R.parse_order(state, 0, "pass")
    with pytest.raises(OrderError, match="Place your tile with a move"):
        R.parse_order(state, 0, "leggen 1,0 0")
    with pytest.raises(OrderError, match="has no segment sea in any rotation"):
        R.parse_order(state, 0, "zetten zee")
    state = play(state, "leggen 1,0 0")
    assert R.parse_order(state, 0, "zetten O") == R.parse_order(state, 0, "deploy E")
