"""The land tiles of Carcassonne: The Discovery, as data only (PROVISIONAL, rules digest D4).

PROVISIONAL: the artwork of the 66 tile types is not available, so the edges, segments
and port cities of each type below are a reconstruction. Only the type numbers and their
counts are the published ones (50 types x1, 14 x2, 2 x3; 84 tiles; type 24 is the start
tile). The reconstruction keeps the constraints of D4: all 24 side patterns up to
rotation, each terrain on 28-40 % of all tile sides, port cities on at least 30 tiles,
and fewer than 1 % unplaceable draws in random games (tests/engine/discovery/test_tiles.py).
Replace this file with the published set when it is known; no code has to change.

Each entry is (number, count, segments, touches, cities):
- segments: "T:SIDES" with T the terrain (G grassland, M mountain, S sea) and SIDES the
  sides it touches at rotation 0 (N, E, S, W); empty SIDES is a lake or island inside
  the tile. A segment is referred to by its index in this tuple.
- touches: pairs of segment indices that border each other inside the tile (D3, D13).
- cities: port cities as (land segment, sea segment); the two always touch.
"""

PROVISIONAL = True
START_TILE = 24

TILESET = (
    (1, 1, ("G:NESW",), (), ()),
    (2, 2, ("G:NEW", "S:S"), ((0, 1),), ((0, 1),)),
    (3, 2, ("G:NE", "S:SW"), ((0, 1),), ((0, 1),)),
    (4, 1, ("G:N", "S:ESW"), ((0, 1),), ((0, 1),)),
    (5, 1, ("S:NESW",), (), ()),
    (6, 1, ("S:NESW", "G:"), ((0, 1),), ((1, 0),)),
    (7, 1, ("M:NESW",), (), ()),
    (8, 1, ("M:NESW", "S:"), ((0, 1),), ((0, 1),)),
    (9, 2, ("M:NES", "S:W"), ((0, 1),), ((0, 1),)),
    (10, 1, ("M:NE", "S:SW"), ((0, 1),), ((0, 1),)),
    (11, 1, ("M:N", "S:ESW"), ((0, 1),), ((0, 1),)),
    (12, 1, ("G:NES", "M:W"), ((0, 1),), ()),
    (13, 2, ("G:NE", "M:SW"), ((0, 1),), ()),
    (14, 2, ("G:N", "M:ESW"), ((0, 1),), ()),
    (15, 3, ("G:N", "S:EW", "G:S"), ((0, 1), (1, 2)), ((0, 1), (2, 1))),
    (16, 1, ("G:NS", "S:E", "S:W"), ((0, 1), (0, 2)), ((0, 1), (0, 2))),
    (17, 1, ("M:NS", "S:E", "S:W"), ((0, 1), (0, 2)), ((0, 1),)),
    (18, 1, ("M:N", "S:EW", "M:S"), ((0, 1), (1, 2)), ((0, 1), (2, 1))),
    (19, 3, ("S:NE", "G:S", "M:W"), ((0, 1), (0, 2), (1, 2)), ((1, 0), (2, 0))),
    (20, 2, ("S:NE", "M:S", "G:W"), ((0, 1), (0, 2), (1, 2)), ((1, 0), (2, 0))),
    (21, 2, ("G:N", "M:EW", "G:S"), ((0, 1), (1, 2)), ()),
    (22, 1, ("G:NS", "M:E", "M:W"), ((0, 1), (0, 2)), ()),
    (23, 1, ("G:NS", "M:E", "S:W"), ((0, 1), (0, 2)), ((0, 2),)),
    (24, 1, ("S:N", "M:EW", "G:S"), ((0, 1), (1, 2)), ((1, 0),)),
    (25, 1, ("M:NS", "G:E", "S:W"), ((0, 1), (0, 2)), ((0, 2),)),
    (26, 1, ("S:NS", "G:E", "M:W"), ((0, 1), (0, 2)), ((1, 0), (2, 0))),
    (27, 1, ("G:NE", "M:S", "S:W"), ((0, 1), (0, 2), (1, 2)), ((0, 2), (1, 2))),
    (28, 1, ("G:NE", "S:S", "M:W"), ((0, 1), (0, 2), (1, 2)), ((0, 1), (2, 1))),
    (29, 1, ("M:NE", "G:S", "S:W"), ((0, 1), (0, 2), (1, 2)), ((0, 2), (1, 2))),
    (30, 2, ("M:NE", "S:S", "G:W"), ((0, 1), (0, 2), (1, 2)), ((0, 1), (2, 1))),
    (31, 1, ("G:NEW", "S:S", "S:"), ((0, 1), (0, 2)), ((0, 2),)),
    (32, 1, ("S:NES", "G:W"), ((0, 1),), ()),
    (33, 1, ("S:NES", "M:W"), ((0, 1),), ()),
    (34, 1, ("M:NE", "S:SW", "G:"), ((0, 1), (1, 2)), ((0, 1), (2, 1))),
    (35, 1, ("G:NE", "S:SW"), ((0, 1),), ()),
    (36, 2, ("S:NE", "G:SW", "S:"), ((0, 1), (1, 2)), ((1, 0), (1, 2))),
    (37, 1, ("M:NES", "S:W", "S:"), ((0, 1), (0, 2)), ((0, 1), (0, 2))),
    (38, 1, ("G:NES", "M:W", "S:"), ((0, 1), (0, 2)), ((0, 2),)),
    (39, 1, ("G:N", "M:ESW", "S:"), ((0, 1), (1, 2)), ((1, 2),)),
    (40, 1, ("G:NE", "M:SW", "S:"), ((0, 1), (0, 2)), ((0, 2),)),
    (41, 2, ("S:NE", "G:S", "M:W"), ((0, 1), (0, 2), (1, 2)), ((1, 0),)),
    (42, 2, ("G:NE", "M:S", "S:W"), ((0, 1), (0, 2), (1, 2)), ((1, 2),)),
    (43, 1, ("M:NE", "G:S", "S:W"), ((0, 1), (0, 2), (1, 2)), ((0, 2),)),
    (44, 1, ("G:N", "M:E", "G:S", "M:W"), ((0, 1), (0, 3), (1, 2), (2, 3)), ()),
    (45, 1, ("S:NESW", "M:"), ((0, 1),), ((1, 0),)),
    (46, 1, ("G:N", "S:EW", "G:S"), ((0, 1), (1, 2)), ()),
    (47, 1, ("M:N", "S:EW", "M:S"), ((0, 1), (1, 2)), ()),
    (48, 1, ("S:N", "G:E", "S:S", "M:W"), ((0, 1), (0, 3), (1, 2), (1, 3), (2, 3)), ((1, 0), (3, 2))),
    (49, 1, ("G:N", "M:E", "G:S", "S:W"), ((0, 1), (0, 3), (1, 2), (1, 3), (2, 3)), ((0, 3), (1, 3))),
    (50, 1, ("M:N", "G:E", "M:S", "S:W"), ((0, 1), (0, 3), (1, 2), (1, 3), (2, 3)), ((0, 3), (1, 3))),
    (51, 1, ("S:NE", "G:S", "M:W", "S:"), ((0, 1), (0, 2), (1, 2), (1, 3)), ((1, 0), (1, 3))),
    (52, 1, ("S:NE", "M:S", "G:W"), ((0, 1), (0, 2), (1, 2)), ()),
    (53, 1, ("M:NE", "S:S", "G:W"), ((0, 1), (0, 2), (1, 2)), ((0, 1),)),
    (54, 1, ("G:NE", "S:S", "M:W"), ((0, 1), (0, 2), (1, 2)), ((0, 1),)),
    (55, 1, ("M:N", "S:ESW"), ((0, 1),), ()),
    (56, 1, ("G:NESW", "S:"), ((0, 1),), ((0, 1),)),
    (57, 2, ("G:N", "S:ESW"), ((0, 1),), ((0, 1),)),
    (58, 1, ("M:NES", "G:W"), ((0, 1),), ()),
    (59, 2, ("G:NE", "S:SW"), ((0, 1),), ((0, 1),)),
    (60, 2, ("M:NE", "S:SW"), ((0, 1),), ((0, 1),)),
    (61, 1, ("S:NS", "M:E", "G:W"), ((0, 1), (0, 2)), ((1, 0), (2, 0))),
    (62, 1, ("G:N", "S:E", "G:S", "M:W"), ((0, 1), (0, 3), (1, 2), (1, 3), (2, 3)), ((0, 1), (3, 1))),
    (63, 1, ("M:NS", "S:E", "G:W"), ((0, 1), (0, 2)), ((0, 1),)),
    (64, 1, ("G:NE", "M:SW", "S:"), ((0, 1), (1, 2)), ((1, 2),)),
    (65, 1, ("S:NES", "M:W"), ((0, 1),), ((1, 0),)),
    (66, 1, ("S:NES", "G:W"), ((0, 1),), ((1, 0),)),
)
