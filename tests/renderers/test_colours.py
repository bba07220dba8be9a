"""Colour is never the only cue, and every player colour stands out from the ground it is drawn on."""

from __future__ import annotations

import pytest

from renderers import common, discovery, tapaono, tongiaki

MODULES = {"tongiaki": tongiaki, "discovery": discovery, "tapaono": tapaono}


def seat_marks(title):
    if title == "tongiaki":
        from engine.tongiaki.state import COLOURS  # the engine's colour names, in seat order
        return [(common.PLAYER_RGB[c], tongiaki._letter(c), common.SHAPES[i]) for i, c in enumerate(COLOURS)]
    module = MODULES[title]
    return [(module.seat_colour(i), module.seat_letter(i), common.SHAPES[i]) for i in range(len(module.SEAT_COLOURS))]


def test_wcag_contrast_ratio_matches_known_values():
    assert common.contrast_ratio((0, 0, 0), (255, 255, 255)) == pytest.approx(21.0)
    assert common.contrast_ratio((255, 255, 255), (255, 255, 255)) == pytest.approx(1.0)
    assert common.contrast_ratio((118, 118, 118), (255, 255, 255)) == pytest.approx(4.54, abs=0.01)


@pytest.mark.parametrize("title", sorted(MODULES))
def test_player_colours_contrast_with_their_halo_and_their_letters(title):
    for colour, letter, _ in seat_marks(title):
        # Marks sit on a white halo (WCAG 1.4.11: 3:1 for graphics) and carry a white letter (4.5:1 for text).
        assert common.contrast_ratio(colour, common.HALO) >= 3.0, (title, colour)
        assert common.contrast_ratio(common.WHITE, colour) >= 4.5, (title, colour)
    # The dark outline around every mark's colour separates the mark from every ground of the board.
    for ground in MODULES[title].BOARD_COLOURS + (common.HALO,):
        assert common.contrast_ratio(common.INK, ground) >= 3.0, (title, ground)


def test_tapaono_owner_marks_contrast_with_the_tinted_fields():
    for seat in (0, 1):
        assert common.contrast_ratio(tapaono.seat_colour(seat), tapaono.SEAT_TINT[seat]) >= 3.0


@pytest.mark.parametrize("title", sorted(MODULES))
def test_every_player_has_its_own_letter_and_shape(title):
    marks = seat_marks(title)
    assert len({letter for _, letter, _ in marks}) == len(marks)
    assert len({shape for _, _, shape in marks}) == len(marks)
    assert len({colour for colour, _, _ in marks}) == len(marks)
