"""The tile model: terrains, sides, segments and port cities of each tile type in each rotation.

Builds, once at import, everything placement needs from the data in `tileset.py`: the
terrain of each side per rotation, segment names as players write them, which rotations
of a tile are indistinguishable, and the table of rotations that fit an open square's
side constraints. It does not know the board; `board.py` does.
"""

from __future__ import annotations

from enum import Enum

from engine.discovery.tileset import START_TILE, TILESET

SIDES = "NESW"                       # side index 0..3, clockwise from north
ROTATIONS = (0, 90, 180, 270)         # degrees clockwise
STEP = {0: (0, 1), 1: (1, 0), 2: (0, -1), 3: (-1, 0)}  # side -> (dx, dy) of the neighbour square
OPEN = "."                            # no constraint on that side of an open square


class Terrain(Enum):
    """The three terrains; the value is the letter used in the tile data and side strings."""

    GRASSLAND = "G"
    MOUNTAIN = "M"
    SEA = "S"

    @property
    def word(self) -> str:
        return self.name.lower()

    @property
    def follower(self) -> str:
        """What a follower on this terrain is called (D1)."""
        return FOLLOWER_NAMES[self]


FOLLOWER_NAMES = {Terrain.GRASSLAND: "explorer", Terrain.MOUNTAIN: "brigand", Terrain.SEA: "navigator"}
TERRAIN_WORDS = {t.word: t for t in Terrain}


def segment_name(sides: tuple[int, ...], terrain: Terrain) -> str:
    """How a player names a segment: its sides in N, E, S, W order joined by '+', or its terrain when inside."""
    if not sides:
        return terrain.word
    return "+".join(SIDES[s] for s in sorted(sides))


class TileType:
    """One tile type: its segments at rotation 0 and everything derived per rotation."""

    __slots__ = ("number", "count", "terrains", "seg_sides", "touches", "cities", "side_seg",
                 "sides_at", "side_seg_at", "names_at", "canonical", "distinct", "fits", "match")

    def __init__(self, number: int, count: int, segments: tuple, touches: tuple, cities: tuple):
        self.number = number
        self.count = count
        self.terrains = tuple(Terrain(text.split(":")[0]) for text in segments)
        self.seg_sides = tuple(tuple(SIDES.index(c) for c in text.split(":")[1]) for text in segments)
        self.touches = tuple(tuple(pair) for pair in touches)
        self.cities = tuple(tuple(pair) for pair in cities)
        side_seg = [0] * 4
        for index, sides in enumerate(self.seg_sides):
            for side in sides:
                side_seg[side] = index
        self.side_seg = tuple(side_seg)
        # Per rotation k (quarter turns clockwise): board side (s + k) % 4 shows data side s.
        self.sides_at = []
        self.side_seg_at = []
        self.names_at = []
        signatures = []
        for k in range(4):
            sides = "".join(self.terrains[side_seg[(d - k) % 4]].value for d in range(4))
            self.sides_at.append(sides)
            self.side_seg_at.append(tuple(side_seg[(d - k) % 4] for d in range(4)))
            names = tuple(segment_name(tuple((s + k) % 4 for s in seg), self.terrains[i])
                          for i, seg in enumerate(self.seg_sides))
            self.names_at.append(names)
            signatures.append((sides, frozenset(zip(names, self.terrains)),
                               frozenset((names[a], names[b]) for a, b in self.cities),
                               frozenset(frozenset((names[a], names[b])) for a, b in self.touches)))
        # Rotations that give the same picture are one placement; the smallest one names it.
        self.canonical = tuple(signatures.index(sig) for sig in signatures)
        self.distinct = tuple(k for k in range(4) if self.canonical[k] == k)
        # match[key] = the distinct rotations that fit an open square with side constraint key.
        self.match: dict[str, tuple[int, ...]] = {}
        for k in self.distinct:
            sides = self.sides_at[k]
            for mask in range(1, 16):
                key = "".join(sides[d] if mask >> d & 1 else OPEN for d in range(4))
                self.match[key] = self.match.get(key, ()) + (k,)
        self.fits = frozenset(self.match)

    def segment_by_name(self, k: int, text: str) -> int | None:
        """The segment (index) a player means by text at rotation k, or None.

        Sides may come in any order, with or without '+'; naming some of a segment's sides
        is enough. An inner segment (a lake) is named by its terrain; 'lake' means the sea.
        """
        names = self.names_at[k]
        word = text.replace("lake", "sea").replace("island", "grassland")
        if word in TERRAIN_WORDS:
            inner = [i for i, sides in enumerate(self.seg_sides) if not sides and self.terrains[i].word == word]
            return inner[0] if len(inner) == 1 else None
        letters = word.replace("+", "").replace(",", "").replace("-", "").replace(" ", "").upper()
        if not letters or any(c not in SIDES for c in letters):
            return None
        found = {self.side_seg_at[k][SIDES.index(c)] for c in letters}
        return found.pop() if len(found) == 1 else None

    def __repr__(self) -> str:
        return f"TileType({self.number})"


TILE_TYPES: dict[int, TileType] = {entry[0]: TileType(*entry) for entry in TILESET}
START = TILE_TYPES[START_TILE]
DRAW_PILE: tuple[int, ...] = tuple(
    number for number, tile in sorted(TILE_TYPES.items())
    for _ in range(tile.count - (1 if number == START_TILE else 0)))


