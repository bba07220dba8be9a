"""Shared helpers of the worker tests: tables of the test games at a controlled moment."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from sqlalchemy import func, select

import engine
from engine.core import Move
from pbem import accounts
from pbem import games
from pbem.schedule import deadlines
from pbem.models import Game, GameEvent, MoveRecord, OutboundMail, Seat, User
from tests.engine.toygame import CountersRules

T0 = datetime(2026, 11, 16, 9, 0)  # a Monday, 09:00 UTC
SEED = 0x5EED


class PassingRules(CountersRules):
    """Counters where a player may also `pass` (so the skip policy has a pass to play)."""

    name = "passing"
    title = "Passing"
    version = "passing-1"

    def legal_moves(self, state):
        moves = super().legal_moves(state)
        return moves + [Move("pass")] if moves else moves

    def apply(self, state, move):
        if move == Move("pass") and not state.over:
            return replace(state, turn=(state.turn + 1) % state.players)
        return super().apply(state, move)

    def parse(self, state, text):
        if text.strip().lower() == "pass":
            return Move("pass")
        return super().parse(state, text)

    def notation(self, state, move):
        return "pass" if move.kind == "pass" else super().notation(state, move)


engine.register(PassingRules())


def table(db, title="counters", *, hours=24, policy="wait", timezones=("UTC", "UTC"), at=T0, options=None,
          **settings):
    """A started two-player game at moment `at`; returns (game id, user ids by seat)."""
    users = []
    for n, zone in enumerate(timezones):
        user_id = accounts.ensure_user(db, f"p{n}@example.org", f"Player {n}")
        with db.transaction() as s:
            s.get(User, user_id).timezone = zone
        users.append(user_id)
    game_id = games.create_game(db, title, users[0], len(users) + 1, options or {"pile": 15},
                                turn_hours=hours, timeout_policy=policy)
    for user_id in users[1:]:
        games.join_game(db, game_id, user_id)
    if settings:
        deadlines.configure(db, game_id, users[0], **settings)
    with deadlines.frozen(at):
        games.start_game(db, game_id, users[0], seed=SEED)
    with db.sessions() as s:
        seats = s.scalars(select(Seat).where(Seat.game_id == game_id).order_by(Seat.number)).all()
        return game_id, [seat.user_id for seat in seats]


def game(db, game_id) -> Game:
    with db.sessions() as s:
        return s.get(Game, game_id)


def moves(db, game_id) -> list[MoveRecord]:
    with db.sessions() as s:
        return list(s.scalars(select(MoveRecord).where(MoveRecord.game_id == game_id).order_by(MoveRecord.seq)))


def mails(db, kind=None) -> list[OutboundMail]:
    with db.sessions() as s:
        query = select(OutboundMail).order_by(OutboundMail.id)
        if kind:
            query = query.where(OutboundMail.kind == kind)
        return list(s.scalars(query))


def events(db, game_id, kind=None) -> list[GameEvent]:
    with db.sessions() as s:
        query = select(GameEvent).where(GameEvent.game_id == game_id).order_by(GameEvent.id)
        if kind:
            query = query.where(GameEvent.kind == kind)
        return list(s.scalars(query))


def count(db, model) -> int:
    with db.sessions() as s:
        return s.scalar(select(func.count()).select_from(model))
