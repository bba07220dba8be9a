"""P5-P12: one round, phase by phase, on exact positions."""

from __future__ import annotations

import pytest

from engine.core import IllegalMove
from engine.tapaono.state import SPAWN

from .util import FAR, STAR_WALK, Phase, R, at, play, position, ring, seed_for, targets, texts, where

# --- P5: phase 1, compulsory moves ---------------------------------------------------------


def test_p5_every_piece_on_the_board_must_move_one_field():
    st = position(pieces=[(0, 0), *FAR, None, None, None])
    assert {m.kind for m in R.legal_moves(st)} == {"move"}
    assert "end" not in texts(st)
    st = play(st, "move 1 1,0")
    assert targets(st, 1) == [] and targets(st, 2) and targets(st, 3)
    st = play(st, "move 2 4,3", "move 3 -6,0")
    assert st.phase == Phase.DICE
    assert [where(st, k) for k in range(3)] == [(1, 0), (4, 3), (-6, 0)]


def test_p5_no_entering_opponent_fields_or_fields_with_a_piece():
    st = position(pieces=[(0, 0), (-1, 1), FAR[1], (0, -1), None, None], owner={(1, 0): 1, (1, -1): 1})
    assert targets(st, 1) == ["-1,0", "0,1"]
    with pytest.raises(IllegalMove, match="opponent has conquered 1,0"):
        play(st, "move 1 1,0")
    with pytest.raises(IllegalMove, match="piece already stands on -1,1"):
        play(st, "move 1 -1,1")
    with pytest.raises(IllegalMove, match="piece already stands on 0,-1"):
        play(st, "move 1 0,-1")


def test_p5_a_piece_that_cannot_move_goes_back_to_the_spawn():
    st = position(pieces=[(0, 0), *FAR, None, None, None], owner={c: 1 for c in ring(0, 0)})
    assert targets(st, 1) == []
    st = play(st, "move 2 4,3", "move 3 -6,0")
    assert st.phase == Phase.DICE
    assert st.pos[0] == SPAWN
    assert R.view(st, None)["spawns"][0]["pieces"] == [1]


def test_p5_the_player_chooses_the_order_so_a_blocked_piece_can_follow_its_neighbour():
    owner = {c: 1 for c in ring(0, 0) if c != (1, 0)}
    st = position(pieces=[(0, 0), (1, 0), FAR[1], None, None, None], owner=owner)
    assert targets(st, 1) == []
    st = play(st, "move 2 2,-1")
    assert targets(st, 1) == ["1,0"]


# --- P6: entering from the spawn ---------------------------------------------------------------


def test_p6_one_piece_enters_per_round_in_the_first_three_rounds():
    st = R.setup(2, {"mode_change": False}, 11)
    assert len(texts(st)) == 12  # three pieces, four entry fields
    st = play(st, "move 2 3,-7")
    assert st.phase == Phase.DICE  # the two others stay in the spawn
    st = play(st, "end")
    assert st.turn == 1 and st.rounds == (1, 1)
    st = play(st, "move 1 -3,7", "end")
    assert st.turn == 0 and st.rounds == (2, 1)
    moves = texts(st)
    assert "move 2 3,-6" in moves and "move 1 2,-7" in moves and "move 3 4,-7" in moves
    st = play(st, "move 1 2,-7")
    assert targets(st, 3) == [] and targets(st, 2)  # a second entry this round is not allowed
    with pytest.raises(IllegalMove, match="only one piece a round enters"):
        play(st, "move 3 4,-7")


def test_p6_after_three_rounds_every_piece_in_the_spawn_must_enter():
    st = position(pieces=[None, None, None, None, None, None], rounds=(4, 3))
    st = play(st, "move 1 2,-7")
    assert targets(st, 1) == []  # entering was its one field
    assert targets(st, 2) and targets(st, 3)
    st = play(st, "move 2 3,-7", "move 3 4,-7")
    assert st.phase == Phase.DICE


def test_p6_entry_fields_conquered_by_the_opponent_or_occupied_are_closed():
    st = position(pieces=[None, None, None, (3, -7), None, None], owner={(2, -7): 1, (5, -7): 0})
    assert targets(st, 1) == ["4,-7", "5,-7"]


def test_p6_a_piece_that_cannot_enter_stays_in_the_spawn():
    st = position(pieces=[None, *FAR, None, None, None], owner={(2, -7): 1, (3, -7): 1, (4, -7): 1, (5, -7): 1})
    st = play(st, "move 2 4,3", "move 3 -6,0")
    assert st.phase == Phase.DICE and st.pos[0] == SPAWN


# --- P7: Transport +2 --------------------------------------------------------------------------


def test_p7_transport_lets_one_piece_move_up_to_three_fields_one_at_a_time():
    st = position(pieces=[(0, 0), *FAR, None, None, None], depots=(["transport"], []))
    assert "play transport 1" in texts(st)
    st = play(st, "play transport 1")
    view = R.view(st, 0)
    assert view["pieces"][0][0]["transport"] and view["depots"][0] == [] and view["discard"] == ["transport"]
    assert view["commands_played"] == 1
    st = play(st, "move 1 -1,1")
    assert set(texts(st)) == {"move 1 0,1", "move 1 0,0", "move 1 -1,0", "move 1 -2,1", "move 1 -2,2",
                              "move 1 -1,2", "stop"}
    st = play(st, "move 1 -1,2", "move 1 -1,3")
    assert where(st, 0) == (-1, 3) and targets(st, 1) == []


def test_p7_stop_ends_the_transport_early_and_it_is_played_before_the_move():
    st = position(pieces=[(0, 0), *FAR, None, None, None], depots=(["transport", "transport"], []))
    st = play(st, "play transport 1", "move 1 1,0", "stop")
    assert targets(st, 1) == []
    st = play(st, "move 2 4,3")
    with pytest.raises(IllegalMove):
        play(st, "play transport 2")  # piece 2 has moved already
    assert "play transport 3" in texts(st)


# --- P8: drawing and playing command cards ----------------------------------------------------

def test_p8_entering_a_star_draws_the_top_card_face_up_and_a_keepable_card_may_be_kept():
    st = position(pieces=STAR_WALK, deck=["conquer-three", "raid"])
    st = play(st, "move 1 2,0")
    assert st.phase == Phase.CARD and texts(st) == ["keep", "use"]
    view = R.view(st, 1)
    assert view["drawn"] == {"seat": 0, "card": "conquer-three"}
    assert view["pending"]["decision"] == "keep-or-use" and view["pending"]["card"] == "conquer-three"
    assert view["deck_size"] == 1
    st = play(st, "keep")
    assert R.view(st, 1)["depots"] == [["conquer-three"], []]
    assert st.phase == Phase.MOVE


def test_p8_a_card_in_use_is_played_this_round_or_discarded_at_its_end():
    st = position(pieces=STAR_WALK, deck=["conquer-three", "raid"], options={"mode_change": False})
    st = play(st, "move 1 2,0", "use")
    assert R.view(st, 0)["in_use"] == ["conquer-three"] and R.view(st, 0)["depots"][0] == []
    st = play(st, "move 2 4,3", "move 3 -6,0", "end")
    assert st.phase == Phase.CONQUEST
    assert any(t.startswith("play conquer-three 2,-2 ") for t in texts(st))
    st = play(st, "end")
    view = R.view(st, None)
    assert view["in_use"] == [] and view["discard"] == ["conquer-three"] and view["depots"] == [[], []]


def test_p8_a_full_depot_draws_no_card():
    full = ["transport", "transport", "conquer-six", "conquer-three", "conquer-three"]
    st = position(pieces=STAR_WALK, deck=["raid", "loss"], depots=(full, []))
    st = play(st, "move 1 2,0")
    assert st.phase == Phase.MOVE and st.pending is None
    assert R.view(st, 0)["deck_size"] == 2 and st.drawn is None


def test_p8_at_most_five_commands_per_round():
    st = position(pieces=STAR_WALK, deck=["raid"], depots=(["transport"], []), commands=5)
    assert not any(t.startswith("play") for t in texts(st))
    with pytest.raises(IllegalMove, match="five commands"):
        play(st, "play transport 1")
    st = play(st, "move 1 2,0")
    assert st.pending is None and len(st.deck) == 1  # no card: none could be played


def test_p8_conquest_cards_are_played_only_in_phase_4():
    st = position(pieces=STAR_WALK, depots=(["conquer-three"], []))
    with pytest.raises(IllegalMove, match="phase 4"):
        play(st, "play conquer-three 2,0 1,0 2,1 3,-1")


def test_p8_landing_puts_a_spawn_piece_on_a_free_star_and_it_must_still_move():
    st = position(pieces=[(1, 0), None, FAR[1], None, None, (0, 2)], deck=["landing"], rounds=(2, 2),
                  entered=True)
    assert targets(st, 2) == []  # round 2 and a piece has entered already
    st = play(st, "move 1 2,0")
    moves = texts(st)
    assert "land 2 -2,4" in moves and "skip" in moves
    assert "land 2 0,2" not in moves and "land 2 2,0" not in moves  # stars with a piece are not free
    assert "land 1 -2,4" not in moves  # piece 1 is on the board
    st = play(st, "land 2 -2,4")
    assert where(st, 1) == (-2, 4)
    assert targets(st, 2) == ["-1,3", "-1,4", "-2,3", "-2,5", "-3,4", "-3,5"]
    assert R.view(st, 0)["commands_played"] == 1 and R.view(st, 0)["discard"] == ["landing"]


def test_p8_star_jump_moves_a_piece_to_another_free_star_then_draws_again():
    st = position(pieces=STAR_WALK, deck=["star-jump", "conquer-six", "raid"])
    st = play(st, "move 1 2,0")
    moves = texts(st)
    assert len(moves) == 12 and moves[-1] == "skip"  # eleven free stars, or skip
    st = play(st, "jump 1 -2,4")
    assert where(st, 0) == (-2, 4)
    assert st.phase == Phase.CARD and st.pending == ("keep", 1)  # the second card: conquer-six
    assert R.view(st, 0)["deck_size"] == 1


def test_p8_recall_sends_a_piece_on_a_star_home_the_player_choosing_which():
    st = position(pieces=[(1, 0), (0, 2), FAR[1], None, None, None], deck=["recall"])
    st = play(st, "move 1 2,0")
    assert texts(st) == ["recall 1", "recall 2"]
    st = play(st, "recall 2")
    assert st.pos[1] == SPAWN
    assert targets(st, 2) == ["2,-7", "3,-7", "4,-7", "5,-7"]  # round 4: it must enter again


def test_p8_recall_with_one_piece_on_a_star_is_carried_out_at_once():
    st = position(pieces=STAR_WALK, deck=["recall"])
    st = play(st, "move 1 2,0")
    assert st.pos[0] == SPAWN and st.phase == Phase.MOVE
    assert targets(st, 1) == []  # it has made its move this round


def test_p8_raid_removes_up_to_the_roll_of_opponent_markers_and_may_stop():
    owner = {(-3, -3): 1, (-4, -3): 1, (-5, -2): 1, (4, 1): 0}
    st = position(pieces=STAR_WALK, deck=["raid"], owner=owner, seed=seed_for(5))
    st = play(st, "move 1 2,0")
    assert R.view(st, 0)["last_roll"] == {"seat": 0, "piece": None, "value": 5, "card": "raid"}
    assert texts(st) == ["remove -4,-3", "remove -3,-3", "remove -5,-2", "skip"]  # in board order
    st = play(st, "remove -4,-3", "skip")
    assert at(st, -4, -3) is None and at(st, -3, -3) == 1 and at(st, 4, 1) == 0
    assert st.phase == Phase.MOVE


def test_p8_loss_removes_the_roll_of_own_markers_of_the_players_choice():
    owner = {(4, 1): 0, (5, 1): 0, (4, 2): 0, (-3, -3): 1}
    st = position(pieces=STAR_WALK, deck=["loss"], owner=owner, seed=seed_for(2))
    st = play(st, "move 1 2,0")
    assert texts(st) == ["remove 4,1", "remove 5,1", "remove 4,2"]  # compulsory: no skip
    st = play(st, "remove 5,1", "remove 4,2")
    assert at(st, 4, 1) == 0 and at(st, 5, 1) is None and at(st, 4, 2) is None and at(st, -3, -3) == 1
    assert st.phase == Phase.MOVE


def test_p8_loss_of_more_markers_than_on_the_board_takes_them_all():
    st = position(pieces=STAR_WALK, deck=["loss"], owner={(4, 1): 0}, seed=seed_for(3))
    st = play(st, "move 1 2,0")
    assert st.phase == Phase.MOVE and at(st, 4, 1) is None
    assert R.view(st, None)["markers_out"] == [1, 0]


# --- P9: dice ---------------------------------------------------------------------------------


def dice_position(owner, rolls, **extra):
    return position(phase=Phase.DICE, pieces=[(0, 0), *FAR, None, None, None], owner=owner,
                    seed=seed_for(*rolls), **extra)


def test_p9_a_roll_of_n_frees_or_conquers_up_to_n_fields_around_the_piece():
    owner = {(1, 0): 1, (0, 1): 0, (-1, 1): 0, (-1, 0): 0}
    st = dice_position(owner, [2])
    assert texts(st) == ["roll 1", "roll 2", "roll 3", "end"]
    st = play(st, "roll 1")
    assert st.phase == Phase.TAKE and R.view(st, 0)["last_roll"]["value"] == 2
    assert texts(st) == ["take none", "take 0,-1", "take 1,-1", "take 1,0", "take 0,-1 1,-1",
                         "take 0,-1 1,0", "take 1,-1 1,0"]
    st = play(st, "take 1,0 0,-1")
    assert at(st, 1, 0) is None  # freed, and the same roll cannot conquer it too
    assert at(st, 0, -1) == 0
    assert st.stock == (96, 99)  # 100 less the three markers laid out and the one just used
    assert texts(st) == ["roll 2", "roll 3", "end"]  # one roll per piece


def test_p9_stars_and_own_fields_are_never_offered():
    st = position(phase=Phase.DICE, pieces=[(1, 0), *FAR, None, None, None], owner={(1, 1): 0}, seed=seed_for(5))
    st = play(st, "roll 1")
    offered = {c for t in texts(st) for c in t.split()[1:]}
    assert offered == {"none", "1,-1", "2,-1", "0,0", "0,1"}


def test_p9_a_six_frees_or_conquers_every_field_around_and_the_piece_goes_home():
    owner = {(1, 0): 1, (0, 1): 0}
    st = dice_position(owner, [6])
    st = play(st, "roll 1")
    assert at(st, 1, 0) is None  # freed, not conquered
    assert all(at(st, *c) == 0 for c in ring(0, 0) if c != (1, 0))
    assert at(st, 0, 0) == 0  # the field the piece stood on
    assert st.pos[0] == SPAWN
    assert st.stock == (94, 99) and st.phase == Phase.DICE  # five markers used


def test_p9_rolling_is_optional():
    st = dice_position({}, [3], options={"mode_change": False}, depots=(["conquer-three"], []))
    st = play(st, "end")
    assert st.phase == Phase.CONQUEST and st.owner == bytes(151)


# --- P10-P12: conquests -----------------------------------------------------------------------


def test_p10_a_conquered_field_sends_the_opponents_piece_there_home():
    st = position(phase=Phase.DICE, pieces=[(0, 0), *FAR, (0, 1), (-4, 5), None], seed=seed_for(1))
    st = play(st, "roll 1", "take 0,1")
    assert at(st, 0, 1) == 0 and st.pos[3] == SPAWN and st.pos[4] != SPAWN


def test_p10_a_conquest_by_command_sends_the_opponents_piece_home_too():
    st = position(phase=Phase.CONQUEST, pieces=[*FAR, None, (1, 0), None, None], held=["conquer-three"])
    st = play(st, "play conquer-three 2,0 1,0 2,1 3,0")
    assert st.pos[3] == SPAWN and at(st, 1, 0) == 0


def test_p11_conquest_by_command_replaces_opponent_markers_directly():
    owner = {(1, 0): 1, (2, 1): 1, (3, -1): 0}
    st = position(phase=Phase.CONQUEST, pieces=[*FAR, None, None, None, None], owner=owner,
                  depots=(["conquer-three", "conquer-six"], []))
    moves = texts(st)
    assert "play conquer-three 2,0 1,0 3,0 2,1" in moves  # fields in board order: row by row
    assert R.parse(st, "play conquer-three 2,0 2,1 1,0 3,0") == R.parse(st, "play conquer-three 2,0 1,0 3,0 2,1")
    assert not any(t.startswith("play conquer-three 2,0") and "3,-1" in t for t in moves)  # already mine
    st = play(st, "play conquer-three 2,0 1,0 2,1 3,0")
    assert at(st, 1, 0) == 0 and at(st, 2, 1) == 0 and at(st, 3, 0) == 0
    view = R.view(st, None)
    assert view["markers_left"] == [96, 98] and view["markers_out"] == [0, 2]
    st = play(st, "play conquer-six 2,0")  # the short form: every field around the star not yet mine
    assert R.view(st, None)["stars_surrounded"] == [1, 0]
    assert st.stock == (94, 98) and st.commands == 2


def test_p12_each_conquest_uses_a_marker_and_without_markers_nothing_is_conquered():
    st = dice_position({(1, 0): 1}, [4], stock=(0, 99), depots=(["conquer-six"], []))
    st = play(st, "roll 1")
    assert texts(st) == ["take none", "take 1,0"]  # freeing needs no marker
    st = play(st, "take 1,0", "end")
    assert not any(t.startswith("play") for t in texts(st))


def test_p12_with_too_few_markers_the_player_names_the_fields():
    st = position(phase=Phase.CONQUEST, pieces=[*FAR, None, None, None, None], depots=(["conquer-six"], []),
                  stock=(2, 100))
    assert sum(t.startswith("play conquer-six 2,0 ") for t in texts(st)) == 15  # 2 of the 6 fields
    with pytest.raises(IllegalMove, match="only 2 markers"):
        play(st, "play conquer-six 2,0")
    st = play(st, "play conquer-six 2,0 1,0 2,1")
    assert st.stock == (0, 100)


def test_p12_a_six_with_too_few_markers_lets_the_player_choose_which_free_fields():
    st = dice_position({(1, 0): 1}, [6], stock=(2, 100))
    st = play(st, "roll 1")
    assert at(st, 1, 0) is None
    assert st.phase == Phase.TAKE and len(texts(st)) == 15  # 2 of 6: five free neighbours and 0,0
    st = play(st, "take 0,0 0,1")
    assert at(st, 0, 0) == 0 and st.pos[0] == SPAWN and st.stock == (0, 100)
