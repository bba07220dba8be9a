"""Invariants over seeded random games: ships are never created or lost, turns start clean."""

from __future__ import annotations

import random

import pytest

from engine.core import derive_seed
from engine.tongiaki.state import Phase
from engine.tongiaki.tiles import PLACES

from tests.engine.tongiaki.util import R


def _ships_of(s, seat):
    on_beaches = sum(beach.count(seat) for isl in s.ships for beach in isl)
    kings = s.kings.count(seat)
    fleet = s.landing[1].count(seat) if s.landing else 0
    at_sea = s.at_sea[1].count(seat) if s.at_sea else 0
    return s.supply[seat] + on_beaches + kings + fleet + at_sea


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_fifteen_ships_each_and_no_full_beach_at_the_start_of_a_turn(players):
    for game in range(40):
        chooser = random.Random(game)
        s = R.setup(players, {}, derive_seed(game, "invariants"))
        while R.to_move(s) is not None:
            assert all(_ships_of(s, seat) == 15 for seat in range(players))
            assert all(0 <= n <= 15 for n in s.supply)
            assert all(len(beach) <= PLACES[t][b] for t, isl in enumerate(s.ships) for b, beach in enumerate(isl))
            if s.phase == Phase.ACTION:
                assert not any(len(beach) == PLACES[t][b] for t, isl in enumerate(s.ships)
                               for b, beach in enumerate(isl))
            s = R.apply(s, chooser.choice(R.legal_moves(s)))
        assert all(_ships_of(s, seat) == 15 for seat in range(players))
        assert R.view(s, None)["on_table"]["water"] == 16 or R.view(s, None)["pile"]["islands"] == 0
