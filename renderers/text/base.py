"""What the three text boards share: naming players, wrapping lines, grouping recent moves, keeping to size.

A text board is read in a mail client, often on a phone and in a proportional font, so
every line is at most WIDTH characters and nothing relies on columns lining up: a text is
built from short sentences and "- " bullets whose continuation lines are indented by two
spaces. This module knows no game's rules.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import NamedTuple

WIDTH = 72          # characters a line: quoted in a reply ("> "), it still keeps within the 78 of RFC 5322
MAX_LINES = 40      # a text board longer than this is cut, with a word on where the rest is
MIN_BOARD_LINES = 12  # the board part keeps at least this many lines, whatever comes before it
RECENT_LINES = 13   # "Since your last turn" takes at most this many lines, its heading included
LISTED = 12         # a list of places shows at most this many before "and N more"
REST = "The whole board is in the picture and on the game page."


class Parts(NamedTuple):
    """A title's text in four parts, which board_text puts together within MAX_LINES."""

    head: list[str]                       # the game, the decision now (or the end)
    standing: list[str]                   # the leader, each player's score and supplies, the game's clock
    news: Callable[[int], list[str]]      # the moves since the reader's last turn, in at most n lines
    board: Callable[[int], list[str]]     # the reader's places or a summary of the board, in at most n lines


class Mark(Enum):
    """How a line starts: a plain sentence, a "- " bullet, or a deeper "  - " bullet."""

    TEXT = ""
    BULLET = "- "
    SUB = "  - "


def wrap(text: str, mark: Mark = Mark.TEXT) -> list[str]:
    """A sentence as lines of at most WIDTH characters; bullets continue two spaces in from their mark."""
    indent = " " * len(mark.value)
    return textwrap.wrap(text, WIDTH, initial_indent=mark.value, subsequent_indent=indent,
                         break_on_hyphens=False) or [mark.value.rstrip()]


def join(words: list[str], last: str = "and") -> str:
    """'a', 'a and b', 'a, b and c'."""
    words = [w for w in words if w]
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + f" {last} " + words[-1]


def some(words: list[str], limit: int = LISTED) -> str:
    """A list of at most `limit` words and, beyond it, 'and N more'."""
    if len(words) <= limit:
        return join(words)
    return ", ".join(words[:limit]) + f" and {len(words) - limit} more"


def plural(count: int, one: str, many: str | None = None) -> str:
    """'1 ship', '3 ships'."""
    return f"{count} {one if count == 1 else (many or one + 's')}"


@dataclass
class Reader:
    """Who reads the text and who plays: names and colours per seat, the reader's seat and moves."""

    names: list[str]
    colours: list[str]
    seat: int | None
    legal: list[str] = field(default_factory=list)
    recent: list[dict] = field(default_factory=list)

    def name(self, seat: int) -> str:
        """A player's display name; a seat without one is called after its colour."""
        if 0 <= seat < len(self.names) and str(self.names[seat]).strip():
            return " ".join(str(self.names[seat]).split())
        return f"the {self.colour(seat)} player"

    def colour(self, seat: int) -> str:
        return self.colours[seat] if 0 <= seat < len(self.colours) else "grey"

    def who(self, seat: int) -> str:
        """'Ann (blue)', the way every player is named in the text."""
        return f"{self.name(seat)} ({self.colour(seat)})"

    def subject(self, seat: int) -> str:
        """The player as the subject of a sentence: 'You' for the reader."""
        return "You" if seat == self.seat else self.who(seat)

    def whose(self, seat: int) -> str:
        """'yours' for the reader, else "Ann's"."""
        return "yours" if seat == self.seat else f"{self.name(seat)}'s"

    def seat_of_colour(self, colour: str) -> int | None:
        return self.colours.index(colour) if colour in self.colours else None

    def players(self) -> range:
        return range(len(self.colours))


def headline(reader: Reader, to_move: int | None, what: str) -> str:
    """'It is your turn: <what>.' or 'Ann (blue) is to move: <what>.'"""
    if to_move is None:
        return "The game is over."
    if to_move == reader.seat:
        return f"It is your turn: {what}."
    return f"{reader.who(to_move)} is to move: {what}."


def leader_line(reader: Reader, scores: list[int], unit: str = "point", over: bool = False,
                ranks: list[int] | None = None) -> str:
    """Who leads (or won) and with how much."""
    if over and ranks:
        first = [p for p in reader.players() if ranks[p] == 1]
    else:
        best = max(scores)
        first = [p for p in reader.players() if scores[p] == best]
    amount = plural(scores[first[0]], unit)
    if len(first) == len(scores) and len(first) > 1:
        return f"{'Everybody ended' if over else 'All players are'} level with {amount} each."
    names = join([f"you ({reader.name(p)}, {reader.colour(p)})" if p == reader.seat else reader.who(p)
                  for p in first])
    names = names[0].upper() + names[1:]
    if len(first) == 1:
        verb = ("win" if over else "lead") if first[0] == reader.seat else ("wins" if over else "leads")
        return f"{names} {verb} with {amount}."
    return f"{names} {'share first place' if over else 'share the lead'} with {amount} each."


def standing(reader: Reader, scores: list[int], details: dict[int, str], unit: str = "point",
             over: bool = False, ranks: list[int] | None = None) -> list[str]:
    """The leader, then one bullet per player (best first): score and what they still have."""
    lines = wrap(leader_line(reader, scores, unit, over, ranks))
    order = sorted(reader.players(), key=lambda p: (ranks[p] if over and ranks else -scores[p], p))
    for p in order:
        me = ", you" if p == reader.seat else ""
        rest = f"; {details[p]}" if details.get(p) else ""
        lines += wrap(f"{reader.who(p)}{me}: {plural(scores[p], unit)}{rest}.", Mark.BULLET)
    return lines


def recent_moves(reader: Reader, view_last: dict | None) -> list[dict]:
    """The moves to tell about: those the caller passed, or else the view's own last move."""
    if reader.recent:
        return [m for m in reader.recent if isinstance(m, dict) and m.get("notation")]
    if view_last and view_last.get("move") is not None and view_last.get("seat") is not None:
        return [{"seat": view_last["seat"], "notation": view_last["move"]}]
    return []


def runs(moves: list[dict]) -> list[tuple[int | None, list[str]]]:
    """Consecutive moves of one seat as (seat, [notation, ...])."""
    out: list[tuple[int | None, list[str]]] = []
    for move in moves:
        seat = move.get("seat")
        if out and out[-1][0] == seat:
            out[-1][1].append(str(move["notation"]))
        else:
            out.append((seat, [str(move["notation"])]))
    return out


def changes(reader: Reader, moves: list[dict], tell, room: int, after: str = "") -> list[str]:
    """'Since your last turn:' and one bullet per run of one player's moves, in at most `room` lines.

    `tell(seat, notations)` turns one player's run into a sentence; `after` is one more
    sentence (what the last move caused) told last. The newest runs are kept when not all
    fit, and the text says how many earlier moves it left out.
    """
    if not moves or room < 3:
        return []
    tail = wrap(after, Mark.BULLET) if after else []
    if len(tail) > (room - 1) // 2:
        tail = []  # the moves themselves come first
    blocks = []
    for seat, notations in runs(moves):
        who = reader.subject(seat) if isinstance(seat, int) else "Somebody"
        blocks.append((len(notations), wrap(f"{who} {tell(seat, notations)}", Mark.BULLET)))
    space = room - 1 - len(tail)
    kept: list[str] = []
    left_out = 0
    for j in range(len(blocks) - 1, -1, -1):
        count, block = blocks[j]
        reserve = 1 if j else 0  # a line to say that earlier moves were left out
        if len(kept) + len(block) + reserve > space:
            if kept:
                left_out = sum(c for c, _ in blocks[:j + 1])
                break
            block = block[:max(1, space - reserve - 1)] + ["  ..."]  # one run longer than the room: its start
        kept = block + kept
    lines = ["Since your last turn:" if reader.seat is not None else "Last moves:"]
    if left_out:
        lines += wrap(f"{plural(left_out, 'earlier move')} left out here: see the game page.", Mark.BULLET)
    return lines + kept + tail


def fit(blocks: list[list[str]], budget: int) -> tuple[list[str], int]:
    """As many whole blocks as fit in `budget` lines; returns the lines and how many blocks were left out."""
    lines: list[str] = []
    for i, block in enumerate(blocks):
        if len(lines) + len(block) > budget:
            return lines, len(blocks) - i
        lines += block
    return lines, 0
