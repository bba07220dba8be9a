"""Helpers for the Tongiaki tests: exact positions and short ways to play moves by their notation."""

from __future__ import annotations

import engine

R = engine.get("tongiaki")

# Six water tiles around TONGA whose tracks lead every fleet from TONGA back to TONGA:
# N and NE, SE and S, SW and NW are pairs (risk 0 everywhere). Used for T16.
TONGA_RING = [("H", 0, -1, 0), ("K", 1, -1, 2), ("L", 1, 0, 5), ("N", 0, 1, 1), ("O", -1, 1, 0), ("P", -1, 0, 1)]


def build(players=2, tiles=(("Tonga", 0, 0, 0),), **kwargs):
    return R.build(players, tiles=list(tiles), **kwargs)


def two_full_beaches():
    """Blue's turn: expanding on Tonga 5 and 6 fills both (jetties SW and NW); Tokelau lies north."""
    tonga = ("Tonga", 0, 0, 0)
    return play(R.build(2, tiles=[tonga, ("Tokelau", 0, -1, 3)],
                        ships={("Tonga", 5): "blue green", ("Tonga", 6): "blue green", ("Tokelau", 3): "green",
                               ("Tokelau", 1): "blue"},
                        pile=["Samoa", "Fiji", "A", "Oahu"]), "expand Tonga 5 6")


def play(state, *texts):
    """Parse and apply each text in turn (as a player would type it)."""
    for text in texts:
        state = R.apply(state, R.parse(state, text))
    return state


def options(state):
    """The notation of every legal move."""
    return [R.notation(state, m) for m in R.legal_moves(state)]


def beach(state, island, number):
    """The colours on one beach, from the view."""
    for tile in R.view(state, None)["tiles"]:
        if tile["tile"].lower() == island.lower():
            return tile["beaches"][number - 1]["ships"]
    raise KeyError(island)


def tile_at(state, q, r):
    for tile in R.view(state, None)["tiles"]:
        if (tile["q"], tile["r"]) == (q, r):
            return tile
    return None


def events(state, kind=None):
    found = R.view(state, None)["events"]
    return [e for e in found if kind is None or e["event"] == kind]


def supply(state, colour):
    for seat in R.view(state, None)["seats"]:
        if seat["colour"] == colour:
            return seat["supply"]
    raise KeyError(colour)


def pending(state):
    return R.view(state, None)["pending"]
