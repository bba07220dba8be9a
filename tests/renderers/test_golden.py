"""Golden pictures: stored views rendered again match the stored PNGs within a small pixel tolerance.

Each golden is a view (JSON, from a seeded game) and its picture. To regenerate both after
a deliberate change of the pictures or of a view schema, run
`PBEM_REGEN_GOLDEN=1 pytest tests/renderers/test_golden.py` and look at the new PNGs.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest
from PIL import Image, ImageChops

import engine
import renderers
from tests.renderers.games import play

GOLDEN = Path(__file__).parent / "golden"
REGENERATE = os.environ.get("PBEM_REGEN_GOLDEN") == "1"
TOLERANCE = 0.005   # share of pixels that may differ (font rasterising across FreeType versions)
BLOCK = 16          # ... but no 16x16 block may change by more than 40 % (a lost mark or label would)

# name -> (title, players, options, seed, which position: a fraction of the game, viewer)
CASES = {
    "tongiaki-mid": ("tongiaki", 3, {}, 7, 0.5, 0),
    "tongiaki-end": ("tongiaki", 4, {}, 11, 1.0, None),
    "discovery-mid": ("discovery", 3, {}, 7, 0.5, 0),
    "discovery-double": ("discovery", 2, {"double": True}, 5, 0.3, 1),
    "tapaono-mid": ("tapaono", 2, {"mode": "fast"}, 3, 0.5, 0),
}


def make_view(title, players, options, seed, where, viewer):
    positions = play(title, players, options, seed)
    state = positions[min(len(positions) - 1, int((len(positions) - 1) * where))][0]
    return engine.get(title).view(state, viewer)


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_picture(name):
    title = CASES[name][0]
    view_path, png_path = GOLDEN / f"{name}.json", GOLDEN / f"{name}.png"
    if REGENERATE:
        view = make_view(*CASES[name])
        view_path.write_text(json.dumps(view, indent=1, sort_keys=True) + "\n")
        png_path.write_bytes(renderers.render(title, view))
    view = json.loads(view_path.read_text())
    with Image.open(io.BytesIO(renderers.render(title, view))) as got, Image.open(png_path) as want:
        assert got.size == want.size, f"{name}: picture size changed from {want.size} to {got.size}"
        red, green, blue = ImageChops.difference(got.convert("RGB"), want.convert("RGB")).split()
        diff = ImageChops.lighter(ImageChops.lighter(red, green), blue)  # the largest change of any channel
        mask = diff.point(lambda v: 255 if v > 24 else 0)
        changed = mask.histogram()[255]
        blocks = mask.resize((max(1, mask.width // BLOCK), max(1, mask.height // BLOCK)), Image.Resampling.BOX)
        worst = blocks.getextrema()[1] / 255
    share = changed / (want.size[0] * want.size[1])
    assert share <= TOLERANCE, f"{name}: {share:.2%} of pixels differ from the golden picture"
    assert worst <= 0.4, f"{name}: one part of the picture changed ({worst:.0%} of a {BLOCK}px block)"
