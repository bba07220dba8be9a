"""What the game page shows around the board picture: where a click leads, the move buttons, the players.

- `clickable(title, view, legal_moves)`: the picture's regions (`renderers.regions`, the same
  geometry as the picture drawn from the same view) that some legal move names, each with
  the indices of the moves that name it (`renderers.targets`). A click on a region keeps
  the moves that name every region clicked so far; the page offers just those.
- `Board.title`, `.lines`, `.notes`: what the picture writes above and below the board (its caption
  and legend, `renderers.legend`), for the page to show as text under it: at a phone's scale the
  picture's own letters are 4 to 8 px high (issue 36, item 4). How the regions stay big enough to
  tap is the page script's part (`static/board.js`): it knows the scale the picture is shown at.
- `group_moves(legal_moves, targets)`: the legal moves as groups of buttons, by their first
  word, then (in a long group) by the first place they name.
- `players(...)`: one row per seat for the page: name, colour, the picture's mark (shape and
  letter), score and supplies in the picture's own words (`renderers.legend`), whose turn.

Everything here is drawn from the view of the viewer the page is for, in the page's language
(`texts`, the messages the picture is drawn with: its header's height follows its words, so
the regions do too); nothing is guessed about positions (no coordinates are made up here).
It does not read the database.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field
from functools import lru_cache

from flask_babel import gettext, lazy_gettext
from markupsafe import Markup, escape

import renderers

LOG = logging.getLogger(__name__)

SUBGROUP_OVER = 12  # a group of more moves than this is split by the place its moves name first
MARK_SHAPES = ("circle", "square", "triangle", "diamond", "hexagon", "pentagon")
# A mark's shape as the page names it beside the player.
SHAPE_NAMES = {"circle": lazy_gettext("circle"), "square": lazy_gettext("square"), "triangle": lazy_gettext("triangle"),
               "diamond": lazy_gettext("diamond"), "hexagon": lazy_gettext("hexagon"),
               "pentagon": lazy_gettext("pentagon")}


def has_pictures(title: str) -> bool:
    """Whether the title's registry entry names a module that draws its pictures."""
    return renderers.available(title)


@dataclass
class Region:
    """A clickable area of the picture and the legal moves (indices) that name its position."""

    shape: str
    coords: list[int]
    target: str
    moves: list[int]


@dataclass
class Board:
    """The clickable picture of one view for one viewer: its size, regions and each move's targets."""

    width: int
    height: int
    regions: list[Region] = field(default_factory=list)
    targets: list[list[str]] = field(default_factory=list)  # per legal move, the regions it names
    title: str = ""  # the picture's caption and legend, as text for the page (renderers.legend)
    lines: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def clickable(title: str, view: dict, legal_moves: list[str], texts=None) -> Board | None:
    """The picture's size and, for the player to move, the regions their legal moves name (None: no picture).

    `texts`: the messages of the language the picture is drawn in (English when not given)."""
    if not renderers.available(title):
        return None
    words = {} if texts is None else {"texts": texts}
    width, height = renderers.size(title, view, **words)
    board = Board(width, height)
    caption(board, title, view, words)
    if not legal_moves:
        return board
    try:
        found = renderers.regions(title, view, **words)
        board.targets = [renderers.targets(title, view, move) for move in legal_moves]
    except Exception:  # noqa: BLE001 - without regions the move buttons still work
        LOG.exception("the regions of a %s picture failed", title)
        return board
    naming: dict[str, list[int]] = {}
    for index, targets in enumerate(board.targets):
        for target in targets:
            naming.setdefault(target, []).append(index)
    seen = set()
    for region in found:
        target = region["target"]
        if target in naming and (target, tuple(region["coords"])) not in seen:
            seen.add((target, tuple(region["coords"])))
            board.regions.append(Region(region["shape"], [int(c) for c in region["coords"]], target, naming[target]))
    return board


def caption(board: Board, title: str, view: dict, words: dict) -> None:
    """Put the picture's title, status lines and notes on the board, as the picture writes them (in its language)."""
    try:
        legend = renderers.legend(title, view, **words)
    except Exception:  # noqa: BLE001 - the picture still says it, only not as text on the page
        LOG.exception("the legend of a %s picture failed", title)
        return
    board.title, board.lines, board.notes = legend["title"], list(legend["lines"]), list(legend["notes"])


@dataclass
class MoveGroup:
    """Buttons of one kind of move (its first word), split by place when there are many."""

    word: str
    count: int
    places: list[tuple[str, list[tuple[int, str]]]]  # (place or "", [(move index, button text)])


def group_moves(legal_moves: list[str], targets: list[list[str]] | None = None) -> list[MoveGroup]:
    """Legal moves grouped by their first word, in the engine's order; a long group split by its moves' first place.

    A button's text is the move without its first word (or the whole move when that is all
    there is); within a place, without the place too when the rest still says something.
    """
    by_word: dict[str, list[int]] = {}
    for index, text in enumerate(legal_moves):
        by_word.setdefault(text.split(" ", 1)[0], []).append(index)
    groups = []
    for word, indices in by_word.items():
        def label(i: int, place: str = "") -> str:
            rest = legal_moves[i][len(word):].strip()
            if place and place in rest:
                shorter = " ".join(rest.replace(place, "", 1).split())
                if shorter:
                    return shorter
            return rest or legal_moves[i]

        if len(indices) <= SUBGROUP_OVER or not targets:
            groups.append(MoveGroup(word, len(indices), [("", [(i, label(i)) for i in indices])]))
            continue
        places: dict[str, list[tuple[int, str]]] = {}
        for i in indices:
            place = targets[i][0] if targets[i] else ""
            places.setdefault(place, []).append((i, label(i, place)))
        groups.append(MoveGroup(word, len(indices), list(places.items())))
    return groups


@dataclass
class PlayerRow:
    seat: int
    name: str
    colour: str | None
    shape: str
    letter: str
    details: str = ""
    to_move: bool = False
    resigned: bool = False
    me: bool = False
    result: str = ""


def players(title: str, summary: dict, view: dict | None, texts=None) -> list[PlayerRow]:
    """One row per seat: the service's name and colour, the picture's mark, and what the picture says of them
    (in the language of `texts`, English when not given)."""
    legend = []
    if view is not None and renderers.available(title):
        try:
            legend = renderers.legend(title, view, **({} if texts is None else {"texts": texts}))["players"]
        except Exception:  # noqa: BLE001 - the names and colours are shown without the details
            LOG.exception("the legend of a %s picture failed", title)
    rows = []
    result = summary.get("result") or {}
    for seat in summary["seats"]:
        n = seat["seat"]
        line = legend[n] if n < len(legend) else {}
        colour = seat.get("colour") or line.get("colour")
        row = PlayerRow(n, seat["name"], colour, line.get("shape") or MARK_SHAPES[n % len(MARK_SHAPES)],
                        line.get("letter") or (colour or "?")[:1].upper(), line.get("details", ""),
                        summary["status"] == "running" and summary.get("to_move") == n, bool(seat.get("resigned")),
                        summary.get("my_seat") == n)
        if result.get("scores"):
            row.result = gettext("%(points)s points, place %(place)s", points=result["scores"][n],
                                 place=result["ranks"][n])
        rows.append(row)
    return rows


@lru_cache(maxsize=512)
def mark_svg(colour: str | None, shape: str, letter: str) -> Markup:
    """A player's mark as the pictures draw it (shape in the colour, letter inside), as inline SVG for a page."""
    r = 9.0
    if shape == "circle":
        body = f'<circle r="{r}"/>'
    elif shape == "square":
        k = r * 0.88
        body = f'<rect x="{-k:.1f}" y="{-k:.1f}" width="{2 * k:.1f}" height="{2 * k:.1f}"/>'
    else:
        sides, start = {"triangle": (3, -90), "diamond": (4, -90), "pentagon": (5, -90), "hexagon": (6, 0)}.get(
            shape, (6, 0))
        scale = 1.25 if shape == "triangle" else 1.1
        points = " ".join(f"{r * scale * math.cos(math.radians(start + 360 * i / sides)):.1f},"
                          f"{r * scale * math.sin(math.radians(start + 360 * i / sides)):.1f}" for i in range(sides))
        body = f'<polygon points="{points}"/>'
    dy = 3.5 if shape == "triangle" else 0
    cls = f"pc-{escape(colour)}" if colour else "pc-none"
    return Markup(f'<svg class="mark {cls}" viewBox="-13 -13 26 26" aria-hidden="true" focusable="false">'
                  f'<g class="shape">{body}</g><text y="{dy}" dy="0.35em">{escape(letter)}</text></svg>')
