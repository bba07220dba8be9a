"""The board: placed tiles, regions kept incrementally, open squares, and region values.

Regions (D9-D14) live in a union-find over segments: placing a tile adds its segments,
joins them to the segments across each shared side, and updates each region's tiles,
open sides, cities and neighbouring grasslands at the root, so completion and scoring
never rescan the board. Open squares keep their side constraints so that legal
placements are a table look-up per square. A board is never changed once another state
holds it: `place` returns a new board.
"""

from __future__ import annotations

from engine.discovery.tiles import OPEN, STEP, TILE_TYPES, TileType

GRASSLAND, MOUNTAIN, SEA = "G", "M", "S"
EMPTY_KEY = OPEN * 4


class Board:
    """Placed tiles and their regions; global segment g of placement p is base[p] + local index."""

    __slots__ = ("tiles", "at", "base", "parent", "size", "terrain", "seg_tile",
                 "r_tiles", "r_open", "r_cities", "r_adj", "open")

    def __init__(self):
        self.tiles: list[tuple[int, int, int, int]] = []   # (number, x, y, quarter turns) per placement
        self.at: dict[tuple[int, int], int] = {}          # square -> placement index
        self.base: list[int] = []                         # placement -> first global segment
        self.parent: list[int] = []                       # union-find over global segments
        self.size: list[int] = []
        self.terrain: list[str] = []                      # segment -> "G", "M" or "S"
        self.seg_tile: list[int] = []                     # segment -> placement
        self.r_tiles: list[frozenset] = []                # root -> placements holding part of the region
        self.r_open: list[int] = []                       # root -> tile sides of the region not yet shared
        self.r_cities: list[int] = []                     # root -> port cities on the land / shore of the sea
        self.r_adj: list[frozenset] = []                  # mountain root -> grassland segments touching it
        self.open: dict[tuple[int, int], str] = {}        # empty square next to a tile -> side constraint

    def copy(self) -> "Board":
        other = Board.__new__(Board)
        other.tiles = self.tiles.copy()
        other.at = self.at.copy()
        other.base = self.base.copy()
        other.parent = self.parent.copy()
        other.size = self.size.copy()
        other.terrain = self.terrain.copy()
        other.seg_tile = self.seg_tile.copy()
        other.r_tiles = self.r_tiles.copy()
        other.r_open = self.r_open.copy()
        other.r_cities = self.r_cities.copy()
        other.r_adj = self.r_adj.copy()
        other.open = self.open.copy()
        return other

    # --- placing -------------------------------------------------------------------

    def fits(self, tile: TileType) -> bool:
        """Whether the tile fits on some open square in some rotation (D7, D8)."""
        fits = tile.fits
        return any(key in fits for key in set(self.open.values()))

    def place(self, number: int, x: int, y: int, k: int) -> "Board":
        """A new board with the tile added; the caller has checked that it fits (D7)."""
        board = self.copy()
        board._add(number, x, y, k)
        return board

    def _add(self, number: int, x: int, y: int, k: int) -> None:
        tile = TILE_TYPES[number]
        pid = len(self.tiles)
        base = len(self.parent)
        self.tiles.append((number, x, y, k))
        self.at[(x, y)] = pid
        self.base.append(base)
        self.open.pop((x, y), None)
        frozen_pid = frozenset((pid,))
        for index, terrain in enumerate(tile.terrains):
            g = base + index
            self.parent.append(g)
            self.size.append(1)
            self.terrain.append(terrain.value)
            self.seg_tile.append(pid)
            self.r_tiles.append(frozen_pid)
            self.r_open.append(0)
            self.r_cities.append(0)
            self.r_adj.append(frozenset())
        for land, sea in tile.cities:
            self.r_cities[base + land] += 1
            self.r_cities[base + sea] += 1
        for a, b in tile.touches:
            ta, tb = tile.terrains[a].value, tile.terrains[b].value
            if ta == MOUNTAIN and tb == GRASSLAND:
                self.r_adj[base + a] |= {base + b}
            elif tb == MOUNTAIN and ta == GRASSLAND:
                self.r_adj[base + b] |= {base + a}
        sides = tile.sides_at[k]
        side_seg = tile.side_seg_at[k]
        at = self.at
        shared = []
        for d in range(4):   # count open sides while every new segment is still its own root
            dx, dy = STEP[d]
            square = (x + dx, y + dy)
            other = at.get(square)
            if other is None:
                self.r_open[base + side_seg[d]] += 1
                key = self.open.get(square, EMPTY_KEY)
                facing = (d + 2) % 4
                self.open[square] = key[:facing] + sides[d] + key[facing + 1:]
            else:
                onumber, _, _, ok = self.tiles[other]
                shared.append((base + side_seg[d], self.base[other] + TILE_TYPES[onumber].side_seg_at[ok][(d + 2) % 4]))
        for g, h in shared:  # each shared side closes one open side of the old region
            self.r_open[self.find(h)] -= 1
            self._union(g, h)

    def find(self, g: int) -> int:
        parent = self.parent
        while parent[g] != g:
            g = parent[g]
        return g

    def _union(self, a: int, b: int) -> None:
        a, b = self.find(a), self.find(b)
        if a == b:
            return
        if self.size[a] < self.size[b]:
            a, b = b, a
        self.parent[b] = a
        self.size[a] += self.size[b]
        self.r_tiles[a] = self.r_tiles[a] | self.r_tiles[b]
        self.r_open[a] += self.r_open[b]
        self.r_cities[a] += self.r_cities[b]
        if self.r_adj[b]:
            self.r_adj[a] = self.r_adj[a] | self.r_adj[b]

    # --- regions -------------------------------------------------------------------

    def segment(self, x: int, y: int, local: int) -> int:
        return self.base[self.at[(x, y)]] + local

    def complete(self, g: int) -> bool:
        """A region is complete when every tile side it touches is shared (no open side)."""
        return self.r_open[self.find(g)] == 0

    def tile_count(self, g: int) -> int:
        return len(self.r_tiles[self.find(g)])

    def cities(self, g: int) -> int:
        """Cities that count for the region: on the land or shore (D12-D14); for a mountain,
        also every city on a grassland region touching it, each once (D13)."""
        root = self.find(g)
        count = self.r_cities[root]
        if self.terrain[root] == MOUNTAIN and self.r_adj[root]:
            find = self.find
            for grass in {find(s) for s in self.r_adj[root]}:
                count += self.r_cities[grass]
        return count

    def value(self, g: int, final: bool = False) -> int:
        """Points the region of segment g is worth now (D12-D14); at the end all count as incomplete (D16)."""
        root = self.find(g)
        terrain = self.terrain[root]
        tiles = len(self.r_tiles[root])
        complete = not final and self.r_open[root] == 0
        if terrain == GRASSLAND:
            if not complete:
                return tiles
            return 2 if tiles == 2 else 2 * tiles
        cities = self.cities(root)
        if terrain == MOUNTAIN:
            if not complete:
                return cities
            return cities if tiles == 2 else 2 * cities
        if not complete:
            return cities
        return cities if tiles == 2 else cities + tiles


def start_board(number: int) -> Board:
    """The board with only the start tile, at 0,0 in rotation 0 (D5)."""
    board = Board()
    board._add(number, 0, 0, 0)
    return board
