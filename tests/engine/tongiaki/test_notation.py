"""The text notation: what players type in an email, and the errors they get back."""

from __future__ import annotations

import pytest

from engine.core import IllegalMove, Move

from tests.engine.tongiaki.util import R, build, options, play

TILES = [("Tonga", 0, 0, 0), ("Rapa Nui", 0, -1, 3), ("Hiva Oa", 1, 0, 5)]


def test_every_kind_of_move_round_trips():
    s = build(2, tiles=TILES, ships={("Rapa Nui", 1): "blue blue green", ("Hiva Oa", 3): "blue",
                                     ("Tonga", 2): "green"})
    for move in R.legal_moves(s):
        assert R.parse(s, R.notation(s, move)) == move
    assert R.parse(s, "expand Rapa Nui 1 2") == Move("expand", ("rapanui", (1, 2)))
    assert R.parse(s, "expand Hiva Oa 1") == Move("expand", ("hivaoa", (1,)))
    assert R.parse(s, "settle") == Move("settle", ())


def test_island_names_with_or_without_space_any_case_extra_spaces():
    s = build(2, tiles=TILES, ships={("Rapa Nui", 1): "blue blue green", ("Tonga", 2): "green"})
    move = Move("expand", ("rapanui", (1, 2)))
    for text in ["expand Rapa Nui 1 2", "EXPAND rapanui 1 2", "  expand   RAPA   nui 1    2 ", "expand rapanui 1,2",
                 "Expand RapaNui 1 2"]:
        assert R.parse(s, text) == move, text


def test_directions_and_colours():
    s = build(2, tiles=TILES, ships={("Rapa Nui", 1): "blue blue green green", ("Rapa Nui", 2): "blue",
                                     ("Tonga", 2): "green"})
    s = play(s, "expand Rapa Nui 1 2")
    assert options(s) == ["emigrate Rapa Nui 1 SW", "emigrate Rapa Nui 1 NW"]
    assert R.parse(s, "emigrate rapa nui 1 northwest") == R.parse(s, "Emigrate RAPANUI 1 nw")
    with pytest.raises(IllegalMove, match="N, NE, SE, S, SW or NW"):
        R.parse(s, "emigrate Rapa Nui 1 up")
    s = play(s, "emigrate Rapa Nui 1 SW")
    assert R.parse(s, options(s)[0]) == R.legal_moves(s)[0]
    with pytest.raises(IllegalMove, match="blue, green"):
        R.parse(s, "land red " + options(s)[0].split(" ", 2)[2])


def test_unknown_island_beach_or_command_lists_what_is_valid():
    s = build(2, tiles=TILES, ships={("Rapa Nui", 1): "blue", ("Tonga", 2): "green"})
    with pytest.raises(IllegalMove) as error:
        R.parse(s, "expand Atlantis 1")
    assert "Atlantis".lower() in str(error.value) and "Tonga, Rapa Nui, Hiva Oa" in str(error.value)
    with pytest.raises(IllegalMove, match="Rapa Nui has beaches 1 to 2; '3' is not one of them"):
        R.parse(s, "expand Rapa Nui 3")
    with pytest.raises(IllegalMove, match="now you can: expand, king, settle"):
        R.parse(s, "sail away")
    with pytest.raises(IllegalMove, match="Samoa is not on the board"):
        R.parse(s, "expand Samoa 1")
    with pytest.raises(IllegalMove, match="no ship on Hiva Oa"):
        R.parse(s, "expand Hiva Oa 2")
    with pytest.raises(IllegalMove, match="write it like 'king Fiji'"):
        R.parse(s, "king Rapa Nui please")


def test_moves_at_the_wrong_time_say_what_is_pending():
    s = build(2, tiles=TILES, ships={("Rapa Nui", 1): "blue blue green green", ("Rapa Nui", 2): "blue",
                                     ("Tonga", 2): "green"})
    s = play(s, "expand Rapa Nui 1 2")
    with pytest.raises(IllegalMove, match="You cannot expand now: a beach is full"):
        R.parse(s, "expand Tonga 2")
    with pytest.raises(IllegalMove, match="Only full beaches emigrate"):
        R.parse(s, "emigrate Rapa Nui 2 N")


def test_water_tiles_are_named_by_letter_in_tile_moves():
    s = build(2, tiles=[("Tonga", 0, 0, 0), ("C", 0, -1, 3)], ships={("Tonga", 1): "blue", ("Tonga", 2): "green"})
    s = play(s, "settle")
    assert "tile C N" in options(s) and "tile Tonga S" in options(s)
    assert R.parse(s, "tile c north") == Move("tile", ("c", "N"))
    with pytest.raises(IllegalMove, match="no island or water tile 'q'"):
        R.parse(s, "tile Q N")


def test_expansion_when_all_ships_are_on_the_board_names_the_ship_taken():
    ships = {("Tonga", b): "blue blue" for b in range(1, 7)}
    ships.update({("Rapa Nui", 1): "blue blue", ("Rapa Nui", 2): "blue", ("Hiva Oa", 3): "green"})
    s = build(2, tiles=TILES, ships=ships)
    move = R.parse(s, "Expand Rapa Nui 2 FROM tonga 6")
    assert move == Move("expand", ("rapanui", (2,), "tonga", 6))
    assert R.notation(s, move) == "expand Rapa Nui 2 from Tonga 6"
