"""Seats for bots through a real worker (issue 37 item 2): a person starts a game alone with two bots, and the
worker plays the bots' turns as moves with source "bot" until the game ends; the sweep posts a bot turn
that waited for the site's budget."""

from __future__ import annotations

import time

from sqlalchemy import select

from pbem import accounts, games
from pbem.games import archive
from pbem.models import Game, MoveRecord, Seat
from pbem.players import bot_seats
from tests.worker.conftest import wait_for

TIMEOUT = 120  # seconds; generous for a loaded machine, never a measure of speed


def test_37_2_a_game_started_alone_with_two_bots_is_played_to_the_end_through_the_worker(
        pg_db, redis_server, celery, broker):
    broker(redis_server.url)
    celery("worker", {"PBEM_DATABASE_URL": pg_db.url, "PBEM_BROKER_URL": redis_server.url,
                      "PBEM_SMTP_URL": "outbox:"})
    user_id = accounts.ensure_user(pg_db, "alone@example.org", "Alone")
    game_id = games.create_game(pg_db, "tongiaki", user_id, 3, {}, bot_seats=2, bot_level="easy")
    deadline = time.monotonic() + TIMEOUT

    def person_to_move_or_over():
        with pg_db.sessions() as s:
            game = s.get(Game, game_id)
            seat = s.scalar(select(Seat).where(Seat.game_id == game_id, Seat.number == game.to_move)) \
                if game.to_move is not None else None
            if game.status != "running":
                return "over"
            return ("person", game.version) if seat is not None and seat.user_id == user_id else None

    while True:
        assert time.monotonic() < deadline, "the game did not end in time"
        now = wait_for(person_to_move_or_over, TIMEOUT, "the worker to play the bots' turns")
        if now == "over":
            break
        legal = games.view(pg_db, game_id, user_id)["legal_moves"]
        games.submit(pg_db, game_id, legal[0], user_id=user_id, expected_version=now[1])
    with pg_db.sessions() as s:
        game = s.get(Game, game_id)
        records = s.scalars(select(MoveRecord).where(MoveRecord.game_id == game_id)).all()
        bots = set(s.scalars(select(Seat.number).where(Seat.game_id == game_id, Seat.bot_level.is_not(None))))
    assert game.status == "finished" and len(bots) == 2
    assert {r.source for r in records if r.seat in bots} == {"bot"}
    assert {r.seat for r in records if r.source == "bot"} == bots  # both bots played
    assert archive.verify_game(pg_db, game_id) == []
    assert bot_seats.queued(pg_db) == 0


def test_37_2_a_bot_turn_that_found_the_site_budget_full_is_posted_by_the_sweep(db, memory_broker, worker_db,
                                                                                  monkeypatch):
    monkeypatch.setattr(bot_seats, "SITE_BUDGET", 0)  # the site's budget is full
    user_id = accounts.ensure_user(db, "alone@example.org", "Alone")
    game_id = games.create_game(db, "tongiaki", user_id, 3, {}, bot_seats=2, bot_level="easy")
    with db.sessions() as s:
        game = s.get(Game, game_id)
        seats = s.scalars(select(Seat).where(Seat.game_id == game_id).order_by(Seat.number)).all()
        bot_first = seats[game.to_move].bot_level is not None
    if not bot_first:  # the person moves first: then a bot is to move
        legal = games.view(db, game_id, user_id)["legal_moves"]
        games.submit(db, game_id, legal[0], user_id=user_id)
    with db.sessions() as s:
        version = s.get(Game, game_id).version
    assert [job for job in memory_broker() if job[0] == bot_seats.PLAY_BOT] == []  # waiting, not posted
    assert worker_db.sweep()["bot_turns"] == 0  # still full
    monkeypatch.setattr(bot_seats, "SITE_BUDGET", 1)  # a place frees up
    assert worker_db.sweep()["bot_turns"] == 1
    assert [job for job in memory_broker() if job[0] == bot_seats.PLAY_BOT] == [(bot_seats.PLAY_BOT, [game_id, version])]
    assert worker_db.play_bot(game_id, version) == "moved"
    assert worker_db.play_bot(game_id, version) == "stale"  # the same job again moves nothing
