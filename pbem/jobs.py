"""Background jobs, sent by name to the Celery worker once the transaction that made them commits.

pbem never imports the worker package: it only knows the task names below, and the worker
registers its tasks under the same names. A job is sent after the commit (never before,
so the worker cannot see a half-written change) and, if the broker is down, the failure is
logged and swallowed: the periodic sweep finds the work in the database and does it later.
This module does not run jobs; it only posts them.

Jobs made by a commit are posted by one poster thread per process, in commit order, so that
a player's move never waits on the broker: the commit returns as soon as the database has
the move. A process that ends posts what is queued first (atexit, bounded by SEND_TIMEOUT_S);
a process killed before its poster ran loses only the post, never the work, which the sweep
finds. While the broker is failing, the poster drops posts for BACKOFF_S instead of waiting
SEND_TIMEOUT_S on each, so a broker outage never builds a backlog in the web server.
"""

from __future__ import annotations

import atexit
import logging
import os
import queue
import socket
import threading
import time
import uuid
from dataclasses import replace
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from sqlalchemy import delete, event, select
from sqlalchemy.orm import Session

from pbem import config
from pbem.db import Database, Plain
from pbem.models import OutboundMail, utcnow

if TYPE_CHECKING:
    from celery import Celery

log = logging.getLogger(__name__)

GAME_CHANGED = "pbem.game_changed"  # (game_id, seq): render the board, send the game's pending mail
RENDER_BOARD = "pbem.render_board"  # (game_id, seq)
SEND_MAIL = "pbem.send_mail"  # (outbox_id,)
RECEIVE_MAIL = "pbem.receive_mail"  # (raw message as base64, envelope recipients, envelope sender)
SWEEP = "pbem.sweep"  # (): whatever is due or was missed
EXPIRE_GAME = "pbem.expire_game"  # (game_id,): a reminder or a timeout that is due

QUEUE = "pbem"
SEND_TIMEOUT_S = 5.0  # how long a post may wait for a broker that is down before the sweep takes over
BACKOFF_S = 5.0  # after a failed post, posts are dropped (left to the sweep) for this long
# The poster waits this long after the first job of a burst before it posts: consecutive moves of
# one game become one post (coalesce), and the poster thread wakes, taking the GIL from the
# threads that serve moves, at most 200 times a second (bench/service.py: a quarter of a move's
# time was the job thread's handover, with a wake-up per move).
GATHER_S = 0.005
_PENDING = "pbem_jobs"
_SQLITE_PREFIX = "sqla+sqlite"  # the embedded broker's URLs (kombu's SQLAlchemy transport on SQLite)

_apps: dict[str, Celery] = {}
_lock = threading.Lock()


def celery_config(settings: config.Settings) -> dict:
    """The Celery settings shared by the client here and the worker (one source of truth)."""
    broker_url = settings.broker_url
    transport: dict[str, Any] = {"max_retries": 1, "interval_start": 0, "interval_step": 0.5, "interval_max": 1}
    if broker_url.startswith(("redis://", "rediss://")):
        # An unacknowledged task (its worker died) is handed out again after this long.
        transport.update(visibility_timeout=settings.broker_visibility_s, socket_connect_timeout=SEND_TIMEOUT_S,
                         socket_timeout=SEND_TIMEOUT_S)
    elif broker_url.startswith(_SQLITE_PREFIX):
        # kombu hands these to create_engine: wait on SQLite's lock instead of failing at once.
        transport.update(connect_args={"timeout": 30})
    return {
        "broker_url": broker_url,
        "task_default_queue": QUEUE,
        "task_serializer": "json",
        "accept_content": ["json"],
        "task_acks_late": True,
        "task_reject_on_worker_lost": True,
        "worker_prefetch_multiplier": 1,
        "task_ignore_result": True,
        "broker_connection_retry_on_startup": True,
        # Posting a job must not hang a web request while the broker is down.
        "broker_transport_options": transport,
        "broker_connection_timeout": SEND_TIMEOUT_S,
        "timezone": "UTC",
        "enable_utc": True,
    }


def client(broker_url: str | None = None) -> "Celery":
    """The Celery app used to post jobs (one per broker URL, made on first use)."""
    url = broker_url or config.broker_url()
    app = _apps.get(url)
    if app is not None:
        return app
    settings = config.load()
    with _lock:
        # Imported here, not at the top (the game service loads this module, Celery only a
        # poster), and under the lock: celery's package replaces its own module object while
        # it loads, and threads of a web server importing it at once got "cannot import name
        # 'Celery'" (seen in bench/web.py), which lost their posts to the sweep.
        from celery import Celery

        app = _apps.get(url)
        if app is None:
            app = Celery("pbem", set_as_current=False)
            app.conf.update(celery_config(replace(settings, broker_url=url)))
            _apps[url] = app
        return app


def prepare_broker(broker_url: str | None = None) -> None:
    """Declare the job queue once, before several processes share the broker.

    kombu's SQLAlchemy transport creates a queue's row on first use, and two processes doing
    that at the same moment leave one of them failing on the unique name for good; declared
    ahead, every process finds the row.
    """
    app = client(broker_url)
    with app.connection_for_write() as connection:
        _queue().declare(channel=connection.default_channel)


def send(task_name: str, *args: Any, broker_url: str | None = None) -> bool:
    """Post one job now; on a broker failure log it and return False (the sweep will do the work)."""
    url = broker_url or config.broker_url()
    try:
        kept = url in getattr(_local, "producers", {})
        try:
            _publish(url, task_name, args)
        except Exception:  # noqa: BLE001 - a kept connection may have gone stale while idle: once more, afresh
            if not kept:
                raise
            _forget(url)
            _publish(url, task_name, args)
    except Exception as error:  # noqa: BLE001 - any broker failure: the database still holds the work
        _forget(url)
        log.warning("job %s%s not posted (%s: %s); the sweep will pick it up",
                    task_name, tuple(args), type(error).__name__, error)
        return False
    return True


# Posting is Celery's task message (protocol 2, what `send_task` sends), published by kombu on a
# producer kept per thread and broker: `send_task` cost ten times as much CPU per job (routing,
# signals, a producer pool and a repr of the arguments on every call), about 0.16 ms of every move.
_local = threading.local()
_connections: list = []  # every thread's, so that close_clients can close them
_generation = 0  # close_clients counts up: a thread's producers of an earlier generation are closed
_ORIGIN = f"pbem@{socket.gethostname()}"


def _queue():
    from kombu import Exchange, Queue

    return Queue(QUEUE, Exchange(QUEUE), routing_key=QUEUE)


def _producer(url: str):
    producers = getattr(_local, "producers", None)
    if (producers is None or getattr(_local, "pid", None) != os.getpid()  # a forked child: not the parent's sockets
            or getattr(_local, "generation", None) != _generation):  # or closed by close_clients
        producers = _local.producers = {}
        _local.pid = os.getpid()
        _local.generation = _generation
    entry = producers.get(url)
    if entry is None:
        if url.startswith(_SQLITE_PREFIX):  # the embedded broker: stored by _sqlite_broker() (below)
            connection = client(url).connection_for_write(url.removeprefix("sqla+"), transport=_sqlite_broker())
        else:
            connection = client(url).connection_for_write()
        with _lock:
            _connections.append(connection)
        producer = connection.Producer(serializer="json")
        producer.maybe_declare(_queue())  # once per kept connection, as kombu's own cache would
        entry = producers[url] = (connection, producer)
    return entry


_sqlite_transport = None


def _sqlite_broker():
    """The transport this process posts to the embedded SQLite broker with: kombu's SQLAlchemy one,
    storing each message with one precompiled INSERT (its queue's id kept) on a connection in WAL
    mode with synchronous=NORMAL, instead of an ORM query of the queue, an ORM flush and a commit
    that waits for the disk: 0.1 ms of CPU a post instead of 1.4 ms (bench/jobs.py). The worker
    consumes with kombu's own transport from the same tables.

    With synchronous=NORMAL, a post committed just before a power cut can be lost (never one
    before a process crash); that costs what a post lost to a broker outage costs: the sweep finds
    the work in the game database, which keeps synchronous=FULL.
    """
    global _sqlite_transport
    if _sqlite_transport is None:
        from kombu.transport import sqlalchemy as kombu_sqla
        from kombu.utils.json import dumps
        from sqlalchemy import insert

        def pragmas(dbapi_connection, _record) -> None:
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")  # kept in the file: the worker's connections use it too
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.close()

        class PosterChannel(kombu_sqla.Channel):
            _engines: dict = {}  # not kombu's, which a consumer in this process may share

            def _engine_from_config(self):
                engine = super()._engine_from_config()
                event.listen(engine, "connect", pragmas)
                return engine

            def _put(self, queue, payload, **kwargs):
                queue_ids = self.__dict__.setdefault("_pbem_queue_ids", {})
                queue_id = queue_ids.get(queue)
                if queue_id is None:
                    queue_id = queue_ids[queue] = self._get_or_create(queue).id
                    self.session.commit()  # not left open: it would hold SQLite's read snapshot
                    # What an ORM insert of kombu's Message fills in: visible's and version's defaults.
                    self._pbem_insert = insert(self.message_cls.__table__).values(visible=True, version=1)
                engine, _ = self._open()
                # Raises OperationalError as kombu's does: the post fails, the poster logs it and
                # the sweep does the work.
                with engine.begin() as connection:
                    connection.execute(self._pbem_insert, {"payload": dumps(payload), "queue_id": queue_id})

        class PosterTransport(kombu_sqla.Transport):
            Channel = PosterChannel

        _sqlite_transport = PosterTransport
    return _sqlite_transport


def prune_broker(broker_url: str | None = None, batch: int = 5000) -> int:
    """Delete the messages the embedded SQLite broker has delivered; returns how many (the sweep).

    kombu's SQLAlchemy transport keeps every message it has handed to a worker, marked
    invisible, and never reads one again (a message a worker took but did not acknowledge is
    put back as a new row), so without this its file grows by every job ever posted. Other
    brokers drop what they deliver: for them this does nothing. Deleted in batches, so that
    posters wait for the broker's lock for a moment at most.
    """
    url = broker_url or config.broker_url()
    if not url.startswith(_SQLITE_PREFIX):
        return 0
    channel = _producer(url)[1].channel
    engine, _ = channel._open()
    messages = channel.message_cls.__table__
    delivered = select(messages.c.id).where(messages.c.visible == False).limit(batch)  # noqa: E712 - SQL
    total = 0
    while True:
        with engine.begin() as connection:
            deleted = connection.execute(delete(messages).where(messages.c.id.in_(delivered.scalar_subquery())))
        total += deleted.rowcount
        if deleted.rowcount < batch:
            return total


def _forget(url: str) -> None:
    entry = getattr(_local, "producers", {}).pop(url, None)
    if entry is not None:
        with _lock:
            if entry[0] in _connections:
                _connections.remove(entry[0])
        try:
            entry[0].release()
        except Exception:  # noqa: BLE001 - it is being dropped because it failed
            pass


def _publish(url: str, task_name: str, args: tuple) -> None:
    _, producer = _producer(url)
    task_id = str(uuid.uuid4())
    args = list(args)
    headers = {
        "lang": "py", "task": task_name, "id": task_id, "shadow": None, "eta": None, "expires": None,
        "group": None, "group_index": None, "retries": 0, "timelimit": [None, None], "root_id": task_id,
        "parent_id": None, "argsrepr": repr(tuple(args))[:1024], "kwargsrepr": "{}", "origin": _ORIGIN,
        "ignore_result": True, "replaced_task_nesting": 0, "stamped_headers": None, "stamps": {},
    }
    body = (args, {}, {"callbacks": None, "errbacks": None, "chain": None, "chord": None})
    # As send_task(queue=QUEUE) does: the default exchange, the queue's name as routing key, the
    # queue declared (once per connection: in _producer, since kombu's `declare=` binds a copy of
    # the queue on every publish, two thirds of a post's CPU), persistent delivery.
    producer.publish(body, exchange="", routing_key=QUEUE, delivery_mode=2, headers=headers,
                     correlation_id=task_id, reply_to="", retry=False)


def after_commit(session: Session, task_name: str, *args: Any) -> None:
    """Post a job once the session's current transaction commits; dropped if it rolls back."""
    pending = session.info.setdefault(_PENDING, [])
    job = (task_name, tuple(args))
    if job not in pending:
        pending.append(job)


def _flush_pending(session: Session) -> None:
    pending = session.info.pop(_PENDING, None) if session.info else None
    if pending:
        _POSTER.put(config.broker_url(), pending)


def coalesce(batches: list[tuple[str, list[tuple[str, tuple]]]]) -> list[tuple[str, str, tuple]]:
    """The jobs of several commits, in commit order, without the game_changed jobs that a later
    one of the same game makes redundant: game_changed sends every pending mail of its game and
    draws the board of its move, so under a burst of moves one game costs one post, not one per
    move (the boards of the moves between are drawn when a page or a mail asks for them)."""
    jobs = [(url, task_name, args) for url, batch in batches for task_name, args in batch]
    last = {(url, args[0]): i for i, (url, task_name, args) in enumerate(jobs) if task_name == GAME_CHANGED}
    return [job for i, job in enumerate(jobs)
            if job[1] != GAME_CHANGED or last[(job[0], job[2][0])] == i]


class _Poster:
    """The process's poster thread: takes the jobs of each commit and posts them in order."""

    def __init__(self) -> None:
        self.queue: queue.SimpleQueue = queue.SimpleQueue()
        self.lock = threading.Lock()
        self.idle = threading.Condition(self.lock)
        self.unfinished = 0
        self.pid: int | None = None
        self.failed_until = 0.0

    def put(self, broker_url: str, batch: list[tuple[str, tuple]]) -> None:
        with self.lock:
            if self.pid != os.getpid():  # first use, or a forked child: the parent's thread is not here
                self.queue = queue.SimpleQueue()
                self.unfinished = 0
                self.pid = os.getpid()
                threading.Thread(target=self._run, name="pbem-job-poster", daemon=True).start()
            self.unfinished += 1
            self.queue.put((broker_url, batch))

    def _run(self) -> None:
        jobs_queue = self.queue
        while True:
            taken = [jobs_queue.get()]
            time.sleep(GATHER_S)
            while True:  # and whatever else is queued by now: a burst is posted as one
                try:
                    taken.append(jobs_queue.get_nowait())
                except queue.Empty:
                    break
            try:
                for broker_url, task_name, args in coalesce(taken):
                    if time.monotonic() < self.failed_until:
                        log.warning("job %s%s not posted (the broker failed less than %g s ago); "
                                    "the sweep will pick it up", task_name, args, BACKOFF_S)
                    elif not send(task_name, *args, broker_url=broker_url):
                        self.failed_until = time.monotonic() + BACKOFF_S
            finally:
                with self.lock:
                    self.unfinished -= len(taken)
                    if self.unfinished <= 0:
                        self.idle.notify_all()

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until every job queued so far is posted (or dropped); False on timeout."""
        with self.lock:
            if self.pid != os.getpid():
                return True
            return self.idle.wait_for(lambda: self.unfinished <= 0, timeout)


_POSTER = _Poster()


def flush(timeout: float | None = SEND_TIMEOUT_S * 2) -> bool:
    """Wait until this process has posted every job of the commits made so far (tests, and exit)."""
    return _POSTER.flush(timeout)


atexit.register(flush)


def _drop_pending(session: Session) -> None:
    session.info.pop(_PENDING, None)


# Listeners on the Session class, once (listening on each session that posts costs more than the post).
event.listen(Session, "after_commit", _flush_pending)
event.listen(Session, "after_rollback", _drop_pending)
Plain.after_commit.append(_flush_pending)  # a move's plain transaction (pbem.db.Plain)


def close_clients() -> None:
    """Close the broker connections of every client app (tests, and a process that ends)."""
    flush()
    _POSTER.failed_until = 0.0
    global _generation
    with _lock:
        apps = list(_apps.values())
        _apps.clear()
        connections = list(_connections)
        _connections.clear()
        _generation += 1  # every thread's kept producer is dropped before its next post
    _local.producers = {}
    for connection in connections:
        try:
            connection.release()
        except Exception:  # noqa: BLE001 - closing what may already be gone
            pass
    for app in apps:
        app.close()


def transient_errors() -> tuple[type[BaseException], ...]:
    """Errors a job retries with backoff: the database, the mail server or the network away for a while."""
    import sqlalchemy.exc

    errors: list[type[BaseException]] = [sqlalchemy.exc.OperationalError, sqlalchemy.exc.InterfaceError,
                                         sqlalchemy.exc.TimeoutError, ConnectionError, TimeoutError]
    try:
        from pbem.mail.outbound import TransientMailError
    except ImportError:
        pass
    else:
        errors.append(TransientMailError)
    return tuple(errors)


def due_mail(db: Database, older_than_s: float, game_id: int | None = None, limit: int = 500) -> list[int]:
    """Outbox rows to (re)post: a game's pending rows (any age), or every row pending for `older_than_s`
    seconds, or claimed by a sender that died (its claim is older than the mail layer's timeout)."""
    query = select(OutboundMail.id).order_by(OutboundMail.id).limit(limit)
    if game_id is not None:
        query = query.where(OutboundMail.game_id == game_id, OutboundMail.status == "pending")
    else:
        stale = (OutboundMail.status == "pending") & (
            OutboundMail.created_at <= utcnow() - timedelta(seconds=older_than_s))
        claimed_at = getattr(OutboundMail, "claimed_at", None)
        if claimed_at is not None:
            stale = stale | ((OutboundMail.status == "sending") & (claimed_at <= utcnow() - _claim_timeout()))
        query = query.where(stale)
    with db.sessions() as s:
        return list(s.scalars(query))


def _claim_timeout() -> timedelta:
    try:
        from pbem.mail.outbound import CLAIM_TIMEOUT
    except ImportError:
        return timedelta(minutes=5)
    return CLAIM_TIMEOUT
