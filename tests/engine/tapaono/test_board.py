"""P1-P4: players, board, provisional board and deck data."""

from __future__ import annotations

import pytest

from engine.core import IllegalMove, OptionError
from engine.tapaono.board import (CARD_BY_LABEL, DECK, FIELDS, INDEX, IS_STAR, KEEPABLE, NEIGHBOURS, PROVISIONAL,
                                  SPAWN_ENTRIES, STARS, Card)
from engine.tapaono.state import SPAWN

from .util import Phase, R, at, play, position, seed_for, texts


def test_p1_two_players_three_pieces_and_100_markers_each():
    st = R.setup(2, {}, 7)
    assert st.pos == (SPAWN,) * 6
    assert st.stock == (100, 100)
    view = R.view(st, None)
    assert view["spawns"][0]["pieces"] == [1, 2, 3] and view["spawns"][1]["pieces"] == [1, 2, 3]
    assert view["markers_left"] == [100, 100]
    with pytest.raises(OptionError):
        R.setup(3, {}, 7)
    with pytest.raises(OptionError):
        R.setup(1, {}, 7)


def test_p2_board_has_151_fields_12_stars_139_conquerable():
    assert len(FIELDS) == 151
    assert sum(IS_STAR) == 12
    assert len(FIELDS) - sum(IS_STAR) == 139


def test_p2_stars_are_never_conquered_by_a_six():
    # Piece 1 stands on the star 2,0 next to nothing of anyone's; a 6 conquers the six fields around it
    # but not the star it stands on; a piece on 1,0 rolling a 6 leaves the star 2,0 next to it alone.
    st = position(phase=Phase.DICE, pieces=[(2, 0), (-4, 5), (-5, 4), None, None, None],
                  seed=seed_for(6))
    st = play(st, "roll 1")
    assert st.last_roll[2] == 6
    assert at(st, 2, 0) is None
    assert all(at(st, *FIELDS[n]) == 0 for n in NEIGHBOURS[INDEX[(2, 0)]])
    st = position(phase=Phase.DICE, pieces=[(1, 0), (-4, 5), (-5, 4), None, None, None], seed=seed_for(6))
    st = play(st, "roll 1")
    assert at(st, 2, 0) is None and at(st, 1, 0) == 0


def test_p3_board_is_a_hexagon_of_radius_7_without_the_corner_fields():
    for corner in ((7, 0), (0, 7), (-7, 7), (-7, 0), (0, -7), (7, -7)):
        assert corner not in INDEX
    for gone in ((1, -7), (-1, -6), (6, -7), (7, -6), (6, 1), (7, -1)):
        assert gone not in INDEX
    assert (2, -7) in INDEX and (5, -7) in INDEX and (0, 0) in INDEX
    assert [FIELDS[s] for s in STARS] == [(2, 0), (0, 2), (-2, 2), (-2, 0), (0, -2), (2, -2),
                                          (4, -2), (2, 2), (-2, 4), (-4, 2), (-2, -2), (2, -4)]
    assert [FIELDS[f] for f in SPAWN_ENTRIES[0]] == [(2, -7), (3, -7), (4, -7), (5, -7)]
    assert [FIELDS[f] for f in SPAWN_ENTRIES[1]] == [(-5, 7), (-4, 7), (-3, 7), (-2, 7)]
    assert PROVISIONAL is True
    st = R.setup(2, {}, 7)
    assert R.view(st, None)["provisional_data"] is True
    with pytest.raises(IllegalMove, match="no field 0,-7"):
        R.parse(st, "move 1 0,-7")


def test_p3_first_seat_enters_on_the_four_fields_with_r_minus_7():
    st = R.setup(2, {}, 7)
    assert sorted({t.split()[2] for t in texts(st)}) == ["2,-7", "3,-7", "4,-7", "5,-7"]


def test_p4_deck_has_the_provisional_40_cards():
    counts = {card: DECK.count(int(card)) for card in Card}
    assert counts == {Card.TRANSPORT: 8, Card.CONQUER_SIX: 4, Card.CONQUER_THREE: 8, Card.RAID: 5,
                      Card.LOSS: 5, Card.LANDING: 4, Card.STAR_JUMP: 3, Card.RECALL: 3}
    assert KEEPABLE == {Card.TRANSPORT, Card.CONQUER_SIX, Card.CONQUER_THREE}
    assert set(CARD_BY_LABEL) == {"transport", "conquer-six", "conquer-three", "raid", "loss", "landing",
                                  "star-jump", "recall"}
    st = R.setup(2, {}, 7)
    view = R.view(st, 0)
    assert view["deck_size"] == 40 and view["discard"] == []
    assert sorted(st.deck) == sorted(DECK)


def test_p4_removed_markers_leave_the_game_for_good():
    # A raid takes two of the second player's markers: they are out of the game, not back in stock.
    st = position(pieces=[(1, 0), (-4, 5), (-5, 4), None, None, None], deck=["raid"],
                  owner={(-3, -3): 1, (-4, -3): 1, (-5, -2): 1}, stock=(100, 97), seed=seed_for(2))
    st = play(st, "move 1 2,0")
    assert st.pending == ("raid", 2)
    st = play(st, "remove -3,-3", "remove -4,-3")
    view = R.view(st, None)
    assert view["markers_left"] == [100, 97]
    assert view["markers_on_board"] == [0, 1]
    assert view["markers_out"] == [0, 2]
