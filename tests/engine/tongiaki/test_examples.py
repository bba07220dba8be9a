"""The three worked examples of the rule texts, move by move (T12, T13, T15)."""

from __future__ import annotations

from tests.engine.tongiaki.util import R, beach, build, events, options, pending, play, supply, tile_at


def test_t12_example_two_colours_over_a_4_fail():
    """Emigrated from the upper beach with two colours; a 4 was drawn: the crossing failed."""
    s = build(2, ships={("Tonga", 1): "blue green", ("Tonga", 4): "green"}, pile=["A", "Samoa", "B", "Fiji"])
    s = play(s, "expand Tonga 1")  # blue, blue, green on the upper (N) beach: full
    water = tile_at(s, 0, -1)
    assert water["tile"] == "A" and water["red_dot"] == "S"
    assert {"sides": ["S", "N"], "risk": 4} in water["tracks"]  # the fleet's track
    assert events(s, "shipwreck") == [{"event": "shipwreck", "tile": "A", "risk": 4,
                                       "ships": ["blue", "blue", "green"]}]
    assert beach(s, "Tonga", 1) == [] and supply(s, "blue") == 15 and supply(s, "green") == 14
    assert pending(s)["colour"] == "green"


def test_t12_example_two_colours_over_a_2_reach_the_5_island():
    """From the 2-beach of the 3-island by the lower jetty: a water tile with a 2 on the track and
    two colours, so the crossing succeeds and the next tile drawn is the 5-island."""
    # Tokelau (value 3) north of Tonga, red dot S: its 2-place beach 3 has jetties NE and SE.
    s = build(2, tiles=[("Tonga", 0, 0, 0), ("Tokelau", 0, -1, 3)],
              ships={("Tokelau", 3): "green", ("Tokelau", 1): "blue"}, pile=["I", "Samoa", "A", "Fiji"])
    s = play(s, "expand Tokelau 3")
    assert options(s) == ["emigrate Tokelau 3 NE", "emigrate Tokelau 3 SE"]
    s = play(s, "emigrate Tokelau 3 SE")  # the lower jetty
    water = tile_at(s, 1, -1)
    assert water["tile"] == "I" and {"sides": ["NW", "S"], "risk": 2} in water["tracks"]
    assert events(s, "cross") == [{"event": "cross", "tile": "I", "risk": 2}]
    samoa = tile_at(s, 1, 0)
    assert samoa["tile"] == "Samoa" and samoa["value"] == 5 and samoa["red_dot"] == "N"
    assert pending(s)["decision"] == "land" and pending(s)["fleet"] == ["blue", "green"]
    s = play(s, "land blue Samoa 1", "land green Samoa 3")
    assert beach(s, "Samoa", 1) == ["blue"] and beach(s, "Samoa", 3) == ["green"]
    assert R.scores(s) == [5 + 3, 5]


def test_t15_example_king_island_bounce():
    """All ships that try to land on a king island go back and land on the island they came from."""
    s = build(2, tiles=[("Tonga", 0, 0, 0), ("Fiji", 0, -1, 3)],
              ships={("Tonga", 1): "blue green", ("Tonga", 2): "green"}, kings={"Fiji": "green"})
    s = play(s, "expand Tonga 1")
    assert events(s, "turned_back") == [{"event": "turned_back", "king_island": "Fiji", "to": "Tonga"}]
    assert pending(s)["island"] == "Tonga" and pending(s)["fleet"] == ["blue", "blue", "green"]
    s = play(s, "land blue Tonga 1", "land blue Tonga 2", "land green Tonga 3")
    assert tile_at(s, 0, -1)["king"] == "green" and all(not b["ships"] for b in tile_at(s, 0, -1)["beaches"])
    assert beach(s, "Tonga", 2) == ["blue", "green"] and pending(s)["colour"] == "green"
