"""Standing orders: landing, emigration, tile and placement choices written before the tiles are drawn."""

from __future__ import annotations

import pytest

from engine.core import Order, OrderError
from tests.engine.tongiaki.util import R, beach, build, options, pending, play, tile_at, two_full_beaches

TONGA = ("Tonga", 0, 0, 0)


def follow(state, orders, seat):
    """Play what the orders decide, as the service does after a move; returns (state, orders left)."""
    while (found := R.queued_move(state, seat, orders)) is not None:
        move, orders = found
        state = R.apply(state, move)
    return state, orders


def fleet_to_hawaii():
    """Blue fills Tonga 4: its fleet (blue, blue, green) sails south, draws P, then Hawaii."""
    return build(2, ships={("Tonga", 4): "blue green", ("Tonga", 1): "green"}, pile=["P", "Hawaii", "A", "Fiji"])


def test_t13_a_landing_order_lands_the_fleet_that_a_drawn_tile_brought():
    s = fleet_to_hawaii()
    orders = (R.parse_order(s, 0, "land green blue 3 2 1"),)
    s = play(s, "expand Tonga 4")
    assert tile_at(s, -1, 1)["tile"] == "Hawaii" and pending(s)["decision"] == "land"
    s, orders = follow(s, orders, 0)
    # Green first, on beach 3; then blue on the first listed beach that may take it: 2, then 1 (T13).
    assert beach(s, "Hawaii", 3) == ["green"] and beach(s, "Hawaii", 2) == ["blue"]
    assert beach(s, "Hawaii", 1) == ["blue"]
    assert pending(s)["colour"] == "green"  # the turn is over
    assert orders == (Order("land", (("green", "blue"), (3, 2, 1))),)  # it stays for the whole turn


def test_t13_a_landing_order_without_a_legal_choice_leaves_the_decision_to_the_player():
    s = fleet_to_hawaii()
    orders = (R.parse_order(s, 0, "land green 5"),)  # Hawaii has beaches 1 to 3
    s = play(s, "expand Tonga 4")
    assert R.queued_move(s, 0, orders) is None
    assert R.order_move(s, 0, orders[0]) is None
    assert pending(s)["decision"] == "land"  # the player is asked


def test_t11_an_emigration_order_picks_the_first_listed_side_a_full_beach_can_sail():
    s = two_full_beaches()
    assert options(s) == ["emigrate Tonga 5 SW", "emigrate Tonga 6 NW"]
    order = R.parse_order(s, 0, "emigrate N NW SW")
    assert R.order_notation(order) == "emigrate N NW SW"
    move, rest = R.order_move(s, 0, order)
    assert R.notation(s, move) == "emigrate Tonga 6 NW" and rest == order
    assert R.order_move(s, 0, R.parse_order(s, 0, "emigrate N SE")) is None  # no full beach has those jetties


def test_t9_tile_and_place_orders_follow_the_tiles_of_a_new_settlement():
    s = build(2, tiles=[TONGA, ("Fiji", 0, -1, 3), ("Samoa", 1, 0, 5)],
              ships={("Samoa", 1): "blue", ("Tonga", 2): "blue green"}, kings={"Fiji": "blue"},
              pile=["A", "Oahu", "B", "Hawaii"])
    orders = (R.parse_order(s, 0, "tile N S"), R.parse_order(s, 0, "place 3 2"))
    s = play(s, "settle")
    s, orders = follow(s, orders, 0)
    assert pending(s)["decision"] == "tile"  # no tile drawn yet: the first position is the player's
    s = play(s, "tile Tonga S")
    assert tile_at(s, 0, 1)["tile"] == "A"
    s, orders = follow(s, orders, 0)
    # Next to A (the tile drawn last): N is Tonga's hex, S is open; Oahu comes, its beach 3 takes the ship.
    assert tile_at(s, 0, 2)["tile"] == "Oahu" and beach(s, "Oahu", 3) == ["blue"]
    assert pending(s)["colour"] == "green"


def test_orders_that_can_never_apply_are_refused_with_the_reason():
    s = fleet_to_hawaii()
    settled = play(build(2, ships={("Tonga", 1): "blue", ("Tonga", 2): "green"}), "settle")
    refused = [
        (s, 0, "land purple 1", "colours in this game are blue, green"),
        (s, 0, "place 4", "numbered 1 to 3 on a drawn island, not 4"),
        (s, 0, "emigrate N NE N", "Name each side only once"),
        (s, 0, "land blue 2 green", "colours first"),
        (s, 1, "land blue green", "your own turn"),
        (settled, 0, "land blue green", "No fleet sails in the rest of this turn"),
        (settled, 0, "emigrate Tonga 1 N", "No fleet sails"),
        (settled, 0, "expand Tonga 1", "cannot expand now"),
    ]
    for state, seat, line, reason in refused:
        with pytest.raises(OrderError, match=reason):
            R.parse_order(state, seat, line)
