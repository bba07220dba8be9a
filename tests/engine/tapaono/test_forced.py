"""Decisions with exactly one legal choice are made by the engine and reported as events (P5, P8, P12)."""

from __future__ import annotations

from .util import FAR, STAR_WALK, Phase, R, play, position, ring, texts, where

DONE_2_3 = 0b110  # pieces 2 and 3 have made their move this round


def events(state) -> list:
    return R.view(state, None)["events"]


def test_p5_the_last_piece_with_one_step_left_moves_by_itself():
    # Piece 1 may only step to 1,0 (the rest of its ring is the opponent's); piece 2 still owes its move.
    owner = {c: 1 for c in ring(0, 0) if c != (1, 0)}
    st = position(pieces=[(0, 0), FAR[0], FAR[1], None, None, None], owner=owner, done=0b100)
    assert "move 1 1,0" in texts(st) and len(texts(st)) > 1  # two pieces owe moves: the player chooses the order
    st = play(st, "move 2 4,2")
    # Only "move 1 1,0" was left: the engine made it, and the move phase is over.
    assert where(st, 0) == (1, 0) and st.phase == Phase.DICE
    assert events(st) == [{"event": "auto", "seat": 0, "move": "move 1 1,0"}]
    assert R.view(st, None)["last_move"] == {"seat": 0, "move": "move 2 4,2"}
    st = play(st, "end")
    assert events(st) == []  # events tell what happened since the last move only


def test_p8_a_transport_drawn_when_no_piece_owes_its_move_goes_to_the_depot_by_itself():
    st = position(pieces=STAR_WALK, deck=["transport", "raid"], done=DONE_2_3)
    st = play(st, "move 1 2,0")
    assert R.view(st, 0)["depots"][0] == ["transport"] and st.phase == Phase.DICE
    assert events(st) == [{"event": "auto", "seat": 0, "move": "keep"}]


def test_p8_a_transport_drawn_while_a_piece_still_owes_its_move_asks_keep_or_use():
    st = position(pieces=STAR_WALK, deck=["transport", "raid"])
    st = play(st, "move 1 2,0")
    assert st.phase == Phase.CARD and texts(st) == ["keep", "use"] and events(st) == []


def test_p12_a_conquest_card_drawn_with_no_markers_left_goes_to_the_depot_by_itself():
    st = position(pieces=STAR_WALK, deck=["conquer-six", "raid"], stock=(0, 100))
    st = play(st, "move 1 2,0")
    assert R.view(st, 0)["depots"][0] == ["conquer-six"] and st.phase == Phase.MOVE
    assert events(st) == [{"event": "auto", "seat": 0, "move": "keep"}]
    with_markers = play(position(pieces=STAR_WALK, deck=["conquer-six", "raid"], stock=(1, 100)), "move 1 2,0")
    assert texts(with_markers) == ["keep", "use"]


def test_forced_decisions_are_no_moves_in_a_whole_game():
    """In random games no position that asks a player has only one legal move."""
    import random

    for seed in range(3):
        chooser = random.Random(seed)
        st = R.setup(2, {"mode": "fast", "mode_change": False}, seed)
        autos = 0
        while R.to_move(st) is not None:
            legal = R.legal_moves(st)
            assert len(legal) > 1, f"seed {seed}: the engine asks for its only choice {texts(st)}"
            st = R.apply(st, chooser.choice(legal))
            autos += len(st.events)
        assert autos > 0


def test_a_state_stored_before_automatic_decisions_still_loads():
    st = play(position(pieces=[(0, 0), FAR[0], FAR[1], None, None, None]), "move 1 1,0")
    data = R.state_to_json(st)
    assert data.pop("events") == []  # rules version tapaono-1 stored no events
    assert R.state_hash(R.state_from_json(data)) == R.state_hash(st)
