"""What the game pictures share: palette, fonts, player marks, hex geometry, header, legend, PNG output.

Pictures are drawn straight into a palette ("P") image: every colour comes from the small
fixed palette below, so encoding needs no quantisation and the same drawing calls always
give the same bytes. Text uses Pillow's built-in FreeType font (`ImageFont.load_default`),
never a system font. That font has no accented letters, so a text with a letter it lacks
(é, ü, ë, ç, ß...) is drawn with DejaVu Sans, shipped in renderers/fonts/ (so the bytes do not
depend on the machine); an English text draws as it always did. The words of a picture are
in its viewer's language (`texts`, renderers.i18n). This module knows nothing about any one
game's rules.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from renderers.i18n import ENGLISH, N_, Texts

# --- colours ------------------------------------------------------------------------------

WHITE = (255, 255, 255)
BLACK = (0, 0, 0)
INK = (31, 41, 55)            # text and outlines
MUTED = (90, 98, 110)         # secondary text
PAPER = (250, 248, 242)       # picture background (header, legend)
HIGHLIGHT = (234, 88, 12)     # last move: a thick outline (shape, not only colour: it is drawn dashed-free but 4 px)
PENDING = (220, 38, 38)       # what the pending decision is about
HALO = WHITE                  # every player mark sits on a white halo, whatever is under it

# Player colours: dark enough for 3:1 against the white halo and for white letters on them.
PLAYER_RGB = {
    "blue": (29, 78, 216),
    "green": (21, 128, 61),
    "orange": (194, 65, 12),
    "purple": (126, 34, 206),
    "red": (185, 28, 28),
    "yellow": (146, 100, 0),
    "black": (17, 24, 39),
}
PLAYER_COLOUR_NAMES = {rgb: name for name, rgb in PLAYER_RGB.items()}
# A second cue besides colour: each player also has a letter and a shape.
SHAPES = ("circle", "square", "triangle", "diamond", "hexagon", "pentagon")
SHAPE_WORDS = {"circle": N_("circle"), "square": N_("square"), "triangle": N_("triangle"), "diamond": N_("diamond"),
               "hexagon": N_("hexagon"), "pentagon": N_("pentagon")}

FALLBACK_FONT = Path(__file__).resolve().parent / "fonts" / "DejaVuSans.ttf"  # letters the built-in font lacks
MIN_SIDE = 360                # no picture is narrower or lower than this (pixels)
MAX_SIDE = 2400               # nor wider or higher than this: boards shrink their unit to fit
# zlib level 3 instead of the default 6: a worker draws a picture every move, and this halves the time
# spent encoding it, for pictures about a third larger (docs/renderers.md).
PNG_COMPRESS_LEVEL = 3


def contrast_ratio(a: tuple, b: tuple) -> float:
    """The WCAG 2 contrast ratio of two sRGB colours (1.0 .. 21.0)."""
    def luminance(rgb):
        def channel(c):
            c = c / 255
            return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
        r, g, b_ = (channel(c) for c in rgb[:3])
        return 0.2126 * r + 0.7152 * g + 0.0722 * b_
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


@lru_cache(maxsize=None)
def font(size: int) -> ImageFont.FreeTypeFont:
    """Pillow's built-in scalable font at a pixel size (shipped with Pillow >= 10.1)."""
    return ImageFont.load_default(size=max(8, int(size)))


@lru_cache(maxsize=None)
def fallback_font(size: int) -> ImageFont.FreeTypeFont:
    """DejaVu Sans at a pixel size: for texts with letters the built-in font does not have."""
    return ImageFont.truetype(str(FALLBACK_FONT), max(8, int(size)))


_MISSING = "\uffff"  # a character no font has: the built-in font draws its box for it


@lru_cache(maxsize=2048)
def _glyph(character: str) -> bytes:
    """The pixels of one character in the built-in font."""
    image = Image.new("L", (48, 48), 0)
    ImageDraw.Draw(image).text((8, 8), character, font=font(24), fill=255)
    return image.tobytes()


def _built_in_draws(character: str) -> bool:
    """Whether the built-in font has a glyph of its own for a character (not the box of a missing one)."""
    return character.isspace() or _glyph(character) != _glyph(_MISSING)


@lru_cache(maxsize=8192)
def font_for(text: str, size: int) -> ImageFont.FreeTypeFont:
    """The font a text is drawn in: the built-in one if it has every letter, else DejaVu Sans."""
    if text.isascii() or all(_built_in_draws(c) for c in set(text)):
        return font(size)
    return fallback_font(size)


@lru_cache(maxsize=8192)
def text_length(text: str, size: int) -> float:
    """The advance width of a text in pixels."""
    return font_for(text, size).getlength(text)


@lru_cache(maxsize=8192)
def _stamp(text: str, size: int, anchor: str, stroke: int):
    """A text drawn once as 1-bit masks (fill, and stroke when asked), reused wherever it recurs.

    Labels repeat a lot (letters, numbers, sides), and FreeType rendering is the costliest
    part of a picture; a stamp is the same pixels draw.text would give a palette image.
    """
    f = font_for(text, size)
    left, top, right, bottom = f.getbbox(text, anchor=anchor, stroke_width=stroke)
    w, h = max(1, right - left), max(1, bottom - top)
    # Drawn antialiased (the metrics getbbox promises), then cut to 1 bit for the palette image.
    fill = Image.new("L", (w, h), 0)
    ImageDraw.Draw(fill).text((-left, -top), text, font=f, fill=255, anchor=anchor)
    halo = None
    if stroke:
        halo = Image.new("L", (w, h), 0)
        ImageDraw.Draw(halo).text((-left, -top), text, font=f, fill=255, anchor=anchor, stroke_width=stroke,
                                  stroke_fill=255)
        halo = halo.point(_THRESHOLD, "1")
    return left, top, fill.point(_THRESHOLD, "1"), halo


_THRESHOLD = [0] * 96 + [255] * 160


def seat_colour_names(view: dict | None, default) -> tuple[str, ...]:
    """The colour name of each seat: the view's "colours" (the players' choice) or the default order.

    Views made before colours could be chosen (stored golden views) carry no "colours".
    """
    colours = (view or {}).get("colours")
    if isinstance(colours, list) and colours and all(isinstance(c, str) and c in PLAYER_RGB for c in colours):
        return tuple(colours)
    return tuple(default)


def colour_name(rgb: tuple) -> str:
    """The name of a player colour from its RGB (as PLAYER_RGB has it)."""
    return PLAYER_COLOUR_NAMES[tuple(rgb)]


def player_names(view: dict, count: int, texts: Texts = ENGLISH) -> list[str]:
    """Display names: view["player_names"] or a list in view["players"] when the service adds one, else Seat N."""
    for key in ("player_names", "players"):
        names = view.get(key)
        if isinstance(names, list) and len(names) >= count and all(isinstance(n, str) for n in names[:count]):
            return [n[:24] for n in names[:count]]
    return [texts.gettext("Seat %(number)s", number=i + 1) for i in range(count)]


def shape_word(texts: Texts, shape: str) -> str:
    """A mark's shape in the viewer's words ('circle')."""
    return texts.gettext(SHAPE_WORDS[shape]) if shape in SHAPE_WORDS else shape


def clamp_side(pixels: float) -> int:
    """A picture's side as drawn: at least MIN_SIDE, at most MAX_SIDE."""
    return max(MIN_SIDE, min(MAX_SIDE, int(pixels)))


# --- the canvas ---------------------------------------------------------------------------


class Canvas:
    """A palette image with drawing helpers; colours are RGB tuples, mapped to palette slots on first use."""

    def __init__(self, width: int, height: int, background: tuple = PAPER):
        self.width = clamp_side(width)
        self.height = clamp_side(height)
        self.image = Image.new("P", (self.width, self.height), 0)
        self.image.putpalette(list(background))
        self._slots = {tuple(background): 0}
        self.draw = ImageDraw.Draw(self.image)

    def ink(self, rgb: tuple) -> int:
        """The palette slot of a colour (allocated in first-use order, so drawing order fixes the palette)."""
        rgb = tuple(rgb)
        slot = self._slots.get(rgb)
        if slot is None:
            slot = len(self._slots)
            if slot > 255:
                raise ValueError("a picture may use at most 256 colours")
            self._slots[rgb] = slot
        return slot

    def finish(self) -> Image.Image:
        palette = []
        for rgb, _ in sorted(self._slots.items(), key=lambda item: item[1]):
            palette.extend(rgb)
        self.image.putpalette(palette)
        return self.image

    # shapes
    def polygon(self, points, fill=None, outline=None, width=1):
        self.draw.polygon([(round(x), round(y)) for x, y in points],
                          fill=None if fill is None else self.ink(fill),
                          outline=None if outline is None else self.ink(outline), width=width)

    def line(self, points, fill, width=1):
        self.draw.line([(round(x), round(y)) for x, y in points], fill=self.ink(fill), width=width, joint="curve")

    def circle(self, cx, cy, r, fill=None, outline=None, width=1):
        self.draw.ellipse((round(cx - r), round(cy - r), round(cx + r), round(cy + r)),
                          fill=None if fill is None else self.ink(fill),
                          outline=None if outline is None else self.ink(outline), width=width)

    def rect(self, box, fill=None, outline=None, width=1, radius=0):
        box = tuple(round(v) for v in box)
        if radius:
            self.draw.rounded_rectangle(box, radius=radius, fill=None if fill is None else self.ink(fill),
                                        outline=None if outline is None else self.ink(outline), width=width)
        else:
            self.draw.rectangle(box, fill=None if fill is None else self.ink(fill),
                                outline=None if outline is None else self.ink(outline), width=width)

    def text(self, x, y, text, size, fill=INK, anchor="mm", halo=None):
        """Text anchored at (x, y); a halo (a stroke in another colour) keeps it readable on any ground."""
        stroke = max(1, size // 7) if halo is not None else 0
        left, top, mask, halo_mask = _stamp(text, max(8, int(size)), anchor, stroke)
        box = (round(x) + left, round(y) + top)
        if halo_mask is not None:
            self.image.paste(self.ink(halo), box + (box[0] + mask.width, box[1] + mask.height), halo_mask)
        self.image.paste(self.ink(fill), box + (box[0] + mask.width, box[1] + mask.height), mask)

    def text_width(self, text, size) -> int:
        return int(math.ceil(text_length(text, size)))

    def label(self, x, y, text, size, fill=INK, background=WHITE, outline=None, anchor="mm"):
        """Text on a small box (for coordinates): returns the box."""
        w = self.text_width(text, size) + size // 2 + 2
        h = size + size // 3 + 2
        if anchor == "mm":
            box = (x - w / 2, y - h / 2, x + w / 2, y + h / 2)
        else:  # "lm"
            box = (x, y - h / 2, x + w, y + h / 2)
        self.rect(box, fill=background, outline=outline, radius=max(2, size // 4))
        self.text((box[0] + box[2]) / 2, (box[1] + box[3]) / 2, text, size, fill=fill)
        return tuple(round(v) for v in box)

    def mark(self, cx, cy, r, colour: tuple, shape: str, letter: str = "", letter_colour=WHITE):
        """A player's mark: a shape in the player's colour on a white halo, with a letter inside."""
        halo = max(2, round(r * 0.22))
        self._shape(cx, cy, r + halo, shape, HALO, None)
        self._shape(cx, cy, r, shape, colour, INK)
        if letter:
            size = max(8, round(r * (1.15 if len(letter) == 1 else 0.9)))
            dy = r * 0.18 if shape == "triangle" else 0
            self.text(cx, cy + dy, letter, size, fill=letter_colour)

    def _shape(self, cx, cy, r, shape, fill, outline):
        if shape == "circle":
            self.circle(cx, cy, r, fill=fill, outline=outline)
        elif shape == "square":
            k = r * 0.88
            self.rect((cx - k, cy - k, cx + k, cy + k), fill=fill, outline=outline)
        else:
            sides, start = {"triangle": (3, -90), "diamond": (4, -90), "pentagon": (5, -90),
                            "hexagon": (6, 0)}[shape]
            scale = 1.25 if shape == "triangle" else 1.1
            pts = [(cx + r * scale * math.cos(math.radians(start + 360 * i / sides)),
                    cy + r * scale * math.sin(math.radians(start + 360 * i / sides))) for i in range(sides)]
            self.polygon(pts, fill=fill, outline=outline)


# --- hex geometry ---------------------------------------------------------------------------

SQRT3 = math.sqrt(3)


def flat_hex_center(q: int, r: int, size: float) -> tuple[float, float]:
    """Centre of a flat-topped axial hex (q, r) of circumradius `size`, origin at (0, 0)."""
    return size * 1.5 * q, size * SQRT3 * (r + q / 2)


def pointy_hex_center(q: int, r: int, size: float) -> tuple[float, float]:
    """Centre of a pointy-topped axial hex (q, r) with r growing downwards."""
    return size * SQRT3 * (q + r / 2), size * 1.5 * r


def hex_corners(cx: float, cy: float, size: float, flat: bool = True) -> list[tuple[float, float]]:
    start = 0 if flat else 30
    return [(cx + size * math.cos(math.radians(start + 60 * i)), cy + size * math.sin(math.radians(start + 60 * i)))
            for i in range(6)]


# --- header and legend ----------------------------------------------------------------------


@dataclass
class LegendRow:
    """One player in the legend: mark, name and what the player has left."""

    colour: tuple
    shape: str
    letter: str
    name: str
    details: str
    to_move: bool = False


@dataclass
class Frame:
    """Header lines above the board and legend rows below it (`to_move_words` follow the mover's name)."""

    title: str
    lines: list[str] = field(default_factory=list)
    rows: list[LegendRow] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    to_move_words: str = "(to move)"


def frame_words(texts: Texts) -> dict:
    """What every frame says in the viewer's language, as Frame's keyword arguments."""
    return {"to_move_words": texts.gettext("(to move)")}


def fit_unit(unit: float, min_unit: float, frame: Frame, size: int, board, extra=lambda unit: 0):
    """Shrink the grid size until the picture fits MAX_SIDE (or the grid reaches min_unit).

    board(unit) -> (width, height) of the board area; extra(unit) -> height below the
    legend. Returns (unit, board width, board height, header height, picture width, picture height).
    """
    fw = frame_width(frame, size)
    top = header_height(frame, size)
    below = legend_height(frame, size)
    while True:
        bw, bh = board(unit)
        height = top + bh + below + extra(unit)
        if (max(bw, fw) <= MAX_SIDE and height <= MAX_SIDE) or unit <= min_unit:
            return unit, bw, bh, top, max(bw, fw), height
        unit = max(min_unit, unit * 0.9)


def text_size(width: int) -> int:
    """The body text size for a picture this wide: 13..16 px."""
    return max(13, min(16, width // 60))


def header_height(frame: Frame, size: int) -> int:
    return 10 + (size + 6) + len(frame.lines) * (size + 5) + 6


def legend_height(frame: Frame, size: int) -> int:
    return 8 + len(frame.rows) * (size * 2 + 10) + len(frame.notes) * (size + 5) + 8


def draw_header(canvas: Canvas, frame: Frame, size: int, board_bottom: int | None = None, ground=None) -> int:
    """Title and status lines at the top, then the board's ground down to board_bottom; returns the y below them."""
    y = 10
    canvas.text(10, y, frame.title, size + 2, fill=INK, anchor="la")
    y += size + 6
    for line in frame.lines:
        canvas.text(10, y, line, size, fill=INK, anchor="la")
        y += size + 5
    canvas.line([(0, y + 2), (canvas.width, y + 2)], fill=MUTED, width=1)
    if ground is not None:
        canvas.rect((0, y + 6, canvas.width, board_bottom), fill=ground)
    return y + 6


def draw_legend(canvas: Canvas, frame: Frame, top: int, size: int) -> None:
    """Players (mark, letter, name, score and what is left) and notes at the bottom."""
    canvas.line([(0, top), (canvas.width, top)], fill=MUTED, width=1)
    y = top + 8
    r = size * 0.75
    for row in frame.rows:
        cy = y + size
        if row.to_move:
            canvas.text(6, cy, ">", size + 2, fill=PENDING, anchor="lm")
        canvas.mark(22 + r, cy, r, row.colour, row.shape, row.letter)
        x = 22 + 2 * r + 12
        name = row.name + ("  " + frame.to_move_words if row.to_move else "")
        canvas.text(x, y + 2, name, size, fill=INK, anchor="la")
        canvas.text(x, y + size + 5, row.details, size - 1, fill=MUTED, anchor="la")
        y += size * 2 + 10
    for note in frame.notes:
        canvas.text(10, y, note, size - 1, fill=MUTED, anchor="la")
        y += size + 5


def frame_width(frame: Frame, size: int) -> int:
    """The width the header and legend text need."""
    widths = [text_length(frame.title, size + 2) + 20]
    widths += [text_length(line, size) + 20 for line in frame.lines]
    widths += [text_length(row.name + "  " + frame.to_move_words, size) + 2 * size + 50 for row in frame.rows]
    widths += [text_length(row.details, size - 1) + 2 * size + 50 for row in frame.rows]
    widths += [text_length(note, size - 1) + 20 for note in frame.notes]
    return int(max(widths))


def fit_lines(words: list[str], size: int, width: int) -> list[str]:
    """Join short items into lines no wider than `width` pixels (for long lists of coordinates)."""
    lines, current = [], ""
    for w in words:
        candidate = w if not current else current + ", " + w
        if current and text_length(candidate, size) > width:
            lines.append(current + ",")
            current = w
        else:
            current = candidate
    if current:
        lines.append(current)
    return lines


def to_png(image: Image.Image, compress_level: int = PNG_COMPRESS_LEVEL) -> bytes:
    """PNG bytes of a finished picture (no timestamps or text chunks: the same image gives the same bytes)."""
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=compress_level)
    return out.getvalue()


@dataclass
class Region:
    """A clickable area in picture pixels."""

    shape: str
    coords: list
    target: str

    def to_json(self) -> dict:
        return {"shape": self.shape, "coords": [int(round(c)) for c in self.coords], "target": self.target}


def poly_region(points, target: str) -> Region:
    return Region("poly", [c for p in points for c in p], target)


def circle_region(cx, cy, r, target: str) -> Region:
    return Region("circle", [cx, cy, r], target)


def rect_region(box, target: str) -> Region:
    return Region("rect", list(box), target)
