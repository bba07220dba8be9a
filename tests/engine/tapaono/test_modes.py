"""P13-P17: the four modes, their ends and winners, mode changes, and the recorded end rules."""

from __future__ import annotations

import random

import pytest

from engine.core import OptionError
from engine.tapaono.turn import QUIET_LIMIT

from .util import FAR, STAR_WALK, Phase, R, at, play, position, ring, seed_for, texts

INNER = [(2, 0), (0, 2), (-2, 2), (-2, 0), (0, -2), (2, -2)]


def surround(*stars, seat=0, but=()):
    return {c: seat for s in stars for c in ring(*s) if c not in but}


def conquest(mode="normal", options=None, **layout):
    layout.setdefault("pieces", [*FAR, None, None, None, None])
    return position(mode=mode, options=options, phase=Phase.CONQUEST, **layout)


def end_round(st):
    return play(st, "end")


# --- P13 Normal ---------------------------------------------------------------------------------


def test_p13_normal_the_first_to_surround_five_stars_wins_at_once():
    owner = surround(*INNER[:4]) | surround(INNER[4], but=[(1, -2)])
    st = conquest(owner=owner, held=["conquer-three"])
    assert R.view(st, None)["stars_surrounded"] == [4, 0] and R.result(st) is None
    st = play(st, "play conquer-three 0,-2 1,-2")
    assert R.to_move(st) is None
    result = R.result(st)
    assert result.ranks == (1, 2) and result.scores == (5, 0)
    assert result.reason == "The first player surrounded 5 stars with markers."
    assert result.details["end"] == "goal"


def test_p13_normal_when_the_deck_runs_out_the_used_cards_are_shuffled_into_a_new_deck():
    st = position(pieces=STAR_WALK, deck=[], used=["conquer-six"])
    st = play(st, "move 1 2,0")
    assert st.pending == ("keep", 1)
    view = R.view(st, 0)
    assert view["deck_size"] == 0 and view["discard"] == [] and view["discard_reshuffled"] is True


# --- P14 Fast ----------------------------------------------------------------------------------


def test_p14_fast_used_cards_leave_the_game():
    st = position(mode="fast", pieces=STAR_WALK, deck=[], used=["conquer-six"])
    st = play(st, "move 1 2,0")
    assert st.pending is None and R.view(st, 0)["discard"] == ["conquer-six"]
    assert R.view(st, 0)["discard_reshuffled"] is False


def test_p14_fast_ends_when_the_round_of_the_last_card_is_over_more_markers_wins():
    owner = {(4, 1): 0, (5, 1): 0, (4, 2): 0, (-4, -1): 1, (-5, -1): 1}
    st = position(mode="fast", options={"mode_change": False}, pieces=STAR_WALK, deck=["conquer-three"], owner=owner)
    st = play(st, "move 1 2,0", "keep")
    assert R.to_move(st) == 0  # the round goes on
    st = play(st, "move 2 4,3", "move 3 -6,0", "end")
    assert st.phase == Phase.CONQUEST  # the kept card could still be played
    st = play(st, "end")
    assert R.to_move(st) is None
    result = R.result(st)
    assert result.scores == (3, 2) and result.ranks == (1, 2) and result.details["end"] == "deck"


def test_p14_fast_equal_markers_is_a_draw():
    st = conquest(mode="fast", options={"mode_change": False}, deck=[], owner={(4, 1): 0, (-4, -1): 1})
    assert R.to_move(st) is None  # nothing to decide in phase 4: the round, and the game, are over
    result = R.result(st)
    assert result.ranks == (1, 1) and result.reason.endswith("It is a draw.")


# --- P15 Absolute ----------------------------------------------------------------------------


def test_p15_absolute_ends_as_soon_as_a_player_has_no_markers_left():
    owner = {(4, 1): 0, (-4, -1): 1, (-5, -1): 1}
    st = position(mode="absolute", phase=Phase.DICE, pieces=[(0, 0), *FAR, None, None, None], owner=owner,
                  stock=(2, 50), seed=seed_for(3))
    st = play(st, "roll 1", "take 1,0 0,1")
    assert R.to_move(st) is None and st.stock == (0, 50)
    result = R.result(st)
    assert result.details["end"] == "absolute" and result.scores == (3, 2) and result.ranks == (1, 2)
    assert result.reason.startswith("The first player has no markers left")


def test_p15_when_both_stocks_run_out_at_once_the_end_says_so_in_one_sentence():
    """Seed 1180 of the contract playouts (default options) ends with both players out of markers
    (tests/engine/rare_paths.py); the end said "The first player and the second player has ..."."""
    from tests.engine.test_contract import play_random

    st, _, _ = play_random(R, 2, R.check_options({}), 1180)
    result = R.result(st)
    assert result.details["end"] == "absolute" and max(st.stock) <= 0
    assert result.reason == "Both players have no markers left: more conquered fields wins."


def test_p15_absolute_reshuffles_the_used_cards():
    st = position(mode="absolute", pieces=STAR_WALK, deck=[], used=["transport"])
    st = play(st, "move 1 2,0")
    assert st.pending == ("keep", 0)


# --- P16 Free ----------------------------------------------------------------------------------


def test_p16_free_markers_per_player_and_commands_off():
    st = R.setup(2, {"mode": "free", "markers": 60, "commands": False}, 3)
    assert st.stock == (60, 60) and R.view(st, None)["markers_left"] == [60, 60]
    assert R.setup(2, {"mode": "normal", "markers": 60}, 3).stock == (100, 100)  # a Free option only
    st = position(mode="free", options={"commands": False}, pieces=STAR_WALK, deck=["conquer-six"])
    st = play(st, "move 1 2,0")
    assert st.pending is None and len(st.deck) == 1


def test_p16_free_stars_to_win_counts_only_the_chosen_stars():
    options = {"stars_to_win": 1, "counting_stars": "inner"}
    outer = conquest(mode="free", options=options, owner=surround((4, -2), but=[(5, -2)]), held=["conquer-three"])
    outer = play(outer, "play conquer-three 4,-2 5,-2")
    assert R.to_move(outer) == 0 and R.view(outer, None)["stars_surrounded"] == [0, 0]
    inner = conquest(mode="free", options=options, owner=surround((2, 0), but=[(3, 0)]), held=["conquer-three"])
    inner = play(inner, "play conquer-three 2,0 3,0")
    assert R.to_move(inner) is None and R.result(inner).ranks == (1, 2)
    with pytest.raises(OptionError, match="at most 6"):
        R.check_options({"mode": "free", "stars_to_win": 7, "counting_stars": "outer"})


def test_p16_free_deck_end_on_or_off():
    ends = conquest(mode="free", options={"deck_end": True, "stars_to_win": 0, "mode_change": False}, deck=[],
                    owner={(4, 1): 1})
    assert R.to_move(ends) is None and R.result(ends).ranks == (2, 1) and R.result(ends).scores == (0, 1)
    goes_on = conquest(mode="free", options={"deck_end": False, "mode_change": False}, deck=[])
    assert R.to_move(goes_on) == 1


# --- P17 mode change ---------------------------------------------------------------------------


def test_p17_a_proposal_is_made_in_phase_4_and_answered_at_the_start_of_the_opponents_round():
    st = conquest(depots=(["conquer-six"], []))
    assert {t for t in texts(st) if t.startswith("propose")} == {"propose fast", "propose absolute", "propose free"}
    st = play(st, "propose fast")
    assert st.mode == "normal" and R.view(st, 1)["proposal"] == {"by": 0, "mode": "fast"}
    assert not any(t.startswith("propose") for t in texts(st))
    st = end_round(st)
    assert R.to_move(st) == 1 and st.phase == Phase.ANSWER and texts(st) == ["accept", "decline"]
    assert R.view(st, 1)["pending"] == {"decision": "answer", "seat": 1, "proposal": {"by": 0, "mode": "fast"}}
    declined = play(st, "decline")
    assert declined.mode == "normal" and declined.proposal is None and declined.phase == Phase.MOVE
    accepted = play(st, "accept")
    assert accepted.mode == "fast" and R.view(accepted, None)["mode"] == "fast" and accepted.phase == Phase.MOVE
    assert R.view(accepted, None)["discard_reshuffled"] is False


def test_p17_accepting_absolute_when_a_stock_is_empty_ends_the_game():
    st = conquest(stock=(0, 40), owner={(4, 1): 0})
    st = play(st, "propose absolute")  # nothing else to do in phase 4: the round ends by itself
    assert R.to_move(st) == 1 and st.phase == Phase.ANSWER
    st = play(st, "accept")
    assert R.to_move(st) is None and R.result(st).details["end"] == "absolute"


def test_p17_no_proposals_when_the_game_does_not_allow_mode_changes():
    st = conquest(options={"mode_change": False}, held=["conquer-three"])
    assert not any(t.startswith("propose") for t in texts(st))


# --- recorded decisions: how every game ends ----------------------------------------------------


def test_recorded_quiet_rounds_end_the_game():
    st = conquest(options={"mode_change": False}, quiet=QUIET_LIMIT - 1, owner={(4, 1): 0})
    assert R.to_move(st) is None
    result = R.result(st)
    assert result.details["end"] == "quiet" and result.ranks == (1, 2)
    assert result.reason.startswith("Twenty rounds in a row")
    busy = conquest(options={"mode_change": False}, quiet=QUIET_LIMIT - 1, changed=True)
    assert R.to_move(busy) == 1 and busy.quiet == 0


def test_recorded_normal_ends_when_neither_player_can_conquer_any_more():
    owner = surround((2, 0)) | surround((-2, -2), seat=1) | {(5, 1): 1}
    st = conquest(stock=(0, 0), owner=owner)
    st = play(st, "end")
    assert R.to_move(st) is None
    result = R.result(st)
    assert result.details["end"] == "exhausted"
    assert result.scores == (1, 1) and result.ranks == (2, 1)  # one star each: more markers on the board wins


@pytest.mark.parametrize("preset", R.option_presets(), ids=lambda p: p.get("mode", "default"))
def test_random_games_end_below_the_bound(preset):
    options = R.check_options(preset)
    for seed in range(3):
        chooser = random.Random(seed)
        st = R.setup(2, options, seed)
        for _ in range(20_000):
            if R.to_move(st) is None:
                break
            st = R.apply(st, chooser.choice(R.legal_moves(st)))
        assert R.result(st) is not None


def test_docs_example_round():
    """The example round of docs/games/tapaono.md, move for move."""
    st = position(pieces=[(1, -3), (3, -1), (3, -5), (-2, 3), None, None], depots=(["transport"], []),
                  deck=["conquer-three", "raid"], rounds=(5, 4), seed=seed_for(3), owner={(4, -3): 1})
    st = play(st, "move 1 2,-4", "keep", "play transport 2", "move 2 4,-1", "move 2 5,-2", "stop",
              "move 3 3,-6", "roll 1", "take 1,-4 2,-5 3,-4", "end")
    assert R.view(st, None)["last_roll"]["value"] == 3
    st = play(st, "play conquer-three 4,-2 4,-3 5,-3 3,-1", "end")
    assert R.to_move(st) == 1
    assert [at(st, *c) for c in [(1, -4), (2, -5), (3, -4), (4, -3), (5, -3), (3, -1)]] == [0] * 6
    assert st.stock == (94, 99) and R.view(st, None)["markers_out"] == [0, 1]
