"""Background jobs, posted by name to the Celery worker once the transaction that made them commits.

pbem never imports the worker package: it only knows the task names below, and the worker
registers its tasks under the same names. A job is posted after the commit (never before,
so the worker cannot see a half-written change), with Celery's `send_task`, from a
SQLAlchemy `after_commit` hook, as Warehouse does. If the broker is down, the failure is
logged and swallowed: the periodic sweep finds the work in the database and does it later.
This module does not run jobs; it only posts them.

The posts of a commit are handed to one poster thread per process, so that a player's move
never waits for the broker: with the broker stalled (the soak pauses it), a post waits up to
SEND_TIMEOUT_S, and a web request would wait with it. After a failed post, posts are
dropped for BACKOFF_S and left to the sweep, so an outage builds no backlog in the web
server. A process that ends posts what is queued first (atexit, bounded by SEND_TIMEOUT_S).
"""

from __future__ import annotations

import atexit
import logging
import os
import queue
import threading
import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from sqlalchemy import column, create_engine, delete, event, exc, inspect, select, table, true
from sqlalchemy.orm import Session

from pbem import config

if TYPE_CHECKING:
    from celery import Celery

log = logging.getLogger(__name__)

RENDER_BOARD = "pbem.render_board"  # (game_id, seq): the spectator's board after a move
DRAW_ANIMATION = "pbem.draw_animation"  # (game_id, language): the animated replay someone asked for
SEND_MAIL = "pbem.send_mail"  # (outbox_id,)
RECEIVE_MAIL = "pbem.receive_mail"  # (raw message as base64, envelope recipients, envelope sender)
SWEEP = "pbem.sweep"  # (): whatever is due or was missed
EXPIRE_GAME = "pbem.expire_game"  # (game_id,): a reminder or a timeout that is due

QUEUE = "pbem"  # every job but the pictures
PICTURES_QUEUE = "pbem.pictures"  # the pictures and animations: a site can give them workers of their own
QUEUE_OF = {RENDER_BOARD: PICTURES_QUEUE, DRAW_ANIMATION: PICTURES_QUEUE}
SEND_TIMEOUT_S = 5.0  # how long a post may wait for a broker that is down before the sweep takes over
BACKOFF_S = 5.0  # after a failed post, posts are dropped (left to the sweep) for this long
EMBEDDED_PREFIX = "sqla+sqlite"  # the embedded broker's URLs: kombu's SQLAlchemy transport on SQLite
# kombu's SQLAlchemy transport keeps its messages in this table (its `message_tablename` option, not set).
EMBEDDED_MESSAGES = table("kombu_message", column("id"), column("visible"))
_PENDING = "pbem_jobs"
# Errors a job retries with backoff (the worker's tasks): the database or the network away for a while.
TRANSIENT_ERRORS: tuple[type[BaseException], ...] = (exc.OperationalError, exc.InterfaceError, exc.TimeoutError,
                                                     ConnectionError, TimeoutError)

_apps: dict[tuple[int, str], Celery] = {}
_lock = threading.Lock()


def celery_config(settings: config.Settings) -> dict:
    """The Celery settings shared by the client here and the worker (one source of truth)."""
    broker_url = settings.broker_url
    transport: dict[str, Any] = {"max_retries": 1, "interval_start": 0, "interval_step": 0.5, "interval_max": 1}
    if broker_url.startswith(("redis://", "rediss://")):
        # An unacknowledged task (its worker died) is handed out again after this long.
        transport.update(visibility_timeout=settings.broker_visibility_s, socket_connect_timeout=SEND_TIMEOUT_S,
                         socket_timeout=SEND_TIMEOUT_S)
    elif broker_url.startswith(EMBEDDED_PREFIX):
        # Passed on to create_engine (documented by kombu): wait on SQLite's lock instead of failing at once.
        transport.update(connect_args={"timeout": 30})
    from kombu import Queue

    return {
        "broker_url": broker_url,
        "task_default_queue": QUEUE,
        # A worker takes jobs from both queues, unless started with -Q (docs/operations.md: scale-out).
        "task_queues": [Queue(QUEUE, routing_key=QUEUE), Queue(PICTURES_QUEUE, routing_key=PICTURES_QUEUE)],
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
    """The Celery app this process posts jobs with (one per broker URL, made on first use)."""
    url = broker_url or config.broker_url()
    key = (os.getpid(), url)  # a forked child makes its own: the parent's connections are not its own
    with _lock:
        # Imported here, not at the top (the game service loads this module, Celery only a
        # poster), and under the lock: threads of a web server importing celery at once got
        # "cannot import name 'Celery'" while its package replaced its own module object.
        from celery import Celery

        app = _apps.get(key)
        if app is None:
            app = Celery("pbem", set_as_current=False)
            app.conf.update(celery_config(replace(config.load(), broker_url=url)))
            _apps[key] = app
        return app


def prepare_broker(broker_url: str | None = None) -> None:
    """Declare the job queue once, before several processes share the broker.

    kombu's SQLAlchemy transport creates a queue's row on first use, and two processes doing
    that at the same moment leave one of them failing on the unique name for good; declared
    ahead, every process finds the row.
    """
    from kombu import Exchange, Queue

    with client(broker_url).connection_for_write() as connection:
        for name in (QUEUE, PICTURES_QUEUE):
            Queue(name, Exchange(name), routing_key=name).declare(channel=connection.default_channel)


def send(task_name: str, *args: Any, broker_url: str | None = None) -> bool:
    """Post one job now; on a broker failure log it and return False (the sweep will do the work)."""
    try:
        client(broker_url).send_task(task_name, args=list(args), queue=QUEUE_OF.get(task_name, QUEUE), retry=False,
                                     add_to_parent=False)
    except Exception as error:  # noqa: BLE001 - any broker failure: the database still holds the work
        log.warning("job %s%s not posted (%s: %s); the sweep will pick it up",
                    task_name, tuple(args), type(error).__name__, error)
        return False
    return True


def after_commit(session: Session, task_name: str, *args: Any) -> None:
    """Post a job once the session's current transaction commits; dropped if it rolls back."""
    pending = session.info.setdefault(_PENDING, [])
    job = (task_name, tuple(args))
    if job not in pending:
        pending.append(job)


def _on_commit(session: Session) -> None:
    pending = session.info.pop(_PENDING, None)
    if pending:
        _POSTER.put(config.broker_url(), pending)


def _on_rollback(session: Session) -> None:
    session.info.pop(_PENDING, None)


event.listen(Session, "after_commit", _on_commit)
event.listen(Session, "after_rollback", _on_rollback)


class _Poster:
    """The process's poster thread: posts the jobs of each commit, in commit order."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.idle = threading.Condition(self.lock)
        self.queue: queue.SimpleQueue = queue.SimpleQueue()
        self.unfinished = 0
        self.pid: int | None = None
        self.failed_until = 0.0

    def put(self, broker_url: str, jobs: list[tuple[str, tuple]]) -> None:
        with self.lock:
            if self.pid != os.getpid():  # first use, or a forked child: the parent's thread is not here
                self.queue = queue.SimpleQueue()
                self.unfinished = 0
                self.pid = os.getpid()
                threading.Thread(target=self._run, args=(self.queue,), name="pbem-job-poster", daemon=True).start()
            self.unfinished += 1
            self.queue.put((broker_url, jobs))

    def _run(self, jobs_queue: queue.SimpleQueue) -> None:
        while True:
            broker_url, jobs = jobs_queue.get()
            try:
                for task_name, args in jobs:
                    if time.monotonic() < self.failed_until:
                        log.warning("job %s%s not posted (the broker failed less than %g s ago); "
                                    "the sweep will pick it up", task_name, args, BACKOFF_S)
                    elif not send(task_name, *args, broker_url=broker_url):
                        self.failed_until = time.monotonic() + BACKOFF_S
            finally:
                with self.lock:
                    self.unfinished -= 1
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


def close_clients() -> None:
    """Post what is queued, then close the broker connections of every client app (tests, and exit)."""
    flush()
    _POSTER.failed_until = 0.0
    with _lock:
        apps = list(_apps.values())
        _apps.clear()
    for app in apps:
        app.close()


def prune_embedded_broker(broker_url: str | None = None, batch: int = 5000) -> int:
    """Delete the messages the embedded broker has delivered; returns how many (the sweep calls it).

    kombu's SQLAlchemy transport marks a message it hands to a worker invisible and keeps it
    for good (a message a worker took but did not acknowledge is put back as a new row), so
    without this the broker's file grows by about 1 KB for every job ever posted. This is the
    clean-up its users run (docs/operations.md): a plain DELETE of the invisible rows of its
    message table, in batches, so that posters wait for SQLite's lock for a moment at most.
    Other brokers drop what they deliver: for them this does nothing.
    """
    url = broker_url or config.broker_url()
    if not url.startswith(EMBEDDED_PREFIX):
        return 0
    engine = create_engine(url.removeprefix("sqla+"), connect_args={"timeout": 30})
    try:
        if not inspect(engine).has_table(EMBEDDED_MESSAGES.name):
            return 0  # nothing was ever posted
        delivered = select(EMBEDDED_MESSAGES.c.id).where(EMBEDDED_MESSAGES.c.visible != true()).limit(batch)
        total = 0
        while True:
            with engine.begin() as connection:
                deleted = connection.execute(
                    delete(EMBEDDED_MESSAGES).where(EMBEDDED_MESSAGES.c.id.in_(delivered.scalar_subquery())))
            total += deleted.rowcount
            if deleted.rowcount < batch:
                return total
    finally:
        engine.dispose()
