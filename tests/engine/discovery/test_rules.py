"""Turn, placement and follower rules D1, D5-D11, D15, D17 on exact positions."""

from __future__ import annotations

import random

import pytest

from engine.core import IllegalMove, Move, OptionError
from engine.discovery.position import build_position
from engine.discovery.reasons import explain
from tests.engine.discovery.helpers import RULES, play, value


def moves_text(state):
    return [RULES.notation(state, m) for m in RULES.legal_moves(state)]


# --- D1 players and followers ------------------------------------------------------------


def test_d1_two_to_five_players():
    for players in (2, 3, 4, 5):
        assert RULES.setup(players, {}, 7).players == players
    for players in (1, 6):
        with pytest.raises(OptionError):
            RULES.setup(players, {}, 7)


def test_d1_four_playable_followers_each_then_no_deploy():
    followers = [(0, 0, -1, "N"), (0, 0, 1, "S"), (1, 0, 0, "E+W")]
    tiles = [(4, 0, -1, 0), (4, 0, 1, 0)]
    state = build_position(2, tiles, followers, placed=(0, 1))
    assert [state.supply(s) for s in (0, 1)] == [2, 3]
    assert "deploy N" in moves_text(state)
    full = build_position(2, tiles + [(7, 1, 0, 0), (7, -1, 0, 0)],
                          followers + [(0, 1, 0, "N+E+S+W"), (0, -1, 0, "N+E+S+W")], placed=(0, 1), shared=True)
    assert full.supply(0) == 0
    assert not [m for m in RULES.legal_moves(full) if m.kind == "deploy"]
    with pytest.raises(IllegalMove, match="no follower left"):
        RULES.apply(full, Move("deploy", ("N",)))


# --- D5 setup ---------------------------------------------------------------------------


def test_d5_start_tile_face_up_at_0_0_and_83_tiles_shuffled_from_the_seed():
    state = RULES.setup(3, {}, 42)
    view = RULES.view(state, None)
    assert [(t["x"], t["y"], t["tile"]) for t in view["board"]] == [(0, 0, 24)]
    assert len(state.deck) + 1 == 83 and view["tiles_left"] == 82 and view["drawn"] is not None
    again = RULES.setup(3, {}, 42)
    assert RULES.state_hash(again) == RULES.state_hash(state)
    decks = {RULES.setup(3, {}, seed).deck for seed in range(10)}
    assert len(decks) == 10


def test_d5_seat_order_is_random_from_the_seed_and_play_goes_round():
    firsts = {RULES.setup(4, {}, seed).order[0] for seed in range(40)}
    assert firsts == {0, 1, 2, 3}
    state = RULES.setup(3, {}, 5)
    seen = []
    for _ in range(6):
        seen.append(RULES.to_move(state))
        state = RULES.apply(state, RULES.legal_moves(state)[0])   # place
        state = RULES.apply(state, Move("pass"))
    assert seen == list(state.order) * 2


# --- D6 the turn --------------------------------------------------------------------------


def test_d6_place_then_deploy_or_remove_or_pass_never_both():
    state = build_position(2, [(4, 0, -1, 0)], [(0, 0, -1, "N")], current=5, deck=(5, 5))
    assert {m.kind for m in RULES.legal_moves(state)} == {"place"}
    with pytest.raises(IllegalMove, match="First place your tile"):
        RULES.parse(state, "pass")
    state = play(state, "place 0,1 0")
    assert RULES.to_move(state) == 0
    assert moves_text(state) == ["deploy N+E+S+W", "remove 0,-1 N", "pass"]
    after = play(state, "deploy N+E+S+W")
    assert RULES.to_move(after) == 1 and after.phase.value == "place"   # no removal after deploying
    with pytest.raises(IllegalMove, match="already placed"):
        RULES.parse(state, "place 1,0 0")


# --- D7 placement ---------------------------------------------------------------------------


def test_d7_the_tile_must_share_a_side_and_match_every_shared_side_in_any_rotation():
    # Tile 4: grassland N, sea E+S+W. Next to the start tile (sea N, mountain E+W, grassland S)
    # it fits south (grassland to grassland) in one rotation, north (sea) in three.
    state = build_position(2, current=4)
    assert moves_text(state) == ["place 0,-1 0", "place 0,1 0", "place 0,1 90", "place 0,1 270"]
    with pytest.raises(IllegalMove, match="does not touch"):
        RULES.parse(state, "place 1,1 0")             # corners alone do not count
    with pytest.raises(IllegalMove, match=r"sides must match \(S sea\)"):
        RULES.parse(state, "place 0,1 180")
    with pytest.raises(IllegalMove, match="already holds a tile"):
        RULES.parse(state, "place 0,0 0")
    with pytest.raises(IllegalMove, match="0, 90, 180 or 270"):
        RULES.parse(state, "place 0,1 45")


def test_d7_every_shared_side_counts_not_only_one():
    # 1,-1 touches 1,0 (sea on its S side) and 0,-1 (sea on its E side): a tile needs sea on N and W.
    state = build_position(2, [(4, 0, -1, 0), (33, 1, 0, 0)], current=3)
    squares = {(m.args[0], m.args[1], m.args[2]) for m in RULES.legal_moves(state)}
    # Tile 3 (grassland N+E, sea S+W) has sea on N and W only at rotation 90.
    assert (1, -1, 90) in squares and not {(1, -1, r) for r in (0, 180, 270)} & squares


def test_d7_equal_rotations_are_one_placement_and_parse_accepts_either():
    state = build_position(2, current=16)          # grassland band N+S, seas E and W
    assert "place 0,-1 0" in moves_text(state) and "place 0,-1 180" not in moves_text(state)
    assert RULES.parse(state, "place 0,-1 180") == RULES.parse(state, "place 0,-1 0")
    with pytest.raises(IllegalMove, match="shows the tile as rotation 0"):
        RULES.apply(state, Move("place", (0, -1, 180)))


# --- D8 unplaceable tiles ------------------------------------------------------------------


def _sea_ring():
    # Every open square needs sea on some side.
    return [(4, 0, -1, 0), (33, 1, 0, 0), (33, -1, 0, 180)]


def test_d8_a_tile_that_fits_nowhere_is_removed_face_up_and_another_drawn():
    state = build_position(2, _sea_ring(), placed=(0, -1), deck=(5, 7))   # 7 = all mountain
    after = play(state, "pass")
    assert after.current == 5 and RULES.to_move(after) == 1
    view = RULES.view(after, None)
    assert view["removed"] == [{"tile": 7, "reason": "unplaceable"}]
    assert view["drawn"]["tile"] == 5


def test_d8_when_only_unplaceable_tiles_are_left_the_game_ends():
    state = build_position(2, _sea_ring(), placed=(0, -1), deck=(7, 1))
    after = play(state, "pass")
    assert RULES.is_over(after) and [t for t, _ in after.removed] == [1, 7]


# --- D9 deploy --------------------------------------------------------------------------


def test_d9_deploy_only_on_the_tile_just_placed_and_into_empty_regions():
    # Seat 1 has a brigand on the start mountain; tile 65 at 1,0 extends it (mountain W).
    state = build_position(2, [(65, 1, 0, 0)], [(1, 0, 0, "E+W")], placed=(1, 0))
    assert moves_text(state) == ["deploy N+E+S", "pass"]      # the sea, not the mountain
    with pytest.raises(IllegalMove, match="mountain already holds a follower"):
        RULES.parse(state, "deploy W")
    with pytest.raises(IllegalMove, match="no segment"):
        RULES.parse(state, "deploy city")                      # port cities are no follower spots
    with pytest.raises(IllegalMove, match="Deploy on one segment of the tile just placed"):
        RULES.apply(state, Move("deploy", ("E+W",)))           # the start tile is not the new tile


def test_d9_segments_are_named_by_their_sides_and_a_lake_by_its_terrain():
    state = build_position(2, [(31, 0, 1, 0)], placed=(0, 1))
    # Tile 31: grassland N+E+W, a sea on the S side, and a lake (named by its terrain).
    assert moves_text(state) == ["deploy N+E+W", "deploy S", "deploy sea", "pass"]
    assert RULES.parse(state, "deploy lake") == Move("deploy", ("sea",))
    assert RULES.parse(state, "deploy e") == Move("deploy", ("N+E+W",))
    assert RULES.parse(state, "deploy s") == Move("deploy", ("S",))   # one side is enough
    assert RULES.parse(state, "Deploy  W+N") == Move("deploy", ("N+E+W",))


# --- D10 remove and score -----------------------------------------------------------------


def test_d10_remove_anywhere_scores_at_once_and_the_follower_returns_to_supply():
    state = build_position(2, [(4, 0, 1, 0), (5, 1, 1, 0)], [(0, 0, 0, "N"), (1, 0, 1, "E+S+W")],
                           placed=(1, 1), deck=(5, 5), shared=True)
    assert value(state, 0, 0, "N") == 2
    assert moves_text(state) == ["remove 0,0 N", "pass"]   # own followers only; sea is taken
    after = play(state, "remove 0,0 N")
    assert after.scores == (2, 0) and after.supply(0) == 4
    assert RULES.to_move(after) == 1                        # one removal per turn, then the turn ends
    assert [f for f in after.followers] == [state.followers[1]]
    with pytest.raises(IllegalMove, match="no follower at 0,1"):
        RULES.apply(state, Move("remove", (0, 1, "E+S+W")))


def test_d10_a_removed_follower_may_be_deployed_again_later():
    state = build_position(2, [(4, 0, 1, 0)], [(0, 0, 0, "N")] * 1 + [(0, 0, 0, "E+W"), (0, 0, 0, "S"),
                           (0, 0, 1, "N")], placed=(0, 1), deck=(5, 7, 5))
    assert state.supply(0) == 0
    state = play(state, "remove 0,0 E+W", "place -1,1 0")
    # Seat 1 could only pass, and tile 7 fits only at 1,0: the engine made both decisions.
    assert RULES.view(state, None)["events"] == [{"event": "auto", "seat": 1, "move": "pass"},
                                                 {"event": "auto", "seat": 0, "move": "place 1,0 0"}]
    # The mountain it left is empty again, and the follower is back in the supply.
    assert state.supply(0) == 1 and "deploy N+E+S+W" in moves_text(state)


# --- D11 several followers in one region ---------------------------------------------------


def test_d11_example_two_navigators_in_a_joined_sea_each_score_alone():
    # Yellow (seat 1) has a navigator on the start sea, extended east by tile 10 at 0,1.
    # Red (seat 0) places 65 at 1,0: a separate sea, so red may deploy there.
    tiles = [(10, 0, 1, 270), (65, 1, 0, 0)]
    state = build_position(2, tiles, [(1, 0, 0, "N")], placed=(1, 0), deck=(5, 7, 3))
    state = play(state, "deploy N+E+S")
    # Yellow joins the two seas with tile 3 at 1,1: 4 cities on the shore, still incomplete.
    state = play(state, "place 1,1 0")
    assert value(state, 0, 0, "N") == 4 and value(state, 1, 0, "N+E+S") == 4
    state = play(state, "remove 0,0 N")
    assert state.scores == (0, 4)
    state = play(state, "place -1,0 0", "remove 1,0 N+E+S")
    assert state.scores == (4, 4)


def test_d11_after_a_removal_empties_a_region_a_new_tile_may_receive_a_follower():
    state = build_position(2, [(4, 0, 1, 0)], [(0, 0, 0, "N")], placed=(0, 1), deck=(5, 5, 55))
    state = play(state, "remove 0,0 N")
    state = play(state, "place 1,1 90")        # tile 55 extends the sea east of 0,1
    assert "deploy S+W+N" not in moves_text(state)
    assert [m for m in moves_text(state) if m.startswith("deploy")] == ["deploy E", "deploy N+S+W"]


# --- D15 end of the game, D17 ranks ---------------------------------------------------------


def test_d15_the_last_turn_still_deploys_then_the_game_ends():
    state = build_position(2, [(4, 0, -1, 0)], to_move=1, current=5, deck=())
    state = play(state, "place 0,1 0")
    assert not RULES.is_over(state)
    state = play(state, "deploy N+E+S+W")
    assert RULES.is_over(state) and RULES.legal_moves(state) == []
    assert RULES.result(state).scores == (0, 1)        # the sea: 1 city, incomplete (D16)
    with pytest.raises(IllegalMove, match="game is over"):
        RULES.parse(state, "pass")


def test_d17_most_points_wins_and_equal_points_share_the_place():
    tied = play(build_position(3, [(4, 0, -1, 0)], placed=(0, -1), scores=(5, 5, 2)), "pass")
    assert RULES.result(tied).ranks == (1, 1, 3)
    clear = play(build_position(3, [(4, 0, -1, 0)], placed=(0, -1), scores=(5, 6, 2)), "pass")
    assert RULES.result(clear).ranks == (2, 1, 3) and RULES.result(clear).winners() == [1]


def test_explain_never_fails_on_malformed_moves():
    state = build_position(2, current=4)
    for move in (Move("place", ("x",)), Move("place", (0, 1, 0, 0)), Move("deploy", ()), Move("zap")):
        assert str(explain(state, move)).endswith(".")


def test_random_games_score_what_the_log_says():
    # The scores of a finished game are the removals during play plus the final scoring.
    chooser = random.Random(3)
    state = RULES.setup(4, {}, 99)
    during = [0] * 4
    while not RULES.is_over(state):
        move = chooser.choice(RULES.legal_moves(state))
        seat = RULES.to_move(state)
        after = RULES.apply(state, move)
        if move.kind == "remove":
            during[seat] += after.last[2]
        state = after
    assert [s - f for s, f in zip(state.scores, state.final)] == during
