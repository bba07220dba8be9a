"""Animated replays: one frame per move with its notation as caption, within bounded sizes."""

from __future__ import annotations

import io

import pytest
from PIL import Image, ImageSequence

import engine
import renderers
from tests.renderers.games import play


def frames_of(title, players, options, seed, limit=4000):
    rules = engine.get(title)
    return [(rules.view(state, None), text) for state, text in play(title, players, options, seed, limit)]


def test_a_whole_game_becomes_one_frame_per_move():
    frames = frames_of("tongiaki", 3, {}, 7)
    data = renderers.render_replay("tongiaki", frames)
    with Image.open(io.BytesIO(data)) as gif:
        assert gif.format == "GIF"
        assert gif.n_frames == len(frames)
        assert max(gif.size) <= renderers.REPLAY_MAX_SIDE + renderers.CAPTION_SIZE + 12
        sizes = {frame.size for frame in ImageSequence.Iterator(gif)}
        assert len(sizes) == 1
    start = frames[:8]
    assert renderers.render_replay("tongiaki", start) == renderers.render_replay("tongiaki", start), \
        "the same game gives the same replay bytes"


def test_captions_change_only_the_caption_strip():
    frames = frames_of("discovery", 2, {}, 4, limit=3)
    a = renderers.render_replay("discovery", frames)
    b = renderers.render_replay("discovery", [(v, c + " x") for v, c in frames])
    with Image.open(io.BytesIO(a)) as ga, Image.open(io.BytesIO(b)) as gb:
        ga.seek(1)
        gb.seek(1)
        fa, fb = ga.convert("RGB"), gb.convert("RGB")
        from PIL import ImageChops
        box = ImageChops.difference(fa, fb).getbbox()
        assert box is not None and box[1] >= fa.height - renderers.CAPTION_SIZE - 12


def test_a_long_game_keeps_a_bounded_number_of_frames(monkeypatch):
    monkeypatch.setattr(renderers, "REPLAY_MAX_FRAMES", 40)
    frames = frames_of("tapaono", 2, {"mode": "fast"}, 3)
    assert len(frames) > 40
    data = renderers.render_replay("tapaono", frames)
    with Image.open(io.BytesIO(data)) as gif:
        assert gif.n_frames == 40


def test_an_empty_replay_is_refused():
    with pytest.raises(renderers.RenderError, match="at least one frame"):
        renderers.render_replay("tongiaki", [])
