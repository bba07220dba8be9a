"""Absences: a player away for some days, declared ahead or spent from a bank of vacation days.

While a player is away their deadlines stop (pbem.deadlines counts no time inside an
absence), and the table sees who is away and until when (`table`). Every absence ends:
one declaration, joined with any it touches, lasts at most MAX_ABSENCE_DAYS, and starts at
most MAX_AHEAD_DAYS ahead. Ending an absence early never moves a deadline earlier.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import select

from pbem.schedule import deadlines
from pbem.db import Database
from pbem.i18n import N_
from pbem.models import Absence, Game, GameEvent, GameStatus, Seat, User
from pbem.reasons import Refusal

MAX_ABSENCE_DAYS = 30
MAX_AHEAD_DAYS = 365
MAX_VACATION_DAYS = 60


class AbsenceError(Refusal, ValueError):
    """An absence that cannot be declared; the message says why (English, marked with `N_`, and
    translated where it is shown: `error.text(language)`)."""


def _shift_deadlines(s, user_id: int, reason: str) -> list[int]:
    """Move later the running deadlines of games where this user is to move; returns the game ids."""
    moved = []
    query = (select(Game).join(Seat, (Seat.game_id == Game.id) & (Seat.number == Game.to_move))
             .where(Seat.user_id == user_id, Game.status == GameStatus.RUNNING.value, Game.deadline.is_not(None))
             .with_for_update(of=Game))
    for game in s.scalars(query):
        before = game.deadline
        deadlines.extend(s, game, reason)
        if game.deadline != before:
            moved.append(game.id)
    return moved


def declare(db: Database, user_id: int, starts_at: datetime, ends_at: datetime, note: str | None = None,
            at: datetime | None = None) -> int:
    """Declare an absence (naive UTC times); deadlines that fall in it move past it. Returns its id."""
    at = at or deadlines.now()
    if ends_at <= starts_at:
        raise AbsenceError(N_("An absence ends after it starts."))
    if ends_at <= at:
        raise AbsenceError(N_("That absence is already over."))
    starts_at = max(starts_at, at)
    if starts_at > at + timedelta(days=MAX_AHEAD_DAYS):
        raise AbsenceError(N_("An absence can be declared at most %(days)d days ahead."), days=MAX_AHEAD_DAYS)
    with db.transaction() as s:
        user = s.scalars(select(User).where(User.id == user_id).with_for_update()).first()
        if user is None:
            raise AbsenceError(N_("There is no user %(user)d."), user=user_id)
        # Absences that touch this one count as one: together they must still end in time.
        first, last = starts_at, ends_at
        for a, b in s.execute(select(Absence.starts_at, Absence.ends_at).where(Absence.user_id == user_id)
                              .order_by(Absence.starts_at)):
            if a <= last and b >= first:
                first, last = min(first, a), max(last, b)
        if last - first > timedelta(days=MAX_ABSENCE_DAYS):
            raise AbsenceError(N_("An absence lasts at most %(days)d days in a row."), days=MAX_ABSENCE_DAYS)
        absence = Absence(user_id=user_id, starts_at=starts_at, ends_at=ends_at, source="declared",
                          note=(note or None) and note[:200], created_at=at)
        s.add(absence)
        s.flush()
        with deadlines.frozen(at):
            _shift_deadlines(s, user_id, "absence")
        return absence.id


def end(db: Database, user_id: int, absence_id: int, at: datetime | None = None) -> None:
    """End an absence now (or cancel one not begun); deadlines already moved stay where they are."""
    at = at or deadlines.now()
    with db.transaction() as s:
        absence = s.get(Absence, absence_id)
        if absence is None or absence.user_id != user_id:
            raise AbsenceError(N_("You have no absence %(absence)d."), absence=absence_id)
        if absence.starts_at >= at:
            s.delete(absence)
        elif absence.ends_at > at:
            absence.ends_at = at


def set_vacation_days(db: Database, user_id: int, days: int) -> None:
    """Set a player's bank of vacation days (spent one at a time when a deadline passes)."""
    if not 0 <= days <= MAX_VACATION_DAYS:
        raise AbsenceError(N_("A bank holds 0 to %(days)d vacation days."), days=MAX_VACATION_DAYS)
    with db.transaction() as s:
        user = s.get(User, user_id)
        if user is None:
            raise AbsenceError(N_("There is no user %(user)d."), user=user_id)
        user.vacation_days = days


def current(db: Database, user_id: int, at: datetime | None = None) -> list[dict]:
    """A player's absences that have not ended yet."""
    at = at or deadlines.now()
    with db.sessions() as s:
        rows = s.scalars(select(Absence).where(Absence.user_id == user_id, Absence.ends_at > at)
                         .order_by(Absence.starts_at))
        return [{"id": a.id, "starts_at": deadlines.fmt(a.starts_at), "ends_at": deadlines.fmt(a.ends_at),
                 "source": a.source, "note": a.note} for a in rows]


def table(db: Database, game_id: int, at: datetime | None = None) -> dict:
    """What the table sees about time in one game: the deadline and, per seat, away, late, vacation days.

    For the web page and the API; no hidden information is involved.
    """
    at = at or deadlines.now()
    with db.sessions() as s:
        game = s.get(Game, game_id)
        if game is None:
            raise AbsenceError(N_("There is no game %(game)d."), game=game_id)
        seats = []
        for seat in s.scalars(select(Seat).where(Seat.game_id == game.id).order_by(Seat.number)):
            away_until = None
            user = s.get(User, seat.user_id) if seat.user_id is not None else None
            if user is not None:
                away_until = s.scalar(select(Absence.ends_at).where(
                    Absence.user_id == user.id, Absence.starts_at <= at, Absence.ends_at > at)
                    .order_by(Absence.ends_at.desc()).limit(1))
            late = bool(game.status == GameStatus.RUNNING.value and game.to_move == seat.number
                        and game.turn_seq is not None and s.scalar(select(GameEvent.id).where(
                            GameEvent.game_id == game.id, GameEvent.seat == seat.number,
                            GameEvent.kind == "missed", GameEvent.seq >= game.turn_seq).limit(1)))
            seats.append({"seat": seat.number, "name": seat.display_name, "away": away_until is not None,
                          "away_until": deadlines.fmt(away_until), "late": late,
                          "vacation_days": user.vacation_days if user else 0,
                          "timezone": user.timezone if user else "UTC"})
        return {"game_id": game.id, "deadline": deadlines.fmt(game.deadline), "turn_hours": game.turn_hours,
                "weekdays": game.weekdays, "policy": game.timeout_policy, "resign_after": game.resign_after,
                "seats": seats}


def events(db: Database, game_id: int) -> list[dict]:
    """The game's event log (deadlines set and moved, reminders, lateness, timeouts), oldest first."""
    with db.sessions() as s:
        rows = s.scalars(select(GameEvent).where(GameEvent.game_id == game_id).order_by(GameEvent.id))
        return [{"seq": e.seq, "seat": e.seat, "kind": e.kind, "detail": e.detail,
                 "at": deadlines.fmt(e.created_at)} for e in rows]
