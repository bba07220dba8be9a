"""Since the reader's last decision, in words: each move, what chance brought, the engine's own moves, the points.

`since_text(moves, names=..., seat=...)` tells, in order, the moves that `pbem.games.events_since`
gives for one reader: each player's move as a sentence ("Bea (red) expanded on Samoa, beach 2"),
then, one by one, what came of it: the tiles drawn, the crossings and shipwrecks, the cards drawn
and the dice rolled, the decisions the engine made by itself for a player because only one was
possible, and who gained or lost points. A move comes as its notation, the automatic moves after
it, and the engine's views of the reader before the move, after it and after each automatic move;
what chance brought is read from the difference of two views. So the text cannot tell what the
reader may not see (the pile or deck order, another player's hidden tiles): it never sees more.

The words of a move are the text boards' own: each title's text module (the one its registry entry
names, `engine.entry(title).text_board`) has a `tell_since(move, reader)` that tells one move with
what came of it, so a move reads the same here as in the board's news; a title without one is told
in notation. It does not bound the lines to a mail: the caller gives the room. `story` gives the same
sentences move by move, for the game page's log (issue 36 item 6), which links each into the replay.
"""

from __future__ import annotations

import importlib
from typing import NamedTuple

from renderers.i18n import ENGLISH, Texts
import engine

from renderers.text.base import Mark, Reader, did, engine_chose, steps, wrap

SINCE_LINES = 60  # a mail's "Since your last turn" takes at most this many lines, its heading and note included


class Told(NamedTuple):
    """One move told: its number, who made it, the sentence of the move and, one by one, what came of it."""

    seq: int
    seat: int | None
    text: str
    details: list[str]


def story(moves: list[dict], *, names: list[str], seat: int | None, texts: Texts = ENGLISH) -> list[Told]:
    """The moves in words (oldest first), one `Told` a move, for a page that lays them out itself (the
    game page's log, issue 36 item 6) as `since_text` does for a mail; `moves` as `since_text` takes them."""
    return [told for told in (_tell(move, names, seat, texts) for move in moves) if told is not None]


def since_text(moves: list[dict], *, names: list[str], seat: int | None, texts: Texts = ENGLISH,
               room: int = SINCE_LINES) -> tuple[list[str], int]:
    """The moves in words (oldest first) within `room` lines, and how many earlier moves did not fit.

    `moves` are dicts with "seq", "seat", "notation", "autos" (dicts with "seat" and "notation"),
    "views" (the reader's view before the move, after it and after each automatic move) and
    "resigned" (the record is a seat resigning, no move). A move is told whole or not at all;
    when not all fit, the newest are kept.
    """
    told = [_lines(move, names, seat, texts) for move in moves]
    lines: list[str] = []
    left = 0
    for i in range(len(told) - 1, -1, -1):
        if len(lines) + len(told[i]) > room:
            left = i + 1
            break
        lines = told[i] + lines
    return lines, left


def _lines(move: dict, names: list[str], seat: int | None, texts: Texts) -> list[str]:
    """One move told as a mail's lines: "- 12. Bea (red) ..." and a deeper bullet for each thing that came of it."""
    told = _tell(move, names, seat, texts)
    if told is None:
        return []
    lines = wrap(f"{told.seq}. {told.text}", Mark.BULLET)
    for sentence in told.details:
        lines += wrap(sentence, Mark.SUB)
    return lines


def _tell(move: dict, names: list[str], seat: int | None, texts: Texts) -> Told | None:
    views = move.get("views") or []
    if len(views) < 2:
        return None
    reader = Reader(names=list(names), colours=list(views[-1].get("colours") or []), seat=seat, texts=texts)
    if move.get("resigned"):
        said, what = [], texts.gettext("resigned")
    else:
        said, what = _teller(views[-1].get("game"))(move, reader)
    return Told(move["seq"], move["seat"], did(reader, move["seat"], what), said + _points(views[0], views[-1], reader))


def _points(before: dict, after: dict, reader: Reader) -> list[str]:
    """Who gained or lost points with the move, and how many each has now."""
    old, new = before.get("scores") or [], after.get("scores") or []
    if len(old) != len(new):
        return []
    changed = [p for p in range(len(new)) if new[p] != old[p]]
    if not changed:
        return []
    t = reader.texts
    each = [t.gettext("%(who)s %(score)s (%(change)s)", who=reader.who(p), score=new[p],
                      change=f"{new[p] - old[p]:+d}") for p in changed]
    return [t.gettext("Scores now: %(scores)s.", scores="; ".join(each))]


def _teller(title: str | None):
    """The title's own teller (`tell_since` of the text module its registry entry names), else the notation."""
    try:
        module = engine.entry(title).text_board if title else None
    except engine.UnknownGameError:
        module = None
    return getattr(importlib.import_module(module), "tell_since", _tell_plain) if module else _tell_plain


def _tell_plain(move: dict, reader: Reader) -> tuple[list[str], str]:
    """A title without its own teller: the moves in notation."""
    t = reader.texts
    said = [engine_chose(reader, seat, t.gettext("played %(move)s", move=notation))
            for seat, notation, _, _ in steps(move)[1:]]
    return said, t.gettext("played %(move)s", move=move["notation"])
