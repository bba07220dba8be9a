"""Who is told what when a game changes: a notice per reader, handed to every channel in the change's transaction.

It listens to what the game service and the scheduler announce (`pbem.events`): a game
started, a move applied, a game over, a reminder due, a player late, a vacation bank low, and
decides the `channels.Notice`s: the turn to the seat to move, after a change by another seat (so
one per turn, and one more with the new key when another seat resigns); a move played to the
other seats still in; the result to every seat; the reminder to the seat to move; a player late
to every seat still in; a vacation day spent that left 1 or 0 days to that player. The channels
(`pbem.notify.channels`: mail, Web Push, webhooks) each decide only how a notice reaches its
reader and whether that reader takes news their way (the mail settings in `User.notify`: every,
turn, digest, none; a browser subscribed; a webhook's kinds), and write or post in the same
transaction, so a change and its news commit together or not at all.

Each notice is written in its reader's language (`User.language`), a notice to the whole table
(the result, a player late) in each player's own.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

import engine
from pbem import events
from pbem.models import Game, Message, Mute, Seat, User
from pbem.notify import channels
from pbem.notify.channels import Notice
from pbem.notify.channels.mail import view_text

__all__ = ["connect", "view_text"]  # view_text: the text of a game mail, written when it is sent (pbem.mail.outbound)


def _tell_turn(s: Session, game: Game, seats: list[Seat], rules: engine.Rules) -> None:
    seat = seats[game.to_move]
    if seat.user is not None and not seat.resigned:
        channels.tell(s, Notice("turn", game, seat, seat.user, rules.title, move=game.version + 1))


def _on_game_started(s: Session, *, game: Game, seats: list[Seat], rules: engine.Rules, state: Any) -> None:
    _tell_turn(s, game, seats, rules)


def _on_move_applied(s: Session, *, game: Game, seats: list[Seat], rules: engine.Rules, mover: int | None,
                     state: Any) -> None:
    """The move to the other seats still in, and the turn when it passed to another seat than the mover."""
    for seat in seats:
        if seat.user is None or seat.number in (game.to_move, mover) or seat.resigned:
            continue
        channels.tell(s, Notice("move", game, seat, seat.user, rules.title, move=game.version))
    if game.to_move is not None and game.to_move != mover:
        _tell_turn(s, game, seats, rules)


def _on_game_finished(s: Session, *, game: Game, seats: list[Seat], rules: engine.Rules, state: Any) -> None:
    """The result to every player, each in their own language."""
    for seat in seats:
        if seat.user is not None:
            channels.tell(s, Notice("result", game, seat, seat.user, rules.title))


def _on_reminder_due(s: Session, *, game: Game, seat: Seat, user: User) -> None:
    channels.tell(s, Notice("reminder", game, seat, user, engine.get(game.title).title, policy=game.timeout_policy))


def _on_player_late(s: Session, *, game: Game, seat: Seat, policy: str) -> None:
    """Tell the table (every player still in) that a player missed the deadline."""
    title = engine.get(game.title).title
    for other in s.scalars(select(Seat).where(Seat.game_id == game.id, Seat.user_id.is_not(None))):
        if not other.resigned:
            channels.tell(s, Notice("late", game, other, other.user, title, late=seat, policy=policy))


def _on_vacation_low(s: Session, *, game: Game, seat: Seat, user: User, left: int) -> None:
    """Tell the player whose deadline spent a vacation day that their bank is nearly or quite empty."""
    channels.tell(s, Notice("vacation", game, seat, user, engine.get(game.title).title, left=left))


def _on_message_posted(s: Session, *, game: Game, seats: list[Seat], message: Message, mentioned: set[int]) -> None:
    """A message to each player who may read it (pbem.talk.readers) but its author, and not to those who
    muted the author."""
    readers = {seat.number for seat in seats} if message.to_seats is None else set(message.to_seats)
    muting = set(s.scalars(select(Mute.user_id).where(Mute.muted_id == message.user_id))) if message.user_id else set()
    title = engine.get(game.title).title
    for seat in seats:
        if seat.number == message.seat or seat.number not in readers or seat.user is None or seat.user_id in muting:
            continue
        channels.tell(s, Notice("message", game, seat, seat.user, title, message=message,
                                mentioned=seat.number in mentioned))


def connect() -> None:
    """Listen to the game service and the scheduler (pbem.wiring.connect calls this once per process)."""
    events.game_started.connect(_on_game_started)
    events.move_applied.connect(_on_move_applied)
    events.game_finished.connect(_on_game_finished)
    events.reminder_due.connect(_on_reminder_due)
    events.player_late.connect(_on_player_late)
    events.vacation_low.connect(_on_vacation_low)
    events.message_posted.connect(_on_message_posted)
