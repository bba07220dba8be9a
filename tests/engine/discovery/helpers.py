"""Shared helpers for the Discovery tests: build positions and score by removing a follower."""

from __future__ import annotations

import engine
from engine.discovery.position import build_position

RULES = engine.get("discovery")


def remove_and_score(tiles, follower, seat=0, players=2, deck=(5, 5)):
    """Points `seat` gets by removing its follower (x, y, segment) from the position (D10)."""
    x, y, name = follower
    last = tiles[-1]
    state = build_position(players, tiles, [(seat, x, y, name)], to_move=seat, placed=(last[1], last[2]),
                           deck=deck)
    after = RULES.apply(state, RULES.parse(state, f"remove {x},{y} {name}"))
    return after.scores[seat] - state.scores[seat]


def value(state, x, y, name, final=False):
    """The value of the region of segment `name` of the tile at x,y."""
    board = state.board
    number, _, _, k = board.tiles[board.at[(x, y)]]
    local = board_tile(number).segment_by_name(k, name.lower())
    return board.value(board.segment(x, y, local), final=final)


def board_tile(number):
    from engine.discovery.tiles import TILE_TYPES
    return TILE_TYPES[number]


def play(state, *texts):
    """Apply moves given as text, one after another."""
    for text in texts:
        state = RULES.apply(state, RULES.parse(state, text))
    return state
