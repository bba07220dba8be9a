"""Which mails a change to a game causes: outbox rows written in the same transaction.

Only the rows are written here; the worker sends them after the commit. The texts are
plain and complete (whose turn, the last moves, the legal moves, the seed commitment);
the mail layer adds the board picture, threading headers and reply tokens.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import insert
from sqlalchemy.orm import Session

import engine
from pbem.models import Game, OutboundMail, Seat, User, utcnow

MAX_LISTED_MOVES = 60


def _subject(game: Game, rules: engine.Rules, text: str) -> str:
    return f"[pbem #{game.id} {rules.title}] {text}"


def _queue(s: Session, game: Game, user: User, kind: str, subject: str, body: str) -> None:
    s.connection().execute(insert(OutboundMail.__table__).values(
        game_id=game.id, user_id=user.id, kind=kind, recipient=user.email, subject=subject, body_text=body,
        seq=game.version, headers={}, attachments=[], status="pending", attempts=0, created_at=utcnow()))


def _moves_text(rules: engine.Rules, state: Any) -> str:
    moves = [rules.notation(state, m) for m in rules.legal_moves(state)]
    shown = moves[:MAX_LISTED_MOVES]
    more = f"\n  ... and {len(moves) - len(shown)} more (see the game page)" if len(moves) > len(shown) else ""
    return "\n".join(f"  {m}" for m in shown) + more


def _turn_mail(s: Session, game: Game, seats: list[Seat], rules: engine.Rules, state: Any) -> None:
    seat = seats[game.to_move]
    if seat.user is None or seat.resigned:
        return
    user = seat.user
    if user.notify == "none":
        return
    lines = [f"It is your turn in game {game.id} ({rules.title}), move {game.version + 1}.", ""]
    if game.deadline:
        lines.append(f"Deadline: {game.deadline:%Y-%m-%d %H:%M} UTC")
    lines += ["Your legal moves:", _moves_text(rules, state), "",
              f"Seed commitment: {game.commitment}"]
    _queue(s, game, user, "turn", _subject(game, rules, f"your turn (move {game.version + 1})"), "\n".join(lines))


def game_started(s: Session, game: Game, seats: list[Seat], rules: engine.Rules, state: Any) -> None:
    _turn_mail(s, game, seats, rules, state)


def after_move(s: Session, game: Game, seats: list[Seat], rules: engine.Rules, mover: int | None,
               state: Any) -> None:
    """Mail the next player when the turn passes to another seat, and everyone at the end."""
    if game.status == "finished":
        result = game.result
        names = {seat.number: seat.display_name for seat in seats}
        table = "\n".join(f"  {result['ranks'][n]}. {names[n]}: {result['scores'][n]} points"
                          for n in sorted(names, key=lambda n: result["ranks"][n]))
        body = (f"Game {game.id} ({rules.title}) is over. {result['reason']}\n\n{table}\n\n"
                f"The seed was {game.seed}; its SHA-256 is the commitment {game.commitment}.")
        for seat in seats:
            if seat.user is not None:
                _queue(s, game, seat.user, "result", _subject(game, rules, "game over"), body)
        return
    if game.to_move is not None and game.to_move != mover:
        _turn_mail(s, game, seats, rules, state)
