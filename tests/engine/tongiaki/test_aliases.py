"""Other languages (issue 24): the manuals' Dutch, German and French words as aliases of the notation.

An alias is read exactly as its English word; the notation the engine writes stays English;
no alias is a word of the English notation, so no text valid before means something else now.
"""

from __future__ import annotations

import random

import pytest

from engine.core import Aliases, IllegalMove, Move, Order, OrderError, derive_seed, fold
from engine.tongiaki import aliases
from engine.tongiaki.moves import KINDS
from engine.tongiaki.state import COLOURS, Phase
from engine.tongiaki.tiles import KEYS, NAMES, SIDE_NAMES, SIDE_WORDS

from tests.engine.tongiaki.util import R, build, options, pending, play, two_full_beaches

LANGUAGES = ("nl", "de", "fr")
TABLES = (aliases.ACTIONS, aliases.FROM, aliases.SIDES)
# Every word of the English notation: commands, `from`, directions, island names (whole, joined and
# their parts), water letters, colours.
ENGLISH = (set(KINDS) | {"from"} | set(SIDE_WORDS) | {side.lower() for side in SIDE_NAMES} | set(KEYS)
           | {part.lower() for name in NAMES for part in name.split()} | set(COLOURS))


def all_aliases():
    return [(table, english, language, word) for table in TABLES for english, languages in table.table.items()
            for language, words in languages.items() for word in words]


def translate(text: str, language: str, rng: random.Random) -> str:
    """An English notation in the words of one language's manual (any case)."""
    words = text.split()
    words[0] = rng.choice(aliases.ACTIONS.of(language)[words[0]])
    words = [rng.choice(aliases.FROM.of(language)["from"]) if w == "from" else w for w in words]
    if words[0] != text.split()[0] and text.split()[0] in ("emigrate", "tile"):  # the last word is the side
        words[-1] = rng.choice(aliases.SIDES.of(language)[words[-1]] + (words[-1],))
    return " ".join(w.upper() if rng.random() < 0.3 else w.capitalize() if rng.random() < 0.3 else w for w in words)


def test_no_alias_is_a_word_of_the_english_notation():
    for _, english, language, word in all_aliases():
        assert word not in ENGLISH and fold(word) not in ENGLISH, (english, language, word)
        assert fold(word).replace("-", "") not in ENGLISH, word
    # The water tile O keeps its one meaning: the manuals' O (oost, Ost, ouest) is no Tongiaki direction.
    assert "o" in KEYS and aliases.side("o") is None and aliases.side("ost") is None


def test_every_command_and_direction_has_its_dutch_german_and_french_words():
    for language in LANGUAGES:
        assert set(aliases.ACTIONS.of(language)) == set(KINDS)
        assert set(aliases.SIDES.of(language)) == set(SIDE_NAMES)
        assert set(aliases.FROM.of(language)) == {"from"}


def test_a_word_that_would_mean_two_things_is_left_out():
    # fr NO (nord-ouest) and SO (sud-ouest) are nl/de NO (NE) and de SO (SE): not French aliases.
    french = {w for words in aliases.SIDES.of("fr").values() for w in words}
    assert not french & set(aliases.LEFT_OUT["fr"])
    assert aliases.SIDES.english("no") == "NE" and aliases.SIDES.english("so") == "SE"
    with pytest.raises(ValueError, match="stands for both"):
        Aliases({"NE": {"de": ("no",)}, "NW": {"fr": ("no",)}})


def _positions(games: int, every: int):
    """Seeded positions of random games, 2 to 6 players."""
    for game in range(games):
        chooser = random.Random(game)
        s = R.setup(2 + game % 5, {}, derive_seed(game, "aliases"))
        step = 0
        while R.to_move(s) is not None:
            if step % every == 0:
                yield s
            s = R.apply(s, chooser.choice(R.legal_moves(s)))
            step += 1


def test_every_legal_move_reads_the_same_in_english_with_or_without_aliases_and_in_each_language(monkeypatch):
    rng = random.Random(24)
    checked = set()
    for s in _positions(games=10, every=3):
        for move in R.legal_moves(s):
            text = R.notation(s, move)
            assert R.parse(s, text) == move, text
            for language in LANGUAGES:
                other = translate(text, language, rng)
                assert R.parse(s, other) == move, (text, other)
                assert R.notation(s, R.parse(s, other)) == text  # written back in English
            checked.add(move.kind)
    assert checked == set(KINDS)
    # With the alias tables empty the English reading is the same: the aliases never touch it.
    samples = [(s, R.notation(s, m), m) for s in _positions(games=3, every=7) for m in R.legal_moves(s)]
    for name in ("ACTIONS", "FROM", "SIDES"):
        monkeypatch.setattr(aliases, name, Aliases({}))
    assert all(R.parse(s, text) == move for s, text, move in samples)


def test_t11_t13_dutch_and_german_moves_in_a_seeded_game_are_the_english_moves():
    """From random play: the first emigration (T11) and landing (T13) typed in Dutch and German."""
    seen = {}
    for s in _positions(games=30, every=1):
        kind = s.phase
        if kind in (Phase.EMIGRATE, Phase.LAND) and kind not in seen:
            seen[kind] = s
        if len(seen) == 2:
            break
    s = seen[Phase.EMIGRATE]
    island, beach, side = R.legal_moves(s)[0].args
    name = NAMES[KEYS.index(island)]
    nl_side = {"N": "noord", "NE": "NO", "SE": "ZO", "S": "Z", "SW": "ZW", "NW": "NW"}[side]
    de_side = {"N": "Nord", "NE": "NO", "SE": "SO", "S": "Süd", "SW": "SW", "NW": "Nordwest"}[side]
    english = R.parse(s, f"emigrate {name} {beach} {side}")
    assert R.parse(s, f"Emigreren {name} {beach} {nl_side}") == english
    assert R.parse(s, f"AUSWANDERN {name} {beach} {de_side}") == english
    assert R.notation(s, R.parse(s, f"auswandern {name} {beach} {de_side}")) == f"emigrate {name} {beach} {side}"
    s = seen[Phase.LAND]
    colour, island, beach = R.legal_moves(s)[0].args
    name = NAMES[KEYS.index(island)]
    english = R.parse(s, f"land {colour} {name} {beach}")
    assert R.parse(s, f"landen {colour} {name} {beach}") == english == R.parse(s, f"débarquer {colour} {name} {beach}")


def test_t7_t8_t9_t18_the_action_words_of_the_manuals():
    tiles = [("Tonga", 0, 0, 0), ("Rapa Nui", 0, -1, 3), ("Hiva Oa", 1, 0, 5)]
    s = build(2, tiles=tiles, ships={("Rapa Nui", 1): "blue blue green", ("Hiva Oa", 3): "blue",
                                     ("Tonga", 2): "green"})
    expand = Move("expand", ("rapanui", (1, 2)))
    for text in ("vermeerderen Rapa Nui 1 2", "Vermehren rapanui 1,2", "ajouter RAPA NUI 1 2"):
        assert R.parse(s, text) == expand, text
    for text in ("koning Hiva Oa", "König hivaoa", "koenig Hiva Oa", "KONIG hiva oa", "roi Hiva Oa"):
        assert R.parse(s, text) == Move("king", ("hivaoa",)), text
    for text in ("stichten", "Neubesiedlung", "fonder"):
        assert R.parse(s, text) == Move("settle", ()), text
    ships = {("Tonga", b): "blue blue" for b in range(1, 7)}
    ships.update({("Rapa Nui", 1): "blue blue", ("Rapa Nui", 2): "blue", ("Hiva Oa", 3): "green"})
    s = build(2, tiles=tiles, ships=ships)
    shift = Move("expand", ("rapanui", (2,), "tonga", 6))
    for text in ("vermeerderen Rapa Nui 2 van Tonga 6", "vermehren Rapa Nui 2 von Tonga 6",
                 "ajouter Rapa Nui 2 de Tonga 6", "expand Rapa Nui 2 von Tonga 6"):
        assert R.parse(s, text) == shift, text
    assert R.notation(s, R.parse(s, "vermehren Rapa Nui 2 von Tonga 6")) == "expand Rapa Nui 2 from Tonga 6"


def test_t5_t9_placing_and_laying_a_tile():
    s = R.setup(3, {}, 5)
    assert R.parse(s, "plaatsen Tonga 3") == R.parse(s, "einsetzen tonga 3") == R.parse(s, "place Tonga 3")
    assert R.parse(s, "poser Tonga 3") == Move("place", ("tonga", (3,)))
    s = build(2, tiles=[("Tonga", 0, 0, 0), ("C", 0, -1, 3)], ships={("Tonga", 1): "blue", ("Tonga", 2): "green"})
    s = play(s, "stichten")
    assert "tile C N" in options(s) and "tile Tonga S" in options(s)
    assert R.parse(s, "tegel C noord") == R.parse(s, "Karte c Nord") == R.parse(s, "carte C nord") == Move("tile", ("c", "N"))
    assert R.parse(s, "tegel Tonga Z") == R.parse(s, "karte Tonga süd") == Move("tile", ("tonga", "S"))


def test_a_wrong_word_gets_the_engines_reason():
    s = two_full_beaches()
    with pytest.raises(IllegalMove, match="Unknown command 'segelen'; now you can: emigrate"):
        R.parse(s, "segelen Tonga 5 ZW")
    with pytest.raises(IllegalMove, match="A direction is one of N, NE, SE, S, SW or NW, not 'oost'"):
        R.parse(s, "emigreren Tonga 5 oost")  # Tongiaki's hexes have no east side
    with pytest.raises(IllegalMove, match="There is no island 'atlantis'"):
        R.parse(s, "auswandern Atlantis 5 SW")
    with pytest.raises(IllegalMove, match="Only full beaches emigrate, through their own jetties"):
        R.parse(s, "émigrer Tonga 6 no")  # NO is north-east (nl/de), not nord-ouest: see LEFT_OUT


def test_t11_t9_t13_orders_in_dutch_and_german_are_the_english_orders():
    s = two_full_beaches()
    assert pending(s)["decision"] == "emigrate"
    english = R.parse_order(s, 0, "emigrate NE N SW")
    assert english == Order("emigrate", ("NE", "N", "SW"))
    assert R.parse_order(s, 0, "emigreren NO noord ZW") == english
    assert R.parse_order(s, 0, "Auswandern nordost N süd-west") == english
    assert R.order_notation(R.parse_order(s, 0, "emigreren NO noord ZW")) == "emigrate NE N SW"
    assert R.parse_order(s, 0, "tegel Z ZO") == R.parse_order(s, 0, "karte süd SO") == Order("tile", ("S", "SE"))
    assert R.parse_order(s, 0, "landen green blue 2 1") == R.parse_order(s, 0, "land green blue 2 1")
    assert R.parse_order(s, 0, "plaatsen 2 1") == R.parse_order(s, 0, "einsetzen 2 1") == Order("place", (2, 1))
    # a move as an order
    assert R.parse_order(s, 0, "emigreren Tonga 5 ZW") == R.parse_order(s, 0, "emigrate Tonga 5 SW")
    with pytest.raises(OrderError, match="Name each side only once"):
        R.parse_order(s, 0, "auswandern NO nordost")


def test_orders_from_random_play_read_the_same_in_each_language():
    rng = random.Random(7)
    found = 0
    for s in _positions(games=12, every=2):
        seat = R.to_move(s)
        if s.phase not in (Phase.ACTION, Phase.EMIGRATE, Phase.LAND):
            continue
        colours = " ".join(s.colours)
        sides = rng.sample(SIDE_NAMES, 3)
        for english, kind in ((f"land {colours} 2 1", "land"), (f"emigrate {' '.join(sides)}", "emigrate"),
                              (f"tile {' '.join(sides)}", "tile"), ("place 3 1", "place")):
            order = R.parse_order(s, seat, english)
            for language in LANGUAGES:
                words = english.split()
                words[0] = rng.choice(aliases.ACTIONS.of(language)[kind])
                if kind in ("emigrate", "tile"):
                    words[1:] = [rng.choice(aliases.SIDES.of(language)[w] + (w,)) for w in words[1:]]
                assert R.parse_order(s, seat, " ".join(words)) == order, (english, words)
            found += 1
    assert found > 20
