"""Background jobs, sent by name to the Celery worker once the transaction that made them commits.

pbem never imports the worker package: it only knows the task names below, and the worker
registers its tasks under the same names. A job is sent after the commit (never before,
so the worker cannot see a half-written change) and, if the broker is down, the failure is
logged and swallowed: the periodic sweep finds the work in the database and does it later.
This module does not run jobs; it only posts them.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import replace
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from sqlalchemy import event, select
from sqlalchemy.orm import Session

from pbem import config
from pbem.db import Database
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
_PENDING = "pbem_jobs"
_LISTENING = "pbem_jobs_listening"

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
    elif broker_url.startswith("sqla+sqlite"):
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
    settings = config.load()
    url = broker_url or settings.broker_url
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
    from kombu import Exchange, Queue

    app = client(broker_url)
    with app.connection_for_write() as connection:
        Queue(QUEUE, Exchange(QUEUE), routing_key=QUEUE).declare(channel=connection.default_channel)


def send(task_name: str, *args: Any, broker_url: str | None = None) -> bool:
    """Post one job now; on a broker failure log it and return False (the sweep will do the work)."""
    try:
        client(broker_url).send_task(task_name, args=list(args), queue=QUEUE, retry=False)
    except Exception as error:  # noqa: BLE001 - any broker failure: the database still holds the work
        log.warning("job %s%s not posted (%s: %s); the sweep will pick it up",
                    task_name, tuple(args), type(error).__name__, error)
        return False
    return True


def after_commit(session: Session, task_name: str, *args: Any) -> None:
    """Post a job once the session's current transaction commits; dropped if it rolls back."""
    if not session.info.get(_LISTENING):
        event.listen(session, "after_commit", _flush_pending)
        event.listen(session, "after_rollback", _drop_pending)
        session.info[_LISTENING] = True
    pending = session.info.setdefault(_PENDING, [])
    job = (task_name, tuple(args))
    if job not in pending:
        pending.append(job)


def _flush_pending(session: Session) -> None:
    for task_name, args in session.info.pop(_PENDING, []):
        send(task_name, *args)


def _drop_pending(session: Session) -> None:
    session.info.pop(_PENDING, None)


def close_clients() -> None:
    """Close the broker connections of every client app (tests, and a process that ends)."""
    with _lock:
        apps = list(_apps.values())
        _apps.clear()
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
