"""Issue 33, item 2: the whole turn a turn mail shows (`rules.turn_example`) is written from what the
seat sees, and each of its lines is a legal move now or an order the engine reads (P8-P11, T12-T16).

The mail tests (tests/mail/test_33_judge.py) paste it as a reply through the service; here the
engine alone: no hidden information (deck order, tiles, the seed) shapes it, and it reads back.
"""

from __future__ import annotations

import random

import pytest

import engine
from engine.core import IllegalMove

TITLES = [name for name in engine.names()
          if type(engine.get(name)).order_examples is not engine.Rules.order_examples]


def positions(rules, players: int, seed: int, count: int = 40):
    """Random positions at the start of a seat's turn (where a turn mail is written)."""
    rnd = random.Random(seed)
    state = rules.setup(players, rules.check_options({}), seed)
    previous = None
    for _ in range(4000):
        seat = rules.to_move(state)
        if seat is None or count == 0:
            return
        if seat != previous:
            count -= 1
            yield state, seat
        previous = seat
        state = rules.apply(state, rnd.choice(rules.legal_moves(state)))


@pytest.mark.parametrize("name", TITLES)
def test_33_2_the_whole_turn_example_tells_nothing_the_seat_cannot_see(name):
    rules = engine.get(name)
    seen = 0
    for state, seat in positions(rules, rules.min_players, 7):
        example = rules.turn_example(state, seat)
        for salt in (1, 99):
            assert rules.turn_example(rules.resample_hidden(state, seat, salt), seat) == example
        assert rules.turn_example(state, (seat + 1) % rules.min_players) == []  # only for the seat to move
        seen += len(example) > 1
    assert seen


@pytest.mark.parametrize("name", TITLES)
def test_33_2_the_whole_turn_example_starts_with_a_legal_move_and_every_line_reads(name):
    rules = engine.get(name)
    for state, seat in positions(rules, rules.max_players, 3):
        example = rules.turn_example(state, seat)
        if not example:
            continue
        assert rules.parse(state, example[0]) in rules.legal_moves(state), example
        for line in example[1:]:  # each line a move (in the turn's course) or an order read now
            try:
                rules.parse(state, line)
            except IllegalMove:
                rules.parse_order(state, seat, line)


def test_33_2_tapaono_takes_come_before_roll_all_and_end_closes_the_round_P9_P11():
    rules = engine.get("tapaono")
    checked = 0
    for state, seat in positions(rules, 2, 5, count=80):
        example = rules.turn_example(state, seat)
        if "roll all" in example:
            takes = [i for i, line in enumerate(example) if line.startswith("take ")]
            assert all(i < example.index("roll all") for i in takes), example
            checked += 1
        if example and state.cfg.mode_change and not state.proposed:
            assert example[-1] == "end", example  # phase 4 waits for it while a proposal may come (P17)
    assert checked
