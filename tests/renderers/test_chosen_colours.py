"""A colour chosen at the table is the colour the pictures draw for that seat (the view's "colours")."""

from __future__ import annotations

import random

import pytest

import engine
import renderers
from renderers import common, tapaono

# title -> (players, options, seed, chosen colours in seat order: never the default order)
CASES = {
    "tongiaki": (3, {}, 7, ["yellow", "purple", "red"]),
    "discovery": (3, {}, 7, ["purple", "yellow", "green"]),
    "tapaono": (2, {"mode": "free", "markers": 20}, 3, ["blue", "red"]),
}


def mid_game_view(title, players, options, seed, colours=None, share=0.5):
    rules = engine.get(title)
    if colours is not None:
        options = dict(options, colours=colours)
    state = rules.setup(players, options, seed)
    pick = random.Random(seed)
    positions = [state]
    while rules.to_move(state) is not None and len(positions) < 4000:
        state = rules.apply(state, pick.choice(rules.legal_moves(state)))
        positions.append(state)
    return rules.view(positions[int((len(positions) - 1) * share)], None)


def rgb_counts(title, view) -> dict:
    image = renderers.draw(title, view).convert("RGB")
    return {rgb: n for n, rgb in image.getcolors(maxcolors=1 << 16)}


@pytest.mark.parametrize("title", sorted(CASES))
def test_the_picture_draws_the_chosen_colours(title):
    players, options, seed, colours = CASES[title]
    view = mid_game_view(title, players, options, seed, colours)
    assert view["colours"] == colours
    drawn = rgb_counts(title, view)
    for name in colours:
        assert drawn.get(common.PLAYER_RGB[name], 0) > 0, f"{name} is chosen but not drawn"
    for name in set(engine.get(title).colours) - set(colours):
        assert common.PLAYER_RGB[name] not in drawn, f"{name} is drawn but nobody plays it"
    # The same position with the default colours is a different picture.
    plain = mid_game_view(title, players, options, seed)
    assert plain["colours"] == list(engine.get(title).colours[:players])
    assert renderers.render(title, plain) != renderers.render(title, view)


def test_tapaono_fields_take_the_tint_of_their_owners_chosen_colour():
    players, options, seed, colours = CASES["tapaono"]
    view = mid_game_view("tapaono", players, options, seed, colours)
    lay = tapaono._Layout(view)
    image = renderers.draw("tapaono", view).convert("RGB")
    pieces = {tuple(p["field"]) for seat in view["pieces"] for p in seat if p["field"]}
    stars = {(s["q"], s["r"]) for s in view["stars"]}
    owned = {0: 0, 1: 0}
    for q, r, owner in view["fields"]:
        if owner is None or (q, r) in pieces or (q, r) in stars:
            continue
        cx, cy = lay.center(q, r)
        assert image.getpixel((int(cx - lay.unit * 0.55), int(cy))) == tapaono.TINT[colours[owner]]
        owned[owner] += 1
    assert owned[0] and owned[1], "the test position should have fields of both players"
    assert tapaono.seat_colour(0, view) == common.PLAYER_RGB["blue"] and tapaono.seat_letter(0, view) == "B"


def test_a_view_without_colours_is_drawn_in_the_default_order():
    assert common.seat_colour_names({}, ("red", "blue")) == ("red", "blue")
    assert common.seat_colour_names({"colours": ["blue", "red"]}, ("red", "blue")) == ("blue", "red")
    assert common.seat_colour_names({"colours": ["no-such"]}, ("red", "blue")) == ("red", "blue")
