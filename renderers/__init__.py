"""Board pictures: a game's view for one viewer -> PNG bytes, clickable regions, animated replays.

One module per game draws from the engine's `view(state, seat)` only, never from the full
state, so a picture cannot show what that viewer may not see. Which module draws a title is
said once, by the title's entry in the engine's registry (`engine.entry(title).picture`,
"renderers.tongiaki"): this package lists no titles of its own. Everything is drawn from
vector primitives with Pillow and its built-in font. The words (status lines, legend,
labels) are in the viewer's language: every function that draws or measures a picture takes
`texts=`, the messages of that language (renderers.i18n; English when not given). The same
view in the same language always gives the same bytes. Limits (picture sizes, replay frames)
are in docs/renderers.md.
"""

from __future__ import annotations

import io
import importlib

from PIL import Image

import engine
from engine.core import canonical_json, sha256_hex
from renderers import common
from renderers.i18n import ENGLISH, Texts

__all__ = ["available", "render", "picture_key", "size", "regions", "targets", "legend", "render_replay", "draw",
           "titles"]

REPLAY_MAX_SIDE = 640          # longest side of a replay frame, pixels
REPLAY_MIN_SIDE = 240
REPLAY_MAX_FRAMES = 600        # longer games keep evenly spaced frames (always the first and last)
REPLAY_FRAME_MS = 900
REPLAY_LAST_FRAME_MS = 4000
CAPTION_SIZE = 14
REPLAY_TEXT_MIN = 10         # smallest body text in a replay frame, pixels


class RenderError(ValueError):
    """A title without a renderer, or a view that is not one of that title's views."""


def titles() -> list[str]:
    """Titles that have a renderer."""
    return [entry.name for entry in engine.entries() if entry.picture]


def _picture_module(title: str) -> str | None:
    """The name of the module that draws a title, as its registry entry gives it (None: no picture)."""
    try:
        return engine.entry(title).picture
    except engine.UnknownGameError:
        return None


def available(title: str) -> bool:
    """Whether pictures of this game can be drawn."""
    return _picture_module(title) is not None


def _module(title: str):
    name = _picture_module(title)
    if name is None:
        raise RenderError(f"There is no board picture for {title!r}; pictures exist for: {', '.join(titles())}.")
    return importlib.import_module(name)


def draw(title: str, view: dict, unit: float | None = None, text: int | None = None,
         texts: Texts = ENGLISH) -> Image.Image:
    """The finished palette image of a view, as render() encodes it (unit: grid size; text: body text size)."""
    module = _module(title)
    lay = module._Layout(view, unit, text, texts)
    canvas = common.Canvas(lay.width, lay.height)
    module.paint(canvas, lay)
    return canvas.finish()


def picture_key(title: str, view: dict) -> str:
    """A SHA-256 of what render() draws of a view: views with the same key give the same picture.

    A view holds some entries the picture does not show (each renderer module lists them in
    NOT_DRAWN: whose view it is, the legal moves); without them, a seat that sees the board as
    a spectator does has the spectator's picture, so a service draws it once for all of them.
    The key is the same in every language: a picture is drawn (and kept) per key and language.
    """
    not_drawn = _module(title).NOT_DRAWN
    return sha256_hex(canonical_json({key: value for key, value in view.items() if key not in not_drawn}))


def size(title: str, view: dict, texts: Texts = ENGLISH) -> tuple[int, int]:
    """The (width, height) in pixels of render()'s picture of a view, without drawing it."""
    lay = _module(title)._Layout(view, texts=texts)
    return common.clamp_side(lay.width), common.clamp_side(lay.height)


def render(title: str, view: dict, texts: Texts = ENGLISH) -> bytes:
    """PNG bytes of one view in the language of `texts`; a pure function of the view and the language."""
    return common.to_png(draw(title, view, texts=texts))


def regions(title: str, view: dict, texts: Texts = ENGLISH) -> list[dict]:
    """Clickable areas of render()'s picture: {"shape", "coords", "target"}, smallest targets first.

    The header's height follows its words, so the regions are those of the picture in the same language."""
    return _module(title).regions(view, None, texts)


def targets(title: str, view: dict, move: str) -> list[str]:
    """The region targets one move (in notation) names: clicking each of them leads to that move.

    A move that names no place (Tongiaki's `settle`, Discovery's `pass`, Tapaono's `end`)
    has none. Every target returned is a target of `regions(title, view)` for the view of
    the player whose move it is.
    """
    return _module(title).move_targets(view, move)


def legend(title: str, view: dict, texts: Texts = ENGLISH) -> dict:
    """What the picture writes around the board, as data for a page: the title, the status lines,
    one row per player (label, colour, shape, letter, what they have, whether to move) and the notes."""
    frame = _module(title).frame(view, texts)
    return {"title": frame.title, "lines": list(frame.lines), "notes": list(frame.notes),
            "players": [{"seat": seat, "label": row.name, "colour": common.colour_name(row.colour),
                         "shape": row.shape, "letter": row.letter, "details": row.details, "to_move": row.to_move}
                        for seat, row in enumerate(frame.rows)]}


def _frame_scale(title: str, view: dict, texts: Texts = ENGLISH) -> float:
    """The share of full size at which a frame's longest side stays within REPLAY_MAX_SIDE."""
    module = _module(title)
    lay = module._Layout(view, texts=texts)
    longest = max(lay.width, lay.height)
    scale = max(_least_scale(module), min(1.0, REPLAY_MAX_SIDE / longest))
    for _ in range(6):
        lay = module._Layout(view, module.UNIT * scale, _text(scale), texts)
        longest = max(lay.width, lay.height)
        if longest <= REPLAY_MAX_SIDE or scale <= _least_scale(module):
            break
        scale = max(_least_scale(module), scale * REPLAY_MAX_SIDE / longest * 0.98)
    return scale


def _least_scale(module) -> float:
    """Frames never shrink the grid below half the renderer's own smallest grid size."""
    return module.MIN_UNIT * 0.5 / module.UNIT


def _text(scale: float) -> int:
    return max(REPLAY_TEXT_MIN, round(common.text_size(800) * scale))


def render_replay(title: str, frames: list[tuple[dict, str]], texts: Texts = ENGLISH) -> bytes:
    """An animated GIF of a game: one frame per (view, caption), the caption (the move's notation) under it.

    Frames are drawn natively small (grid and text scaled by one common factor) so that the
    longest side stays within about REPLAY_MAX_SIDE pixels; all frames share one size. A
    game longer than REPLAY_MAX_FRAMES keeps evenly spaced frames (always the first and
    the last). The GIF stores only what changed between frames. The words are those of `texts`.
    """
    if not frames:
        raise RenderError("A replay needs at least one frame.")
    module = _module(title)
    picked = list(range(len(frames)))
    if len(picked) > REPLAY_MAX_FRAMES:
        step = (len(frames) - 1) / (REPLAY_MAX_FRAMES - 1)
        picked = sorted({round(i * step) for i in range(REPLAY_MAX_FRAMES)})
    scale = min(_frame_scale(title, frames[i][0], texts) for i in {picked[0], picked[len(picked) // 2], picked[-1]})
    for _ in range(5):
        unit, text = module.UNIT * scale, _text(scale)
        layouts = [module._Layout(frames[i][0], unit, text, texts) for i in picked]
        longest = max(max(lay.width, lay.height) for lay in layouts)
        if longest <= REPLAY_MAX_SIDE or scale <= _least_scale(module):
            break
        scale = max(_least_scale(module), scale * REPLAY_MAX_SIDE / longest * 0.98)
    width = max(REPLAY_MIN_SIDE, max(lay.width for lay in layouts))
    height = max(REPLAY_MIN_SIDE, max(lay.height for lay in layouts))
    cap_h = CAPTION_SIZE + 12
    start = texts.gettext("start")
    images = []
    for i, lay in zip(picked, layouts):
        canvas = common.Canvas(width, height + cap_h)
        module.paint(canvas, lay)
        canvas.rect((0, height, canvas.width, canvas.height), fill=common.WHITE)
        caption = f"{i}/{len(frames) - 1}: {frames[i][1] or start}"
        canvas.text(8, height + cap_h // 2, caption[:140], CAPTION_SIZE, fill=common.INK, anchor="lm")
        images.append(canvas.finish())
    buf = io.BytesIO()
    durations = [REPLAY_FRAME_MS] * (len(images) - 1) + [REPLAY_LAST_FRAME_MS]
    images[0].save(buf, format="GIF", save_all=True, append_images=images[1:], duration=durations, loop=0,
                   optimize=False, disposal=1)
    return buf.getvalue()
