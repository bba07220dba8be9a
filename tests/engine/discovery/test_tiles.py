"""The tile set and tile model: D2, D3 and every constraint D4 puts on the provisional data."""

from __future__ import annotations

import random
from collections import Counter

from engine.discovery import tileset
from engine.discovery.board import start_board
from engine.discovery.tiles import DRAW_PILE, SIDES, START, TILE_TYPES, Terrain
from tests.engine.discovery.helpers import RULES

# The source's list (discovery.nl.txt, "Tile Distribution"): type -> count; 24 is the start tile.
SOURCE_COUNTS = {n: 1 for n in range(1, 67)}
SOURCE_COUNTS.update({n: 2 for n in (2, 3, 9, 13, 14, 20, 21, 30, 36, 41, 42, 57, 59, 60)})
SOURCE_COUNTS.update({15: 3, 19: 3})


def _pattern(sides: str) -> str:
    return min(sides[i:] + sides[:i] for i in range(4))


def test_d4_the_data_is_marked_provisional_and_uses_the_source_counts():
    assert tileset.PROVISIONAL is True and "PROVISIONAL" in tileset.__doc__
    assert {n: t.count for n, t in TILE_TYPES.items()} == SOURCE_COUNTS
    assert Counter(SOURCE_COUNTS.values()) == {1: 50, 2: 14, 3: 2}


def test_d2_84_tiles_one_start_tile_and_83_to_draw():
    assert sum(t.count for t in TILE_TYPES.values()) == 84
    assert len(DRAW_PILE) == 83 and START.number == 24 and START.count == 1
    assert 24 not in DRAW_PILE


def test_d4_every_one_of_the_24_side_patterns_appears():
    patterns = {_pattern(t.sides_at[0]) for t in TILE_TYPES.values()}
    everything = {_pattern(a + b + c + d) for a in "GMS" for b in "GMS" for c in "GMS" for d in "GMS"}
    assert len(everything) == 24 and patterns == everything


def test_d4_each_terrain_has_28_to_40_percent_of_all_tile_sides():
    sides = Counter()
    for tile in TILE_TYPES.values():
        for letter in tile.sides_at[0]:
            sides[letter] += tile.count
    total = sum(sides.values())
    assert total == 84 * 4
    for terrain in "GMS":
        assert 0.28 <= sides[terrain] / total <= 0.40, (terrain, sides[terrain] / total)


def test_d4_port_cities_on_at_least_30_tiles():
    assert sum(t.count for t in TILE_TYPES.values() if t.cities) >= 30


def test_d4_the_start_tile_as_described():
    start = START
    assert start.sides_at[0] == "SMGM"
    mountain = start.side_seg[1]
    assert start.side_seg[3] == mountain and start.terrains[mountain] is Terrain.MOUNTAIN
    assert len(start.terrains) == 3                 # sea N, mountain E+W, grassland S: nothing else
    (land, sea), = start.cities
    assert land == mountain and start.terrains[sea] is Terrain.SEA and start.seg_sides[sea] == (0,)


def test_d3_segments_sides_touches_and_port_cities_are_consistent():
    for tile in TILE_TYPES.values():
        assert sorted(s for sides in tile.seg_sides for s in sides) == [0, 1, 2, 3], tile
        inner = [tile.terrains[i] for i, sides in enumerate(tile.seg_sides) if not sides]
        assert len(inner) == len(set(inner)), tile           # an inner segment is named by its terrain
        touches = {frozenset(pair) for pair in tile.touches}
        for a, b in tile.touches:
            assert tile.terrains[a] is not tile.terrains[b], tile
        for i in range(len(tile.terrains)):
            assert len(tile.terrains) == 1 or any(i in pair for pair in touches), tile
        for land, sea in tile.cities:
            assert tile.terrains[land] is not Terrain.SEA and tile.terrains[sea] is Terrain.SEA, tile
            assert frozenset((land, sea)) in touches, tile


def test_d3_two_sides_of_one_terrain_may_be_one_segment_or_two():
    joined = TILE_TYPES[21]      # mountain band E+W between two grasslands
    split = TILE_TYPES[44]       # four segments meeting in the middle
    assert joined.names_at[0] == ("N", "E+W", "S")
    assert split.names_at[0] == ("N", "E", "S", "W")
    assert [SIDES[s] for s in joined.seg_sides[1]] == ["E", "W"]


def test_d4_fewer_than_1_percent_of_draws_fit_nowhere_in_1000_random_games():
    # Placement alone decides whether a tile fits, so the games place tiles at random
    # on a bare board (followers play no part). Same draw rule as the engine (D8).
    drawn = unplaceable = 0
    for seed in range(1000):
        chooser = random.Random(seed)
        pile = list(DRAW_PILE)
        chooser.shuffle(pile)
        board = start_board(START.number)
        while pile:
            tile = TILE_TYPES[pile.pop()]
            drawn += 1
            spots = [(x, y, k) for (x, y), key in sorted(board.open.items()) for k in tile.match.get(key, ())]
            if not spots:
                assert not board.fits(tile)
                unplaceable += 1
                continue
            board._add(tile.number, *chooser.choice(spots))
    assert drawn == 83_000
    assert unplaceable / drawn < 0.01, unplaceable / drawn


def test_the_registry_finds_the_game():
    assert RULES.name == "discovery" and RULES.title == "Carcassonne: The Discovery"
