"""Tongiaki pictures: the hex map of islands and water tiles, ships on beaches, jetties, risks.

Input is `engine.get("tongiaki").view(state, seat)` (schema in docs/games/tongiaki.md).
Hexes are flat-topped, north up, laid out by the view's axial (q, r). Every island shows
its name, value and numbered beaches with their places (empty or a ship's mark); every
jetty points out through its side; water tiles show their letter, foam tracks and risk
numbers. When the pending decision is a tile, each open position carries the side
label of the move `tile <tile> <side>`. Tongiaki hides nothing but the pile order, which
the view does not carry. A move's preview that stopped where a tile is drawn
(`stopped_before`) says in its header where, and which fleet waits for it.
"""

from __future__ import annotations

import math
import re

from renderers.common import (
    HIGHLIGHT, INK, MUTED, PENDING, PLAYER_RGB, SHAPES, WHITE, Canvas, Frame, LegendRow, circle_region,
    draw_header, draw_legend, fit_lines, fit_unit, flat_hex_center, frame_words, hex_corners, player_names,
    poly_region, text_length, text_size,
)
from renderers.i18n import ENGLISH, N_, Texts, colour_word

SEA = (206, 228, 244)          # open sea around the tiles
LAGOON = (176, 214, 238)       # the water of an island tile
WATER = (84, 140, 196)         # a water tile
FOAM = (255, 255, 255)
LAND = (120, 172, 96)
LAND_EDGE = (70, 110, 60)
SAND = (238, 218, 168)
JETTY = (120, 78, 40)
OPEN_FILL = (234, 242, 250)
TILE_EDGE = (60, 90, 120)

SIDES = ("N", "NE", "SE", "S", "SW", "NW")
SIDE_ANGLE = {s: -90 + 60 * i for i, s in enumerate(SIDES)}
# Entries of the view the picture does not show (renderers.picture_key): whose view it is, the legal moves.
NOT_DRAWN = frozenset({"viewer", "legal_moves"})
UNIT = 96                      # hex circumradius in pixels at full size
MIN_UNIT = 40
LABEL_UNIT = 40                # below this grid size (replay frames) small labels are left out
BOARD_COLOURS = (SEA, LAGOON, SAND, LAND)   # grounds a ship mark may be drawn over (the halo separates them)


def _colour(name: str) -> tuple:
    return PLAYER_RGB.get(name, INK)


def _letter(name: str) -> str:
    return name[:1].upper()


def _seat_of(view: dict, colour: str) -> int:
    colours = view.get("colours", [])
    return colours.index(colour) if colour in colours else 0


def _mean_angle(angles: list[float]) -> float:
    x = sum(math.cos(math.radians(a)) for a in angles)
    y = sum(math.sin(math.radians(a)) for a in angles)
    return math.degrees(math.atan2(y, x))


class _Layout:
    """Where everything goes, shared by the picture and its clickable regions."""

    def __init__(self, view: dict, unit: float | None = None, text: int | None = None, texts: Texts = ENGLISH):
        self.view = view
        self.texts = texts
        pending = {} if view.get("game_over") else view.get("pending") or {}  # an ended game offers no places
        self.open = pending.get("open", []) if pending.get("decision") == "tile" else []
        cells = [(t["q"], t["r"]) for t in view["tiles"]] + [(o["q"], o["r"]) for o in self.open]
        self.size = text or text_size(800)
        self.frame = _frame(view, self.open, self.size, texts)

        def board(unit):
            xs, ys = zip(*(flat_hex_center(q, r, unit) for q, r in cells))
            return max(xs) - min(xs) + 2 * unit + 20, max(ys) - min(ys) + math.sqrt(3) * unit + 20

        unit, _, bh, self.top, width, height = fit_unit(unit or UNIT, MIN_UNIT, self.frame, self.size, board)
        xs, ys = zip(*(flat_hex_center(q, r, unit) for q, r in cells))
        self.unit = unit
        self.width = int(width)
        self.height = int(height)
        self.ox = (self.width - (max(xs) - min(xs))) / 2 - min(xs)
        self.oy = self.top + unit * math.sqrt(3) / 2 + 10 - min(ys)
        self.board_bottom = self.top + bh
        self.token = max(6.0, unit * 0.115)

    def arc_radius(self, tile: dict) -> float:
        """How far from the centre the places sit: further out on crowded coasts (Tonga's 18 places)."""
        return self.unit * (0.68 if sum(b["places"] for b in tile["beaches"]) > 12 else 0.63)

    def tile_token(self, tile: dict) -> float:
        """The ship size on one island: smaller where many places share the coast (Tonga)."""
        places = sum(b["places"] for b in tile["beaches"]) + 0.7 * len(tile["beaches"])
        fit = math.pi * self.arc_radius(tile) / places - 1.5
        return max(5.0, min(self.token, fit))

    def center(self, q: int, r: int) -> tuple[float, float]:
        x, y = flat_hex_center(q, r, self.unit)
        return x + self.ox, y + self.oy

    def beach_slots(self, tile: dict) -> list[tuple[dict, float, list[tuple[float, float]], float]]:
        """Per beach: (beach, arc angle, place centres, label angle): the number sits at the middle of its beach."""
        cx, cy = self.center(tile["q"], tile["r"])
        radius = self.arc_radius(tile)
        token = self.tile_token(tile)
        step = math.degrees((2 * token + 3) / radius)
        out = []
        for beach in tile["beaches"]:
            angle = _mean_angle([SIDE_ANGLE[s] for s in beach["jetties"]]) if beach["jetties"] else 0
            first = angle - step * (beach["places"] - 1) / 2
            points = [(cx + radius * math.cos(math.radians(first + i * step)),
                       cy + radius * math.sin(math.radians(first + i * step))) for i in range(beach["places"])]
            out.append((beach, angle, points, angle))
        return out

    def label_size(self) -> int:
        """The size of a beach's number."""
        return max(10, round(self.unit * 0.17))

    def label_radius(self, tile: dict) -> float:
        """How far from the centre a beach's number sits: just inside the beach, touching its sand, between
        the beach's middle place and the island (the sand band is 2 * token + 6 wide around the places)."""
        tab = self.label_size() * 0.6
        return self.arc_radius(tile) - self.tile_token(tile) - 3 - tab + 3

    def land_radius(self, tile: dict) -> float:
        """The island's green: smaller than it was (0.42 of the grid) where the beaches' numbers need the room."""
        return max(self.unit * 0.28, min(self.unit * 0.42, self.label_radius(tile) - self.label_size() * 0.3))

    def beach_labels(self, tile: dict) -> list[tuple[int, float, float, float]]:
        """Every beach's number as drawn: (beach, x, y, radius of its sand tab), at the middle of the beach and
        just inside it, so that a number marks one beach only (issue 33 item 8). None below LABEL_UNIT."""
        if self.unit < LABEL_UNIT:  # replay frames are overviews: numbers would cover the ships
            return []
        cx, cy = self.center(tile["q"], tile["r"])
        rl = self.label_radius(tile)
        tab = self.label_size() * 0.6
        return [(beach["beach"], cx + rl * math.cos(math.radians(label)), cy + rl * math.sin(math.radians(label)), tab)
                for beach, _, _, label in self.beach_slots(tile)]


def _decision_text(view: dict, names: list[str], t: Texts) -> str:
    pending = view.get("pending")
    stopped = view.get("stopped_before")
    if stopped and stopped["ships"]:  # a move's preview (issue 31) stops where a tile is drawn
        return t.gettext("Preview: the fleet [%(fleet)s] sails to %(q)s,%(r)s, where a tile is drawn only when the "
                         "move is played.", fleet=" ".join(_letter(c) for c in stopped["ships"]), q=stopped["q"],
                         r=stopped["r"])
    if stopped:
        return t.gettext("Preview: a tile is drawn for %(q)s,%(r)s only when the move is played.", q=stopped["q"],
                         r=stopped["r"])
    if not pending or view.get("game_over"):  # over by the rules, or ended by the service (a resignation)
        return t.gettext("The game is over.")
    seat = _seat_of(view, pending["colour"])
    decision = pending["decision"]
    if decision == "setup":
        what = t.gettext("place a ship on a Tonga beach with fewer than 2 ships (round %(round)s)",
                         round=pending.get("round"))
    elif decision == "action":
        what = t.gettext("expand, become king or settle")
        if pending.get("no_ship_on_board"):
            what = t.gettext("no ship on the board: place on Tonga / another island, or settle")
        elif pending.get("all_ships_on_board"):
            what = t.gettext("all ships on the board: expand by moving one, become king or settle")
    elif decision == "emigrate":
        fulls = [t.gettext("%(island)s %(beach)s (jetties %(sides)s)", island=b["island"], beach=b["beach"],
                           sides=" ".join(b["jetties"])) for b in pending["full_beaches"]]
        what = t.gettext("emigrate a full beach: %(beaches)s", beaches="; ".join(fulls))
    elif decision == "land":
        what = t.gettext("land the fleet [%(fleet)s] on %(island)s, beaches %(beaches)s",
                         fleet=" ".join(_letter(c) for c in pending["fleet"]), island=pending["island"],
                         beaches=", ".join(map(str, pending["beaches"])))
    elif decision == "tile":
        purpose = pending.get("purpose", "")
        purpose = t.gettext(PURPOSES[purpose]) if purpose in PURPOSES else purpose.replace("_", " ")
        what = t.gettext("lay the next tile (%(purpose)s): tile <tile> <side>", purpose=purpose)
    elif decision == "place":
        what = t.gettext("place your ship on a beach of %(island)s", island=pending["island"])
    else:
        what = decision
    return t.gettext("%(name)s (%(colour)s, %(letter)s) to move: %(what)s", name=names[seat],
                     colour=colour_word(t, pending["colour"]),
                     letter=_letter(pending["colour"]), what=what)


PURPOSES = {"settlement": N_("settlement"), "infinite_chain": N_("infinite chain")}


def _frame(view: dict, open_positions: list, size: int, t: Texts = ENGLISH) -> Frame:
    colours = view["colours"]
    names = player_names(view, len(colours), t)
    lines = [_decision_text(view, names, t)]
    if open_positions:
        words = [f"{o['tile']} {o['side']}" for o in open_positions]
        lines += fit_lines(words, size, size * 55)
    last = view.get("last_move")
    if last:
        lines.append(t.gettext("Last move: %(name)s (%(letter)s) %(move)s", name=names[last["seat"]],
                               letter=_letter(last["colour"]), move=last["move"]))
    events = []
    for e in view.get("events", []):
        kind = e.get("event")
        if kind == "draw":
            events.append(t.gettext("drew %(tile)s", tile=e["tile"]))
        elif kind == "shipwreck":
            events.append(t.gettext("shipwreck on %(tile)s (risk %(risk)s)", tile=e["tile"], risk=e["risk"]))
        elif kind == "turned_back":
            events.append(t.gettext("turned back at %(island)s", island=e["king_island"]))
        elif kind == "at_sea":
            events.append(t.gettext("fleet stays at sea on %(tile)s", tile=e["tile"]))
        elif kind == "infinite_chain":
            events.append(t.gettext("infinite chain: %(tile)s removed", tile=e["tile"]))
    if events:
        lines += fit_lines(events, size, size * 55)
    result = view.get("result")
    if result:
        lines.append(t.gettext("Final scores: %(scores)s",
                               scores=", ".join(f"{names[i]} {s}" for i, s in enumerate(view["scores"]))))
    rows = []
    to_move = view.get("to_move")
    for seat in view["seats"]:
        p = seat["seat"]
        kings = ", ".join(seat["king_islands"]) or t.gettext("none")
        rows.append(LegendRow(_colour(seat["colour"]), SHAPES[p % len(SHAPES)], _letter(seat["colour"]),
                              f"{names[p]} - {colour_word(t, seat['colour'])} ({_letter(seat['colour'])})",
                              t.gettext("score %(score)s, islands %(islands)s, supply %(supply)s ships, on board "
                                        "%(on_board)s, king islands: %(kings)s", score=seat["score"],
                                        islands=seat["islands"], supply=seat["supply"], on_board=seat["ships_on_board"],
                                        kings=kings),
                              to_move == p and not view.get("game_over")))
    pile = view["pile"]
    notes = [t.gettext("Pile: %(size)s tiles left (%(islands)s islands, %(water)s water).  North is up; sides N NE SE "
                       "S SW NW.", size=pile["size"], islands=pile["islands"], water=pile["water"]),
             t.gettext("Beaches are numbered per island; a ship shows its colour's letter; K = king island.")]
    if view.get("at_sea"):
        notes.append(t.gettext("At sea on %(tile)s: %(ships)s", tile=view["at_sea"]["tile"],
                               ships=" ".join(_letter(c) for c in view["at_sea"]["ships"])))
    if view.get("removed"):
        notes.append(t.gettext("Left the game: %(islands)s", islands=", ".join(view["removed"])))
    over = view.get("game_over") or (view.get("pending") is None and not view.get("stopped_before"))
    # The turn counts the players' turns, as the text board does (the turn under way: the finished ones + 1); the
    # move is the game's move counter of the mails and the page, when the service gives it (issue 33, item 5).
    if over:
        title = t.gettext("Tongiaki - turn %(turn)s  (game over)", turn=view.get("turn", 0))
    elif view.get("move_number") is not None:
        title = t.gettext("Tongiaki - move %(move)s, turn %(turn)s", move=view["move_number"],
                          turn=view.get("turn", 0) + 1)
    else:
        title = t.gettext("Tongiaki - turn %(turn)s", turn=view.get("turn", 0) + 1)
    return Frame(title, lines, rows, notes, **frame_words(t))


def _highlighted(view: dict) -> set[str]:
    last = view.get("last_move")
    found = set()
    if last:
        text = " " + last["move"].lower() + " "
        for tile in view["tiles"]:
            if tile["kind"] == "island" and f" {tile['tile'].lower()} " in text:
                found.add(tile["tile"])
    for e in view.get("events", []):
        if e.get("event") == "draw":
            found.add(e["tile"])
    return found


def _bezier(a, c, b, n=10):
    return [((1 - t) ** 2 * a[0] + 2 * (1 - t) * t * c[0] + t * t * b[0],
             (1 - t) ** 2 * a[1] + 2 * (1 - t) * t * c[1] + t * t * b[1]) for t in (i / n for i in range(n + 1))]


def _edge_mid(cx, cy, unit, side):
    a = math.radians(SIDE_ANGLE[side])
    d = unit * math.sqrt(3) / 2
    return cx + d * math.cos(a), cy + d * math.sin(a)


def _draw_water(c: Canvas, lay: _Layout, tile: dict, cx: float, cy: float) -> None:
    u = lay.unit
    c.polygon(hex_corners(cx, cy, u), fill=WATER, outline=TILE_EDGE, width=2)
    badges = []
    for track in tile["tracks"]:
        a = _edge_mid(cx, cy, u, track["sides"][0])
        b = _edge_mid(cx, cy, u, track["sides"][1])
        pts = _bezier(a, (cx, cy), b)
        c.line(pts, fill=FOAM, width=max(3, round(u * 0.07)))
        if track["risk"]:
            badges.append((pts[3], track["risk"]))
    for (x, y), risk in badges:
        r = u * 0.13
        c.circle(x, y, r, fill=WHITE, outline=INK, width=2)
        c.text(x, y, str(risk), max(10, round(u * 0.17)), fill=INK)
    c.text(cx - u * 0.68, cy, tile["tile"], max(11, round(u * 0.2)), fill=WHITE, halo=INK)


def _draw_island(c: Canvas, lay: _Layout, tile: dict, cx: float, cy: float, pending: dict) -> None:
    u = lay.unit
    view = lay.view
    c.polygon(hex_corners(cx, cy, u), fill=LAGOON, outline=TILE_EDGE, width=2)
    slots = lay.beach_slots(tile)
    full = {(b["island"], b["beach"]) for b in pending.get("full_beaches", [])} if pending else set()
    landing = pending.get("island") == tile["tile"] and pending.get("decision") == "land" if pending else False
    for beach, angle, points, label_angle in slots:
        for side in beach["jetties"]:
            a = math.radians(SIDE_ANGLE[side])
            start = (cx + u * 0.5 * math.cos(a), cy + u * 0.5 * math.sin(a))
            end = _edge_mid(cx, cy, u, side)
            c.line([start, end], fill=JETTY, width=max(3, round(u * 0.06)))
    c.circle(cx, cy, lay.land_radius(tile), fill=LAND, outline=LAND_EDGE, width=2)
    t = lay.tile_token(tile)
    radius = lay.arc_radius(tile)
    for beach, angle, points, label_angle in slots:
        ring = PENDING if (tile["tile"], beach["beach"]) in full else None
        half = math.degrees((t + 2) / radius)
        a0 = math.degrees(math.atan2(points[0][1] - cy, points[0][0] - cx)) - half
        a1 = math.degrees(math.atan2(points[-1][1] - cy, points[-1][0] - cx)) + half
        if a1 < a0:
            a1 += 360
        box = (cx - radius - t - 3, cy - radius - t - 3, cx + radius + t + 3, cy + radius + t + 3)
        if ring:
            wide = (box[0] - 3, box[1] - 3, box[2] + 3, box[3] + 3)
            c.draw.arc(tuple(round(v) for v in wide), a0 - 3, a1 + 3, fill=c.ink(ring), width=round(2 * t + 12))
        c.draw.arc(tuple(round(v) for v in box), a0, a1, fill=c.ink(SAND), width=round(2 * t + 6))
        for i, (x, y) in enumerate(points):
            if i < len(beach["ships"]):
                colour = beach["ships"][i]
                c.mark(x, y, t, _colour(colour), SHAPES[_seat_of(view, colour) % len(SHAPES)], _letter(colour))
            else:
                c.circle(x, y, t * 0.75, fill=WHITE, outline=MUTED)
    full_numbers = {b for (island, b) in full if island == tile["tile"]}
    for number, lx, ly, tab in lay.beach_labels(tile):  # a sand tab on the beach's inner side, with its number
        target = landing and number in pending.get("beaches", [])
        edge = PENDING if target or number in full_numbers else LAND_EDGE
        c.circle(lx, ly, tab, fill=SAND, outline=edge, width=2 if edge is PENDING else 1)
        c.text(lx, ly, str(number), lay.label_size(), fill=PENDING if edge is PENDING else INK)
    name_size = max(11, round(u * 0.16))
    room = 2 * lay.land_radius(tile) * 0.95  # long names ("Mangareva") get smaller rather than cover the numbers
    while name_size > 9 and text_length(tile["tile"], name_size) > room:
        name_size -= 1
    c.text(cx, cy - u * 0.12, tile["tile"], name_size, fill=INK, halo=WHITE)
    if u >= LABEL_UNIT:
        c.text(cx, cy + u * 0.03, lay.texts.gettext("%(value)s pts", value=tile["value"]), max(9, round(u * 0.12)),
               fill=INK, halo=WHITE)
    if tile.get("king"):
        k = tile["king"]
        c.mark(cx, cy + u * 0.22, min(t * 1.2, u * 0.08), _colour(k), SHAPES[_seat_of(view, k) % len(SHAPES)], "K")


def paint(c: Canvas, lay: _Layout) -> None:
    """Draw a Tongiaki view onto a canvas at least as large as the layout."""
    view = lay.view
    draw_header(c, lay.frame, lay.size, lay.board_bottom, SEA)
    pending = view.get("pending") or {}
    marked = _highlighted(view)
    for o in lay.open:
        cx, cy = lay.center(o["q"], o["r"])
        c.polygon(hex_corners(cx, cy, lay.unit * 0.96), fill=OPEN_FILL, outline=MUTED, width=1)
    for tile in view["tiles"]:
        cx, cy = lay.center(tile["q"], tile["r"])
        if tile["kind"] == "water":
            _draw_water(c, lay, tile, cx, cy)
        else:
            _draw_island(c, lay, tile, cx, cy, pending)
    for tile in view["tiles"]:
        if tile["tile"] in marked:
            cx, cy = lay.center(tile["q"], tile["r"])
            c.polygon(hex_corners(cx, cy, lay.unit - 2), outline=HIGHLIGHT, width=max(3, round(lay.unit * 0.06)))
    if pending.get("decision") == "land":
        for tile in view["tiles"]:
            if tile["tile"] == pending.get("island"):
                cx, cy = lay.center(tile["q"], tile["r"])
                c.polygon(hex_corners(cx, cy, lay.unit - 6), outline=PENDING, width=3)
    full = {(b["island"], b["beach"]): b["jetties"] for b in pending.get("full_beaches", [])}
    for tile in view["tiles"]:  # after every tile, so that no neighbour covers a label
        for beach in tile.get("beaches", []):
            for side in full.get((tile["tile"], beach["beach"]), []):
                cx, cy = lay.center(tile["q"], tile["r"])
                x, y = _edge_mid(cx, cy, lay.unit, side)
                c.label(x, y, side, max(10, round(lay.unit * 0.14)), fill=WHITE, background=PENDING)
    for o, (x, y) in zip(lay.open, _open_badges(lay)):
        c.label(x, y, o["side"], max(10, round(lay.unit * 0.15)), fill=WHITE, background=PENDING)
    draw_legend(c, lay.frame, lay.board_bottom, lay.size)


def _open_badges(lay: _Layout) -> list[tuple[float, float]]:
    """Inside each open hex, next to the side it touches the tile named in `tile <tile> <side>`."""
    out = []
    for o in lay.open:
        cx, cy = lay.center(o["q"], o["r"])
        a = math.radians(SIDE_ANGLE[o["side"]] + 180)
        out.append((cx + lay.unit * 0.6 * math.cos(a), cy + lay.unit * 0.6 * math.sin(a)))
    return out


def regions(view: dict, unit: float | None = None, texts: Texts = ENGLISH) -> list[dict]:
    """Clickable areas: islands ('Tonga'), beaches ('Tonga 2'), jetties ('Tonga 2 N'), open positions ('A SE').

    The places are where the picture in the language of `texts` draws them (its header's height follows its words)."""
    lay = _Layout(view, unit, texts=texts)
    out = []
    for o, (x, y) in zip(lay.open, _open_badges(lay)):
        out.append(circle_region(x, y, lay.unit * 0.16, f"{o['tile']} {o['side']}").to_json())
    for tile in view["tiles"]:
        cx, cy = lay.center(tile["q"], tile["r"])
        if tile["kind"] != "island":
            out.append(poly_region(hex_corners(cx, cy, lay.unit), tile["tile"]).to_json())
            continue
        for beach, angle, points, _ in lay.beach_slots(tile):
            for side in beach["jetties"]:
                x, y = _edge_mid(cx, cy, lay.unit, side)
                out.append(circle_region(x, y, lay.unit * 0.12, f"{tile['tile']} {beach['beach']} {side}").to_json())
            for x, y in points:
                out.append(circle_region(x, y, lay.tile_token(tile) + 3, f"{tile['tile']} {beach['beach']}").to_json())
        out.append(circle_region(cx, cy, lay.unit * 0.4, tile["tile"]).to_json())
    return out


def frame(view: dict, texts: Texts = ENGLISH) -> Frame:
    """The header and legend of the picture of a view (for a page that shows them beside the board)."""
    return _Layout(view, texts=texts).frame


_SIDE_WORDS = "|".join(sorted(SIDES, key=len, reverse=True))


def move_targets(view: dict, move: str) -> list[str]:
    """The region targets a move names: beaches ('Samoa 3'), jetties ('Samoa 2 NE'), islands, open positions.

    `expand Samoa 1 3 from Tonga 2` names the beaches Samoa 1, Samoa 3 and Tonga 2;
    `emigrate Samoa 2 NE` the jetty and its beach; `king Fiji` the island; `tile C NE` the
    open position; `settle` nothing.
    """
    words = move.split()
    if not words:
        return []
    verb = words[0].lower()
    rest = move[len(words[0]):].strip()
    if verb == "tile":
        return [rest]
    if verb == "king":
        return [rest]
    names = sorted((t["tile"] for t in view["tiles"] if t["kind"] == "island"), key=len, reverse=True)
    if not names:
        return []
    pattern = re.compile(r"(" + "|".join(re.escape(n) for n in names) + r")((?:\s+\d+)+)(?:\s+(" + _SIDE_WORDS
                         + r")\b)?")
    out: list[str] = []
    for island, beaches, side in pattern.findall(rest):
        for beach in beaches.split():
            if verb == "emigrate" and side:
                out.append(f"{island} {beach} {side}")
            out.append(f"{island} {beach}")
    return out
