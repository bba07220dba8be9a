"""The chain searches behind T16: landings enumerated by counts and exactly agree, and the verdicts."""

from __future__ import annotations

from itertools import product

from engine.tongiaki import search
from engine.tongiaki.tiles import ISLAND_KEYS, PLACES

from tests.engine.tongiaki.util import TONGA_RING, build


def _counts(island):
    return tuple(len(b) for b in island)


def test_t13_count_patterns_of_landings_match_every_colour_choice():
    samoa = ISLAND_KEYS["samoa"]
    for filled in product(range(3), range(4), range(5)):
        island = tuple((1,) * n for n in filled)
        for fleet in [(0,), (0, 1), (0, 0, 2), (0, 1, 2, 3), (0, 0, 1, 1, 2)]:
            exact = {_counts(isl) for isl in search.landing_outcomes(island, samoa, fleet)}
            patterns = [_counts(isl) for isl in search.count_landings(island, samoa, fleet)]
            assert sorted(exact) == sorted(patterns), (filled, fleet)
            for isl in search.count_landings(island, samoa, fleet):
                assert isl in search.landing_outcomes(island, samoa, fleet)
                assert all(len(b) <= p for b, p in zip(isl, PLACES[samoa]))


def _ring_chain(green_beaches):
    """Tonga inside TONGA_RING with beach 1 full (blue, blue, green), as after blue's expansion."""
    ships = {("Tonga", b): "green green" for b in range(2, 2 + green_beaches)}
    ships[("Tonga", 1)] = "blue green"
    s = build(2, tiles=[("Tonga", 0, 0, 0)] + TONGA_RING, ships=ships)
    tonga = s.ships[0]
    s.ships = ((tonga[0] + (0,),) + tonga[1:],) + s.ships[1:]
    s.full = ((0, 0),)
    return s


def test_t16_search_verdicts_on_the_tonga_ring():
    s = _ring_chain(5)  # 13 ships on Tonga: no way out
    assert not search.quick_end(s)
    found = search.endless(s)
    assert found.line is None and found.exhausted and found.region == {0} and not found.risky
    s = _ring_chain(4)  # 11 ships: a line of emigrations ends the chain
    found = search.endless(s)
    assert found.line and found.line[0][:3] == (0, 0, 0)
