"""What the three text boards share: naming players, wrapping lines, grouping recent moves, keeping to size.

A text board is read in a mail client, often on a phone and in a proportional font, so
every line is at most WIDTH characters and nothing relies on columns lining up: a text is
built from short sentences and "- " bullets whose continuation lines are indented by two
spaces. Every sentence is a message in the reader's language (`Reader.texts`, renderers.i18n).
This module knows no game's rules.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import NamedTuple

from renderers.i18n import ENGLISH, N_, Texts, colour_word
from renderers.i18n import join as join_words

WIDTH = 72          # characters a line: quoted in a reply ("> "), it still keeps within the 78 of RFC 5322
MAX_LINES = 40      # a text board longer than this is cut, with a word on where the rest is
MIN_BOARD_LINES = 12  # the board part keeps at least this many lines, whatever comes before it
RECENT_LINES = 13   # "Since your last turn" takes at most this many lines, its heading included
LISTED = 12         # a list of places shows at most this many before "and N more"
REST = N_("The whole board is in the picture and on the game page.")


class Parts(NamedTuple):
    """A title's text in four parts, which board_text puts together within MAX_LINES.

    The board part names the whole board (issue 33 item 7) in at least `least` lines: given
    that many it says every fact of the view a player decides by, in its shortest form, and
    the more it is given the more it tells (the reader's places in detail); board_text keeps
    it that room before the news take theirs."""

    head: list[str]                       # the game, the decision now (or the end)
    standing: list[str]                   # the leader, each player's score and supplies, the game's clock
    news: Callable[[int], list[str]]      # the moves since the reader's last turn, in at most n lines
    board: Callable[[int], list[str]]     # the reader's places and the whole board, in at most n lines
    least: int = 0                        # the lines the board part needs to name the whole board


class Mark(Enum):
    """How a line starts: a plain sentence, a "- " bullet, or a deeper "  - " bullet."""

    TEXT = ""
    BULLET = "- "
    SUB = "  - "


class Unit(Enum):
    """What a score counts."""

    POINT = "point"
    STAR = "star"
    FIELD = "field"


def wrap(text: str, mark: Mark = Mark.TEXT) -> list[str]:
    """A sentence as lines of at most WIDTH characters; bullets continue two spaces in from their mark."""
    indent = " " * len(mark.value)
    return textwrap.wrap(text, WIDTH, initial_indent=mark.value, subsequent_indent=indent,
                         break_on_hyphens=False) or [mark.value.rstrip()]


def join(texts: Texts, words: list[str], last: str = "and") -> str:
    """'a', 'a and b', 'a, b and c' in the reader's language."""
    return join_words(texts, words, last)


def some(texts: Texts, words: list[str], limit: int = LISTED) -> str:
    """A list of at most `limit` words and, beyond it, 'and N more'."""
    if len(words) <= limit:
        return join(texts, words)
    return texts.ngettext("%(items)s and %(num)d more", "%(items)s and %(num)d more", len(words) - limit,
                          items=", ".join(words[:limit]))


def amount(texts: Texts, count: int, unit: Unit = Unit.POINT) -> str:
    """'1 point', '3 points' (or stars, or fields)."""
    if unit is Unit.STAR:
        return texts.ngettext("%(num)d star", "%(num)d stars", count)
    if unit is Unit.FIELD:
        return texts.ngettext("%(num)d field", "%(num)d fields", count)
    return texts.ngettext("%(num)d point", "%(num)d points", count)


@dataclass
class Reader:
    """Who reads the text and who plays: names and colours per seat, the reader's seat, moves and language."""

    names: list[str]
    colours: list[str]
    seat: int | None
    legal: list[str] = field(default_factory=list)
    recent: list[dict] = field(default_factory=list)
    texts: Texts = ENGLISH

    def name(self, seat: int) -> str:
        """A player's display name; a seat without one is called after its colour."""
        if 0 <= seat < len(self.names) and str(self.names[seat]).strip():
            return " ".join(str(self.names[seat]).split())
        return self.texts.gettext("the %(colour)s player", colour=self.colour(seat))

    def colour(self, seat: int) -> str:
        """A seat's colour in the reader's words ('Grün'): a sentence's word, not notation."""
        return colour_word(self.texts, self.colours[seat] if 0 <= seat < len(self.colours) else "grey")

    def who(self, seat: int) -> str:
        """'Ann (blue)', the way every player is named in the text."""
        return f"{self.name(seat)} ({self.colour(seat)})"

    def seat_of_colour(self, colour: str) -> int | None:
        return self.colours.index(colour) if colour in self.colours else None

    def players(self) -> range:
        return range(len(self.colours))


def headline(reader: Reader, to_move: int | None, what: str) -> str:
    """'It is your turn: <what>.' or 'Ann (blue) is to move: <what>.'"""
    t = reader.texts
    if to_move is None:
        return t.gettext("The game is over.")
    if to_move == reader.seat:
        return t.gettext("It is your turn: %(what)s.", what=what)
    return t.gettext("%(who)s is to move: %(what)s.", who=reader.who(to_move), what=what)


def leader_line(reader: Reader, scores: list[int], unit: Unit = Unit.POINT, over: bool = False,
                ranks: list[int] | None = None) -> str:
    """Who leads (or won) and with how much."""
    t = reader.texts
    if over and ranks:
        first = [p for p in reader.players() if ranks[p] == 1]
    else:
        best = max(scores)
        first = [p for p in reader.players() if scores[p] == best]
    much = amount(t, scores[first[0]], unit)
    if len(first) == len(scores) and len(first) > 1:
        if over:
            return t.gettext("Everybody ended level with %(amount)s each.", amount=much)
        return t.gettext("All players are level with %(amount)s each.", amount=much)
    if len(first) == 1:
        p = first[0]
        if p == reader.seat:
            if over:
                return t.gettext("You (%(name)s, %(colour)s) win with %(amount)s.", name=reader.name(p),
                                 colour=reader.colour(p), amount=much)
            return t.gettext("You (%(name)s, %(colour)s) lead with %(amount)s.", name=reader.name(p),
                             colour=reader.colour(p), amount=much)
        who = reader.who(p)
        who = who[0].upper() + who[1:]
        if over:
            return t.gettext("%(who)s wins with %(amount)s.", who=who, amount=much)
        return t.gettext("%(who)s leads with %(amount)s.", who=who, amount=much)
    names = join(t, [t.gettext("you (%(name)s, %(colour)s)", name=reader.name(p), colour=reader.colour(p))
                     if p == reader.seat else reader.who(p) for p in first])
    names = names[0].upper() + names[1:]
    if over:
        return t.gettext("%(names)s share first place with %(amount)s each.", names=names, amount=much)
    return t.gettext("%(names)s share the lead with %(amount)s each.", names=names, amount=much)


def standing(reader: Reader, scores: list[int], details: dict[int, str], unit: Unit = Unit.POINT,
             over: bool = False, ranks: list[int] | None = None) -> list[str]:
    """The leader, then one bullet per player (best first): score and what they still have."""
    t = reader.texts
    lines = wrap(leader_line(reader, scores, unit, over, ranks))
    order = sorted(reader.players(), key=lambda p: (ranks[p] if over and ranks else -scores[p], p))
    for p in order:
        values = {"who": reader.who(p), "amount": amount(t, scores[p], unit), "details": details.get(p)}
        if p == reader.seat:
            text = (t.gettext("%(who)s, you: %(amount)s; %(details)s.", **values) if details.get(p)
                    else t.gettext("%(who)s, you: %(amount)s.", **values))
        else:
            text = (t.gettext("%(who)s: %(amount)s; %(details)s.", **values) if details.get(p)
                    else t.gettext("%(who)s: %(amount)s.", **values))
        lines += wrap(text, Mark.BULLET)
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


def did(reader: Reader, seat: int | None, what: str) -> str:
    """One player's run of moves as a sentence: 'You placed ...', 'Ann (blue) placed ...', 'Somebody ...'.

    `what` is what they did (the predicate, in the past: "placed a tile at 0,1; passed"), so
    that a language may put the auxiliary of its perfect tense in this sentence."""
    t = reader.texts
    if not isinstance(seat, int):
        return t.gettext("Somebody %(did)s.", did=what)
    if seat == reader.seat:
        return t.gettext("You %(did)s.", did=what)
    return t.gettext("%(who)s %(did)s.", who=reader.who(seat), did=what)


def changes(reader: Reader, moves: list[dict], tell, room: int, after: str = "") -> list[str]:
    """'Since your last turn:' and one bullet per run of one player's moves, in at most `room` lines.

    `tell(seat, notations)` turns one player's run into what they did (see `did`); `after`
    is one more sentence (what the last move caused) told last. The newest runs are kept
    when not all fit, and the text says how many earlier moves it left out.
    """
    if not moves or room < 3:
        return []
    t = reader.texts
    tail = wrap(after, Mark.BULLET) if after else []
    if len(tail) > (room - 1) // 2:
        tail = []  # the moves themselves come first
    blocks = []
    for seat, notations in runs(moves):
        blocks.append((len(notations), wrap(did(reader, seat, tell(seat, notations)), Mark.BULLET)))
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
    lines = [t.gettext("Since your last turn:") if reader.seat is not None else t.gettext("Last moves:")]
    if left_out:
        lines += wrap(t.ngettext("%(num)d earlier move left out here: see the game page.",
                                 "%(num)d earlier moves left out here: see the game page.", left_out), Mark.BULLET)
    lines += kept + tail
    if len(lines) > room:  # a run cut short and the lines around it: the room is the board's (issue 33 item 7)
        return changes(reader, moves, tell, room) if after else lines[:room - 1] + ["  ..."]
    return lines


# --- What the news of a move share (renderers.text.events and each title's `tell_since`) ---------------


def sentence(text: str) -> str:
    """A clause as a sentence: its first letter a capital, a full stop at its end."""
    return f"{text[:1].upper()}{text[1:]}."


def engine_chose(reader: Reader, seat: int | None, what: str) -> str:
    """An automatic move: the engine decided for a player who had one choice only."""
    t = reader.texts
    if seat is not None and seat == reader.seat:
        return t.gettext("The engine made your only possible choice: you %(did)s.", did=what)
    if seat is None:
        return t.gettext("The engine made the only possible choice: %(did)s.", did=what)
    return t.gettext("The engine made the only possible choice for %(who)s: %(did)s.", who=reader.who(seat),
                     did=what)


def steps(move: dict) -> list[tuple[int | None, str, dict, dict]]:
    """(seat, notation, view before, view after) of the move and of each automatic move after it."""
    views = move["views"]
    movers = [(move["seat"], move["notation"])] + [(a.get("seat"), a["notation"]) for a in move.get("autos") or []]
    return [(seat, notation, views[i], views[i + 1]) for i, (seat, notation) in enumerate(movers)
            if i + 1 < len(views)]


def tell_steps(move: dict, reader: Reader, words, chance) -> tuple[list[str], str]:
    """A move told step by step: `words(i, seat, notation, before, after)` says a decision (the player's,
    then each the engine made), `chance(seat, notation, before, after)` what chance brought with it."""
    said: list[str] = []
    what = ""
    for i, (seat, notation, before, after) in enumerate(steps(move)):
        told = words(i, seat, notation, before, after)
        if i == 0:
            what = told
        else:
            said.append(engine_chose(reader, seat, told))
        said += chance(seat, notation, before, after)
    return said, what
