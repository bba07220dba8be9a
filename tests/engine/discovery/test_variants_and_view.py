"""Variants D18 (double tile) and D19 (equal turns), the notation, and the view."""

from __future__ import annotations

import json
import random

import pytest

from engine.core import IllegalMove, Move, canonical_json
from engine.discovery.position import build_position
from tests.engine.discovery.helpers import RULES, play

DOUBLE = {"double": True}


def _random_game(players, options, seed):
    chooser = random.Random(seed)
    state = RULES.setup(players, options, seed)
    placements = [0] * players
    while not RULES.is_over(state):
        move = chooser.choice(RULES.legal_moves(state))
        if move.kind == "place":
            placements[RULES.to_move(state)] += 1
        state = RULES.apply(state, move)
    return state, placements


# --- D18 double tile ----------------------------------------------------------------------


def test_d18_everyone_holds_two_hidden_tiles_and_places_one_of_them():
    state = RULES.setup(3, DOUBLE, 11)
    assert [len(h) for h in state.hands] == [2, 2, 2] and len(state.deck) == 83 - 6
    seat = RULES.to_move(state)
    hand = state.hands[seat]
    tiles = {m.args[3] for m in RULES.legal_moves(state)}
    assert tiles <= set(hand) and all(RULES.notation(state, m).startswith("place #")
                                      for m in RULES.legal_moves(state))
    move = RULES.legal_moves(state)[0]
    after = RULES.apply(state, move)
    kept = list(hand)
    kept.remove(move.args[3])
    assert after.hands[seat] == tuple(kept)          # the other tile stays hidden in the hand
    after = RULES.apply(after, Move("pass"))
    assert len(after.hands[seat]) == 2 and len(after.deck) == 83 - 7   # drew one to have two again


def test_d18_hidden_tiles_are_in_no_other_view():
    state = RULES.setup(3, DOUBLE, 12)
    seat = RULES.to_move(state)
    mine = RULES.view(state, seat)
    assert [t["tile"] for t in mine["hand"]] == list(state.hands[seat])
    assert mine["legal_moves"] and mine["placements"]
    other = (seat + 1) % 3
    theirs = RULES.view(state, other)
    assert [t["tile"] for t in theirs["hand"]] == list(state.hands[other])
    assert theirs["placements"] is None and theirs["legal_moves"] is None
    assert theirs["hand_sizes"] == [2, 2, 2] and theirs["drawn"] is None
    spectator = RULES.view(state, None)
    assert spectator["hand"] is None and spectator["placements"] is None
    for viewer in (None, 0, 1, 2):
        for s in range(3):
            assert RULES.view(RULES.resample_hidden(state, viewer, 1000 + s), viewer) == RULES.view(state, viewer)
    # The player to move keeps their tiles (and legal moves) when the rest is re-dealt.
    assert RULES.legal_moves(RULES.resample_hidden(state, seat, 5)) == RULES.legal_moves(state)


def test_d18_the_tile_must_be_named_when_both_could_go_there():
    state = build_position(2, hands=[(4, 57), (5, 5)], deck=(5,))
    # Tiles 4 and 57 look alike (grassland N, sea E+S+W): both fit at 0,-1.
    with pytest.raises(IllegalMove, match="Say which of your tiles"):
        RULES.parse(state, "place 0,-1 0")
    assert RULES.parse(state, "place #57 0,-1 0") == Move("place", (0, -1, 0, 57))
    assert RULES.parse(state, "PLACE 57 0,-1 0") == Move("place", (0, -1, 0, 57))
    one = build_position(2, hands=[(4, 7), (5, 5)], deck=(5,))
    assert RULES.parse(one, "place 0,-1 0") == Move("place", (0, -1, 0, 4))   # only tile 4 fits there
    with pytest.raises(IllegalMove, match="You hold #4 and #7, not #5"):
        RULES.apply(one, Move("place", (0, -1, 0, 5)))


def test_d18_d8_a_held_tile_that_fits_nowhere_is_removed_at_the_start_of_the_turn():
    ring = [(4, 0, -1, 0), (33, 1, 0, 0), (33, -1, 0, 180)]
    state = build_position(2, ring, placed=(0, -1), hands=[(5,), (7, 5)], deck=(3, 5))
    after = play(state, "pass")                      # seat 0 draws 5 at the end of its turn
    assert after.hands[0] == (5, 5)
    # Seat 1's tile 7 (all mountain) fits nowhere: out, face up, and seat 1 draws tile 3.
    assert after.removed == ((7, "unplaceable"),) and after.hands[1] == (5, 3) and after.deck == ()
    assert RULES.to_move(after) == 1


def test_d18_d15_the_game_ends_when_the_held_tiles_are_placed():
    state = build_position(2, [(4, 0, -1, 0)], placed=(0, -1), hands=[(), (5,)], deck=())
    state = play(state, "pass")
    assert RULES.to_move(state) == 1
    state = play(state, "place 0,1 0", "pass")
    assert RULES.is_over(state)
    final, placements = _random_game(3, DOUBLE, 4)
    assert sum(placements) + len(final.removed) == 83 and all(not h for h in final.hands)


# --- D19 equal turns -------------------------------------------------------------------


@pytest.mark.parametrize("players,removed", [(2, 1), (3, 2), (4, 3), (5, 3)])
def test_d19_tiles_removed_face_up_so_that_the_pile_divides_evenly(players, removed):
    state = RULES.setup(players, {"equal": True}, 21)
    view = RULES.view(state, None)
    assert [r["reason"] for r in view["removed"]] == ["equal turns"] * removed
    assert (83 - removed) % players == 0
    final, placements = _random_game(players, {"equal": True}, players)
    if len(final.removed) == removed:            # no tile was unplaceable (D8)
        assert len(set(placements)) == 1, placements


def test_d19_with_double_tiles_too():
    final, placements = _random_game(4, {"equal": True, "double": True}, 8)
    if len(final.removed) == 3:
        assert placements == [20, 20, 20, 20]


# --- notation -------------------------------------------------------------------------


def test_notation_is_tolerant_of_case_spaces_and_spellings():
    state = build_position(2, current=4)
    move = Move("place", (0, 1, 90))
    for text in ("place 0,1 90", "  PLACE   0 , 1   90 ", "place at 0,1 r90", "place +0,+1 90"):
        assert RULES.parse(state, text) == move
    for bad in ("place 0 1 90", "put 0,1 90", "place 0,1", ""):
        with pytest.raises(IllegalMove):
            RULES.parse(state, bad)
    follow = build_position(2, [(4, 0, 1, 0)], [(0, 0, 0, "E+W")], placed=(0, 1))
    assert RULES.parse(follow, "remove 0,0 w+e") == Move("remove", (0, 0, "E+W"))
    assert RULES.parse(follow, "REMOVE 0,0 W") == Move("remove", (0, 0, "E+W"))
    assert RULES.parse(follow, "Pass") == Move("pass")
    with pytest.raises(IllegalMove, match="its segments are N, E\\+W, S"):
        RULES.parse(follow, "remove 0,0 NE")


def test_unknown_words_get_a_message_listing_the_moves():
    state = RULES.setup(2, {}, 1)
    with pytest.raises(IllegalMove, match="write place 1,0 90, deploy N\\+E"):
        RULES.parse(state, "xyzzy")


# --- view ----------------------------------------------------------------------------


def test_view_schema_and_json():
    state = build_position(3, [(4, 0, 1, 0)], [(1, 0, 0, "N")], to_move=2, placed=(0, 1), deck=(5,),
                           scores=(1, 2, 3))
    view = RULES.view(state, 2)
    json.dumps(view)
    assert set(view) == {"game", "players", "colours", "options", "order", "to_move", "phase", "viewer", "board",
                         "open_squares", "placed", "drawn", "hand", "hand_sizes", "placements", "followers",
                         "supply", "scores", "tiles_left", "removed", "last_move", "events", "legal_moves", "result"}
    assert view["phase"] == "follow" and view["placed"] == {"x": 0, "y": 1}
    assert view["colours"] == ["blue", "red", "green"]
    tile = view["board"][1]
    assert (tile["x"], tile["y"], tile["tile"], tile["rotation"], tile["sides"]) == (0, 1, 4, 0, "GSSS")
    assert [s["name"] for s in tile["segments"]] == ["N", "E+S+W"]
    assert tile["cities"] == [{"land": "N", "sea": "E+S+W"}]
    assert view["followers"] == [{"seat": 1, "x": 0, "y": 0, "segment": "N", "terrain": "sea",
                                  "role": "navigator", "region": view["board"][0]["segments"][0]["region"],
                                  "region_tiles": 2, "region_complete": False, "region_cities": 2,
                                  "value": 2}]
    assert view["supply"] == [4, 3, 4] and view["scores"] == [1, 2, 3] and view["tiles_left"] == 1
    assert view["legal_moves"] == ["deploy N", "pass"]
    assert RULES.view(state, 0)["legal_moves"] is None


def test_view_never_shows_the_seed_or_the_deck_order():
    seed = 0xDEADBEEFCAFE1234
    state = RULES.setup(2, {}, seed)
    text = canonical_json(RULES.view(state, None))
    assert format(seed, "x") not in text and str(seed) not in text
    assert RULES.view(RULES.resample_hidden(state, None, 3), None) == RULES.view(state, None)


def test_last_move_and_result_in_the_view():
    state = build_position(2, [(4, 0, 1, 0)], [(0, 0, 0, "N")], placed=(0, 1), deck=())
    over = play(state, "remove 0,0 N")
    view = RULES.view(over, None)
    assert view["last_move"] == {"seat": 0, "move": "remove 0,0 N", "points": 2}
    assert view["result"]["scores"] == [2, 0] and view["result"]["ranks"] == [1, 2]
    assert view["to_move"] is None and view["phase"] == "over"
