"""The tile data and the geometry (T1..T4): exactly the digest's islands and water tiles."""

from __future__ import annotations

from engine.tongiaki import tiles
from engine.tongiaki.tiles import CROSS, ISLAND_COUNT, JETTIES, NAMES, PLACES, STEP, VALUES

from tests.engine.tongiaki.util import R, build, play, tile_at


def test_t2_sixteen_islands_with_names_values_and_beaches():
    assert NAMES[:ISLAND_COUNT] == (
        "Tonga", "Muroroa", "Nauru", "Tubuai", "Rarotonga", "Rapa Nui", "Tokelau", "Tuamotu", "Hiva Oa",
        "Mangareva", "Oahu", "Tahiti", "Tuvalu", "Fiji", "Hawaii", "Samoa")
    assert VALUES == (0, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 4, 5, 5, 5)
    assert PLACES[NAMES.index("Rapa Nui")] == (5, 3)
    assert PLACES[NAMES.index("Fiji")] == (5, 4, 4)
    assert PLACES[0] == (3,) * 6
    # Jetty edges (local, rotation 0) of two islands, as in the digest.
    assert JETTIES[NAMES.index("Tokelau")][0] == ((1,), (2, 3), (4, 5))
    assert JETTIES[NAMES.index("Rarotonga")][0] == ((1, 2), (3, 4, 5))
    assert sum(len(p) for p in PLACES) == 6 + 3 * 11 + 2 * 4


def test_t2_sixteen_water_tiles_every_edge_on_one_track():
    assert NAMES[ISLAND_COUNT:] == tuple("ABCDEFGHIJKLMNOP")
    for w, (letter, tracks) in enumerate(tiles.WATER_DATA):
        assert sorted(e for a, b, _ in tracks for e in (a, b)) == list(range(6)), letter
        for a, b, risk in tracks:  # a track connects its two ends, both ways
            assert CROSS[w][0][a] == (b, risk) and CROSS[w][0][b] == (a, risk)
    assert tiles.WATER_DATA[2] == ("C", ((0, 3, 4), (1, 5, 3), (2, 4, 0)))
    assert tiles.WATER_DATA[15] == ("P", ((0, 5, 0), (1, 2, 0), (3, 4, 0)))


def test_t2_pile_holds_15_islands_and_16_water_tiles_tonga_on_the_table():
    s = R.setup(3, {}, 7)
    view = R.view(s, None)
    assert view["pile"] == {"size": 31, "islands": 15, "water": 16}
    assert [(t["tile"], t["q"], t["r"]) for t in view["tiles"]] == [("Tonga", 0, 0)]
    assert R.setup(3, {}, 7).pile == s.pile != R.setup(3, {}, 8).pile  # shuffled from the seed


def test_t3_world_sides_and_axial_steps():
    assert tiles.SIDE_NAMES == ("N", "NE", "SE", "S", "SW", "NW")
    assert STEP == ((0, -1), (1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0))
    for d in range(6):  # opposite sides are opposite steps
        assert STEP[d][0] == -STEP[(d + 3) % 6][0] and STEP[d][1] == -STEP[(d + 3) % 6][1]


def test_t3_red_dot_faces_the_tile_the_fleet_came_from():
    # A fleet leaves TONGA through its SE jetty (beach 3): the new tile lies SE of TONGA with
    # its red dot on its NW edge, so local edge r lies on world side (2 + 3 + r) mod 6.
    s = build(2, ships={("Tonga", 3): "blue green", ("Tonga", 1): "green"}, pile=["Samoa", "A"])
    s = play(s, "expand Tonga 3")
    samoa = tile_at(s, 1, 0)
    assert samoa["tile"] == "Samoa" and samoa["rotation"] == 5 and samoa["red_dot"] == "NW"
    # Samoa's beach 1 has jetties on local edges 1 and 2: world (5+1)%6 = N and (5+2)%6 = NE.
    assert samoa["beaches"][0]["jetties"] == ["N", "NE"]
    assert samoa["beaches"][2]["jetties"] == ["SW"]  # local 5 -> (5+5)%6 = 4


def test_t3_water_track_sides_follow_the_rotation():
    s = build(2, tiles=[("Tonga", 0, 0, 0), ("C", 0, -1, 3)])
    water = tile_at(s, 0, -1)
    # C's track (0, 3, risk 4) with the red dot on S: from S to N.
    assert {"sides": ["S", "N"], "risk": 4} in water["tracks"]
    assert {"sides": ["SW", "N"], "risk": 4} not in water["tracks"]


def test_t4_unbounded_map_and_no_matching_between_neighbours():
    # Tiles far from TONGA, at negative and large coordinates, are fine.
    s = build(2, tiles=[("Tonga", 0, 0, 0), ("Samoa", -40, 25, 2), ("A", 60, -61, 4)],
              ships={("Samoa", 1): "blue", ("Tonga", 2): "green"}, pile=["Fiji", "B"])
    assert tile_at(s, 60, -61)["tile"] == "A"
    s = play(s, "settle")
    assert "tile A NE" in [R.notation(s, m) for m in R.legal_moves(s)]
    s = play(s, "tile A NE", "place Fiji 2")
    fiji = tile_at(s, 61, -62)
    assert fiji["tile"] == "Fiji" and fiji["rotation"] == 4  # red dot on SW, facing A
