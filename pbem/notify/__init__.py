"""Which mails a change to a game causes, written as outbox rows in the transaction of the change.

It listens to what the game service and the scheduler announce (`pbem.events`): a game
started, a move applied, a game over, a reminder due, a player late. Exactly one turn
notification goes out per turn: when the turn passes to another seat. The text of a mail
to a seat is made now, from what that seat may see now (`games.seat_view`), so no seed of a
running game, deck or other hand reaches a mail, and a mail sent late still says what the
seat saw at its move. The board picture and the seat's reply address are added when the
row is sent (pbem.mail.outbound).

Per-user settings (User.notify): every (a mail after each move), turn (default: only when
it is my turn), digest (one mail a day, see `digest`), none.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

import engine
from pbem import events, games
from pbem.models import Game, Seat, User
from pbem.notify import outbox, texts
from pbem.schedule import deadlines


def _subject(game: Game, rules: engine.Rules, text: str) -> str:
    return f"[pbem #{game.id} {rules.title}] {text}"


def _mail_seat(s: Session, kind: str, game: Game, seats: list[Seat], rules: engine.Rules, state: Any, seat: Seat,
               subject: str) -> None:
    """One mail about the game to one seat, its text made from what that seat sees now."""
    data = games.seat_view(s, game, seats, rules, state, seat.number)
    body = {"turn": texts.turn_text, "move": texts.move_text, "result": texts.result_text}[kind](data, rules.title)
    reply = seat.number if kind == "turn" else None
    outbox.queue(s, kind=kind, recipient=seat.user.email, user_id=seat.user.id, game_id=game.id, seq=game.version,
                 subject=_subject(game, rules, subject), body=body, reply_seat=reply,
                 reply_seq=game.version if reply is not None else None, board_viewer=seat.number)


def _turn_mail(s: Session, game: Game, seats: list[Seat], rules: engine.Rules, state: Any) -> None:
    seat = seats[game.to_move]
    if seat.user is None or seat.resigned or seat.user.notify in ("none", "digest"):
        return
    _mail_seat(s, "turn", game, seats, rules, state, seat, f"your turn (move {game.version + 1})")


def _on_game_started(s: Session, *, game: Game, seats: list[Seat], rules: engine.Rules, state: Any) -> None:
    _turn_mail(s, game, seats, rules, state)


def _on_move_applied(s: Session, *, game: Game, seats: list[Seat], rules: engine.Rules, mover: int | None,
                     state: Any) -> None:
    """A mail after every move to those who asked for it, and the turn mail when the turn passes."""
    for seat in seats:
        user: User | None = seat.user
        if user is None or user.notify != "every" or seat.number in (game.to_move, mover) or seat.resigned:
            continue
        _mail_seat(s, "move", game, seats, rules, state, seat, f"move {game.version} played")
    if game.to_move is not None and game.to_move != mover:
        _turn_mail(s, game, seats, rules, state)


def _on_game_finished(s: Session, *, game: Game, seats: list[Seat], rules: engine.Rules, state: Any) -> None:
    for seat in seats:
        if seat.user is not None and seat.user.notify != "none":
            _mail_seat(s, "result", game, seats, rules, state, seat, "game over")


def _on_reminder_due(s: Session, *, game: Game, seat: Seat, user: User) -> None:
    if user.notify == "none":
        return
    deadline = deadlines.fmt(game.deadline)
    outbox.queue(s, kind="reminder", recipient=user.email, user_id=user.id, game_id=game.id, seq=game.version,
                 subject=f"[pbem #{game.id} {engine.get(game.title).title}] reminder: your move by {deadline}",
                 body=(f"It is still your turn in game {game.id} (move {game.version + 1}). "
                       f"The deadline is {deadline} (UTC); after it the game's timeout "
                       f"policy ({game.timeout_policy}) applies. Reply to this mail with your move."),
                 reply_seat=seat.number, reply_seq=game.version)


def _on_player_late(s: Session, *, game: Game, seat: Seat, text: str) -> None:
    """Tell the table (every player still in, who wants mail) that a player missed the deadline."""
    title = engine.get(game.title).title
    for other in s.scalars(select(Seat).where(Seat.game_id == game.id, Seat.user_id.is_not(None))):
        if other.user.notify != "none" and not other.resigned:
            outbox.queue(s, kind="late", recipient=other.user.email, user_id=other.user.id, game_id=game.id,
                         seq=game.version, subject=f"[pbem #{game.id} {title}] {seat.display_name} is late",
                         body=text)


def connect() -> None:
    """Listen to the game service and the scheduler (pbem.wiring.connect calls this once per process)."""
    events.game_started.connect(_on_game_started)
    events.move_applied.connect(_on_move_applied)
    events.game_finished.connect(_on_game_finished)
    events.reminder_due.connect(_on_reminder_due)
    events.player_late.connect(_on_player_late)
