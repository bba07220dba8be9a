"""Carcassonne: The Discovery pictures: square tiles by terrain, port cities, followers, open squares.

Input is `engine.get("discovery").view(state, seat)` (schema in docs/games/discovery.md).
Each tile is split into four triangles, one per side, painted with that side's terrain;
lines separate segments that do not join inside the tile, and a lake is a disc in the
middle. Mountains carry small peaks and seas small waves, so terrain is not told by colour
alone. Every open square is labelled with its `x,y`; after a placement the segments of the
placed tile are labelled with the names `deploy` takes. In the double-tile variant the
picture shows the viewer's own hand (from the view) and only the sizes of other hands. A
move's preview that stopped before the next draw (`stopped_before`) says so in its header.
"""

from __future__ import annotations

import math
import re

import engine

from renderers.common import (
    HIGHLIGHT, INK, MUTED, PENDING, PLAYER_RGB, SHAPES, WHITE, Canvas, Frame, LegendRow, circle_region,
    draw_header, draw_legend, fit_lines, fit_unit, frame_words, player_names, rect_region, seat_colour_names,
    text_size,
)
from renderers.i18n import ENGLISH, Texts, colour_word

TERRAIN_RGB = {"grassland": (170, 212, 120), "mountain": (146, 120, 98), "sea": (92, 150, 210)}
TERRAIN_LETTER = {"G": "grassland", "M": "mountain", "S": "sea"}
BOARD = (236, 232, 220)
OPEN_FILL = (250, 250, 246)
TILE_EDGE = (70, 70, 70)
SEGMENT_LINE = (40, 40, 40)
CITY_WALL = (250, 245, 235)
CITY_ROOF = (150, 40, 40)
SEAT_COLOURS = engine.get("discovery").colours  # the default order; a view's "colours" names the game's own
SIDES = "NESW"
TITLE = "Carcassonne: The Discovery"  # a name: the same in every language
# Entries of the view the picture does not show (renderers.picture_key): whose view it is, the legal moves.
NOT_DRAWN = frozenset({"viewer", "legal_moves"})
UNIT = 92                      # tile side in pixels at full size
MIN_UNIT = 44
LABEL_UNIT = 40                # below this grid size (replay frames) coordinates are left out
BOARD_COLOURS = tuple(TERRAIN_RGB.values())


def colour_name(seat: int, view: dict | None = None) -> str:
    colours = seat_colour_names(view, SEAT_COLOURS)
    return colours[seat % len(colours)]


def seat_colour(seat: int, view: dict | None = None) -> tuple:
    return PLAYER_RGB[colour_name(seat, view)]


def seat_letter(seat: int, view: dict | None = None) -> str:
    return colour_name(seat, view)[0].upper()


def _triangles(x0: float, y0: float, s: float) -> dict[str, list[tuple[float, float]]]:
    """The four side triangles of a square: centre plus the two corners of that side."""
    c = (x0 + s / 2, y0 + s / 2)
    return {"N": [c, (x0, y0), (x0 + s, y0)], "E": [c, (x0 + s, y0), (x0 + s, y0 + s)],
            "S": [c, (x0 + s, y0 + s), (x0, y0 + s)], "W": [c, (x0, y0 + s), (x0, y0)]}


def _segment_point(x0: float, y0: float, s: float, name: str, label: bool = False) -> tuple[float, float]:
    """Where a segment's follower (or, with label, its name) goes: between the centre and its sides' midpoints."""
    sides = [p for p in name.split("+") if p in ("N", "E", "S", "W")]
    if not sides:
        return x0 + s / 2, y0 + s / 2
    off = {"N": (0, -1), "E": (1, 0), "S": (0, 1), "W": (-1, 0)}
    dx = sum(off[p][0] for p in sides) / len(sides)
    dy = sum(off[p][1] for p in sides) / len(sides)
    if len(sides) == 2 and dx == 0 and dy == 0:  # opposite sides (E+W): the follower on one, the name on the other
        dx, dy = off[sides[-1] if label else sides[0]]
        return x0 + s / 2 + dx * s * 0.25, y0 + s / 2 + dy * s * 0.25
    if label:
        px, py = _segment_point(x0, y0, s, name)
        return px, py + s * 0.12
    norm = math.hypot(dx, dy) or 1
    return x0 + s / 2 + dx / norm * s * 0.3, y0 + s / 2 + dy / norm * s * 0.3


class _Layout:
    """Where everything goes, shared by the picture and its clickable regions."""

    def __init__(self, view: dict, unit: float | None = None, text: int | None = None, texts: Texts = ENGLISH):
        self.view = view
        self.texts = texts
        squares = [(t["x"], t["y"]) for t in view["board"]] + [(o["x"], o["y"]) for o in view["open_squares"]]
        self.minx = min(x for x, _ in squares)
        self.maxy = max(y for _, y in squares)
        cols = max(x for x, _ in squares) - self.minx + 1
        rows = self.maxy - min(y for _, y in squares) + 1
        self.size = text or text_size(800)
        self.frame = _frame(view, self.size, texts)
        self.tiles_shown = _panel_tiles(view)

        def panel(unit):
            return (unit + self.size * 3 + 26) if self.tiles_shown else 0

        unit, _, bh, self.top, width, height = fit_unit(
            unit or UNIT, MIN_UNIT, self.frame, self.size, lambda u: (cols * u + 20, rows * u + 20), panel)
        self.panel_h = panel(unit)
        self.unit = unit
        self.width = int(max(width, len(self.tiles_shown) * (unit + 30) + 20))
        self.height = int(height)
        self.ox = (self.width - cols * unit) / 2
        self.oy = self.top + 10
        self.board_bottom = self.top + bh

    def corner(self, x: int, y: int) -> tuple[float, float]:
        """Top-left pixel of square (x, y) (y grows to the north, so upwards in the picture)."""
        return self.ox + (x - self.minx) * self.unit, self.oy + (self.maxy - y) * self.unit


def _panel_tiles(view: dict) -> list[tuple[str, dict]]:
    """Tiles shown under the board: the drawn tile, or the viewer's own hidden hand."""
    if view.get("hand"):
        return [(f"#{t['tile']}", t) for t in view["hand"]]
    if view.get("drawn") and view.get("phase") == "place":
        return [(f"#{view['drawn']['tile']}", view["drawn"])]
    return []


def _frame(view: dict, size: int, t: Texts = ENGLISH) -> Frame:
    n = view["players"]
    names = player_names(view, n, t)
    lines = []
    mover = view.get("to_move")
    phase = view.get("phase")
    if view.get("stopped_before"):  # a move's preview (issue 31): the turn ends, the draw is not shown
        lines.append(t.gettext("Preview: after this move the turn ends; the next tile is drawn only when the move "
                               "is played."))
    elif phase == "over" or mover is None or view.get("game_over"):  # over by the rules, or ended by the service
        lines.append(t.gettext("The game is over."))
        if view.get("result"):
            lines.append(t.gettext("Final scores: %(scores)s",
                                   scores=", ".join(f"{names[i]} {s}" for i, s in enumerate(view["scores"]))))
    else:
        who = {"name": names[mover], "colour": colour_word(t, colour_name(mover, view)),
               "letter": seat_letter(mover, view)}
        if phase == "place":
            lines.append(t.gettext("%(name)s (%(colour)s, %(letter)s) to move: place the tile: place X,Y R (R = 0, 90, "
                                   "180, 270 clockwise)", **who))
            fits = view.get("placements") or []
            if fits:
                words = [f"{'#' + str(p['tile']) + ' ' if view['options'].get('double') else ''}{p['x']},{p['y']} "
                         f"{'/'.join(str(r) for r in p['rotations'])}" for p in fits]
                lines += fit_lines([t.gettext("Fits at: %(square)s", square=words[0])] + words[1:], size, size * 55)
        else:
            lines.append(t.gettext("%(name)s (%(colour)s, %(letter)s) to move: deploy SEGMENT on the new tile, remove "
                                   "X,Y SEGMENT, or pass", **who))
    last = view.get("last_move")
    if last:
        points = f" (+{last['points']})" if last.get("points") else ""
        lines.append(t.gettext("Last move: %(name)s (%(letter)s) %(move)s", name=names[last["seat"]],
                               letter=seat_letter(last["seat"], view), move=last["move"]) + points)
    rows = []
    for seat in range(n):
        values = {"score": view["scores"][seat], "supply": view["supply"][seat]}
        if view.get("hand_sizes") is not None:
            details = t.gettext("score %(score)s, followers in supply %(supply)s, hidden tiles %(tiles)s",
                                tiles=view["hand_sizes"][seat], **values)
        else:
            details = t.gettext("score %(score)s, followers in supply %(supply)s", **values)
        rows.append(LegendRow(seat_colour(seat, view), SHAPES[seat % len(SHAPES)], seat_letter(seat, view),
                              f"{names[seat]} - {colour_word(t, colour_name(seat, view))} ({seat_letter(seat, view)})",
                              details,
                              mover == seat and phase != "over" and not view.get("game_over")))
    notes = [t.gettext("Tiles left to draw: %(tiles)s.  x grows east, y north; open squares show x,y.",
                       tiles=view["tiles_left"]),
             t.gettext("Terrain: light green grassland (explorer), brown with peaks mountain (brigand), "
                       "blue with waves sea (navigator); houses are port cities; +n: what removing a follower scores "
                       "now.")]
    if view.get("removed"):
        notes.append(t.gettext("Removed tiles: %(tiles)s", tiles=", ".join(f"#{r['tile']}" for r in view["removed"])))
    title = t.gettext("%(title)s (double tile)", title=TITLE) if view["options"].get("double") else TITLE
    if view.get("move_number") is not None and phase != "over" and mover is not None and not view.get("game_over"):
        # The game's move counter, as the mails and the page name it (issue 33, item 5).
        title = t.gettext("%(title)s - move %(move)s", title=title, move=view["move_number"])
    return Frame(title, lines, rows, notes, **frame_words(t))


def _draw_tile(c: Canvas, tile: dict, x0: float, y0: float, s: float) -> None:
    """One tile: side triangles by terrain, segment boundaries, lakes, cities."""
    tris = _triangles(x0, y0, s)
    sides = tile["sides"]
    owner = {}
    lakes = []
    for seg in tile["segments"]:
        parts = [p for p in seg["name"].split("+") if p in ("N", "E", "S", "W")]
        if not parts:
            lakes.append(seg)
        for p in parts:
            owner[p] = seg["name"]
    for i, side in enumerate(SIDES):
        terrain = TERRAIN_LETTER[sides[i]]
        c.polygon(tris[side], fill=TERRAIN_RGB[terrain])
    cx, cy = x0 + s / 2, y0 + s / 2
    corners = {"NE": (x0 + s, y0), "SE": (x0 + s, y0 + s), "SW": (x0, y0 + s), "NW": (x0, y0)}
    for a, b, corner in (("N", "E", "NE"), ("E", "S", "SE"), ("S", "W", "SW"), ("W", "N", "NW")):
        if owner.get(a) != owner.get(b):
            c.line([(cx, cy), corners[corner]], fill=SEGMENT_LINE, width=2)
    for i, side in enumerate(SIDES):
        terrain = TERRAIN_LETTER[sides[i]]
        px, py = _segment_point(x0, y0, s, side)
        px, py = (px + cx * 0.0), py
        tx, ty = (px * 2 + (x0 + s / 2 + {"N": 0, "E": s / 2, "S": 0, "W": -s / 2}[side])) / 3, \
                 (py * 2 + (y0 + s / 2 + {"N": -s / 2, "E": 0, "S": s / 2, "W": 0}[side])) / 3
        _texture(c, terrain, tx, ty, s)
    for n, lake in enumerate(lakes):
        r = s * 0.17
        c.circle(cx, cy, r, fill=TERRAIN_RGB[lake["terrain"]], outline=SEGMENT_LINE, width=2)
    for k, city in enumerate(tile["cities"]):
        _city(c, _city_point(x0, y0, s, city, owner, lakes, k), s)
    c.rect((x0, y0, x0 + s, y0 + s), outline=TILE_EDGE, width=1)


def _texture(c: Canvas, terrain: str, x: float, y: float, s: float) -> None:
    """A shape cue for terrain: peaks on mountains, a wave on seas."""
    k = s * 0.07
    if terrain == "mountain":
        c.line([(x - 2 * k, y + k), (x - k, y - k), (x, y + k), (x + k, y - k * 0.6), (x + 2 * k, y + k)],
               fill=(90, 70, 55), width=2)
    elif terrain == "sea":
        c.line([(x - 2 * k, y), (x - k, y - k * 0.7), (x, y), (x + k, y - k * 0.7), (x + 2 * k, y)],
               fill=(225, 238, 250), width=2)


def _city_point(x0, y0, s, city, owner, lakes, k):
    cx, cy = x0 + s / 2, y0 + s / 2
    land, sea = city["land"], city["sea"]
    if any(lk["name"] in (land, sea) for lk in lakes):
        other = sea if any(lk["name"] == land for lk in lakes) else land
        px, py = _segment_point(x0, y0, s, other)
        return (cx * 0.55 + px * 0.45, cy * 0.55 + py * 0.45)
    pairs = (("N", "E", (x0 + s, y0)), ("E", "S", (x0 + s, y0 + s)), ("S", "W", (x0, y0 + s)), ("W", "N", (x0, y0)))
    for a, b, corner in pairs:
        if {owner.get(a), owner.get(b)} == {land, sea}:
            return (cx * 0.45 + corner[0] * 0.55, cy * 0.45 + corner[1] * 0.55)
    lx, ly = _segment_point(x0, y0, s, land)
    sx, sy = _segment_point(x0, y0, s, sea)
    return ((lx + sx) / 2, (ly + sy) / 2 + k * s * 0.1)


def _city(c: Canvas, point, s) -> None:
    x, y = point
    w = s * 0.09
    c.rect((x - w, y - w * 0.4, x + w, y + w), fill=CITY_WALL, outline=INK)
    c.polygon([(x - w * 1.25, y - w * 0.4), (x, y - w * 1.4), (x + w * 1.25, y - w * 0.4)], fill=CITY_ROOF, outline=INK)


def paint(c: Canvas, lay: _Layout) -> None:
    """Draw a Discovery view onto a canvas at least as large as the layout."""
    view = lay.view
    s = lay.unit
    draw_header(c, lay.frame, lay.size, lay.board_bottom, BOARD)
    fits = {(p["x"], p["y"]) for p in (view.get("placements") or [])}
    for o in view["open_squares"]:
        x0, y0 = lay.corner(o["x"], o["y"])
        good = (o["x"], o["y"]) in fits
        c.rect((x0 + 3, y0 + 3, x0 + s - 3, y0 + s - 3), fill=OPEN_FILL, outline=PENDING if good else MUTED,
               width=3 if good else 1)
        if s >= LABEL_UNIT:  # replay frames are overviews: labels would cover the tiles
            c.text(x0 + s / 2, y0 + s / 2, f"{o['x']},{o['y']}", max(11, round(s * 0.2)), fill=INK)
        for i, side in enumerate(SIDES):  # which terrain each side must match
            if o["sides"][i] in TERRAIN_LETTER:
                bar = {"N": (x0 + s * 0.3, y0 + 4, x0 + s * 0.7, y0 + 9),
                       "S": (x0 + s * 0.3, y0 + s - 9, x0 + s * 0.7, y0 + s - 4),
                       "W": (x0 + 4, y0 + s * 0.3, x0 + 9, y0 + s * 0.7),
                       "E": (x0 + s - 9, y0 + s * 0.3, x0 + s - 4, y0 + s * 0.7)}[side]
                c.rect(bar, fill=TERRAIN_RGB[TERRAIN_LETTER[o["sides"][i]]])
    for tile in view["board"]:
        x0, y0 = lay.corner(tile["x"], tile["y"])
        _draw_tile(c, tile, x0, y0, s)
    last = view["board"][-1] if view.get("last_move") or view.get("placed") else None
    placed = view.get("placed")
    if placed:
        x0, y0 = lay.corner(placed["x"], placed["y"])
        c.rect((x0 - 2, y0 - 2, x0 + s + 2, y0 + s + 2), outline=PENDING, width=4)
        tile = next(t for t in view["board"] if (t["x"], t["y"]) == (placed["x"], placed["y"]))
        for seg in tile["segments"]:
            px, py = _segment_point(x0, y0, s, seg["name"], label=True)
            if s >= LABEL_UNIT:
                c.label(px, py, seg["name"], max(10, round(s * 0.13)), fill=WHITE, background=PENDING)
    elif last is not None:
        x0, y0 = lay.corner(last["x"], last["y"])
        c.rect((x0 - 2, y0 - 2, x0 + s + 2, y0 + s + 2), outline=HIGHLIGHT, width=4)
    r = s * 0.13
    for f in view["followers"]:
        x0, y0 = lay.corner(f["x"], f["y"])
        px, py = _segment_point(x0, y0, s, f["segment"])
        c.mark(px, py, r, seat_colour(f["seat"], view), SHAPES[f["seat"] % len(SHAPES)], seat_letter(f["seat"], view))
        if f.get("value") is not None and s >= LABEL_UNIT:  # what removing it would score now
            c.text(px + r * 1.3, py + r * 0.9, f"+{f['value']}", max(10, round(s * 0.14)), fill=INK, anchor="lm",
                   halo=WHITE)
    draw_legend(c, lay.frame, lay.board_bottom, lay.size)
    if lay.tiles_shown:
        y = lay.height - lay.panel_h + 6
        heading = lay.texts.gettext("Your hidden tiles (shown at rotation 0):") if view.get("hand") \
            else lay.texts.gettext("Tile to place (shown at rotation 0):")
        c.text(10, y, heading, lay.size, fill=INK, anchor="la")
        y += lay.size + 8
        for i, (caption, tile) in enumerate(lay.tiles_shown):
            x = 10 + i * (s + 30)
            c.text(x + s / 2, y, caption, lay.size, fill=INK, anchor="ma")
            _draw_tile(c, tile, x, y + lay.size + 6, s)


def regions(view: dict, unit: float | None = None, texts: Texts = ENGLISH) -> list[dict]:
    """Clickable areas: followers ('x,y SEG'), segments of the placed tile ('SEG'), hidden tiles in the hand
    ('#17'), open squares ('x,y'), tiles ('x,y'), where the picture in the language of `texts` draws them."""
    lay = _Layout(view, unit, texts=texts)
    s = lay.unit
    out = []
    for f in view["followers"]:
        x0, y0 = lay.corner(f["x"], f["y"])
        px, py = _segment_point(x0, y0, s, f["segment"])
        out.append(circle_region(px, py, s * 0.15, f"{f['x']},{f['y']} {f['segment']}").to_json())
    placed = view.get("placed")
    if placed:
        x0, y0 = lay.corner(placed["x"], placed["y"])
        tile = next(t for t in view["board"] if (t["x"], t["y"]) == (placed["x"], placed["y"]))
        for seg in tile["segments"]:
            px, py = _segment_point(x0, y0, s, seg["name"], label=True)
            out.append(circle_region(px, py, s * 0.12, seg["name"]).to_json())
    y = lay.height - lay.panel_h + 6 + lay.size + 8
    for i, (caption, tile) in enumerate(lay.tiles_shown):  # the hand (double tile): '#17' in `place #17 x,y r`
        x = 10 + i * (s + 30)
        out.append(rect_region((x, y, x + s, y + lay.size + 6 + s), caption).to_json())
    for o in view["open_squares"]:
        x0, y0 = lay.corner(o["x"], o["y"])
        out.append(rect_region((x0, y0, x0 + s, y0 + s), f"{o['x']},{o['y']}").to_json())
    for tile in view["board"]:
        x0, y0 = lay.corner(tile["x"], tile["y"])
        out.append(rect_region((x0, y0, x0 + s, y0 + s), f"{tile['x']},{tile['y']}").to_json())
    return out


def frame(view: dict, texts: Texts = ENGLISH) -> Frame:
    """The header and legend of the picture of a view (for a page that shows them beside the board)."""
    return _frame(view, text_size(800), texts)


_PLACE = re.compile(r"^place\s+(?:(#\d+)\s+)?(-?\d+,-?\d+)\b", re.IGNORECASE)


def move_targets(view: dict, move: str) -> list[str]:
    """The region targets a move names: `place [#T] X,Y R` the square (and the hand's tile), `deploy SEG`
    the segment of the tile just placed, `remove X,Y SEG` the follower; `pass` nothing."""
    words = move.split()
    verb = words[0].lower() if words else ""
    if verb == "place":
        found = _PLACE.match(move)
        if not found:
            return []
        return [found.group(2)] + ([found.group(1)] if found.group(1) else [])
    if verb == "deploy" and len(words) == 2:
        return [words[1]]
    if verb == "remove" and len(words) == 3:
        return [f"{words[1]} {words[2]}"]
    return []
