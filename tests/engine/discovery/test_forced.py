"""Decisions with exactly one legal choice are made by the engine and reported as events (D6, D7, D18)."""

from __future__ import annotations

import random

from engine.discovery.position import build_position

from tests.engine.discovery.helpers import RULES, play


def events(state) -> list:
    return RULES.view(state, None)["events"]


def moves_text(state) -> list:
    return [RULES.notation(state, m) for m in RULES.legal_moves(state)]


def test_d7_d6_a_tile_with_one_place_and_a_turn_that_can_only_pass_are_played_by_the_engine():
    # Seat 0 passes; seat 1 draws tile 5 (all sea), which fits only at 0,1, and its sea joins the
    # start tile's sea, where seat 0's navigator stands: seat 1 (no follower out) can only pass.
    state = build_position(2, [(1, 0, -1, 0)], [(0, 0, 0, "N")], placed=(0, -1), deck=(7, 5))
    state = play(state, "pass")
    assert events(state) == [{"event": "auto", "seat": 1, "move": "place 0,1 0"},
                             {"event": "auto", "seat": 1, "move": "pass"}]
    assert state.seat == 0 and moves_text(state) == ["place -1,0 0", "place 1,0 0"]
    assert RULES.view(state, None)["last_move"] == {"seat": 0, "move": "pass", "points": None}
    state = play(state, "place 1,0 0")
    assert events(state) == []  # events tell what happened since the last move only


def test_d18_one_hidden_tile_with_one_place_is_placed_by_the_engine():
    state = build_position(2, [(5, 0, 1, 0)], [], placed=(0, 1), to_move=1, hands=((1,), (7,)), deck=())
    state = play(state, "pass")
    assert events(state) == [{"event": "auto", "seat": 0, "move": "place #1 0,-1 0"}]
    assert RULES.view(state, None)["phase"] == "follow"


def test_d18_two_hidden_tiles_are_never_placed_by_the_engine():
    # Two tiles of one type that fit in one place only: placing one by itself would tell the
    # others what the tile still held is, so the player is asked.
    state = build_position(2, [(5, 0, 1, 0)], [], placed=(0, 1), to_move=1, hands=((1, 1), (7,)), deck=(8,))
    state = play(state, "pass")
    assert events(state) == [] and state.seat == 0
    assert moves_text(state) == ["place #1 0,-1 0"]


def test_no_position_that_asks_a_player_has_only_one_legal_move():
    for options in ({}, {"double": True}):
        for seed in range(4):
            chooser = random.Random(seed)
            state = RULES.setup(3, options, seed)
            while RULES.to_move(state) is not None:
                legal = RULES.legal_moves(state)
                held = state.hands[state.seat] if state.double else ()
                assert len(legal) > 1 or len(held) > 1, f"seed {seed}: asked for its only choice {moves_text(state)}"
                state = RULES.apply(state, chooser.choice(legal))


def test_a_state_stored_before_automatic_decisions_still_loads():
    state = play(build_position(2, [(1, 0, -1, 0)], [(0, 0, 0, "N")], placed=(0, -1), deck=(7, 7)), "pass")
    data = RULES.state_to_json(state)
    assert data.pop("events") == []  # rules version discovery-1 stored no events
    assert RULES.state_hash(RULES.state_from_json(data)) == RULES.state_hash(state)
