"""Standing orders: the follow-up decision (D6, D9, D10) written before the drawn tile is placed."""

from __future__ import annotations

import pytest

from engine.core import Order, OrderError
from engine.discovery.position import build_position

from tests.engine.discovery.helpers import RULES, play


def moves_text(state) -> list:
    return [RULES.notation(state, m) for m in RULES.legal_moves(state)]


def follow(state, queue):
    """Play what the orders decide, as the service does after a move; returns (state, orders left)."""
    while (found := RULES.queued_move(state, state.seat, queue)) is not None:
        move, queue = found
        state = RULES.apply(state, move)
    return state, queue


def drawn_seven():
    """Seat 0 holds the drawn tile 7 (all mountain), which fits at -1,0 and 1,0; a navigator of
    seat 0 stands on the start tile's sea."""
    return build_position(2, [(1, 0, -1, 0)], [(0, 0, 0, "N")], current=7, deck=(7, 5))


def test_d9_a_deploy_order_puts_a_follower_on_the_tile_once_it_is_placed():
    state = drawn_seven()
    queue = (RULES.parse_order(state, 0, "deploy w"),)  # any side of the mountain names it
    assert RULES.order_notation(queue[0]) == "deploy W" and RULES.queued_move(state, 0, queue) is None
    state = play(state, "place 1,0 0")
    state, queue = follow(state, queue)
    assert queue == () and RULES.view(state, None)["last_move"]["move"] == "deploy N+E+S+W"
    assert [(f["seat"], f["x"], f["y"]) for f in RULES.view(state, None)["followers"]] == [(0, 0, 0), (0, 1, 0)]


def test_d10_a_remove_order_scores_after_the_placement():
    state = drawn_seven()
    queue = (RULES.parse_order(state, 0, "remove 0,0 n"),)
    assert queue == (Order("exact", ("remove", (0, 0, "N"))),)
    state, queue = follow(play(state, "place -1,0 0"), queue)
    assert RULES.view(state, None)["last_move"] == {"seat": 0, "move": "remove 0,0 N", "points": 1}


def test_d9_a_deploy_order_into_an_occupied_region_leaves_the_choice_to_the_player():
    # Tile 5 (all sea) goes to 0,1, joined to the start tile's sea, where seat 0's navigator stands.
    state = build_position(2, [], [(0, 0, 0, "N")], current=5, deck=(7,))
    order = RULES.parse_order(state, 0, "deploy N")
    assert RULES.order_move(state, 0, order) is None  # not yet: the tile is not placed
    state = play(state, "place 0,1 0")
    assert RULES.order_move(state, 0, order) is None
    assert moves_text(state) == ["remove 0,0 N", "pass"]  # the player is asked


def test_orders_that_can_never_apply_are_refused_with_the_reason():
    state = drawn_seven()
    refused = {
        "deploy sea": "Your tile #7 has no segment sea in any rotation",
        "deploy xyz": "Name a segment by its sides",
        "remove 0,-1 N": "You have no follower at 0,-1 N",
        "place 1,0 0": "Place your tile with a move",
        "hello": "Unknown move",
    }
    for line, reason in refused.items():
        with pytest.raises(OrderError, match=reason):
            RULES.parse_order(state, 0, line)
    with pytest.raises(OrderError, match="your own turn"):
        RULES.parse_order(state, 1, "pass")
    placed = play(state, "place 1,0 0")
    with pytest.raises(OrderError, match="already holds a follower|no segment"):
        RULES.parse_order(placed, 0, "deploy sea")
    full = build_position(2, [(1, 0, -1, 0)], [(0, 0, 0, "N"), (0, 0, 0, "E+W"), (0, 0, 0, "S"), (0, 0, -1, "N")],
                          current=7, deck=(5,), shared=True)
    with pytest.raises(OrderError, match="All your followers are out"):
        RULES.parse_order(full, 0, "deploy N")
