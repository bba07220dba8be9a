"""Helpers for the Tapaono tests: exact positions, moves from text, dice seeds."""

from __future__ import annotations

from engine.core import Rng
from engine.tapaono import RULES
from engine.tapaono.board import FIELDS, INDEX
from engine.tapaono.state import SPAWN, Phase

R = RULES
__all__ = ["FAR", "R", "STAR_WALK", "Phase", "at", "play", "position", "ring", "seed_for", "targets", "texts",
           "where"]
FAR = [(3, 3), (-5, 0)]  # two fields away from everything the tests look at
STAR_WALK = [(1, 0), *FAR, None, None, None]  # piece 1 steps onto the star 2,0 with "move 1 2,0"


def position(**layout):
    """A settled position (state.build arguments)."""
    return R.position(**layout)


def play(state, *texts_):
    """Apply moves given as text, one after the other."""
    for text in texts_:
        state = R.apply(state, R.parse(state, text))
    return state


def texts(state) -> list[str]:
    """The notation of every legal move."""
    return [R.notation(state, m) for m in R.legal_moves(state)]


def at(state, q: int, r: int):
    """The owner of field (q, r): None, 0 or 1."""
    value = state.owner[INDEX[(q, r)]]
    return None if value == 0 else value - 1


def seed_for(*rolls: int) -> int:
    """A seed whose first die rolls are exactly these."""
    for seed in range(100_000):
        rng = Rng(seed)
        if all(rng.die() == value for value in rolls):
            return seed
    raise AssertionError("no seed found")


def ring(q, r):
    """The six neighbours of q,r in direction order."""
    return [(q + 1, r), (q + 1, r - 1), (q, r - 1), (q - 1, r), (q - 1, r + 1), (q, r + 1)]


def where(state, slot):
    """The field of the piece in slot (seat * 3 + piece - 1), None in the spawn."""
    return None if state.pos[slot] == SPAWN else FIELDS[state.pos[slot]]


def targets(state, piece):
    """The fields a move of piece (1..3) may go to now."""
    return sorted(t.split()[2] for t in texts(state) if t.startswith(f"move {piece} "))
