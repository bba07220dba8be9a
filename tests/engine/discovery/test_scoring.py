"""Region values D12-D14, with every worked example of the rule text, and the final scoring D16.

Positions use the provisional tiles (engine/discovery/tileset.py). The start tile at 0,0
has sea N, one mountain E+W with a port city on the sea, and grassland S.
"""

from __future__ import annotations

from engine.discovery.position import build_position
from tests.engine.discovery.helpers import RULES, play, remove_and_score, value

# Tiles used below (rotation 0): 4 = grassland N, sea E+S+W, city; 16 = grassland band N+S
# with seas E and W and a city on each; 12 = grassland N+E+S, mountain W, no city;
# 3 / 35 = grassland N+E, sea S+W, with / without city; 31 = grassland N+E+W, sea S, and a
# lake with a city (none on the S sea); 65 = sea N+E+S, mountain W with a city; 2 =
# grassland N+E+W, sea S with a city.
GRASS_CHAIN = [(16, 0, -1, 0), (16, 0, -2, 0), (16, 0, -3, 0)]


# --- D12 grassland ---------------------------------------------------------------------


def test_d12_example_incomplete_grassland_of_4_tiles_scores_4():
    assert remove_and_score(GRASS_CHAIN, (0, -1, "N+S")) == 4


def test_d12_example_complete_grassland_of_2_tiles_scores_only_2():
    assert remove_and_score([(4, 0, -1, 0)], (0, -1, "N")) == 2


def test_d12_example_complete_grassland_of_5_tiles_scores_10():
    assert remove_and_score(GRASS_CHAIN + [(4, 0, -4, 0)], (0, -2, "N+S")) == 10


def test_d12_cities_do_not_count_for_grassland():
    # The chain holds 2 + 2 + 2 cities; an incomplete grassland still scores 1 per tile.
    state = build_position(2, GRASS_CHAIN)
    assert value(state, 0, -3, "N+S") == 4


# --- D13 mountain ----------------------------------------------------------------------


def test_d13_example_incomplete_mountain_with_4_cities_scores_4():
    # 1 city on the mountain itself, 3 on the grassland south of it (16 has 2, 4 has 1).
    tiles = [(16, 0, -1, 0), (4, 0, -2, 0)]
    assert remove_and_score(tiles, (0, 0, "E+W")) == 4


def test_d13_example_complete_mountain_5_cities_only_4_count_scores_8():
    # The mountain E+W is closed by tile 12 on both ends (3 tiles, complete). The city on
    # tile 4 at 0,1 lies on a grassland that does not touch the mountain: it does not count.
    tiles = [(12, -1, 0, 180), (12, 1, 0, 0), (16, 0, -1, 0), (4, 0, -2, 0), (4, 0, 1, 0)]
    state = build_position(2, tiles)
    assert state.board.complete(state.board.segment(0, 0, 1))
    assert remove_and_score(tiles, (0, 0, "E+W")) == 8


def _two_tile_mountain():
    # Mountain: 65 at 0,1 (its mountain faces east, 1 city) + 12 at 1,1 (mountain W).
    # The grassland of 12 goes on over 2 at 1,2 (1 city) and 16 at 2,1 (2 cities).
    return [(65, 0, 1, 180), (12, 1, 1, 0), (2, 1, 2, 180), (16, 2, 1, 90)]


def test_d13_example_complete_mountain_of_2_tiles_scores_1_per_city():
    tiles = _two_tile_mountain()
    state = build_position(2, tiles)
    assert state.board.complete(state.board.segment(0, 1, 1))
    assert not state.board.complete(state.board.segment(1, 1, 0))   # the grassland may stay open
    assert remove_and_score(tiles, (0, 1, "E")) == 4


def test_d13_complete_mountain_gains_value_from_new_cities_on_its_grasslands():
    tiles = _two_tile_mountain()
    state = build_position(2, tiles, [(0, 0, 1, "E")], to_move=1, current=3, deck=(5,))
    assert value(state, 0, 1, "E") == 4
    state = play(state, "place 2,2 270")            # grassland W+N with a city joins at 1,2
    assert value(state, 0, 1, "E") == 5


def test_d13_a_city_counts_once_per_mountain_even_if_its_grassland_touches_twice():
    # One grassland touches the mountain on the start tile and on tile 12 at 1,0.
    tiles = [(12, 1, 0, 0), (1, 0, -1, 0), (1, 1, -1, 0), (4, 0, -2, 0)]
    state = build_position(2, tiles)
    # 1 city on the mountain + 1 city (tile 4) on the grassland, counted once.
    assert value(state, 0, 0, "E+W") == 2


def test_d13_cities_far_away_on_an_adjacent_grassland_count():
    tiles = GRASS_CHAIN + [(4, 0, -4, 0)]
    state = build_position(2, tiles)
    assert value(state, 0, 0, "E+W") == 1 + 6 + 1


# --- D14 sea ---------------------------------------------------------------------------


def test_d14_example_incomplete_sea_with_2_cities_scores_2():
    assert remove_and_score([(4, 0, 1, 0)], (0, 0, "N")) == 2


def _pond():
    # Four corner tiles around one sea: three with a city (3), one without (35).
    return [(3, 0, -1, 270), (3, 1, -1, 0), (3, 0, -2, 180), (35, 1, -2, 90)]


def test_d14_example_complete_sea_of_4_tiles_with_3_cities_scores_7():
    tiles = _pond()
    state = build_position(2, tiles)
    assert state.board.complete(state.board.segment(1, -2, 1))
    assert remove_and_score(tiles, (1, -2, "N+W")) == 7


def test_d14_example_complete_sea_of_2_tiles_scores_1_per_city_only():
    assert remove_and_score([(31, 0, 1, 0)], (0, 0, "N")) == 1


def test_d14_a_lake_is_a_complete_sea_of_one_tile():
    # Tile 31's lake has one city: 1 per city + 1 per tile.
    state = build_position(2, [(31, 0, 1, 0)])
    assert value(state, 0, 1, "sea") == 2


# --- D16 final scoring -----------------------------------------------------------------


def test_d16_final_scoring_values_complete_regions_as_incomplete():
    tiles = _pond()
    state = build_position(2, tiles, [(0, 1, -2, "N+W"), (1, 0, -1, "W+N")], to_move=0,
                           placed=(1, -2))
    assert value(state, 1, -2, "N+W") == 7
    over = play(state, "pass")                 # the draw pile is empty: the game ends (D15)
    assert RULES.is_over(over)
    # Sea: 3 cities (incomplete value); grassland W+N at 0,-1 joins the start grassland: 2 tiles.
    assert list(over.final) == [3, 2]
    assert RULES.result(over).scores == (3, 2)
