"""The top level plays to win (issue 37, item 1): a smoke test, not a measurement.

A few seeded two-player games of Tongiaki between the hard bot and random play; the bot must win
nearly all of them. The measurement (500 games per title, player count and matchup, with
intervals) is `bench/bots.py`.
"""

from __future__ import annotations

import dataclasses
import random

import bots
import engine
from engine.core import derive_seed

GAMES = 4


def test_37_1_the_hard_bot_beats_random_play():
    rules = engine.get("tongiaki")
    hard = dataclasses.replace(bots.level("hard"), seconds=None)  # playouts only: the same games on any machine
    won = 0
    for game in range(GAMES):
        seed = derive_seed(game, "strength")
        bot_seat = game % 2
        chooser = random.Random(seed)
        state = rules.setup(2, rules.check_options({}), seed)
        decisions = 0
        while (seat := rules.to_move(state)) is not None:
            if seat == bot_seat:
                move = bots.choose(rules, state, hard, derive_seed(seed, f"bot/{decisions}")).move
            else:
                move = chooser.choice(rules.legal_moves(state))
            state = rules.apply(state, move)
            decisions += 1
        won += rules.result(state).ranks[bot_seat] == 1
    assert won >= GAMES - 1, f"the hard bot won {won} of {GAMES} games against random play"
