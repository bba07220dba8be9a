"""A real Celery worker process does the work after a move: boards drawn, mail sent, deadlines kept."""

from __future__ import annotations

import base64
import email

from sqlalchemy import select

import engine
from pbem import accounts
from pbem import boards, games, jobs, migrate
from pbem.schedule import deadlines
from pbem.db import Database
from pbem.models import Board, Game, InboundMail, OutboundMail
from tests.worker.conftest import wait_for
from tests.worker.helpers import T0, mails, table

TIMEOUT = 120  # seconds; generous for a loaded 2-core machine, never a measure of speed


def drawable_title() -> str | None:
    """A real game the renderers package can draw, if it is there yet."""
    for title in engine.names():
        if title not in ("counters", "passing") and boards.can_render(title):
            return title
    return None


def play(db, title: str, moves: int) -> tuple[int, list[int]]:
    """Open a table of `title`, fill it, and play `moves` decisions through the game service."""
    rules = engine.get(title)
    users = [accounts.ensure_user(db, f"w{n}@example.org", f"W{n}") for n in range(rules.min_players)]
    game_id = games.create_game(db, title, users[0], rules.min_players, {})
    for user in users[1:]:
        games.join_game(db, game_id, user)
    for _ in range(moves):
        data = games.view(db, game_id)
        if data["status"] != "running":
            break
        seat = data["to_move"]
        user = next(u for u in users if games.view(db, game_id, u)["my_seat"] == seat)
        legal = games.view(db, game_id, user)["legal_moves"]
        games.submit(db, game_id, legal[0], user_id=user, source="web", expected_version=data["version"])
    return game_id, users


def all_sent(db):
    rows = mails(db)
    failed = [(r.id, r.last_error) for r in rows if r.status == "failed"]
    assert not failed, f"mail that could not be sent: {failed[:3]}"
    return rows if rows and all(r.status == "sent" for r in rows) else None


def test_a_game_played_through_the_service_gets_its_boards_and_mail_from_the_worker(
        pg_db, redis_server, smtp_sink, celery, broker):
    broker(redis_server.url)
    celery("worker", {"PBEM_DATABASE_URL": pg_db.url, "PBEM_BROKER_URL": redis_server.url,
                      "PBEM_SMTP_URL": smtp_sink.url})
    title = drawable_title() or "counters"
    game_id, _ = play(pg_db, title, 6)
    rows = wait_for(lambda: all_sent(pg_db), TIMEOUT, "the worker to send every outbox row")
    with pg_db.sessions() as s:
        game = s.get(Game, game_id)
        version, players, turn_began = game.version, game.players, game.turn_seq
    assert version >= 1 and len(rows) >= 2
    received = smtp_sink.ids()
    assert {r.message_id for r in rows} <= set(received)
    assert all(count == 1 for count in received.values()), received  # nothing sent twice
    if title != "counters":
        wait_for(lambda: boards.missing(pg_db) == [], TIMEOUT, "the worker to draw the board where the turn began")
        with pg_db.sessions() as s:
            viewers = set(s.scalars(select(Board.viewer).where(Board.game_id == game_id, Board.seq == turn_began)))
        mailed = {a["board"]["viewer"] for r in rows if r.seq == turn_began for a in r.attachments or []}
        # The spectator's board for the page where the turn began (the steps inside a turn are drawn when
        # asked), and a seat's board only where a mail carried it and the seat does not see what a
        # spectator sees (then the spectator's picture serves: issue 22).
        assert -1 in viewers and viewers <= {-1, *mailed} and len(viewers) < players + 1
        turn = [r for r in rows if r.kind == "turn" and r.attachments][-1]
        message = next(m for m in smtp_sink.messages if m["Message-ID"] == turn.message_id)
        assert any(part.get_content_type() == "image/png" for part in message.walk())


def test_a_worker_on_rabbitmq_sends_the_mail_of_a_move(pg_db, rabbitmq_url, smtp_sink, celery, broker):
    """RabbitMQ as the broker: the jobs posted after the commits reach a real worker, which sends every mail."""
    broker(rabbitmq_url)
    celery("worker", {"PBEM_DATABASE_URL": pg_db.url, "PBEM_BROKER_URL": rabbitmq_url,
                      "PBEM_SMTP_URL": smtp_sink.url}, concurrency=1)
    game_id, users = table(pg_db, at=deadlines.now())
    games.submit(pg_db, game_id, "take 3", user_id=users[0])
    rows = wait_for(lambda: all_sent(pg_db), TIMEOUT, "the worker to send every outbox row")
    assert {r.kind for r in rows} >= {"turn"} and len(rows) >= 2
    assert {m["Message-ID"] for m in smtp_sink.messages} >= {r.message_id for r in rows}


def test_the_embedded_default_sqlite_broker_and_database_with_the_local_outbox(tmp_path, celery, broker,
                                                                               monkeypatch):
    data = tmp_path / "data"
    monkeypatch.setenv("PBEM_DATA_DIR", str(data))
    monkeypatch.delenv("PBEM_DATABASE_URL", raising=False)
    monkeypatch.setenv("PBEM_SECRET_KEY", "test-secret")
    url = f"sqlite:///{data / 'pbem.sqlite3'}"
    broker_url = f"sqla+sqlite:///{data / 'broker.sqlite3'}"  # what pbem.config defaults to
    migrate.upgrade(url)
    broker(broker_url)
    db = Database(url)
    try:
        celery("worker", {"PBEM_SMTP_URL": "outbox:"}, concurrency=1)  # no database or broker URL: the defaults
        game_id, users = table(db, at=deadlines.now())
        games.submit(db, game_id, "take 3", user_id=users[0])
        rows = wait_for(lambda: all_sent(db), TIMEOUT, "the worker to write every mail to the outbox")
        files = sorted((data / "outbox").glob("*.eml"))
        assert len(files) == len(rows) >= 2
        first = email.message_from_bytes(files[0].read_bytes())
        assert first["Message-ID"] == rows[0].message_id and first["To"] == rows[0].recipient
        raw = (b"From: stranger@example.net\r\nTo: pbem@pbem.localhost\r\nSubject: hello\r\n"
               b"Message-ID: <inbound-1@example.net>\r\n\r\n/help\r\n")
        assert jobs.send(jobs.RECEIVE_MAIL, base64.b64encode(raw).decode("ascii"), ["pbem@pbem.localhost"],
                         "stranger@example.net")

        def stored():
            with db.sessions() as s:
                return s.scalars(select(InboundMail).where(InboundMail.message_id == "<inbound-1@example.net>")).first()

        assert wait_for(stored, TIMEOUT, "the worker to take in the message").raw == raw
    finally:
        db.dispose()


def test_the_worker_applies_a_timeout_found_by_the_sweep(pg_db, redis_server, smtp_sink, celery, broker):
    broker(redis_server.url)
    game_id, users = table(pg_db, policy="random", at=T0)  # its deadline is long past
    env = {"PBEM_DATABASE_URL": pg_db.url, "PBEM_BROKER_URL": redis_server.url, "PBEM_SMTP_URL": smtp_sink.url,
           "PBEM_SWEEP_EVERY_S": "1", "PBEM_SWEEP_AFTER_S": "1"}
    celery("worker", env)
    celery("beat", env)

    def timed_out():
        with pg_db.sessions() as s:
            game = s.get(Game, game_id)
            return game.version >= 1 and game.deadline > T0 + (game.deadline - T0) / 2 and game

    wait_for(timed_out, TIMEOUT, "the sweep to play the overdue turn")
    moves = games.history(pg_db, game_id)
    assert moves[0]["source"] == "timeout"
    wait_for(lambda: all_sent(pg_db), TIMEOUT, "the turn mail after the timeout")
    with pg_db.sessions() as s:
        assert s.scalars(select(OutboundMail.kind).where(OutboundMail.game_id == game_id)).all()


def test_two_workers_on_separate_queues_share_the_broker_and_the_database(pg_db, redis_server, smtp_sink, celery,
                                                                          broker, tmp_path):
    """A site that outgrows one machine runs workers for mail and workers for pictures (docs/operations.md):
    each takes only its queue's jobs, and together they do all the work of a move."""
    broker(redis_server.url)
    env = {"PBEM_DATABASE_URL": pg_db.url, "PBEM_BROKER_URL": redis_server.url, "PBEM_SMTP_URL": smtp_sink.url}
    mail_worker = celery("worker", env, concurrency=1, queues=jobs.QUEUE)
    picture_worker = celery("worker", env, concurrency=1, queues=jobs.PICTURES_QUEUE)
    title = drawable_title()
    assert title is not None
    game_id, _ = play(pg_db, title, 3)
    rows = wait_for(lambda: all_sent(pg_db), TIMEOUT, "the mail worker to send every outbox row")
    wait_for(lambda: boards.missing(pg_db) == [], TIMEOUT, "the picture worker to draw the board where the turn began")
    ran = "Task {}["  # the line of a task run (the start-up lists every task registered)
    # The board may be drawn first by the mail worker, for the turn mail's picture: the picture worker's jobs
    # may still be on their way then (a loaded machine starts it late), so its log is waited for too.
    wait_for(lambda: ran.format(jobs.RENDER_BOARD) in picture_worker.log.read_text(), TIMEOUT,
             "the picture worker to run its jobs")
    mail_log, picture_log = mail_worker.log.read_text(), picture_worker.log.read_text()
    assert ran.format(jobs.SEND_MAIL) in mail_log and ran.format(jobs.RENDER_BOARD) not in mail_log
    assert ran.format(jobs.RENDER_BOARD) in picture_log and ran.format(jobs.SEND_MAIL) not in picture_log
    assert {r.message_id for r in rows} <= set(smtp_sink.ids())


def test_a_sign_up_confirmation_is_handed_to_smtp_within_5_seconds_on_the_embedded_default(
        tmp_path, smtp_sink, celery, broker, monkeypatch):
    """A mail a person waits for ("check your mail") leaves at once (issue 22): its send job is posted by
    the transaction that wrote it, not found by the sweep a minute later. The embedded default: SQLite
    database and broker, a real worker."""
    import time

    from pbem.web import create_app
    from tests.web.conftest import post

    data = tmp_path / "data"
    monkeypatch.setenv("PBEM_DATA_DIR", str(data))
    monkeypatch.delenv("PBEM_DATABASE_URL", raising=False)
    monkeypatch.setenv("PBEM_SECRET_KEY", "test-secret")
    url = f"sqlite:///{data / 'pbem.sqlite3'}"
    migrate.upgrade(url)
    broker(f"sqla+sqlite:///{data / 'broker.sqlite3'}")  # what pbem.config defaults to
    jobs.prepare_broker()
    celery("worker", {"PBEM_SMTP_URL": smtp_sink.url}, concurrency=1)  # no database or broker URL: the defaults
    # The worker is up once it has done a job (its start is not what a person waits for).
    assert jobs.send(jobs.SWEEP)
    wait_for(lambda: (tmp_path / "worker0.log").exists() and "pbem.sweep" in (tmp_path / "worker0.log").read_text(),
             TIMEOUT, "the worker to start")
    app = create_app({"TESTING": True, "DATABASE_URL": url})
    try:
        client = app.test_client()
        started = time.monotonic()
        answer = post(client, "/signup", {"email": "new@example.org", "display_name": "New",
                                          "password": "a long enough password", "confirm": "a long enough password"},
                      page="/signup")
        assert answer.status_code in (200, 303)
        wait_for(lambda: any(m["To"] == "new@example.org" for m in smtp_sink.messages), TIMEOUT,
                 "the confirmation mail to reach the SMTP server")
        assert time.monotonic() - started < 5.0
    finally:
        app.extensions["pbem_db"].dispose()
