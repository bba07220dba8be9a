"""The colour the service shows for a seat is the colour that seat's pieces have in the picture."""

from __future__ import annotations

import pytest

import engine
import renderers
from pbem.games import palette
from renderers.common import PLAYER_RGB


@pytest.mark.parametrize("title", [t for t in ("tongiaki", "discovery", "tapaono") if t in engine.names()])
def test_every_seat_colour_is_one_the_pictures_draw(title):
    rules = engine.get(title)
    colours = palette(rules)
    assert len(colours) == rules.max_players and len(set(colours)) == len(colours)
    assert all(name in PLAYER_RGB for name in colours)
    module = __import__(f"renderers.{title}", fromlist=["x"])
    drawn = getattr(module, "SEAT_COLOURS", None)
    if drawn is None:  # Tongiaki draws the colours its view names
        state = rules.setup(rules.max_players, {}, 1)
        drawn = rules.view(state, None)["colours"]
    assert tuple(drawn)[: rules.max_players] == colours
    assert renderers.available(title)
