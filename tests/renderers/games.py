"""Seeded random games for the picture tests: every position of a game, as (state, notation) pairs.

Positions come from the real engines (`engine.get(name).setup` and random legal moves
from a seeded `random.Random`), so the pictures are tested on the views players get.
"""

from __future__ import annotations

import random
from functools import lru_cache

import engine

# title -> (players, options, seeds) of the games the tests play through.
GAMES = {
    "tongiaki": [(3, {}, 7), (5, {}, 21)],
    "discovery": [(3, {}, 7), (2, {"double": True}, 5)],
    # Free mode with few markers ends in a few hundred decisions (a fast-mode game takes ~2000).
    "tapaono": [(2, {"mode": "free", "markers": 20}, 3), (2, {"mode": "free", "markers": 30, "deck_end": True}, 3)],
}


@lru_cache(maxsize=None)
def _play(title: str, players: int, options_items: tuple, seed: int, limit: int) -> tuple:
    rules = engine.get(title)
    state = rules.setup(players, dict(options_items), seed)
    rnd = random.Random(seed)
    out = [(state, "")]
    for _ in range(limit):
        if rules.to_move(state) is None:
            break
        move = rnd.choice(rules.legal_moves(state))
        text = rules.notation(state, move)
        state = rules.apply(state, move)
        out.append((state, text))
    return tuple(out)


def play(title: str, players: int, options: dict, seed: int, limit: int = 4000) -> tuple:
    """Every position of a seeded random game, with the notation of the move that led to it."""
    return _play(title, players, tuple(sorted(options.items())), seed, limit)


def registered(title: str) -> bool:
    return title in engine.names()
