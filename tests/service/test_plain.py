"""A move's plain transaction (pbem.db.Plain): the same rows, errors and jobs as through a Session.

A move runs its statements on the pool's DBAPI connection, with no ORM session around them, and
on PostgreSQL in pipeline mode (its writes go with the COMMIT) and without a ping before it. What
players rely on: a move stores exactly what the ORM would have stored; a refused or failed move
stores nothing and posts no job; a move whose connection the server had closed is played once,
on a new connection, and a move whose commit may have happened is never played twice.
"""

from __future__ import annotations

from datetime import datetime

import pytest
import sqlalchemy
from sqlalchemy import bindparam, insert, select, update

from pbem import games, jobs
from pbem.db import Plain
from pbem.models import Game, GameEvent, MoveRecord, OutboundMail, Seat, User

_EVENT = insert(GameEvent.__table__)
_MAIL = insert(OutboundMail.__table__)
_UPDATE_GAME = update(Game.__table__).where(Game.__table__.c.id == bindparam("game_id"))
_EVENTS_OF = select(GameEvent.seq, GameEvent.detail, GameEvent.created_at).where(
    GameEvent.game_id == bindparam("game_id")).order_by(GameEvent.seq)
_SEATS_OF = select(Seat.number, Seat.resigned, Game.options, Game.deadline).join(Game, Game.id == Seat.game_id).where(
    Seat.game_id == bindparam("game_id")).order_by(Seat.number)


def table(db) -> int:
    user = games.ensure_user(db, "plain@example.org")
    return games.create_game(db, "counters", user, 2)


def event(game_id: int, seq: int, detail: dict, at: datetime) -> dict:
    return {"game_id": game_id, "seq": seq, "seat": None, "kind": "test", "detail": detail, "created_at": at}


def test_what_a_plain_transaction_writes_reads_back_the_same_through_the_orm_and_itself(db):
    game_id = table(db)
    whole_second, with_micros = datetime(2026, 3, 1, 12, 0, 0), datetime(2026, 3, 1, 12, 0, 0, 1234)
    detail = {"old": None, "new": "2026-03-02T12:00:00Z", "nested": [1, "é", {"x": True}]}

    def work(tx: Plain):
        tx.execute(_EVENT, event(game_id, 1, detail, whole_second))
        second = tx.execute(_EVENT, event(game_id, 2, {}, with_micros))
        if db.is_postgres:  # kept until the read below: no key to tell yet
            with pytest.raises(RuntimeError, match="sent later"):
                second.inserted_primary_key
        else:
            assert second.inserted_primary_key[0] > 0
        return tx.execute(_EVENTS_OF, {"game_id": game_id}).all()  # a read after kept writes sees them

    rows = db.run_plain(work)
    assert [tuple(row) for row in rows] == [(1, detail, whole_second), (2, {}, with_micros)]
    with db.sessions() as s:
        stored = s.execute(select(GameEvent.seq, GameEvent.detail, GameEvent.created_at).where(
            GameEvent.game_id == game_id).order_by(GameEvent.seq)).all()
        assert [tuple(row) for row in stored] == [(1, detail, whole_second), (2, {}, with_micros)]
        s.scalars(select(Seat).where(Seat.game_id == game_id)).one().resigned = True
        game = s.get(Game, game_id)
        game.deadline = with_micros
        game.options = {**game.options, "note": ["é", None, 2.5]}
        options = game.options
        s.commit()
    # Booleans, JSON and times written by the ORM come back as the ORM gives them.
    seats = db.run_plain(lambda tx: tx.execute(_SEATS_OF, {"game_id": game_id}).all())
    assert [tuple(row) for row in seats] == [(0, True, options, with_micros)]


def test_a_failed_write_stores_nothing_of_its_transaction_and_posts_no_job(db, monkeypatch):
    game_id = table(db)
    posted = []
    monkeypatch.setattr(jobs._POSTER, "put", lambda url, batch: posted.append(batch))

    def work(tx: Plain):
        tx.execute(_EVENT, event(game_id, 1, {}, datetime(2026, 1, 1)))
        jobs.after_commit(tx, jobs.GAME_CHANGED, game_id, 1)
        # A user that does not exist: the foreign key refuses the row (on PostgreSQL, at the commit).
        tx.execute(_MAIL, {"game_id": game_id, "user_id": 999_999, "kind": "turn", "recipient": "x@example.org",
                           "subject": "s", "body_text": "", "seq": 1, "headers": {}, "attachments": [],
                           "status": "pending", "attempts": 0, "created_at": datetime(2026, 1, 1)})

    with pytest.raises(sqlalchemy.exc.IntegrityError):
        db.run_plain(work)
    with db.sessions() as s:
        assert s.scalars(select(GameEvent).where(GameEvent.game_id == game_id)).all() == []
        assert s.scalars(select(OutboundMail)).all() == []
    assert posted == []
    # The connection went back to the pool clean: the next transaction works.
    db.run_plain(lambda tx: tx.execute(_EVENT, event(game_id, 2, {}, datetime(2026, 1, 1))))
    with db.sessions() as s:
        assert s.scalars(select(GameEvent.seq).where(GameEvent.game_id == game_id)).all() == [2]


def test_the_writes_of_a_plain_transaction_apply_in_the_order_they_were_made(db):
    game_id = table(db)
    update = _UPDATE_GAME

    def work(tx: Plain):
        tx.execute(_EVENT, event(game_id, 1, {}, datetime(2026, 1, 1)))
        tx.execute(update, {"game_id": game_id, "version": 5})
        tx.execute(update, {"game_id": game_id, "version": 6})  # on PostgreSQL, queued behind the first
        tx.execute(_EVENT, event(game_id, 2, {}, datetime(2026, 1, 1)))

    db.run_plain(work)
    with db.sessions() as s:
        assert s.get(Game, game_id).version == 6
        assert s.scalars(select(GameEvent.seq).where(GameEvent.game_id == game_id).order_by(GameEvent.seq)
                         ).all() == [1, 2]


def test_writes_sent_as_one_statement_never_change_a_row_twice(pg_db, monkeypatch):
    """PostgreSQL runs the parts of one statement on one snapshot, and of two changes of one row
    in it only one takes effect: so only INSERTs are sent ahead of another write."""
    from tests.service.test_games import play_known_seed

    sent = []
    send = Plain.send

    def recording_send(tx):
        sent.append([compiled.sql.split()[0] for compiled, _ in tx._kept])
        send(tx)

    monkeypatch.setattr(Plain, "send", recording_send)
    game_id, by_seat = play_known_seed(pg_db)
    games.submit(pg_db, game_id, "take 1", user_id=by_seat[0])
    games.resign(pg_db, game_id, by_seat[1])  # an ORM session: nothing kept
    game_id = table(pg_db)

    def work(tx: Plain):
        tx.execute(_UPDATE_GAME, {"game_id": game_id, "version": 5})
        tx.execute(_EVENT, event(game_id, 1, {}, datetime(2026, 1, 1)))
        tx.execute(_UPDATE_GAME, {"game_id": game_id, "version": 6})
        tx.execute(_UPDATE_GAME, {"game_id": game_id, "version": 7})

    pg_db.run_plain(work)
    batches = [batch for batch in sent if batch]
    assert batches[0] == ["INSERT", "INSERT"]  # the move's log and snapshot, sent while its mails are made
    assert ["INSERT", "UPDATE"] in batches  # the turn mail and the game, with the commit
    assert batches[-3:] == [["UPDATE"], ["INSERT", "UPDATE"], ["UPDATE"]]
    assert all("UPDATE" not in batch[:-1] for batch in batches)
    with pg_db.sessions() as s:
        assert s.get(Game, game_id).version == 7


def test_jobs_of_a_plain_transaction_are_posted_after_its_commit(db, monkeypatch):
    game_id = table(db)
    posted = []

    def put(url, batch):  # the commit is done when the jobs are handed over
        with db.sessions() as s:
            posted.append((batch, s.scalars(select(GameEvent.seq).where(GameEvent.game_id == game_id)).all()))

    monkeypatch.setattr(jobs._POSTER, "put", put)

    def work(tx: Plain):
        tx.execute(_EVENT, event(game_id, 7, {}, datetime(2026, 1, 1)))
        jobs.after_commit(tx, jobs.GAME_CHANGED, game_id, 7)
        jobs.after_commit(tx, jobs.GAME_CHANGED, game_id, 7)  # the same job once
        assert posted == []

    db.run_plain(work)
    assert posted == [([(jobs.GAME_CHANGED, (game_id, 7))], [7])]


def test_an_insert_that_leaves_out_a_column_with_a_default_is_refused_before_it_runs(db):
    game_id = table(db)
    row = event(game_id, 1, {}, datetime(2026, 1, 1))
    del row["created_at"]  # the ORM would fill in utcnow(); a plain statement must be given it
    with pytest.raises(ValueError, match="created_at"):
        db.run_plain(lambda tx: tx.execute(_EVENT, row))
    with db.sessions() as s:
        assert s.scalars(select(GameEvent)).all() == []


def _backend_pids(pg_db) -> set[int]:
    with pg_db.engine.connect() as c:
        return set(c.exec_driver_sql(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
        ).scalars())


def _terminate(pg_db, pids: set[int]) -> None:
    with pg_db.engine.connect() as c:
        for pid in pids:
            c.exec_driver_sql(f"SELECT pg_terminate_backend({int(pid)})")
        c.commit()


def test_a_move_on_a_connection_the_server_closed_is_played_once_on_a_new_one(pg_db):
    from tests.service.test_games import play_known_seed

    game_id, by_seat = play_known_seed(pg_db)
    games.submit(pg_db, game_id, "take 1", user_id=by_seat[0])  # the moves pool now holds a connection
    pooled = pg_db.moves.pool.checkedin()
    assert pooled >= 1
    before = _backend_pids(pg_db)
    with pg_db.moves.connect() as c:  # which backend the pooled connection is
        mine = c.exec_driver_sql("SELECT pg_backend_pid()").scalar()
    assert mine in before
    _terminate(pg_db, {mine})  # as a restart of the server does to every pooled connection
    result = games.submit(pg_db, game_id, "take 2", user_id=by_seat[1], key="after-restart")
    assert (result.seq, result.duplicate) == (2, False)
    with pg_db.sessions() as s:
        assert s.scalars(select(MoveRecord.notation).where(MoveRecord.game_id == game_id)
                         .order_by(MoveRecord.seq)).all() == ["take 1", "take 2"]


def test_a_connection_lost_after_a_write_is_not_retried(pg_db):
    game_id = table(pg_db)
    calls = []

    def work(tx: Plain):
        calls.append(1)
        tx.execute(_EVENT, event(game_id, len(calls), {}, datetime(2026, 1, 1)))  # queued: it goes with COMMIT
        pid = tx.execute(select(sqlalchemy.func.pg_backend_pid())).scalar_one()
        _terminate(pg_db, {pid})

    with pytest.raises(sqlalchemy.exc.OperationalError):
        pg_db.run_plain(work)
    assert calls == [1]  # the outcome of a lost commit is unknown: never played a second time
    with pg_db.sessions() as s:
        assert s.scalars(select(GameEvent)).all() == []
    assert pg_db.run_plain(lambda tx: tx.execute(select(User.id)).all())  # the pool recovered
