"""Tapaono pictures: the 151 fields by owner, stars, pieces, spawns, depots and the pending decision.

Input is `engine.get("tapaono").view(state, seat)` (schema in docs/games/tapaono.md).
Hexes are pointy-topped with r growing downwards, as in the engine's axial coordinates;
every field prints its `q,r`. A conquered field is tinted in its owner's colour and also
carries the owner's shape (circle for the first seat, square for the second), so owners
are told apart without colour. Pieces are the owner's shape with the piece number. The
first seat's spawn is drawn above the board, the second seat's below it. Everything in
Tapaono is open but the deck order, which the view does not carry. A move's preview that
stopped before a card or a roll (`stopped_before`) says so in its header.
"""

from __future__ import annotations

import math
import re

import engine
from renderers.common import (
    HIGHLIGHT, INK, MUTED, PENDING, PLAYER_RGB, SHAPES, Canvas, Frame, LegendRow, draw_header, draw_legend,
    circle_region, fit_unit, frame_words, hex_corners, player_names, pointy_hex_center, poly_region,
    seat_colour_names, shape_word, text_size,
)
from renderers.i18n import ENGLISH, N_, Texts, colour_word, join
from renderers.text.tapaono import conquest_choices, mode_word, move_duty, movers

SEAT_COLOURS = engine.get("tapaono").colours  # the default order; a view's "colours" names the game's own
TINT = {"red": (250, 208, 208), "blue": (204, 220, 250)}   # a field conquered by a player of that colour
SEAT_TINT = tuple(TINT[c] for c in SEAT_COLOURS)
FREE = (241, 236, 222)
STAR_FILL = (250, 204, 21)
STAR_EDGE = (120, 80, 0)
FIELD_EDGE = (150, 140, 120)
BOARD = (225, 218, 200)
SPAWN_FILL = (255, 255, 255)
# Entries of the view the picture does not show (renderers.picture_key): whose view it is, the legal moves.
NOT_DRAWN = frozenset({"viewer", "legal_moves"})
UNIT = 34                      # hex circumradius in pixels at full size
MIN_UNIT = 16
SPAWN_HEIGHT = 1.6             # a spawn box's height, in grid units
LABEL_UNIT = 22                # below this grid size (replay frames) coordinates are left out
BOARD_COLOURS = (FREE,) + SEAT_TINT


def colour_name(seat: int, view: dict | None = None) -> str:
    return seat_colour_names(view, SEAT_COLOURS)[seat]


def seat_colour(seat: int, view: dict | None = None) -> tuple:
    return PLAYER_RGB[colour_name(seat, view)]


def seat_letter(seat: int, view: dict | None = None) -> str:
    return colour_name(seat, view)[0].upper()


def seat_tint(seat: int, view: dict | None = None) -> tuple:
    return TINT[colour_name(seat, view)]


def _fields_in(text: str) -> set[tuple[int, int]]:
    out = set()
    for word in text.replace("(", " ").replace(")", " ").split():
        parts = word.split(",")
        if len(parts) == 2:
            try:
                out.add((int(parts[0]), int(parts[1])))
            except ValueError:
                pass
    return out


def _fields(view: dict) -> list[dict]:
    """The fields as {q, r, star, owner, piece}, from the view's compact [q, r, owner] rows (or dicts)."""
    stars = {(s["q"], s["r"]) for s in view["stars"]}
    pieces = {tuple(p["field"]): {"seat": seat, "piece": p["piece"]}
              for seat, mine in enumerate(view["pieces"]) for p in mine if p["field"] is not None}
    out = []
    for f in view["fields"]:
        q, r, owner = (f["q"], f["r"], f["owner"]) if isinstance(f, dict) else f[:3]
        out.append({"q": q, "r": r, "star": (q, r) in stars, "owner": owner, "piece": pieces.get((q, r))})
    return out


class _Layout:
    """Where everything goes, shared by the picture and its clickable regions."""

    def __init__(self, view: dict, unit: float | None = None, text: int | None = None, texts: Texts = ENGLISH):
        self.view = view
        self.texts = texts
        self.fields = _fields(view)
        self.size = text or text_size(800)
        self.frame = _frame(view, self.size, texts)
        cells = [(f["q"], f["r"]) for f in self.fields]

        def board(unit):
            xs, ys = zip(*(pointy_hex_center(q, r, unit) for q, r in cells))
            return max(xs) - min(xs) + 2 * unit + 20, max(ys) - min(ys) + 2 * unit + 2 * unit * SPAWN_HEIGHT + 30

        unit, _, bh, self.top, width, height = fit_unit(unit or UNIT, MIN_UNIT, self.frame, self.size, board)
        xs, ys = zip(*(pointy_hex_center(q, r, unit) for q, r in cells))
        self.spawn_h = unit * SPAWN_HEIGHT
        self.unit = unit
        self.width = int(width)
        self.height = int(height)
        self.ox = self.width / 2 - (max(xs) + min(xs)) / 2
        self.oy = self.top + self.spawn_h + 15 + unit - min(ys)
        self.board_bottom = self.top + bh

    def center(self, q: int, r: int) -> tuple[float, float]:
        x, y = pointy_hex_center(q, r, self.unit)
        return x + self.ox, y + self.oy

    def spawn_box(self, seat: int) -> tuple[float, float, float, float]:
        entries = self.view["spawns"][seat]["entries"]
        xs = [self.center(q, r)[0] for q, r in entries]
        ys = [self.center(q, r)[1] for q, r in entries]
        gap = self.unit * 1.05
        w = max(xs) - min(xs) + 2 * self.unit
        left = (max(xs) + min(xs)) / 2 - w / 2
        if min(ys) < self.oy:  # above the board
            return left, min(ys) - gap - self.spawn_h, left + w, min(ys) - gap
        return left, max(ys) + gap, left + w, max(ys) + gap + self.spawn_h


def _decision(view: dict, names: list[str], t: Texts) -> list[str]:
    pending = view.get("pending")
    stopped = view.get("stopped_before")
    if stopped and stopped["chance"] == "roll" and stopped.get("piece"):  # a move's preview (issue 31)
        return [t.gettext("Preview: the die for piece %(piece)s is rolled only when the move is played.",
                          piece=stopped["piece"])]
    if stopped and stopped["chance"] == "roll":
        return [t.gettext("Preview: the die is rolled only when the move is played.")]
    if stopped:
        return [t.gettext("Preview: a command card is drawn only when the move is played.")]
    if not pending or view.get("game_over"):  # over by the rules, or ended by the service (a resignation)
        return [t.gettext("The game is over.")]
    seat = pending["seat"]
    d = pending["decision"]
    if d == "move":
        what = t.gettext("%(duty)s: move PIECE q,r", duty=move_duty(t, view))
    elif d == "conquest":
        what = _conquest(view, t)
    elif d == "continue":
        what = t.gettext("piece %(piece)s may go on (%(steps)s steps left): move or stop", piece=pending.get("piece"),
                         steps=pending.get("steps_left"))
    elif d == "keep-or-use":
        what = t.gettext("drawn card %(card)s: keep or use", card=pending.get("card"))
    elif d == "raid":
        what = t.gettext("Raid: remove %(remaining)s opponent markers (remove q,r)", remaining=pending.get("remaining"))
    elif d == "loss":
        what = t.gettext("Loss: remove %(remaining)s of your markers (remove q,r)", remaining=pending.get("remaining"))
    elif d == "take":
        what = t.gettext("rolled %(roll)s for piece %(piece)s: take fields (take q,r ...)", roll=pending.get("roll"),
                         piece=pending.get("piece"))
    elif d == "answer":
        what = t.gettext("answer the proposal to play %(mode)s: accept or decline",
                         mode=mode_word(t, (pending.get("proposal") or {}).get("mode", "")))
    elif d in DECISIONS:
        what = t.gettext(DECISIONS[d])
    else:
        what = d.replace("-", " ")
    return [t.gettext("%(name)s (%(colour)s, %(letter)s) to move: %(what)s", name=names[seat],
                      colour=colour_word(t, colour_name(seat, view)), letter=seat_letter(seat, view), what=what)]


DECISIONS = {  # the decisions whose words need nothing from the view
    "landing": N_("Landing: land PIECE q,r on a free star"),
    "star-jump": N_("Star jump: jump PIECE q,r"),
    "recall": N_("Recall: recall PIECE"),
    "commands": N_("play commands (play CARD ...), or end"),
    "dice": N_("roll PIECE for a piece on the board, or end"),
}


def _conquest(view: dict, t: Texts) -> str:
    """Phase 4 in the picture: only the cards the player can play, and a proposal only if one may be made."""
    cards, propose = conquest_choices(view)
    cards = join(t, cards, "or")
    if cards and propose:
        return t.gettext("play %(cards)s, propose MODE, or end", cards=cards)
    if cards:
        return t.gettext("play %(cards)s, or end", cards=cards)
    if propose:
        return t.gettext("propose MODE, or end")
    return t.gettext("end the round: end")


def _last_roll(roll: dict, names: list[str], t: Texts) -> str:
    values = {"name": names[roll["seat"]], "value": roll["value"], "piece": roll.get("piece"), "card": roll.get("card")}
    if roll.get("piece") and roll.get("card"):
        return t.gettext("Last roll: %(name)s rolled %(value)s for piece %(piece)s (%(card)s)", **values)
    if roll.get("piece"):
        return t.gettext("Last roll: %(name)s rolled %(value)s for piece %(piece)s", **values)
    if roll.get("card"):
        return t.gettext("Last roll: %(name)s rolled %(value)s (%(card)s)", **values)
    return t.gettext("Last roll: %(name)s rolled %(value)s", **values)


def _frame(view: dict, size: int, t: Texts = ENGLISH) -> Frame:
    names = player_names(view, 2, t)
    lines = _decision(view, names, t)
    lr = view.get("last_roll")
    last = view.get("last_move")
    if last:
        lines.append(t.gettext("Last move: %(name)s (%(letter)s) %(move)s", name=names[last["seat"]],
                               letter=seat_letter(last["seat"], view), move=last["move"]))
    if lr:
        lines.append(_last_roll(lr, names, t))
    if view.get("drawn"):
        lines.append(t.gettext("Drawn card: %(card)s (%(name)s)", card=view["drawn"]["card"],
                               name=names[view["drawn"]["seat"]]))
    if view.get("result"):
        lines.append(t.gettext("Final: %(scores)s",
                               scores=", ".join(f"{names[i]} {s}" for i, s in enumerate(view["scores"]))))
    rows = []
    mover = view.get("to_move")
    for seat in (0, 1):
        depot = ", ".join(view["depots"][seat]) or t.gettext("empty")
        spawn = ", ".join(map(str, view["spawns"][seat]["pieces"])) or t.gettext("none")
        rows.append(LegendRow(seat_colour(seat, view), SHAPES[seat], seat_letter(seat, view),
                              f"{names[seat]} - {colour_word(t, colour_name(seat, view))} ({seat_letter(seat, view)}, "
                              f"{shape_word(t, SHAPES[seat])})",
                              t.gettext("score %(score)s, markers left %(left)s, on board %(on_board)s, stars "
                                        "surrounded %(surrounded)s, spawn: %(spawn)s, depot: %(depot)s",
                                        score=view["scores"][seat], left=view["markers_left"][seat],
                                        on_board=view["markers_on_board"][seat],
                                        surrounded=view["stars_surrounded"][seat], spawn=spawn, depot=depot),
                              mover == seat and not view.get("game_over")))
    goal = t.gettext("goal: surround %(stars)s stars", stars=view["goal"]) if view.get("goal") \
        else t.gettext("no star goal")
    notes = [t.gettext("Mode %(mode)s (%(goal)s); deck %(deck)s cards; commands played %(played)s/%(per_round)s; "
                       "rounds %(first)s/%(second)s.", mode=mode_word(t, view["mode"]), goal=goal,
                       deck=view["deck_size"],
                       played=view["commands_played"], per_round=view["commands_per_round"],
                       first=view["rounds"][0], second=view["rounds"][1]),
             t.gettext("Fields show q,r. Stars are yellow; a star whose ring one player holds wears that player's "
                       "mark.")]
    if view.get("proposal"):
        notes.append(t.gettext("Proposal: %(name)s proposes mode %(mode)s.", name=names[view["proposal"]["by"]],
                               mode=mode_word(t, view["proposal"]["mode"])))
    over = view.get("game_over") or (view.get("pending") is None and not view.get("stopped_before"))
    # The round as the text board counts it (both players' rounds), and the game's move counter of the mails and
    # the page when the service gives it (issue 33, item 5).
    if over:
        title = t.gettext("Tapaono  (game over)")
    elif view.get("move_number") is not None:
        title = t.gettext("Tapaono - move %(move)s, round %(round)s", move=view["move_number"],
                          round=sum(view["rounds"]))
    else:
        title = t.gettext("Tapaono - round %(round)s", round=sum(view["rounds"]))
    return Frame(title, lines, rows, notes, **frame_words(t))


def _star(c: Canvas, x: float, y: float, r: float, fill, outline) -> None:
    pts = []
    for i in range(10):
        rad = r if i % 2 == 0 else r * 0.45
        a = math.radians(-90 + 36 * i)
        pts.append((x + rad * math.cos(a), y + rad * math.sin(a)))
    c.polygon(pts, fill=fill, outline=outline)


def paint(c: Canvas, lay: _Layout) -> None:
    """Draw a Tapaono view onto a canvas at least as large as the layout."""
    view = lay.view
    u = lay.unit
    draw_header(c, lay.frame, lay.size, lay.board_bottom, BOARD)
    pending = view.get("pending") or {}
    take = {tuple(f) for f in pending.get("fields", [])}
    last = _fields_in((view.get("last_move") or {}).get("move", ""))
    label_size = max(8, round(u * 0.32))
    mark_r = u * 0.16
    for f in lay.fields:
        cx, cy = lay.center(f["q"], f["r"])
        owner = f["owner"]
        fill = FREE if owner is None else seat_tint(owner, view)
        c.polygon(hex_corners(cx, cy, u, flat=False), fill=fill, outline=FIELD_EDGE)
        if f["star"]:
            _star(c, cx, cy + u * 0.2, u * 0.45, STAR_FILL, STAR_EDGE)
        elif owner is not None and not f["piece"]:
            c.mark(cx, cy + u * 0.3, mark_r, seat_colour(owner, view), SHAPES[owner])
    for s in view["stars"]:
        if s.get("surrounded_by") is not None:
            cx, cy = lay.center(s["q"], s["r"])
            o = s["surrounded_by"]
            c.mark(cx, cy + u * 0.2, u * 0.2, seat_colour(o, view), SHAPES[o], seat_letter(o, view))
        if not s.get("counts", True):
            cx, cy = lay.center(s["q"], s["r"])
            c.line([(cx - u * 0.5, cy + u * 0.5), (cx + u * 0.5, cy - u * 0.3)], fill=MUTED, width=2)
    for f in lay.fields:
        cx, cy = lay.center(f["q"], f["r"])
        key = (f["q"], f["r"])
        if key in take:
            c.polygon(hex_corners(cx, cy, u - 2, flat=False), outline=PENDING, width=3)
        elif key in last:
            c.polygon(hex_corners(cx, cy, u - 2, flat=False), outline=HIGHLIGHT, width=3)
        if u >= LABEL_UNIT:  # replay frames are overviews: labels would cover the fields
            c.text(cx, cy - u * 0.5, f"{f['q']},{f['r']}", label_size, fill=INK)
    if pending.get("decision") in ("continue", "take"):
        active = {pending.get("piece")}
    else:
        on_board, in_spawn, _ = movers(view)  # the pieces that can make their move, not those that cannot
        active = set(on_board + in_spawn)
    for seat in (0, 1):
        for p in view["pieces"][seat]:
            if p["field"] is None:
                continue
            cx, cy = lay.center(*p["field"])
            if seat == pending.get("seat") and p["piece"] in active:
                c.circle(cx, cy + u * 0.12, u * 0.62, outline=PENDING, width=3)
            c.mark(cx, cy + u * 0.12, u * 0.4, seat_colour(seat, view), SHAPES[seat], str(p["piece"]))
    for seat in (0, 1):
        box = lay.spawn_box(seat)
        c.rect(box, fill=SPAWN_FILL, outline=seat_colour(seat, view), width=2, radius=6)
        names = player_names(view, 2, lay.texts)
        c.text(box[0] + 6, box[1] + 4, lay.texts.gettext("%(name)s spawn", name=names[seat]), max(9, round(u * 0.33)),
               fill=INK, anchor="la")
        pieces = view["spawns"][seat]["pieces"]
        for i, n in enumerate(pieces):
            x = box[0] + u * (0.8 + 1.1 * i)
            y = box[3] - u * 0.55
            if seat == pending.get("seat") and n in active:
                c.circle(x, y, u * 0.55, outline=PENDING, width=3)
            c.mark(x, y, u * 0.38, seat_colour(seat, view), SHAPES[seat], str(n))
    draw_legend(c, lay.frame, lay.board_bottom, lay.size)


def regions(view: dict, unit: float | None = None, texts: Texts = ENGLISH) -> list[dict]:
    """Clickable areas: the pieces of the player to move ('piece 2', on the board or in the spawn) first,
    then every field, target 'q,r' as moves write it, where the picture in the language of `texts` draws them."""
    lay = _Layout(view, unit, texts=texts)
    u = lay.unit
    out = []
    seat = (view.get("pending") or {}).get("seat")
    if seat is not None:
        for p in view["pieces"][seat]:
            if p["field"] is not None:
                cx, cy = lay.center(*p["field"])
                out.append(circle_region(cx, cy + u * 0.12, u * 0.45, f"piece {p['piece']}").to_json())
        box = lay.spawn_box(seat)
        for i, n in enumerate(view["spawns"][seat]["pieces"]):
            out.append(circle_region(box[0] + u * (0.8 + 1.1 * i), box[3] - u * 0.55, u * 0.45,
                                     f"piece {n}").to_json())
    for f in lay.fields:
        cx, cy = lay.center(f["q"], f["r"])
        out.append(poly_region(hex_corners(cx, cy, lay.unit, flat=False), f"{f['q']},{f['r']}").to_json())
    return out


def frame(view: dict, texts: Texts = ENGLISH) -> Frame:
    """The header and legend of the picture of a view (for a page that shows them beside the board)."""
    return _frame(view, text_size(800), texts)


_FIELD = re.compile(r"(-?\d+),(-?\d+)")
# Words after which a number names one of the mover's pieces: move 2 ..., roll 1, play transport 3.
_PIECE = re.compile(r"^(?:move|roll|land|jump|recall|play transport)\s+([123])\b", re.IGNORECASE)


def move_targets(view: dict, move: str) -> list[str]:
    """The region targets a move names: the piece it moves or rolls ('piece 2') and every field ('q,r').

    `move 2 -1,4` names piece 2 and the field -1,4; `take -1,2 0,2` two fields; `end`,
    `keep`, `accept` and the like name nothing.
    """
    found = _PIECE.match(move.strip())
    out = [f"piece {found.group(1)}"] if found else []
    return out + [f"{q},{r}" for q, r in _FIELD.findall(move)]
