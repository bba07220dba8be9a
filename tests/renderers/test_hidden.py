"""A picture shows only what its viewer may see (Discovery's double-tile variant hides every other hand)."""

from __future__ import annotations

import io

import pytest
from PIL import Image, ImageChops

import engine
import renderers
from tests.renderers.games import play

DOUBLE = {"double": True}


@pytest.fixture(scope="module")
def double_game():
    rules = engine.get("discovery")
    assert any(o.name == "double" for o in rules.options), "the double-tile option is called 'double'"
    return rules, play("discovery", 3, DOUBLE, 13, limit=120)


def picture(title, view):
    with Image.open(io.BytesIO(renderers.render(title, view))) as im:
        return im.convert("RGB")


def test_other_hands_never_change_a_players_picture(double_game):
    """Re-deal every hand seat 1 cannot see: seat 1's picture stays byte-identical."""
    rules, positions = double_game
    checked = 0
    for state, _ in positions[::12]:
        if rules.to_move(state) is None:
            continue
        for seed in (1,):
            other = rules.resample_hidden(state, 1, seed)
            if other.hands == state.hands:
                continue
            assert other.hands[1] == state.hands[1]
            for viewer in (1, None):
                assert renderers.render("discovery", rules.view(other, viewer)) == \
                    renderers.render("discovery", rules.view(state, viewer))
            checked += 1
    assert checked >= 4


def test_seat_and_spectator_pictures_differ_only_in_the_seats_own_hand(double_game):
    rules, positions = double_game
    state = positions[30][0]
    seat = 1 if rules.to_move(state) != 1 else 2
    spectator = picture("discovery", rules.view(state, None))
    player = picture("discovery", rules.view(state, seat))
    width = min(spectator.width, player.width)
    # The board, header and legend sit above the hand panel: identical pixels there.
    top = min(spectator.height, player.height)
    hand_panel = player.height - spectator.height
    assert hand_panel > 0, "the seat's own two tiles are shown in a panel of their own"
    assert spectator.width == player.width == width
    diff = ImageChops.difference(spectator.crop((0, 0, width, top)), player.crop((0, 0, width, top)))
    assert diff.getbbox() is None


def test_hidden_tiles_are_absent_from_the_spectators_view_and_picture(double_game):
    rules, positions = double_game
    view = rules.view(positions[20][0], None)
    assert view["hand"] is None and view["drawn"] is None
    png = renderers.render("discovery", view)
    again = renderers.render("discovery", rules.view(rules.resample_hidden(positions[20][0], None, 9), None))
    assert png == again
