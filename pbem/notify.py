"""Which mails a change to a game causes: outbox rows written in the same transaction.

Only rows are written here; the worker sends them after the commit (pbem.mail.outbound
adds the board picture, the threading headers and the seat's reply token). Exactly one
turn notification goes out per turn: when the turn passes to another seat.

A row names its game, move number (`seq`) and seat; its text is written when it is sent
(`text`), from the stored snapshot of that move and the log up to it, like its board
picture. Both are fixed by the log, so the mail says exactly what it would have said at the
move, and the player's move costs one insert here instead of a view, a history query and a
text. The content of a mail to a seat comes only from what that seat may see (`seat_view`),
so no seed of a running game, deck or other hand reaches a mail.
Per-user settings (User.notify): every (a mail after each move), turn (default: only
when it is my turn), digest (one mail a day, see pbem.mail.digest), none.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

import engine
from pbem.mail import compose, render
from pbem.models import Game, OutboundMail, Seat, Snapshot, User


def _subject(game: Game, rules: engine.Rules, text: str) -> str:
    return f"[pbem #{game.id} {rules.title}] {text}"


def seat_view(s: Session, game: Game, seats: list[Seat], rules: engine.Rules, state: Any,
              seat: int | None, seq: int | None = None) -> dict:
    """What one seat could see at move `seq` (default: now), in the shape of games.view."""
    from pbem import games  # games imports this module

    data = games.game_summary(s, game, seats)
    seq = game.version if seq is None else seq
    if seq != game.version:  # the game has moved on since: the facts of that move, not today's
        data.update(version=seq, to_move=rules.to_move(state), deadline=None, status="running")
    data["my_seat"] = seat
    data["board"] = rules.view(state, seat) if state is not None else None
    mine = seat is not None and data["to_move"] == seat and data["status"] == "running"
    data["legal_moves"] = [rules.notation(state, m) for m in rules.legal_moves(state)] if mine else []
    data["last_moves"] = games._history(s, game, seats, last=games.LAST_MOVES, upto=seq)
    return data


def text(s: Session, row: OutboundMail) -> str:
    """The text of an outbox row: as stored, or (a game notification) made now from its move's snapshot."""
    hints = row.headers or {}
    if row.body_text or "compose_seat" not in hints:
        return row.body_text
    from pbem import games

    game = s.get(Game, row.game_id)
    seats = games._seats(s, game)
    rules = engine.get(game.title)
    if row.seq == game.version:
        state = games.load_state(game)
    else:
        stored = s.execute(select(Snapshot.state).where(Snapshot.game_id == game.id,
                                                        Snapshot.seq == row.seq)).scalar_one()
        state = rules.state_from_json(json.loads(stored))
    data = seat_view(s, game, seats, rules, state, hints["compose_seat"], row.seq)
    render_text = {"turn": render.turn_text, "move": render.move_text, "result": render.result_text}[row.kind]
    return render_text(data, rules.title)


def _turn_mail(s: Session, game: Game, seats: list[Seat], rules: engine.Rules, state: Any) -> None:
    seat = seats[game.to_move]
    if seat.user is None or seat.resigned or seat.user.notify in ("none", "digest"):
        return
    compose.queue(s, kind="turn", recipient=seat.user.email, user_id=seat.user.id, game_id=game.id,
                  seq=game.version, subject=_subject(game, rules, f"your turn (move {game.version + 1})"),
                  body="", compose_seat=seat.number, reply_seat=seat.number, reply_seq=game.version,
                  board_viewer=seat.number, want_id=False)


def _move_mails(s: Session, game: Game, seats: list[Seat], rules: engine.Rules, state: Any,
                mover: int | None) -> None:
    """For players who asked for a mail after every move: the move and the board (not their turn)."""
    for seat in seats:
        user: User | None = seat.user
        if user is None or user.notify != "every" or seat.number in (game.to_move, mover) or seat.resigned:
            continue
        compose.queue(s, kind="move", recipient=user.email, user_id=user.id, game_id=game.id, seq=game.version,
                      subject=_subject(game, rules, f"move {game.version} played"),
                      body="", compose_seat=seat.number, board_viewer=seat.number, want_id=False)


def game_started(s: Session, game: Game, seats: list[Seat], rules: engine.Rules, state: Any) -> None:
    _turn_mail(s, game, seats, rules, state)


def after_move(s: Session, game: Game, seats: list[Seat], rules: engine.Rules, mover: int | None,
               state: Any) -> None:
    """Mail the next player when the turn passes to another seat, and everyone at the end."""
    if game.status == "finished":
        for seat in seats:
            if seat.user is not None and seat.user.notify != "none":
                compose.queue(s, kind="result", recipient=seat.user.email, user_id=seat.user.id, game_id=game.id,
                              seq=game.version, subject=_subject(game, rules, "game over"),
                              body="", compose_seat=seat.number, board_viewer=seat.number, want_id=False)
        return
    _move_mails(s, game, seats, rules, state, mover)
    if game.to_move is not None and game.to_move != mover:
        _turn_mail(s, game, seats, rules, state)
