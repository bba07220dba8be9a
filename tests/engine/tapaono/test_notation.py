"""Notation, parsing, refusals, views and JSON."""

from __future__ import annotations

import json
import random

import pytest

from engine.core import IllegalMove, Move, canonical_json
from engine.tapaono.board import DECK

from .util import FAR, Phase, R, position, texts

VIEW_KEYS = {"game", "colours", "provisional_data", "mode", "options", "goal", "phase", "to_move", "rounds", "fields", "stars",
             "pieces", "spawns", "markers_left", "markers_on_board", "markers_out", "stars_surrounded", "depots",
             "depot_size", "in_use", "deck_size", "discard", "discard_reshuffled", "commands_played",
             "commands_per_round", "drawn", "last_roll", "pending", "proposal", "quiet_rounds", "quiet_limit",
             "scores", "last_move", "events", "result"}


def test_parse_is_case_and_space_tolerant_and_accepts_brackets():
    st = position(pieces=[(0, 0), *FAR, None, None, None])
    move = R.parse(st, "move 2 4,3")
    assert move == Move("move", (2, 4, 3))
    assert R.parse(st, "  MOVE   2   4 , 3 ") == move
    assert R.parse(st, "move 2 (4,3)") == move
    assert R.notation(st, move) == "move 2 4,3"


def test_fields_may_be_given_in_any_order_but_only_once():
    st = position(phase=Phase.CONQUEST, pieces=[*FAR, None, None, None, None], held=["conquer-three"])
    a = R.parse(st, "play conquer-three 2,0 2,1 1,0 3,0")
    assert a == R.parse(st, "play conquer-three 2,0 3,0 1,0 2,1") and a in R.legal_moves(st)
    assert R.notation(st, a) == "play conquer-three 2,0 1,0 3,0 2,1"
    with pytest.raises(IllegalMove, match="only once"):
        R.parse(st, "take 1,0 1,0")


@pytest.mark.parametrize("text,message", [
    ("fly 1 2,3", "There is no move 'fly'; the moves are: move, stop, play"),
    ("move 4 1,0", "Your pieces are 1, 2 and 3"),
    ("move 1 9,9", "There is no field 9,9 on the board"),
    ("move 1 a,b", "A field is written q,r"),
    ("move 1", "Write it like this: move 2 -1,3"),
    ("play raid", "raid is carried out when it is drawn; you play transport, conquer-six, conquer-three"),
    ("play joker", "There is no card 'joker'"),
    ("play conquer-three 1,0 2,0", "1,0 is not a star"),
    ("propose chess", "The modes are normal, fast, absolute, free"),
    ("take", "Write the fields to take"),
])
def test_unreadable_moves_say_what_would_be_valid(text, message):
    st = position(pieces=[(0, 0), *FAR, None, None, None])
    with pytest.raises(IllegalMove) as error:
        R.parse(st, text)
    assert str(error.value).startswith(message) and str(error.value).endswith(".")


def test_refused_moves_explain_in_one_sentence_and_change_nothing():
    st = position(pieces=[(0, 0), *FAR, None, None, None])
    before = R.state_hash(st)
    for text, message in [("roll 1", "Now you move your pieces (phase 1): you can move, not 'roll'."),
                          ("move 1 2,2", "2,2 is not next to piece 1."),
                          ("play transport 1", "You have no transport card in your depot or in use this round.")]:
        with pytest.raises(IllegalMove) as error:
            R.apply(st, R.parse(st, text))
        assert str(error.value) == message
    with pytest.raises(IllegalMove, match="That is not one of your choices now; you can: move 1 1,0"):
        R.apply(st, Move("move", ("x",)))
    assert R.state_hash(st) == before


def test_the_view_shows_everything_but_the_deck_order():
    st = position(pieces=[(1, 0), *FAR, None, None, None], deck=["conquer-three", *DECK[:10]])
    view = R.view(st, 0)
    assert set(view) == VIEW_KEYS
    assert len(view["fields"]) == 151 and view["fields"][0] == [2, -7, None]
    assert view["colours"] == ["red", "blue"]
    assert R.view(st, None) == view == R.view(st, 1)
    other = R.resample_hidden(st, 1, 99)
    assert other.deck != st.deck and sorted(other.deck) == sorted(st.deck)
    assert R.view(other, 1) == view
    assert "conquer-three" not in json.dumps(view)  # the top card is not shown before it is drawn


def test_state_json_round_trip_and_final_view():
    chooser = random.Random(4)
    st = R.setup(2, {"mode": "fast", "mode_change": False}, 4)
    while R.to_move(st) is not None:
        data = json.loads(canonical_json(R.state_to_json(st)))
        again = R.state_from_json(data)
        assert R.state_hash(again) == R.state_hash(st) and R.legal_moves(again) == R.legal_moves(st)
        st = R.apply(st, chooser.choice(R.legal_moves(st)))
    final = R.view(st, None)
    assert final["phase"] == "over" and final["to_move"] is None and final["pending"] is None
    assert final["result"] == R.result(st).to_json()
    with pytest.raises(IllegalMove, match="game is over"):
        R.apply(st, Move("end"))
    assert texts(st) == []


def test_a_state_copy_carries_every_slot():
    from engine.tapaono.state import SLOTS

    st = position(pieces=[(1, 0), *FAR, None, None, None], deck=["raid"])
    other = st.copy()
    assert all(getattr(other, name) == getattr(st, name) for name in SLOTS)
    assert R.state_to_json(other) == R.state_to_json(st)
