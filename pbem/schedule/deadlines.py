"""Deadlines: the time each turn may take, the reminder before it, and what happens when it passes.

A game with `turn_hours` gives the player to move that many hours of *counting* time: only
the weekdays the game counts (`Game.weekdays`, ISO numbers, "12345" = Monday to Friday),
judged in the player's own time zone (`User.timezone`), and never while the player is away
(`pbem.absences`). A reminder goes out once per turn before the deadline (recorded on the
game, so a restart never repeats it). When the deadline passes, a banked vacation day is
spent first; then the game's timeout policy applies:

- wait: the player is marked late, the table is told, and the clock starts again;
- skip: a legal move of kind "pass" is played where the rules allow one (else: wait);
- random: a random legal move is played, with source "timeout";
- resign: like wait, until the seat has missed `Game.resign_after` turns in a row, then it resigns.

Timeout moves go through `games.submit` with the version the timeout saw, so a player's
move that arrives at the same moment wins and the timeout does nothing. A deadline never
moves earlier, and every deadline set or moved is written to the game's event log.

Time comes from `now()`: the real clock, or the moment set with `frozen(at)` (tests, and
timeouts processed for a given moment, whose next turn starts at that moment).
This module does not write mail: it announces reminders, lateness and a vacation bank running
low (`pbem.events`), and pbem.notify writes the mails. It listens to the game service for the
start of each turn.
"""

from __future__ import annotations

import random
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime, time, timedelta, timezone
from typing import Iterable, Iterator
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session
from sqlalchemy.orm.attributes import set_committed_value

from pbem import events, games
from pbem.db import Database
from pbem.i18n import N_
from pbem.models import Absence, Game, GameEvent, GameStatus, MoveRecord, Seat, User, utcnow
from pbem.reasons import Refusal

MAX_REMINDER_WINDOW = timedelta(hours=24)
MAX_RESIGN_AFTER = 10
VACATION_DAY = timedelta(days=1)
VACATION_LOW = 1  # days left in a bank after a spend from which the player is told (at 1, then at 0)
_STEPS = 10_000  # days walked at most when counting time (absences are bounded, so far more than enough)

_NOW: ContextVar[datetime | None] = ContextVar("pbem_deadlines_now", default=None)


class DeadlineError(Refusal, ValueError):
    """A deadline setting that cannot be used; the message says why (English, marked with `N_`, and
    translated where it is shown: `error.text(language)`)."""


def now() -> datetime:
    """The current moment (UTC, naive): the frozen one if set, else the clock."""
    return _NOW.get() or utcnow()


@contextmanager
def frozen(at: datetime) -> Iterator[datetime]:
    """Make `now()` return `at` inside the block (a controlled clock)."""
    token = _NOW.set(at)
    try:
        yield at
    finally:
        _NOW.reset(token)


def zone(name: str | None) -> ZoneInfo:
    try:
        return ZoneInfo(name or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def check_weekdays(weekdays: str | None) -> str | None:
    """Normalise a weekday setting ("12345", "1-5" is not accepted); None or "" means every day."""
    if not weekdays:
        return None
    days = sorted(set(weekdays))
    if not all(d in "1234567" for d in days):
        raise DeadlineError(N_("Weekdays are ISO numbers 1 (Monday) to 7 (Sunday), for example 12345."))
    return "".join(days)


def advance(start: datetime, hours: float, *, tz: str | None = "UTC", weekdays: str | None = None,
            absences: Iterable[tuple[datetime, datetime]] = ()) -> datetime:
    """The moment `hours` of counting time after `start` (naive UTC in, naive UTC out).

    Time counts only on `weekdays` (ISO numbers, in the time zone `tz`; None = every day)
    and outside the `absences` (UTC spans).
    """
    place = zone(tz)
    days = {int(d) for d in check_weekdays(weekdays) or "1234567"}
    spans = sorted((a, b) for a, b in absences if b > start and b > a)
    remaining = timedelta(hours=hours)
    t = start
    for _ in range(_STEPS):
        inside = [b for a, b in spans if a <= t < b]
        if inside:
            t = max(inside)
            continue
        local = t.replace(tzinfo=timezone.utc).astimezone(place)
        midnight = datetime.combine(local.date() + timedelta(days=1), time(0), tzinfo=place)
        day_end = midnight.astimezone(timezone.utc).replace(tzinfo=None)
        if local.isoweekday() not in days:
            t = day_end
            continue
        segment_end = min([day_end] + [a for a, _ in spans if a > t])
        if segment_end - t >= remaining:
            return t + remaining
        remaining -= segment_end - t
        t = segment_end
    raise DeadlineError(N_("The deadline lies too far away to compute."))


def reminder_window(game: Game) -> timedelta:
    """How long before the deadline the reminder goes: a quarter of the turn, at most a day."""
    return min(MAX_REMINDER_WINDOW, timedelta(hours=game.turn_hours or 0) / 4)


# --------------------------------------------------------------------------------------
# Inside the game service's transactions


def _absences(s: Session, user_id: int | None, since: datetime) -> list[tuple[datetime, datetime]]:
    if user_id is None:
        return []
    return [(a, b) for a, b in s.execute(select(Absence.starts_at, Absence.ends_at)
                                         .where(Absence.user_id == user_id, Absence.ends_at > since))]


def _seat_user(s: Session, game: Game, seat: int | None) -> tuple[Seat | None, User | None]:
    if seat is None:
        return None, None
    row = s.scalars(select(Seat).where(Seat.game_id == game.id, Seat.number == seat)).first()
    return row, (row.user if row is not None else None)


def compute(s: Session, game: Game, start: datetime) -> datetime | None:
    """The deadline of the current turn if it started at `start` (None for an untimed game)."""
    if not game.turn_hours or game.to_move is None:
        return None
    _, user = _seat_user(s, game, game.to_move)
    return advance(start, game.turn_hours, tz=user.timezone if user else "UTC", weekdays=game.weekdays,
                   absences=_absences(s, user.id if user else None, start))


def record(s: Session, game: Game, kind: str, seat: int | None = None, *, seq: int | None = None, **detail) -> None:
    """Append one event to the game's log (at move `seq`, by default the game's current one)."""
    s.add(GameEvent(game_id=game.id, seq=game.version if seq is None else seq, seat=seat, kind=kind,
                    detail=detail, created_at=now()))


def fmt(at: datetime | None) -> str | None:
    return at.strftime("%Y-%m-%dT%H:%M:%SZ") if at else None


def set_deadline(s: Session, game: Game, deadline: datetime | None, reason: str, seat: int | None = None) -> None:
    """Change the game's deadline and log the change; a later turn's deadline may be anything, else only later."""
    if deadline == game.deadline:
        return
    record(s, game, "deadline", seat if seat is not None else game.to_move, old=fmt(game.deadline),
           new=fmt(deadline), reason=reason)
    game.deadline = deadline


def start_turn(s: Session, game: Game) -> None:
    """Start the new turn's clock (the game service announces each turn: `events.turn_started`)."""
    at = now()
    game.turn_started_at = at
    game.turn_seq = game.version
    deadline = compute(s, game, at)
    if deadline is not None or game.deadline is not None:
        record(s, game, "deadline", game.to_move, old=fmt(game.deadline), new=fmt(deadline), reason="turn")
    game.deadline = deadline


def _on_turn_started(session: Session, *, game: Game, **_facts) -> None:
    start_turn(session, game)


def connect() -> None:
    """Listen to the game service (pbem.wiring.connect calls this once per process)."""
    events.turn_started.connect(_on_turn_started)


def extend(s: Session, game: Game, reason: str) -> None:
    """Recompute the running turn's deadline (after an absence or a settings change); it only ever moves later."""
    if game.status != GameStatus.RUNNING.value or game.turn_started_at is None:
        return
    fresh = compute(s, game, game.turn_started_at)
    if fresh is not None and (game.deadline is None or fresh > game.deadline):
        set_deadline(s, game, fresh, reason)


# --------------------------------------------------------------------------------------
# Settings


def configure(db: Database, game_id: int, user_id: int | None, *, turn_hours: int | None = None,
              weekdays: str | None = None, policy: str | None = None, resign_after: int | None = None) -> dict:
    """Change a game's time per turn, counted weekdays, timeout policy or resign limit (its creator only)."""
    if policy is not None and policy not in games.TIMEOUT_POLICIES:
        raise DeadlineError(N_("The timeout policy is one of %(policies)s, not %(policy)s."),
                            policies=", ".join(games.TIMEOUT_POLICIES), policy=repr(policy))
    if turn_hours is not None and not 1 <= turn_hours <= 24 * 60:
        raise DeadlineError(N_("The time per turn is between 1 hour and 60 days."))
    if resign_after is not None and not 1 <= resign_after <= MAX_RESIGN_AFTER:
        raise DeadlineError(N_("A seat resigns after 1 to %(most)d missed turns."), most=MAX_RESIGN_AFTER)
    days = check_weekdays(weekdays) if weekdays is not None else None
    with db.transaction() as s:
        game = s.scalars(select(Game).where(Game.id == game_id).with_for_update()).first()
        if game is None:
            raise games.NotFoundError(N_("There is no game %(game)d."), game=game_id)
        if user_id is not None and game.created_by != user_id:
            raise games.NotAllowedError(N_("Only the player who opened game %(game)d can change its deadlines."),
                                        game=game.id)
        if turn_hours is not None:
            game.turn_hours = turn_hours
        if weekdays is not None:
            game.weekdays = days
        if policy is not None:
            game.timeout_policy = policy
        if resign_after is not None:
            game.resign_after = resign_after
        s.flush()
        if game.deadline is None and game.status == GameStatus.RUNNING.value and game.turn_hours:
            game.turn_started_at = game.turn_started_at or now()
            game.turn_seq = game.version if game.turn_seq is None else game.turn_seq
        extend(s, game, "settings")
        return {"turn_hours": game.turn_hours, "weekdays": game.weekdays, "policy": game.timeout_policy,
                "resign_after": game.resign_after, "deadline": fmt(game.deadline)}


# --------------------------------------------------------------------------------------
# What is due, and doing it


def due(db: Database, at: datetime | None = None, limit: int = 500) -> list[int]:
    """Running games whose deadline has passed or whose reminder is due at `at`."""
    at = at or now()
    with db.sessions() as s:
        rows = s.execute(select(Game.id, Game.deadline, Game.turn_hours, Game.turn_seq, Game.reminded_seq)
                         .where(Game.status == GameStatus.RUNNING.value, Game.deadline.is_not(None),
                                Game.deadline <= at + MAX_REMINDER_WINDOW)
                         .order_by(Game.deadline).limit(limit))
        out = []
        for game_id, deadline, hours, turn_seq, reminded in rows:
            window = min(MAX_REMINDER_WINDOW, timedelta(hours=hours or 0) / 4)
            if deadline <= at or (deadline - window <= at and reminded != turn_seq):
                out.append(game_id)
        return out


def _missed_in_a_row(s: Session, game: Game, seat: int) -> int:
    """Turns this seat has missed since it last moved by itself."""
    own = s.scalar(select(func.max(MoveRecord.seq)).where(
        MoveRecord.game_id == game.id, MoveRecord.seat == seat, MoveRecord.source.not_in(("timeout", "auto"))))
    return s.scalar(select(func.count()).select_from(GameEvent).where(
        GameEvent.game_id == game.id, GameEvent.seat == seat, GameEvent.kind == "missed",
        GameEvent.seq >= (own or 0))) or 0


def _wait(s: Session, game: Game, seat: Seat, at: datetime, policy: str) -> None:
    """Mark the player late, tell the table, and give another turn's time from `at`."""
    why = ("The rules allow no pass here, so the game waits." if policy == "skip"
           else f"The game waits for them (policy: {policy}).")
    record(s, game, "late", seat.number, why=why)
    new = compute(s, game, at)
    set_deadline(s, game, max(new, game.deadline) if new else game.deadline, "late")
    # pbem.notify writes the table's mails, each in its reader's language, from the game and the policy.
    events.player_late.send(s, game=game, seat=seat, policy=policy)


def _spend_vacation_day(s: Session, game: Game, seat: Seat, user: User, at: datetime) -> bool:
    """Spend one of the player's banked days at this game's passed deadline: a day away from `at`, and the
    deadline a day on. False when the bank is empty by now.

    The bank is counted down in the database, not from the value read: two of the player's games whose
    deadlines pass at once spend two days, and each number of days left is reached once. When the spending
    leaves VACATION_LOW days or fewer, it is announced (`events.vacation_low`), in this transaction.
    """
    left = s.execute(update(User).where(User.id == user.id, User.vacation_days > 0)
                     .values(vacation_days=User.vacation_days - 1).returning(User.vacation_days)
                     .execution_options(synchronize_session=False)).scalar()
    if left is None:
        return False
    set_committed_value(user, "vacation_days", left)
    s.add(Absence(user_id=user.id, starts_at=at, ends_at=at + VACATION_DAY, source="vacation",
                  note="vacation day spent at a deadline", created_at=at))
    record(s, game, "vacation", seat.number, left=left)
    set_deadline(s, game, max(game.deadline, at + VACATION_DAY), "vacation")
    if left <= VACATION_LOW:
        events.vacation_low.send(s, game=game, seat=seat, user=user, left=left)
    return True


def process(db: Database, game_id: int, at: datetime | None = None) -> str:
    """Do what is due in one game at `at`: a reminder, a vacation day, or the timeout policy.

    Returns what was done: nothing, reminded, vacation, late, pass, random, resigned or moved
    (the player's own move came first). Safe to run twice: a second run finds nothing due.
    """
    at = at or now()
    with db.transaction() as s:
        game = s.scalars(select(Game).where(Game.id == game_id).with_for_update()).first()
        if game is None or game.status != GameStatus.RUNNING.value or game.deadline is None:
            return "nothing"
        seat, user = _seat_user(s, game, game.to_move)
        if seat is None:
            return "nothing"
        if game.deadline > at:
            if game.deadline - reminder_window(game) > at or game.reminded_seq == game.turn_seq:
                return "nothing"
            game.reminded_seq = game.turn_seq
            record(s, game, "reminder", seat.number, deadline=fmt(game.deadline))
            if user is not None:
                events.reminder_due.send(s, game=game, seat=seat, user=user)
            return "reminded"
        if user is not None and user.vacation_days > 0 and _spend_vacation_day(s, game, seat, user, at):
            return "vacation"
        policy, version, missed_at = game.timeout_policy, game.version, fmt(game.deadline)
        action, move = "wait", None
        if policy in ("skip", "random"):
            legal = games.rules_of(game).legal_moves(games.load_state(game))
            passes = [m for m in legal if m.kind == "pass"]
            if policy == "random" or passes:
                action, move = policy, (passes[0] if policy == "skip" else random.SystemRandom().choice(legal))
        if action == "wait":
            record(s, game, "missed", seat.number, policy=policy, deadline=missed_at)
            s.flush()
            if (policy == "resign" and user is not None
                    and _missed_in_a_row(s, game, seat.number) >= (game.resign_after or 1)):
                action = "resign"
        if action == "wait":
            _wait(s, game, seat, at, policy)
            return "late"
    # The policy's move runs in its own transaction, checked against the version seen above.
    try:
        with frozen(at):
            if action == "resign":
                games.resign(db, game_id, user.id, source="timeout")
            else:
                games.submit(db, game_id, move, seat=seat.number, source="timeout",
                             key=f"timeout:{game_id}:{version}", expected_version=version)
    except (games.StalePositionError, games.NotYourTurnError, games.GameStateError):
        return "moved"
    with db.transaction() as s:
        game = s.get(Game, game_id)
        if action != "resign":  # a move was played for the seat: the miss is logged with it
            record(s, game, "missed", seat.number, policy=policy, deadline=missed_at, seq=version)
        record(s, game, "timeout", seat.number, seq=version, action=action, move=version + 1)
    return {"resign": "resigned", "skip": "pass", "random": "random"}[action]

