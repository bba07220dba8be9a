"""Table talk and private notes: what the players of a game say to each other, and what each keeps to themselves.

A message (`models.Message`) is written by a player at a table to everyone at it, or to some of
its players; a note (`models.Note`) by a player for themselves. Neither is a move: they stand
outside the chain of moves (`pbem verify` reads none of them) and change no position. Both carry
`seq`, the number of moves played when they were written, so the replay shows them at their moment.

Who may read what is decided here and only here (`readers`, `conversation`, `notes`), and every
door (page, mail, API, archive) asks this module: a private message is read by its author and
the players it names, nobody else (not a spectator, not another player, not after the game ends);
a note by its author only. A public message is read by every player at the table, and by
spectators when the table allows it (`Game.press_spectators`). A reader who muted the author
(`mute`) reads none of the author's messages and gets none by mail. A message an operator hid
stays in the record, marked, and its text is shown to nobody.

What a table allows is chosen when it is opened (`PRESS`: full, public only, none; talk after
the end; a player past the deadline of their turn kept from talking until they move, as njudge
does). Writing is bounded: `MAX_CHARS` characters, `PER_HOUR` messages per player and game in
an hour, the text cleaned of control characters. A message announces itself (`events.message_posted`)
in its transaction; pbem.notify tells its readers on their channel.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from pbem import events
from pbem.db import Database
from pbem.i18n import N_
from pbem.models import Game, GameStatus, Message, MessageReport, Mute, Note, Seat, User, utcnow
from pbem.games.errors import GameError
from pbem.games.tables import PRESS_MODES

PRESS = PRESS_MODES  # what a table allows: messages to anyone, to the whole table only, none
MAX_CHARS = 2000  # a message or a note, after cleaning
MAX_LINES = 60  # lines of a message or a note
PER_HOUR = 30  # messages one player may write at one table in an hour
NOTES_PER_HOUR = 60  # notes one player may write on one game in an hour
SHOWN = 200  # the latest messages a reader is shown of a conversation
MAX_REASON = 500  # characters of a report's or a hiding's reason

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u0085\u200b-\u200f\u202a-\u202e\u2066-\u2069]")
_LEADING = re.compile(r"(@[^\s@]{1,80})(?:\s+|$)")  # an @ word at the start of a text, and the space after it
_MENTION = re.compile(r"(?<![\w@])@([\w.-]{1,40})", re.UNICODE)


class TalkError(GameError):
    """A message, note, mute or report that cannot be written; the message says why (and nothing was written).

    A refusal about a game like the game service's own (pbem.games.GameError: its HTTP status, its
    reason in every language), so every door answers it the way it answers a refused move."""

    code = "talk"


@dataclass(frozen=True)
class Said:
    """One message as one reader may see it: `body` is None for a message an operator hid."""

    id: int
    seq: int
    seat: int
    author: str  # the author's name at the table
    to: tuple[int, ...] | None  # the seats it was written to; None: the whole table
    to_names: tuple[str, ...]
    body: str | None
    at: datetime
    mine: bool  # written by the reader
    hidden: bool

    @property
    def private(self) -> bool:
        return self.to is not None


@dataclass(frozen=True)
class Written:
    """One private note of its author."""

    id: int
    seq: int
    body: str
    at: datetime


def clean(text: str) -> str:
    """A message's or a note's text as it is kept: line breaks made \\n, control and direction characters
    removed, spaces at the ends of lines and more than one empty line in a row dropped."""
    text = _CONTROL.sub("", (text or "").replace("\r\n", "\n").replace("\r", "\n").replace("\t", " "))
    lines, empty = [], 0
    for line in text.split("\n"):
        line = line.rstrip()
        empty = empty + 1 if not line else 0
        if empty < 2:
            lines.append(line)
    return "\n".join(lines).strip()


# What is refused of a text, said of a message and of a note (whole sentences, for the translators).
_EMPTY = {"message": N_("The message is empty: write something after the command."),
          "note": N_("The note is empty: write something after the command.")}
_LONG = {"message": N_("A message has at most %(most)d characters; this one has %(count)d."),
         "note": N_("A note has at most %(most)d characters; this one has %(count)d.")}
_LINES = {"message": N_("A message has at most %(most)d lines."), "note": N_("A note has at most %(most)d lines.")}


def _checked(text: str, what: str) -> str:
    body = clean(text)
    if not body:
        raise TalkError(_EMPTY[what])
    if len(body) > MAX_CHARS:
        raise TalkError(_LONG[what], most=MAX_CHARS, count=len(body))
    if body.count("\n") >= MAX_LINES:
        raise TalkError(_LINES[what], most=MAX_LINES)
    return body


def seat_named(seats: list[Seat], word: str) -> Seat | None:
    """The seat a word names: its colour, its player's name (spaces may be left out), or its number."""
    key = word.strip().lstrip("@").casefold()
    for seat in seats:
        names = {(seat.colour or "").casefold(), seat.display_name.casefold(),
                 seat.display_name.replace(" ", "").casefold(), str(seat.number + 1)}
        if key in names:
            return seat
    return None


def split_addressees(text: str, seats: list[Seat]) -> tuple[tuple[int, ...] | None, str]:
    """The seats named by the `@colour` or `@name` words that begin a text, and the text after them.

    `@red @Ann we should ...` is to red and Ann; a text that names nobody first is to the whole
    table (None). A word after @ that names no seat is refused, so a typo never makes a private
    message public."""
    to: list[int] = []
    rest = text.lstrip()
    while (found := _LEADING.match(rest)) is not None:
        seat = seat_named(seats, found[1])
        if seat is None:
            raise TalkError(N_("Nobody at this table is called %(name)s; name players by their colour or their name."),
                            name=found[1])
        to.append(seat.number)
        rest = rest[found.end():]
    return (tuple(sorted(set(to))) if to else None), rest


def mentions(body: str, seats: list[Seat]) -> set[int]:
    """The seats a message names with @ anywhere in its text."""
    named = {seat_named(seats, word) for word in _MENTION.findall(body)}
    return {seat.number for seat in named if seat is not None}


def readers(message: Message, seats: list[Seat]) -> set[int]:
    """The seats that may read a message: the whole table, or its author and the seats it names."""
    if message.to_seats is None:
        return {seat.number for seat in seats}
    return set(message.to_seats) | {message.seat}


def _late(game: Game, seat: Seat, now: datetime) -> bool:
    return (game.status == GameStatus.RUNNING.value and game.deadline is not None and now > game.deadline
            and game.to_move == seat.number)


def post(db: Database, game_id: int, user_id: int, text: str, to: tuple[int, ...] | None = None,
         source: str = "web") -> int:
    """Write a message of the player `user_id` at game `game_id`, to the whole table or to the seats `to`.

    Refused (TalkError, nothing written) for someone not seated there, a table whose press does not
    allow it, a player kept from talking while late, too long a text or too many in an hour. The
    message is announced in the same transaction (`events.message_posted`)."""
    with db.transaction() as s:
        game = s.scalars(select(Game).where(Game.id == game_id).with_for_update()).first()
        if game is None:
            raise TalkError(N_("There is no game %(game)d."), game=game_id)
        seats = list(s.scalars(select(Seat).where(Seat.game_id == game.id).order_by(Seat.number)))
        seat = next((x for x in seats if x.user_id == user_id), None)
        if seat is None:
            raise TalkError(N_("Only the players of game %(game)d write to its table."), game=game.id)
        if game.press == "none":
            raise TalkError(N_("The table of game %(game)d plays without messages."), game=game.id)
        if to is not None:
            to = tuple(sorted({number for number in to if number != seat.number}))
            if game.press == "public":
                raise TalkError(N_("At the table of game %(game)d messages go to everyone; private messages are "
                                   "not allowed there."), game=game.id)
            if not to:
                raise TalkError(N_("Name at least one other player to write to, or write to the whole table."))
            if not set(to) <= {x.number for x in seats}:
                raise TalkError(N_("Game %(game)d has no such seat."), game=game.id)
        if game.status in (GameStatus.FINISHED.value, GameStatus.ABANDONED.value) and not game.press_after_end:
            raise TalkError(N_("Game %(game)d is over and its table does not talk after the end."), game=game.id)
        now = utcnow()
        if game.press_late_blocked and _late(game, seat, now):
            raise TalkError(N_("Your turn in game %(game)d is past its deadline: this table lets you write again "
                               "once you have moved."), game=game.id)
        body = _checked(text, "message")
        written = s.scalar(select(func.count()).select_from(Message).where(
            Message.game_id == game.id, Message.user_id == user_id, Message.created_at > now - timedelta(hours=1)))
        if written >= PER_HOUR:
            raise TalkError(N_("You wrote %(count)d messages at game %(game)d in the last hour; wait a while before "
                               "the next."), count=written, game=game.id)
        message = Message(game_id=game.id, seq=game.version, seat=seat.number, user_id=user_id,
                          to_seats=list(to) if to is not None else None, body=body, source=source, created_at=now)
        s.add(message)
        s.flush()
        mentioned = mentions(body, seats) & readers(message, seats)
        events.message_posted.send(s, game=game, seats=seats, message=message, mentioned=mentioned)
        return message.id


def say(db: Database, game_id: int, user_id: int, text: str, source: str = "mail") -> tuple[int, tuple[str, ...]]:
    """Write a message as a line of text says it: to the players named by the `@` words it begins with, or
    to the whole table (`split_addressees`). Returns the message's id and the names it went to (none: the
    table)."""
    with db.sessions() as s:
        seats = list(s.scalars(select(Seat).where(Seat.game_id == game_id).order_by(Seat.number)))
    if not seats:
        raise TalkError(N_("There is no game %(game)d."), game=game_id)
    to, body = split_addressees(text, seats)
    message_id = post(db, game_id, user_id, body, to=to, source=source)
    return message_id, tuple(seat.display_name for seat in seats if to is not None and seat.number in to
                             and seat.user_id != user_id)


def _muted_by(s: Session, user_id: int | None) -> set[int]:
    if user_id is None:
        return set()
    return set(s.scalars(select(Mute.muted_id).where(Mute.user_id == user_id)))


def may_read(message: Message, seats: list[Seat], game: Game, user_id: int | None) -> bool:
    """Whether `user_id` (None: someone not logged in) may read `message` at all (mutes aside)."""
    seat = next((x for x in seats if user_id is not None and x.user_id == user_id), None)
    if seat is None:
        return message.to_seats is None and game.press_spectators
    return seat.number in readers(message, seats)


def conversation(db: Database, game_id: int, user_id: int | None, limit: int | None = SHOWN) -> list[Said]:
    """The messages of a game that `user_id` may read, oldest first (the latest `limit`; None: all), without
    those of the authors they muted; a spectator (not seated, or None) reads the public ones if the table
    allows it."""
    with db.sessions() as s:
        game = s.get(Game, game_id)
        if game is None:
            return []
        seats = list(s.scalars(select(Seat).where(Seat.game_id == game.id).order_by(Seat.number)))
        muted = _muted_by(s, user_id)
        newest = select(Message).where(Message.game_id == game.id).order_by(Message.created_at.desc(),
                                                                            Message.id.desc())
        rows = list(s.scalars(newest.limit(limit * 4) if limit is not None else newest))
    names = {seat.number: seat.display_name for seat in seats}
    shown = []
    for message in reversed(rows):
        if message.user_id in muted or not may_read(message, seats, game, user_id):
            continue
        to = tuple(message.to_seats) if message.to_seats is not None else None
        hidden = message.hidden_at is not None
        shown.append(Said(id=message.id, seq=message.seq, seat=message.seat, author=names.get(message.seat, "?"),
                          to=to, to_names=tuple(names.get(number, "?") for number in to or ()),
                          body=None if hidden else message.body, at=message.created_at,
                          mine=user_id is not None and message.user_id == user_id, hidden=hidden))
    return shown[-limit:] if limit is not None else shown


def archived(db: Database, game_id: int, user_id: int | None = None) -> dict:
    """What a game's archive carries of its talk for one reader (docs/archive-format.md, "Table talk"): the
    messages they may read (anyone: the public ones, if the table let spectators read them; a player: also
    the private ones they wrote or were written), without hidden ones; and a player's own notes. A part with
    nothing in it is left out."""
    messages = [{"seq": m.seq, "seat": m.seat, "at": m.at.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
                 "to": list(m.to) if m.to is not None else None, "text": m.body}
                for m in conversation(db, game_id, user_id, limit=None) if not m.hidden]
    written = [{"seq": n.seq, "at": n.at.strftime("%Y-%m-%dT%H:%M:%S.%fZ"), "text": n.body}
               for n in notes(db, game_id, user_id)] if user_id is not None else []
    # Only what there is: the archive of a game without talk stays the bytes it always was.
    return {key: value for key, value in (("messages", messages), ("notes", written)) if value}


def write_note(db: Database, game_id: int, user_id: int, text: str) -> int:
    """Keep a private note of a player of game `game_id`, at the game's current move."""
    with db.transaction() as s:
        game = s.get(Game, game_id)
        if game is None:
            raise TalkError(N_("There is no game %(game)d."), game=game_id)
        if s.scalar(select(Seat.id).where(Seat.game_id == game.id, Seat.user_id == user_id)) is None:
            raise TalkError(N_("Only the players of game %(game)d keep notes on it."), game=game.id)
        body = _checked(text, "note")
        now = utcnow()
        written = s.scalar(select(func.count()).select_from(Note).where(
            Note.game_id == game.id, Note.user_id == user_id, Note.created_at > now - timedelta(hours=1)))
        if written >= NOTES_PER_HOUR:
            raise TalkError(N_("You wrote %(count)d notes on game %(game)d in the last hour; wait a while before "
                               "the next."), count=written, game=game.id)
        note = Note(game_id=game.id, user_id=user_id, seq=game.version, body=body, created_at=now)
        s.add(note)
        s.flush()
        return note.id


def notes(db: Database, game_id: int, user_id: int) -> list[Written]:
    """A player's own notes on a game, oldest first. Nobody else's: there is no other way to read a note."""
    with db.sessions() as s:
        rows = s.scalars(select(Note).where(Note.game_id == game_id, Note.user_id == user_id)
                         .order_by(Note.created_at, Note.id))
        return [Written(id=note.id, seq=note.seq, body=note.body, at=note.created_at) for note in rows]


def mute(db: Database, user_id: int, other_id: int, on: bool = True) -> None:
    """Stop (or start again) reading another user's messages, at every table."""
    if user_id == other_id:
        raise TalkError(N_("You cannot mute yourself."))
    with db.transaction() as s:
        if s.get(User, other_id) is None:
            raise TalkError(N_("There is no such player."))
        found = s.get(Mute, (user_id, other_id))
        if on and found is None:
            s.add(Mute(user_id=user_id, muted_id=other_id))
        elif not on and found is not None:
            s.execute(delete(Mute).where(Mute.user_id == user_id, Mute.muted_id == other_id))


def muted(db: Database, user_id: int) -> set[int]:
    """The users `user_id` muted."""
    with db.sessions() as s:
        return _muted_by(s, user_id)


def _reason(reason: str) -> str:
    reason = " ".join(clean(reason).split())
    if not reason:
        raise TalkError(N_("Say why, in a few words."))
    return reason[:MAX_REASON]


def report(db: Database, message_id: int, user_id: int, reason: str) -> None:
    """Report a message one may read to the site's operators (once per reader and message)."""
    reason = _reason(reason)
    with db.transaction() as s:
        message = s.get(Message, message_id)
        game = s.get(Game, message.game_id) if message is not None else None
        seats = list(s.scalars(select(Seat).where(Seat.game_id == game.id))) if game is not None else []
        if message is None or not may_read(message, seats, game, user_id):
            raise TalkError(N_("There is no such message."))
        if s.scalar(select(MessageReport.id).where(MessageReport.message_id == message.id,
                                                   MessageReport.user_id == user_id)) is None:
            s.add(MessageReport(message_id=message.id, user_id=user_id, reason=reason))


def reports(db: Database, limit: int = 100) -> list[tuple[MessageReport, Message]]:
    """The latest reports with their messages, for the operators."""
    with db.sessions() as s:
        rows = s.execute(select(MessageReport, Message).join(Message, Message.id == MessageReport.message_id)
                         .order_by(MessageReport.created_at.desc()).limit(limit)).all()
        s.expunge_all()
        return [(report, message) for report, message in rows]


def hide(db: Database, message_id: int, operator_id: int, reason: str) -> None:
    """Hide a message (an operator's act, checked by the caller): kept, marked with who hid it, when and why."""
    reason = _reason(reason)
    with db.transaction() as s:
        message = s.get(Message, message_id)
        if message is None:
            raise TalkError(N_("There is no such message."))
        if message.hidden_at is None:
            message.hidden_at, message.hidden_by, message.hidden_reason = utcnow(), operator_id, reason[:200]
