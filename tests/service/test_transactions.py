"""A move's transaction: everything it causes commits with it or not at all, its jobs leave after the commit.

What players rely on: a move that fails half-way (a listener's write refused by the database)
stores nothing, no move, no mail, and posts no job; a move's jobs are posted once, only after
its commit; a game nobody listens to is not changed (its mails would be lost); a move after the
database server dropped its connections (a restart) is played once.
"""

from __future__ import annotations

import pytest
import sqlalchemy
from sqlalchemy import select

from pbem import events, games, jobs
from pbem.models import MoveRecord, OutboundMail
from pbem.notify import outbox
from tests.service.test_games import move_count, play_known_seed


@pytest.fixture
def posted(monkeypatch):
    """The batches of jobs handed to the poster, with what the database held at that moment."""
    handed = []
    monkeypatch.setattr(jobs._POSTER, "put", lambda url, batch: handed.append(batch))
    return handed


def test_a_move_whose_transaction_fails_stores_nothing_and_posts_no_job(db, posted):
    game_id, by_seat = play_known_seed(db)
    posted.clear()

    def refused_write(s, **_facts):  # a listener's row the database refuses (no user 999999)
        outbox.queue(s, kind="turn", recipient="x@example.org", user_id=999_999, subject="s", body="b")

    events.move_applied.connect(refused_write)
    try:
        with pytest.raises(sqlalchemy.exc.IntegrityError):
            games.submit(db, game_id, "take 1", user_id=by_seat[0])
    finally:
        events.move_applied.disconnect(refused_write)
    assert move_count(db, game_id) == 0
    with db.sessions() as s:
        assert s.scalars(select(OutboundMail).where(OutboundMail.game_id == game_id, OutboundMail.seq == 1)).all() == []
    assert posted == []
    # Nothing was left half-done: the same move goes through now.
    assert games.submit(db, game_id, "take 1", user_id=by_seat[0]).seq == 1
    assert posted and (jobs.RENDER_BOARD, (game_id, 1)) in posted[-1]


def test_a_moves_jobs_are_posted_once_and_only_after_its_commit(db, monkeypatch):
    game_id, by_seat = play_known_seed(db)
    seen = []

    def put(url, batch):  # the commit is done when the jobs are handed over: the move is there to read
        seen.append((batch, move_count(db, game_id)))

    monkeypatch.setattr(jobs._POSTER, "put", put)
    games.submit(db, game_id, "take 1", user_id=by_seat[0])
    assert len(seen) == 1
    batch, moves_then = seen[0]
    assert moves_then == 1
    assert batch.count((jobs.RENDER_BOARD, (game_id, 1))) == 1
    with db.sessions() as s:
        turn_mail = s.scalars(select(OutboundMail.id).where(OutboundMail.game_id == game_id,
                                                            OutboundMail.seq == 1)).all()
    assert [(jobs.SEND_MAIL, (row_id,)) for row_id in turn_mail] == [j for j in batch if j[0] == jobs.SEND_MAIL]


def test_a_game_nobody_listens_to_is_not_changed(db, monkeypatch):
    game_id, by_seat = play_known_seed(db)
    monkeypatch.setattr(events.move_applied, "receivers", {})
    with pytest.raises(events.NoListenersError, match="wiring.connect"):
        games.submit(db, game_id, "take 1", user_id=by_seat[0])
    assert move_count(db, game_id) == 0


def test_a_move_after_the_server_dropped_its_connections_is_played_once(pg_db):
    game_id, by_seat = play_known_seed(pg_db)
    games.submit(pg_db, game_id, "take 1", user_id=by_seat[0])  # the pool now holds a connection
    assert pg_db.engine.pool.checkedin() >= 1
    with pg_db.engine.connect() as c:  # as a restart of the server does to every pooled connection
        c.exec_driver_sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                          "WHERE datname = current_database() AND pid <> pg_backend_pid()")
        c.commit()
    result = games.submit(pg_db, game_id, "take 2", user_id=by_seat[1], key="after-restart")
    assert (result.seq, result.duplicate) == (2, False)
    with pg_db.sessions() as s:
        assert s.scalars(select(MoveRecord.notation).where(MoveRecord.game_id == game_id)
                         .order_by(MoveRecord.seq)).all() == ["take 1", "take 2"]
