"""Standing orders: the rest of a round written before the die or the card it follows (P8, P9)."""

from __future__ import annotations

import pytest

from engine.core import IllegalMove, Order, OrderError
from engine.tapaono.state import SPAWN

from .util import FAR, STAR_WALK, Phase, R, at, play, position, seed_for, texts

# Piece 1 on 0,0; around it 1,0 is the opponent's, 0,1 -1,1 -1,0 are the first player's own.
OWNER = {(1, 0): 1, (0, 1): 0, (-1, 1): 0, (-1, 0): 0}


def dice(rolls, owner=OWNER, **extra):
    return position(phase=Phase.DICE, pieces=[(0, 0), *FAR, None, None, None], owner=owner,
                    seed=seed_for(*rolls), **extra)


def orders(state, *lines):
    return tuple(R.parse_order(state, state.turn, line) for line in lines)


def follow(state, queue):
    """Play what the orders decide, as the service does after a move; returns (state, orders left)."""
    while (found := R.queued_move(state, state.turn, queue)) is not None:
        move, queue = found
        state = R.apply(state, move)
    return state, queue


def test_p9_a_take_order_takes_the_first_n_legal_fields_after_the_roll():
    st = dice([2])
    queue = orders(st, "roll 1", "take 1 0,1 1,0 0,-1 1,-1")
    st, queue = follow(st, queue)
    # The roll was 2: 0,1 is already ours, so 1,0 (freed) and 0,-1 (conquered); 1,-1 is not needed.
    assert at(st, 1, 0) is None and at(st, 0, -1) == 0 and at(st, 1, -1) is None
    assert R.view(st, 0)["last_move"] == {"seat": 0, "move": "take 0,-1 1,0"}
    assert queue == () and st.phase == Phase.DICE and texts(st) == ["roll 2", "roll 3", "end"]


def test_p9_a_take_order_for_the_exact_markers_after_a_six():
    st = dice([6], owner={}, stock=(2, 100))
    st, _ = follow(st, orders(st, "roll 1", "take 1 -1,0 0,0 1,0"))  # seven free fields, two markers
    assert at(st, -1, 0) == 0 and at(st, 0, 0) == 0 and at(st, 1, 0) is None
    assert st.pos[0] == SPAWN and st.stock[0] == 0


def test_p9_roll_all_rolls_for_every_piece_in_order():
    st = position(phase=Phase.DICE, pieces=[(0, 0), *FAR, None, None, None], seed=seed_for(6, 6, 6))
    order = R.parse_order(st, 0, "roll all")
    assert R.order_notation(order) == "roll all"
    move, rest = R.order_move(st, 0, order)
    assert R.notation(st, move) == "roll 1" and rest == Order("roll", (2, 3))
    st, queue = follow(st, (order,))
    assert st.pos[:3] == (SPAWN, SPAWN, SPAWN)  # three sixes: every piece conquered its ring and went home
    assert queue == () and st.phase in (Phase.CONQUEST, Phase.MOVE)


def test_p8_orders_for_the_card_a_step_onto_a_star_draws():
    owner = {(-3, -3): 1, (-4, -3): 1, (-5, -2): 1, (4, 1): 0}
    st = position(pieces=STAR_WALK, deck=["raid"], owner=owner, seed=seed_for(5))
    queue = orders(st, "keep", "remove 4,1 -5,-2 -3,-3", "skip")
    st = play(st, "move 1 2,0")  # draws Raid, rolled 5
    st, queue = follow(st, queue)
    # 4,1 is ours (a raid frees the opponent's), -5,-2 and -3,-3 go; then "skip" stops the raid.
    assert at(st, -5, -2) is None and at(st, -3, -3) is None and at(st, -4, -3) == 1 and at(st, 4, 1) == 0
    assert st.phase == Phase.MOVE and queue == (Order("exact", ("keep", ())),)  # no keepable card came
    kept = play(position(pieces=STAR_WALK, deck=["conquer-three"]), "move 1 2,0")
    kept, _ = follow(kept, orders(kept, "keep"))
    assert R.view(kept, 0)["depots"][0] == ["conquer-three"]


def test_an_order_with_no_legal_choice_leaves_the_decision_to_the_player():
    st = dice([3])
    queue = orders(st, "roll 1", "take 1 0,1 -1,1")  # both already ours
    st, queue = follow(st, queue)
    assert st.phase == Phase.TAKE and R.queued_move(st, 0, queue) is None
    assert texts(st)[0] == "take none"  # the player is asked
    assert queue == (Order("take", (1, ((0, 1), (-1, 1)))),)


def test_orders_that_can_never_apply_are_refused_with_the_reason():
    st = dice([3])
    refused = {
        "take 1 2,0": "2,0 is a star",
        "take 9,9": "There is no field 9,9",
        "take 2 0,-3": "None of these fields is next to piece 2",
        "move 2 4,2": "The move phase of this round is over",
        "roll 1 1": "Name each piece only once",
        "accept": "no proposal",
        "remove": "Write it like this: remove 4,-3",
    }
    for line, reason in refused.items():
        with pytest.raises(OrderError, match=reason):
            R.parse_order(st, 0, line)
    with pytest.raises(OrderError, match="your own round"):
        R.parse_order(st, 1, "roll all")
    rolled = play(st, "roll 1", "take none", "end")
    assert rolled.phase == Phase.CONQUEST
    with pytest.raises(OrderError, match="dice phase of this round is over"):
        R.parse_order(rolled, 0, "roll all")


def mail(state, *lines):
    """One mail of the player to move, as the service reads it: a line that is a legal move now is made,
    any other line is an order kept for later; after every move the kept orders play what they decide."""
    seat, queue = state.turn, ()
    for line in lines:
        state, queue = follow(state, queue)
        try:
            state = R.apply(state, R.parse(state, line))
        except IllegalMove:
            queue += (R.parse_order(state, seat, line),)
    return follow(state, queue)


def test_docs_example_mail():
    """The round in one mail of docs/games/tapaono.md ("Standing orders")."""
    st = position(pieces=[(1, -3), (3, -1), (3, -5), (-2, 3), None, None], depots=(["transport"], []),
                  deck=["conquer-three", "raid"], rounds=(5, 4), seed=seed_for(3, 2, 5), owner={(4, -3): 1})
    st, queue = mail(st, "move 1 2,-4", "keep", "move 2 4,-1", "move 3 3,-6", "roll all", "take 1 1,-4 2,-5 3,-4 1,-3",
                     "take 2 5,-1 4,0 3,0", "take 3 2,-6 4,-6 3,-5", "end")
    assert R.to_move(st) == 1 and queue == ()  # the whole round, nothing asked
    taken = [(1, -4), (2, -5), (3, -4), (5, -1), (4, 0), (2, -6), (4, -6), (3, -5)]
    assert [at(st, *c) for c in taken] == [0] * 8 and at(st, 1, -3) is None and at(st, 3, 0) is None
    assert R.view(st, None)["depots"][0] == ["transport", "conquer-three"]
