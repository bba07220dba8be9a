"""One test (or more) per rule of the digest, T1..T23, each on the exact position the rule describes."""

from __future__ import annotations

import pytest

from engine.core import IllegalMove, OptionError

from tests.engine.tongiaki.util import (TONGA_RING, R, beach, build, events, options, pending, play, supply, tile_at,
                                       two_full_beaches)

TONGA = ("Tonga", 0, 0, 0)


# --- Components and setup -----------------------------------------------------------------


def test_t1_two_to_six_players_fifteen_ships_each_in_seat_colours():
    for players in range(2, 7):
        view = R.view(R.setup(players, {}, 1), None)
        assert [seat["supply"] for seat in view["seats"]] == [15] * players
        assert view["colours"] == ["blue", "green", "orange", "purple", "red", "yellow"][:players]
    for players in (1, 7):
        with pytest.raises(OptionError):
            R.setup(players, {}, 1)


def test_t5_setup_two_rounds_on_tonga_never_a_full_beach():
    s = R.setup(3, {}, 5)
    order = []
    for text in ["place Tonga 1", "place Tonga 1", "place Tonga 2", "place Tonga 2", "place Tonga 3"]:
        order.append(pending(s)["colour"])
        s = play(s, text)
    assert order == ["blue", "green", "orange", "blue", "green"]
    assert "place Tonga 1" not in options(s) and "place Tonga 2" not in options(s)  # 2 ships: no more
    with pytest.raises(IllegalMove):
        play(s, "place Tonga 1")
    s = play(s, "place Tonga 3")
    assert pending(s)["decision"] == "action"
    assert [supply(s, c) for c in ("blue", "green", "orange")] == [13, 13, 13]


def test_t5_six_players_fill_every_tonga_beach_to_two_the_last_ships_by_themselves():
    s = R.setup(6, {}, 5)
    for _ in range(10):  # the first legal beach each time: beaches 1 to 5 fill up in order
        s = R.apply(s, R.legal_moves(s)[0])
    # Twelve ships for twelve places: the last two have only beach 6 left, so the engine places them.
    assert [len(beach(s, "Tonga", b)) for b in range(1, 7)] == [2] * 6
    assert pending(s)["decision"] == "action"
    assert R.view(s, None)["events"] == [{"event": "auto", "colour": "red", "move": "place Tonga 6"},
                                         {"event": "auto", "colour": "yellow", "move": "place Tonga 6"}]


def test_t6_first_seat_starts_the_game():
    s = R.setup(4, {}, 9)
    assert R.to_move(s) == 0
    for _ in range(8):
        s = R.apply(s, R.legal_moves(s)[-1])
    assert pending(s) == {"decision": "action", "colour": "blue", "no_ship_on_board": False,
                          "all_ships_on_board": False}


# --- The three actions ------------------------------------------------------------------


def test_t7_expand_as_many_as_you_have_one_per_beach():
    s = build(2, tiles=[TONGA, ("Samoa", 0, -1, 3)],
              ships={("Samoa", 1): "blue", ("Samoa", 2): "blue green", ("Tonga", 4): "green"})
    assert [o for o in options(s) if o.startswith("expand")] == [
        "expand Samoa 1 2", "expand Samoa 1 3", "expand Samoa 2 3"]  # blue has 2 there: 2 beaches
    s = play(s, "expand Samoa 1 3")
    assert beach(s, "Samoa", 1) == ["blue", "blue"] and beach(s, "Samoa", 3) == ["blue"]
    assert supply(s, "blue") == 15 - 4
    assert pending(s)["colour"] == "green"


def test_t7_expand_capped_by_the_number_of_beaches():
    # 4 blue ships on Tubuai (2 beaches): only 2 new ships, one per beach.
    s = build(2, tiles=[TONGA, ("Tubuai", 0, -1, 3)],
              ships={("Tubuai", 1): "blue blue", ("Tubuai", 2): "blue", ("Tonga", 4): "blue green"})
    assert [o for o in options(s) if "Tubuai" in o and o.startswith("expand")] == ["expand Tubuai 1 2"]


def test_t7_no_expansion_on_a_king_island_or_without_a_ship():
    s = build(2, tiles=[TONGA, ("Fiji", 0, -1, 3), ("Samoa", 1, 0, 5)],
              ships={("Tonga", 1): "blue", ("Samoa", 1): "green"}, kings={"Fiji": "blue"})
    assert not any("Fiji" in o or "Samoa" in o for o in options(s) if o.startswith("expand"))
    with pytest.raises(IllegalMove, match="king island"):
        play(s, "expand Fiji 1")
    with pytest.raises(IllegalMove, match="no ship on Samoa"):
        play(s, "expand Samoa 1")


def test_t8_become_king_one_ship_stays_the_rest_go_home():
    s = build(2, tiles=[TONGA, ("Fiji", 0, -1, 3)],
              ships={("Fiji", 1): "blue blue", ("Fiji", 3): "blue", ("Tonga", 2): "blue green"})
    assert "king Fiji" in options(s) and "king Tonga" not in options(s)
    s = play(s, "king Fiji")
    fiji = tile_at(s, 0, -1)
    assert fiji["king"] == "blue" and all(not b["ships"] for b in fiji["beaches"])
    assert supply(s, "blue") == 15 - 1 - 1  # the marker and the ship on Tonga
    assert R.view(s, None)["seats"][0]["king_islands"] == ["Fiji"]


def test_t8_king_only_alone_and_at_most_twice():
    s = build(2, tiles=[TONGA, ("Fiji", 0, -1, 3), ("Samoa", 1, 0, 5), ("Oahu", -1, 0, 2)],
              ships={("Samoa", 1): "blue green", ("Oahu", 1): "blue", ("Tonga", 1): "blue"},
              kings={"Fiji": "blue"})
    assert "king Samoa" not in options(s)  # green is there too
    assert "king Oahu" in options(s)
    s = build(2, tiles=[TONGA, ("Fiji", 0, -1, 3), ("Samoa", 1, 0, 5), ("Oahu", -1, 0, 2)],
              ships={("Samoa", 1): "blue", ("Tonga", 1): "green"}, kings={"Fiji": "blue", "Oahu": "blue"})
    assert "king Samoa" not in options(s)
    with pytest.raises(IllegalMove, match="two king islands"):
        play(s, "king Samoa")
    with pytest.raises(IllegalMove, match="Tonga can never"):
        play(build(2, ships={("Tonga", 1): "blue"}), "king Tonga")


def test_t9_new_settlement_draws_until_an_island():
    s = build(2, tiles=[TONGA, ("Fiji", 0, -1, 3), ("Samoa", 1, 0, 5)],
              ships={("Samoa", 1): "blue", ("Tonga", 2): "blue green"}, kings={"Fiji": "blue"},
              pile=["A", "Oahu", "B", "Hawaii"])
    s = play(s, "settle")
    assert beach(s, "Samoa", 1) == [] and beach(s, "Tonga", 2) == ["green"]
    assert tile_at(s, 0, -1)["king"] == "blue"  # king islands stay
    assert pending(s)["decision"] == "tile" and pending(s)["purpose"] == "settlement"
    assert "tile Tonga S" in options(s) and "tile Samoa SE" in options(s)
    s = play(s, "tile Tonga S")
    assert tile_at(s, 0, 1)["tile"] == "A" and tile_at(s, 0, 1)["red_dot"] == "N"
    assert pending(s)["decision"] == "tile"  # water: lay the next one
    s = play(s, "tile A S")
    assert tile_at(s, 0, 2)["tile"] == "Oahu"
    assert options(s) == ["place Oahu 1", "place Oahu 2", "place Oahu 3"]
    s = play(s, "place Oahu 2")
    assert beach(s, "Oahu", 2) == ["blue"] and supply(s, "blue") == 15 - 1 - 1
    assert pending(s)["colour"] == "green"  # T9 ends the turn


# --- Consequences of an expansion ----------------------------------------------------------


def test_t10_no_full_beach_the_turn_ends():
    s = build(2, ships={("Tonga", 1): "blue", ("Tonga", 2): "green"})
    s = play(s, "expand Tonga 3")
    assert pending(s)["decision"] == "action" and pending(s)["colour"] == "green"


def test_t11_several_full_beaches_active_player_picks_order_and_jetty():
    s = two_full_beaches()
    assert options(s) == ["emigrate Tonga 5 SW", "emigrate Tonga 6 NW"]
    s = play(s, "emigrate Tonga 6 NW")   # the second full beach first
    assert tile_at(s, -1, 0)["tile"] == "Samoa"
    s = play(s, "land blue Samoa 1", "land blue Samoa 2")
    # Green onto Samoa 3 is the only way left, and Tonga 5 (still full) has one jetty:
    # the engine makes both decisions.
    assert [e["move"] for e in events(s, "auto")] == ["land green Samoa 3", "emigrate Tonga 5 SW"]
    assert tile_at(s, -1, 1)["tile"] == "Fiji"
    # A beach with two jetties: the player picks the jetty.
    s = build(2, tiles=[TONGA, ("Tokelau", 0, -1, 3)],
              ships={("Tokelau", 3): "green", ("Tokelau", 1): "blue", ("Tonga", 2): "green"})
    s = play(s, "expand Tokelau 3")
    assert options(s) == ["emigrate Tokelau 3 NE", "emigrate Tokelau 3 SE"]


def test_t12_fleet_crosses_laid_tiles_if_it_has_enough_colours():
    # Water tile D north of Tonga, red dot S: its track from S (risk 3) leads NE, to Samoa.
    tiles = [TONGA, ("D", 0, -1, 3), ("Samoa", 1, -2, 5)]
    three = R.build(3, tiles=tiles, ships={("Tonga", 1): "green orange", ("Tonga", 2): "blue", ("Tonga", 3): "green"})
    s = play(three, "expand Tonga 1")  # blue, green, orange: 3 colours over a 3
    assert [e["event"] for e in events(s)] == ["auto", "cross", "arrive"]
    assert events(s, "cross") == [{"event": "cross", "tile": "D", "risk": 3}]
    assert pending(s)["island"] == "Samoa" and pending(s)["fleet"] == ["blue", "green", "orange"]
    two = R.build(3, tiles=tiles, ships={("Tonga", 1): "blue green", ("Tonga", 3): "green"})
    s = play(two, "expand Tonga 1")   # blue, blue, green: 2 colours over a 3
    wreck = events(s, "shipwreck")[0]
    assert wreck == {"event": "shipwreck", "tile": "D", "risk": 3, "ships": ["blue", "blue", "green"]}
    assert beach(s, "Tonga", 1) == [] and supply(s, "blue") == 15 and supply(s, "green") == 14
    assert pending(s)["colour"] == "green"


def test_t12_fleet_draws_into_an_empty_hex_and_enters_by_the_red_dot():
    s = build(2, ships={("Tonga", 4): "blue green", ("Tonga", 1): "green"}, pile=["P", "Hawaii", "A", "Fiji"])
    s = play(s, "expand Tonga 4")
    # P is laid south of Tonga with its red dot N; the fleet follows P's track from edge 0
    # to edge 5 (risk 0), which lies NW, and draws Hawaii there (red dot SE, towards P).
    assert tile_at(s, 0, 1)["tile"] == "P" and tile_at(s, 0, 1)["rotation"] == 0
    assert tile_at(s, -1, 1)["tile"] == "Hawaii" and tile_at(s, -1, 1)["red_dot"] == "SE"
    assert pending(s)["decision"] == "land" and pending(s)["island"] == "Hawaii"


def test_t13_landing_one_ship_per_beach_first_then_any_free_place():
    # Rapa Nui north of Tonga (red dot S): beach 1's jetties point SW and NW; Samoa lies NW.
    s = build(2, tiles=[TONGA, ("Rapa Nui", 0, -1, 3), ("Samoa", -1, -1, 1)],
              ships={("Rapa Nui", 1): "blue blue green green", ("Rapa Nui", 2): "blue", ("Tonga", 1): "green",
                     ("Samoa", 3): "green green green green"})
    s = play(s, "expand Rapa Nui 1 2", "emigrate Rapa Nui 1 NW")
    assert pending(s)["fleet"] == ["blue", "blue", "blue", "green", "green"]
    assert pending(s)["beaches"] == [1, 2, 3]
    s = play(s, "land blue Samoa 3")          # beach 3 is full now (5 places)
    assert pending(s)["beaches"] == [1, 2]    # each beach with a free place once, first
    with pytest.raises(IllegalMove, match="free place"):
        play(s, "land blue Samoa 1", "land blue Samoa 1")
    s = play(s, "land green Samoa 1", "land green Samoa 2")
    assert pending(s)["beaches"] == [1, 2]    # then any beach with a free place
    s = play(s, "land blue Samoa 2", "land blue Samoa 2")
    assert beach(s, "Samoa", 1) == ["green"] and beach(s, "Samoa", 2) == ["blue", "blue", "green"]
    # Samoa 3 filled: the chain goes on (its only jetty: the engine sails).
    assert events(s, "auto")[0]["move"] == "emigrate Samoa 3 N"


def test_t13_surplus_ships_go_back_to_their_owners():
    # Tubuai north of Tonga has one free place on each beach; a fleet of 3 arrives.
    s = build(3, tiles=[TONGA, ("Tubuai", 0, -1, 3)],
              ships={("Tonga", 1): "blue green", ("Tubuai", 1): "orange orange", ("Tubuai", 2): "orange orange",
                     ("Tonga", 3): "green"})
    s = play(s, "expand Tonga 1")
    assert options(s) == ["land blue Tubuai 1", "land blue Tubuai 2", "land green Tubuai 1", "land green Tubuai 2"]
    s = play(s, "land green Tubuai 1")   # the active player decides who stays: blue lands, blue goes home
    assert events(s, "auto")[0]["move"] == "land blue Tubuai 2"
    assert events(s, "return") == [{"event": "return", "ships": ["blue"]}]
    assert beach(s, "Tubuai", 1) == ["green", "orange", "orange"]
    assert beach(s, "Tubuai", 2) == ["blue", "orange", "orange"]
    assert supply(s, "blue") == 14


def test_t13_fleet_meets_an_island_without_a_free_place():
    # Tonga beaches 1 and 2 fill together. Beach 1's fleet fills both beaches of Tubuai (N);
    # beach 2's fleet is led by water tile O straight to Tubuai: no free place, all go home.
    s = build(2, tiles=[TONGA, ("Tubuai", 0, -1, 3), ("O", 1, -1, 0)],
              ships={("Tonga", 1): "blue green", ("Tonga", 2): "blue green", ("Tubuai", 1): "green green",
                     ("Tubuai", 2): "green green"})
    s = play(s, "expand Tonga 1 2", "emigrate Tonga 1 N", "land blue Tubuai 1", "land blue Tubuai 2")
    assert beach(s, "Tubuai", 1) == ["blue", "green", "green"] and beach(s, "Tubuai", 2) == ["blue", "green", "green"]
    assert events(s, "return")[0]["ships"] == ["green"]
    before = (supply(s, "blue"), supply(s, "green"))
    s = play(s, "emigrate Tonga 2 NE")
    assert events(s, "arrive")[0]["tile"] == "Tubuai"
    assert events(s, "return")[0]["ships"] == ["blue", "blue", "green"]
    assert (supply(s, "blue"), supply(s, "green")) == (before[0] + 2, before[1] + 1)


def test_t14_chain_move_goes_on_while_a_beach_is_full():
    s = build(2, tiles=[TONGA, ("Tubuai", 0, -1, 3)],
              ships={("Tonga", 1): "blue green", ("Tubuai", 1): "green green", ("Tonga", 3): "green"})
    s = play(s, "expand Tonga 1", "land green Tubuai 1")  # Tubuai 1 is full: the chain goes on
    assert beach(s, "Tubuai", 2) == ["blue", "blue"]    # the rest landed by the engine (one way only)
    assert pending(s)["decision"] == "emigrate" and pending(s)["colour"] == "blue"
    assert options(s) == ["emigrate Tubuai 1 SW", "emigrate Tubuai 1 NW"]


def test_t15_king_island_turns_the_fleet_back():
    # See test_examples for the worked example; here: a laid water tile leads to the king island.
    # O north of Tonga (red dot N): its track from S (risk 2) leads SE, into the king island Fiji.
    s = build(2, tiles=[TONGA, ("O", 0, -1, 0), ("Fiji", 1, -1, 2)],
              ships={("Tonga", 1): "blue green", ("Tonga", 2): "green"}, kings={"Fiji": "green"})
    s = play(s, "expand Tonga 1")
    assert events(s, "turned_back") == [{"event": "turned_back", "king_island": "Fiji", "to": "Tonga"}]
    assert pending(s)["island"] == "Tonga" and pending(s)["beaches"] == [1, 2, 3, 4, 5, 6]


# --- Special situations ------------------------------------------------------------------


def test_t16_infinite_chain_island_leaves_and_active_player_restarts():
    # 13 ships on Tonga's 18 places, every jetty leads back to Tonga: 6 beaches of 2 hold 12,
    # so some beach is always full. No choice can end the chain.
    ships = {("Tonga", b): "green green" for b in range(2, 7)}
    ships[("Tonga", 1)] = "blue green"
    s = build(2, tiles=[TONGA] + TONGA_RING, ships=ships, pile=["A", "Samoa", "B", "Fiji"])
    s = play(s, "expand Tonga 1")
    assert events(s, "infinite_chain") == [{"event": "infinite_chain", "tile": "Tonga",
                                            "ships": ["blue", "blue"] + ["green"] * 11}]
    view = R.view(s, None)
    assert view["removed"] == ["Tonga"] and all(t["tile"] != "Tonga" for t in view["tiles"])
    assert supply(s, "blue") == 15 and supply(s, "green") == 15
    # No island is left: blue lays tiles until an island comes and places one ship there.
    assert pending(s) == {"decision": "tile", "colour": "blue", "purpose": "infinite_chain",
                          "open": pending(s)["open"]}
    assert "tile H S" in options(s)  # the hole where Tonga was is an open position
    s = play(s, "tile H S")
    assert tile_at(s, 0, 0)["tile"] == "A" and pending(s)["decision"] == "tile"
    s = play(s, "tile H N")
    assert pending(s)["decision"] == "place" and pending(s)["island"] == "Samoa"
    s = play(s, "place Samoa 1")
    assert pending(s)["colour"] == "green" and supply(s, "blue") == 14


def test_t16_no_restart_when_islands_remain_and_ships_are_left():
    ships = {("Tonga", b): "green green" for b in range(2, 7)}
    ships[("Tonga", 1)] = "blue green"
    ships[("Samoa", 2)] = "blue"
    s = build(2, tiles=[TONGA, ("Samoa", 5, 5, 0)] + TONGA_RING, ships=ships)
    s = play(s, "expand Tonga 1")
    assert events(s, "infinite_chain") and pending(s)["decision"] == "action" and pending(s)["colour"] == "green"
    assert supply(s, "blue") == 14


def test_t16_chain_that_can_end_is_not_infinite():
    # Only 11 ships: 6 beaches of 2 can hold them, so some choices end the chain.
    ships = {("Tonga", b): "green green" for b in range(2, 6)}
    ships[("Tonga", 1)] = "blue green"
    s = build(2, tiles=[TONGA] + TONGA_RING, ships=ships)
    s = play(s, "expand Tonga 1")
    assert not events(s, "infinite_chain") and pending(s)["decision"] == "land"


def test_t17_no_ship_on_the_board_three_ways_to_restart():
    s = build(2, tiles=[TONGA, ("Fiji", 0, -1, 3), ("Samoa", 1, 0, 5)],
              ships={("Tonga", 1): "green", ("Samoa", 2): "green"}, kings={"Fiji": "blue"})
    moves = options(s)
    assert pending(s)["no_ship_on_board"] is True
    assert "place Tonga 1 2" in moves and "place Tonga 5 6" in moves and "place Tonga 1" not in moves
    assert "place Samoa 1" in moves and not any("Fiji" in m for m in moves)
    assert "settle" in moves and not any(m.startswith("expand") or m.startswith("king") for m in moves)
    assert len([m for m in moves if m.startswith("place Tonga")]) == 15
    s = play(s, "place Tonga 1 4")
    assert beach(s, "Tonga", 1) == ["blue", "green"] and beach(s, "Tonga", 4) == ["blue"]
    assert supply(s, "blue") == 15 - 1 - 2


def test_t17_a_beach_filled_this_way_emigrates():
    s = build(2, ships={("Tonga", 1): "green green"}, pile=["Samoa", "A"])
    s = play(s, "place Tonga 1 2")
    assert tile_at(s, 0, -1)["tile"] == "Samoa"  # the only jetty: the engine sailed
    assert pending(s)["decision"] == "land"


def test_t18_all_fifteen_ships_on_the_board_expand_moves_one():
    ships = {("Tonga", 1): "blue blue", ("Tonga", 2): "blue blue", ("Tonga", 4): "blue", ("Samoa", 1): "blue blue",
             ("Samoa", 2): "blue blue blue", ("Samoa", 3): "blue blue blue blue", ("Tonga", 3): "green"}
    s = build(2, tiles=[TONGA, ("Samoa", 0, -1, 3), ("Fiji", 3, 3, 0)], ships=ships, kings={"Fiji": "blue"})
    assert supply(s, "blue") == 0 and pending(s)["all_ships_on_board"] is True
    moves = options(s)
    assert "expand Samoa 1 from Tonga 1" in moves and "expand Tonga 5 from Samoa 3" in moves
    assert "expand Samoa 1 from Samoa 1" not in moves and "expand Samoa 1 2" not in moves
    s = play(s, "expand Tonga 5 from Samoa 3")
    assert beach(s, "Tonga", 5) == ["blue"] and len(beach(s, "Samoa", 3)) == 3 and supply(s, "blue") == 0


def test_t19_too_few_ships_in_supply():
    ships = {("Tonga", b): "blue" for b in range(1, 5)}
    ships.update({("Samoa", 1): "blue blue", ("Samoa", 2): "blue blue blue", ("Samoa", 3): "blue blue blue blue"})
    s = build(2, tiles=[TONGA, ("Samoa", 0, -1, 3)], ships=ships)  # 13 on the board, 2 in supply
    assert supply(s, "blue") == 2
    assert "expand Tonga 1 2" in options(s) and not any(
        len(o.split()) > 4 for o in options(s) if o.startswith("expand Tonga"))
    s = play(s, "expand Tonga 5 6")
    assert supply(s, "blue") == 0


# --- End of the game -------------------------------------------------------------------


def test_t20_game_ends_when_the_last_water_tile_is_laid():
    s = build(3, ships={("Tonga", 1): "blue", ("Tonga", 2): "green"}, pile=["Samoa", "A", "Fiji"])
    # Orange has no ship on the board (T17) and settles: Samoa, then the last water tile A.
    s = play(s, "expand Tonga 3", "expand Tonga 4", "settle", "tile Tonga S", "place Samoa 1")
    assert R.to_move(s) == 0
    s = play(s, "settle", "tile Samoa S")
    assert R.to_move(s) is None and R.result(s).reason == "The last water tile has been laid."
    assert R.legal_moves(s) == []


def test_t20_game_ends_when_the_last_island_tile_is_laid():
    # Only Samoa is left of the islands: it is the last one.
    s = R.build(2, tiles=[TONGA] + [(n, 10 + i, 0, 0) for i, n in enumerate(
        ["Muroroa", "Nauru", "Tubuai", "Rarotonga", "Rapa Nui", "Tokelau", "Tuamotu", "Hiva Oa", "Mangareva",
         "Oahu", "Tahiti", "Tuvalu", "Fiji", "Hawaii"])],
        ships={("Tonga", 1): "blue", ("Tonga", 2): "green"}, pile=["A", "Samoa", "B"])
    assert R.view(s, None)["pile"] == {"size": 3, "islands": 1, "water": 2}
    s = play(s, "settle", "tile Tonga S", "tile A S", "place Samoa 3")
    assert R.result(s).reason == "The last island tile has been laid."
    assert R.view(s, None)["on_table"] == {"islands": 16, "water": 1}


def test_t21_last_island_the_fleet_lands_then_no_more_emigration():
    islands = ["Muroroa", "Nauru", "Tubuai", "Rarotonga", "Rapa Nui", "Tokelau", "Tuamotu", "Hiva Oa", "Mangareva",
               "Oahu", "Tahiti", "Tuvalu", "Fiji", "Hawaii"]
    s = R.build(2, tiles=[TONGA] + [(n, 10 + i, 0, 0) for i, n in enumerate(islands)],
                ships={("Tonga", 1): "blue green", ("Tonga", 2): "blue green"}, pile=["Samoa", "A"])
    s = play(s, "expand Tonga 1 2", "emigrate Tonga 1 N")
    assert pending(s)["last_tile"] is True and pending(s)["island"] == "Samoa"
    s = play(s, "land blue Samoa 1", "land blue Samoa 2")  # green onto Samoa 3: the only way left
    # Tonga 2 is still full, but the game is over.
    assert R.to_move(s) is None and len(beach(s, "Tonga", 2)) == 3
    assert R.result(s).scores == (5, 5)


def test_t21_last_water_tile_the_fleet_stays_at_sea():
    s = R.build(2, tiles=[TONGA] + [(w, 20 + i, 0, 0) for i, w in enumerate("ABDEFGHIJKLMNOP")],
                ships={("Tonga", 1): "blue green", ("Tonga", 3): "green"}, pile=["C", "Samoa"])
    s = play(s, "expand Tonga 1")
    view = R.view(s, None)
    assert R.to_move(s) is None and view["at_sea"] == {"tile": "C", "ships": ["blue", "blue", "green"]}
    assert beach(s, "Tonga", 1) == [] and view["seats"][0]["ships_on_board"] == 2  # at sea counts as used
    assert R.result(s).scores == (0, 0)


def _ended(players, ships, kings=None, tiles=(TONGA,)):
    """A finished game with these ships: the last seat has nothing on the board and settles onto
    the last water tile."""
    s = R.build(players, tiles=list(tiles), ships=ships, kings=kings or {}, pile=["A", "Samoa"], seat=players - 1)
    s = play(s, "settle", "tile Tonga S")
    assert R.to_move(s) is None
    return R.result(s)


def test_t22_scoring_island_values_where_present_kings_included_tonga_zero():
    tiles = (TONGA, ("Fiji", 0, -1, 3), ("Samoa", 1, 0, 5), ("Muroroa", 9, 9, 0))
    result = _ended(3, {("Tonga", 1): "blue green", ("Samoa", 1): "blue blue", ("Samoa", 2): "green",
                        ("Muroroa", 1): "blue"}, {"Fiji": "green"}, tiles)
    assert result.scores == (5 + 2, 5 + 5, 0)
    assert R.scores(R.build(3, tiles=list(tiles), ships={("Samoa", 1): "blue"})) == [5, 0, 0]


def test_t23_ties_islands_then_fewest_ships_then_shared():
    tiles = (TONGA, ("Fiji", 0, -1, 3), ("Samoa", 1, 0, 5), ("Muroroa", 9, 9, 0), ("Rarotonga", 7, 7, 0),
             ("Hawaii", -5, 0, 0))
    # Points tie (5 each): green is on more islands.
    r = _ended(3, {("Samoa", 1): "blue", ("Muroroa", 1): "green", ("Rarotonga", 1): "green"}, tiles=tiles)
    assert r.scores[:2] == (5, 5) and r.ranks == (2, 1, 3)
    # Points and islands tie: fewer ships on the board wins (a king island counts as one).
    r = _ended(3, {("Samoa", 1): "blue blue", ("Hawaii", 2): "green"}, tiles=tiles)
    assert r.ranks == (2, 1, 3) and r.details["ships_on_board"][:2] == [2, 1]
    r = _ended(3, {("Samoa", 1): "blue blue"}, {"Fiji": "green"}, tiles=tiles)
    assert r.ranks == (2, 1, 3)
    # Everything equal: shared place.
    r = _ended(3, {("Samoa", 1): "blue", ("Hawaii", 2): "green"}, tiles=tiles)
    assert r.ranks == (1, 1, 3)


# Recorded decisions around T16 (see docs/games/tongiaki.md)

GROUP_TILES = [("Tonga", 0, 0, 0), ("Nauru", 2, -3, 4), ("Tubuai", 2, -2, 3), ("Tuamotu", 1, -1, 4),
               ("Mangareva", 1, -2, 4), ("Hawaii", 0, -2, 2), ("A", 2, -4, 3), ("L", 3, -2, 0), ("O", 1, -3, 3),
               ("P", 3, -3, 4), ("D", 0, -1, 3), ("J", 0, -3, 3)]


def test_t16_closed_group_of_two_islands_fenced_by_king_islands_leaves_the_game():
    # Found in a random game: Mangareva's jetties lead to the king islands Hawaii, Nauru and
    # Tuamotu (which turn fleets back) or to Tubuai; Tubuai's lead to itself, to Mangareva or
    # to Tuamotu. Nine ships can never leave the pair and never all rest: both islands go.
    s = build(4, tiles=GROUP_TILES, seat=3, kings={"Nauru": "purple", "Tuamotu": "blue", "Hawaii": "orange"},
              ships={("Mangareva", 1): "orange", ("Mangareva", 2): "orange blue",
                     ("Mangareva", 3): "orange purple blue", ("Tubuai", 2): "green orange", ("Tonga", 1): "green"})
    s = play(s, "expand Mangareva 3")
    assert [(e["tile"], len(e["ships"])) for e in events(s, "infinite_chain")] == [("Tubuai", 2), ("Mangareva", 7)]
    assert R.view(s, None)["removed"] == ["Tubuai", "Mangareva"]
    assert pending(s)["colour"] == "blue"  # purple keeps a king island: no restart (T16)


def test_t16_a_chain_never_goes_round_to_a_position_it_had_and_under_tongiaki_2_the_engine_played_it_out():
    # Tubuai north of Tonga: beach 1's jetties lead through O and H back to Tubuai, beach 2's
    # to empty hexes. Both beaches full: beach 1 could only sail round the loop and land back
    # where it was, so it is not offered (recorded decision 3, issue 40).
    tiles = [("Tonga", 0, 0, 0), ("Tubuai", 0, -1, 3), ("O", -1, 0, 0), ("H", -1, -1, 0)]
    ships = {("Tubuai", 1): "blue green", ("Tubuai", 2): "blue green"}
    s = play(build(2, tiles=tiles, ships=ships, pile=["Samoa", "A", "Fiji", "B"]), "expand Tubuai 1 2")
    assert options(s) == ["emigrate Tubuai 2 NE", "emigrate Tubuai 2 SE"]
    # Rules version tongiaki-2: the player sails beach 1 round the loop and lands it back where it
    # was; the same position again, so the engine took the way out.
    s = R.for_version("tongiaki-2").build(2, tiles=tiles, ships=ships, pile=["Samoa", "A", "Fiji", "B"])
    s = play(s, "expand Tubuai 1 2")
    assert len(options(s)) == 4
    s = play(s, "emigrate Tubuai 1 SW")
    assert events(s, "arrive")[0]["tile"] == "Tubuai" and pending(s)["beaches"] == [1]
    s = play(s, "land blue Tubuai 1", "land blue Tubuai 1")
    assert [e["move"] for e in events(s, "auto")] == ["land green Tubuai 1", "emigrate Tubuai 2 NE"]
    assert tile_at(s, 1, -2)["tile"] == "Samoa" and pending(s)["island"] == "Samoa"
