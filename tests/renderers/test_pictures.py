"""Pictures of real seeded games: every position renders, targets match the engine's notation.

A picture must let a player name every position a legal move can name: the tests compare
the clickable regions (same geometry as the picture) with the moves the engine offers.
"""

from __future__ import annotations

import io
import re

import pytest
from PIL import Image

import engine
import renderers
from renderers import common
from tests.renderers.games import GAMES, play, registered

CASES = [(title, *game) for title, games in GAMES.items() for game in games]


def need(title):
    assert registered(title), f"the {title} engine is not registered"


def check_regions(title, view, image):
    found = renderers.regions(title, view)
    assert found, "a board always has clickable areas"
    for area in found:
        assert area["shape"] in ("rect", "circle", "poly")
        assert all(isinstance(c, int) for c in area["coords"])
        xs = area["coords"][0::2] if area["shape"] != "circle" else [area["coords"][0]]
        ys = area["coords"][1::2] if area["shape"] != "circle" else [area["coords"][1]]
        assert all(-2 <= x <= image.width + 2 for x in xs) and all(-2 <= y <= image.height + 2 for y in ys)
    return {a["target"] for a in found}


def targets_cover_moves(title, rules, state, targets):
    """Every position named by a legal move is a target of the picture's regions."""
    texts = [rules.notation(state, m) for m in rules.legal_moves(state)]
    if title == "tongiaki":
        for text in texts:
            if text.startswith("tile "):
                assert text[5:] in targets, text
            elif text.startswith(("expand ", "place ")):
                words = text.split()
                island = " ".join(w for w in words[1:] if not w.isdigit()).split(" from ")[0]
                beach = next(w for w in words[1:] if w.isdigit())
                assert f"{island} {beach}" in targets, text
            elif text.startswith("emigrate "):
                assert text[len("emigrate "):] in targets, text
    elif title == "discovery":
        for text in texts:
            found = re.search(r"(-?\d+),(-?\d+)", text)
            if text.startswith("place") and found:
                assert f"{found.group(1)},{found.group(2)}" in targets, text
            elif text.startswith("deploy "):
                assert text[len("deploy "):].upper() in {t.upper() for t in targets}, text
            elif text.startswith("remove "):
                assert text[len("remove "):].upper() in {t.upper() for t in targets}, text
    elif title == "tapaono":
        for text in texts:
            for q, r in re.findall(r"(-?\d+),(-?\d+)", text):
                assert f"{q},{r}" in targets, text


@pytest.mark.parametrize("title,players,options,seed", CASES, ids=[f"{c[0]}-{c[3]}" for c in CASES])
def test_every_position_of_a_seeded_game_renders_and_names_its_moves(title, players, options, seed):
    need(title)
    rules = engine.get(title)
    positions = play(title, players, options, seed)
    assert rules.to_move(positions[-1][0]) is None, "the test game is played to its end"
    last_size = None
    for i, (state, _) in enumerate(positions):
        seat = rules.to_move(state)
        view = rules.view(state, seat)
        image = renderers.draw(title, view)
        assert image.mode == "P"
        assert common.MIN_SIDE <= image.width <= common.MAX_SIDE
        assert common.MIN_SIDE <= image.height <= common.MAX_SIDE
        targets = check_regions(title, view, image)
        if seat is not None:
            targets_cover_moves(title, rules, state, targets)
        last_size = image.size
    png = renderers.render(title, rules.view(positions[-1][0], None))
    with Image.open(io.BytesIO(png)) as decoded:
        assert decoded.format == "PNG" and decoded.size == last_size


@pytest.mark.parametrize("title", sorted(GAMES))
def test_the_same_view_gives_the_same_bytes(title):
    need(title)
    players, options, seed = GAMES[title][0]
    positions = play(title, players, options, seed)
    view = engine.get(title).view(positions[len(positions) // 2][0], 0)
    first = renderers.render(title, view)
    assert renderers.render(title, view) == first
    # Caches inside the renderer must not change a picture: a fresh interpreter gives the same bytes.
    import json
    import subprocess
    import sys
    code = ("import json, sys, hashlib, renderers; v = json.load(sys.stdin); "
            f"print(hashlib.sha256(renderers.render({title!r}, v)).hexdigest())")
    out = subprocess.run([sys.executable, "-c", code], input=json.dumps(view), capture_output=True, text=True,
                         check=True)
    import hashlib
    assert out.stdout.strip() == hashlib.sha256(first).hexdigest()


@pytest.mark.parametrize("title", sorted(GAMES))
def test_late_game_picture_stays_small(title):
    need(title)
    players, options, seed = GAMES[title][0]
    positions = play(title, players, options, seed)
    png = renderers.render(title, engine.get(title).view(positions[-2][0], 0))
    assert len(png) <= 300 * 1024


def test_names_from_the_service_replace_seat_numbers():
    need("tapaono")
    players, options, seed = GAMES["tapaono"][0]
    view = dict(engine.get("tapaono").view(play("tapaono", players, options, seed)[5][0], 0))
    plain = renderers.render("tapaono", view)
    view["player_names"] = ["Ada", "Grace"]
    named = renderers.render("tapaono", view)
    assert named != plain
    assert common.player_names(view, 2) == ["Ada", "Grace"]
    assert common.player_names({"players": 2}, 2) == ["Seat 1", "Seat 2"]


def test_unknown_title_is_refused_with_a_clear_message():
    assert renderers.available("tongiaki") and renderers.available("Tapaono")
    assert not renderers.available("chess")
    with pytest.raises(renderers.RenderError, match="no board picture for 'chess'"):
        renderers.render("chess", {})
