"""Tongiaki's components as data: the 16 islands, the 16 water tiles and the hex geometry.

Tile ids: 0 is TONGA, 1..15 the other islands in the digest's order, 16..31 the water
tiles A..P. Hexes are flat-topped and addressed by axial coordinates (q, r); TONGA lies
at (0, 0). World sides 0..5 are N, NE, SE, S, SW, NW; the neighbour of (q, r) on side d is
(q, r) + STEP[d]. A tile's rotation is the world side of its red dot (local edge r0), so
its local edge e lies on world side (rotation + e) mod 6 (T3); TONGA has rotation 0 and
its data is given in world sides already.

This module only holds data and tables derived from it; it knows nothing of ships or turns.
"""

from __future__ import annotations

from enum import IntEnum
from itertools import combinations


class Side(IntEnum):
    """The six world sides of a hex, clockwise from north."""

    N = 0
    NE = 1
    SE = 2
    S = 3
    SW = 4
    NW = 5


SIDE_NAMES = tuple(side.name for side in Side)
STEP = ((0, -1), (1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0))  # axial (dq, dr) per world side
SIDE_WORDS = {
    "n": 0, "north": 0, "ne": 1, "northeast": 1, "se": 2, "southeast": 2,
    "s": 3, "south": 3, "sw": 4, "southwest": 4, "nw": 5, "northwest": 5,
}

TONGA = 0
ISLAND_COUNT = 16
WATER_COUNT = 16
TILE_COUNT = ISLAND_COUNT + WATER_COUNT
ISLANDS = range(ISLAND_COUNT)
WATER = range(ISLAND_COUNT, TILE_COUNT)

# name, value, beaches as (places, jetty edges); TONGA's edges are world sides.
ISLAND_DATA = (
    ("Tonga", 0, ((3, (0,)), (3, (1,)), (3, (2,)), (3, (3,)), (3, (4,)), (3, (5,)))),
    ("Muroroa", 2, ((2, (1,)), (2, (2,)), (3, (4, 5)))),
    ("Nauru", 2, ((2, (1, 2)), (3, (3,)), (2, (4, 5)))),
    ("Tubuai", 2, ((3, (1, 2)), (3, (4, 5)))),
    ("Rarotonga", 3, ((3, (1, 2)), (4, (3, 4, 5)))),
    ("Rapa Nui", 3, ((5, (1, 2)), (3, (3, 4, 5)))),
    ("Tokelau", 3, ((4, (1,)), (3, (2, 3)), (2, (4, 5)))),
    ("Tuamotu", 3, ((4, (1, 2, 3)), (4, (4, 5)))),
    ("Hiva Oa", 4, ((2, (1, 2)), (2, (3,)), (5, (4, 5)))),
    ("Mangareva", 4, ((2, (1, 2)), (3, (3, 4)), (4, (5,)))),
    ("Oahu", 4, ((3, (1, 2)), (5, (3,)), (3, (4, 5)))),
    ("Tahiti", 4, ((2, (1, 2)), (3, (3, 4)), (4, (5,)))),
    ("Tuvalu", 4, ((2, (1, 2)), (4, (3,)), (3, (4, 5)))),
    ("Fiji", 5, ((5, (1,)), (4, (2, 3)), (4, (4, 5)))),
    ("Hawaii", 5, ((3, (1, 2)), (5, (3,)), (2, (4, 5)))),
    ("Samoa", 5, ((3, (1, 2)), (4, (3, 4)), (5, (5,)))),
)

# letter: three foam tracks (edge, edge, risk); risk 0 = no number (always crossed).
WATER_DATA = (
    ("A", ((0, 3, 4), (1, 5, 4), (2, 4, 4))),
    ("B", ((0, 4, 4), (1, 3, 4), (2, 5, 3))),
    ("C", ((0, 3, 4), (1, 5, 3), (2, 4, 0))),
    ("D", ((0, 4, 3), (1, 3, 3), (2, 5, 4))),
    ("E", ((0, 1, 3), (2, 3, 2), (4, 5, 4))),
    ("F", ((0, 3, 3), (1, 5, 3), (2, 4, 3))),
    ("G", ((0, 3, 3), (1, 5, 2), (2, 4, 0))),
    ("H", ((0, 1, 3), (2, 3, 0), (4, 5, 2))),
    ("I", ((0, 4, 2), (1, 3, 3), (2, 5, 4))),
    ("J", ((0, 5, 2), (1, 2, 2), (3, 4, 2))),
    ("K", ((0, 1, 2), (2, 3, 0), (4, 5, 2))),
    ("L", ((0, 5, 0), (1, 2, 3), (3, 4, 4))),
    ("M", ((0, 4, 0), (1, 3, 4), (2, 5, 2))),
    ("N", ((0, 5, 0), (1, 2, 4), (3, 4, 2))),
    ("O", ((0, 1, 0), (2, 3, 2), (4, 5, 0))),
    ("P", ((0, 5, 0), (1, 2, 0), (3, 4, 0))),
)

NAMES = tuple(name for name, _, _ in ISLAND_DATA) + tuple(letter for letter, _ in WATER_DATA)
KEYS = tuple(name.lower().replace(" ", "") for name in NAMES)  # move arguments: "rapanui", "c"
KEY_TO_TILE = {key: tid for tid, key in enumerate(KEYS)}
VALUES = tuple(value for _, value, _ in ISLAND_DATA)
PLACES = tuple(tuple(places for places, _ in beaches) for _, _, beaches in ISLAND_DATA)
BEACH_COUNT = tuple(len(p) for p in PLACES)
ISLAND_KEYS = {key: tid for tid, key in enumerate(KEYS) if tid < ISLAND_COUNT}


def world_side(rotation: int, edge: int) -> int:
    """The world side on which a tile's local edge lies (T3)."""
    return (rotation + edge) % 6


def _jetty_table():
    """JETTIES[tid][rotation][beach] = the world sides its jetties point through, ascending."""
    table = []
    for tid, (_, _, beaches) in enumerate(ISLAND_DATA):
        per_rot = []
        for rot in range(6):
            per_rot.append(tuple(tuple(sorted(world_side(rot, e) for e in edges)) for _, edges in beaches))
        table.append(tuple(per_rot))
    return tuple(table)


def _water_table():
    """CROSS[tid - 16][rotation][world side in] = (world side out, risk)."""
    table = []
    for _, tracks in WATER_DATA:
        per_rot = []
        for rot in range(6):
            exits = [None] * 6
            for a, b, risk in tracks:
                exits[world_side(rot, a)] = (world_side(rot, b), risk)
                exits[world_side(rot, b)] = (world_side(rot, a), risk)
            per_rot.append(tuple(exits))
        table.append(tuple(per_rot))
    return tuple(table)


JETTIES = _jetty_table()
CROSS = _water_table()


def _check_data() -> None:
    """The digest's invariants: each water edge on one track, no jetty on r0 (T3)."""
    assert len(ISLAND_DATA) == ISLAND_COUNT and len(WATER_DATA) == WATER_COUNT
    for _, tracks in WATER_DATA:
        assert sorted(e for a, b, _ in tracks for e in (a, b)) == list(range(6))
    for tid, (_, _, beaches) in enumerate(ISLAND_DATA):
        if tid != TONGA:
            assert all(0 not in edges for _, edges in beaches)


_check_data()

# Every way to put one new ship on each of n distinct beaches of an island (T7).
BEACH_SETS = tuple(
    tuple(tuple(tuple(c) for c in combinations(range(count), n)) for n in range(count + 1))
    for count in range(7)
)
