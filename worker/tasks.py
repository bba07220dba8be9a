"""The worker's tasks: each looks up its work in the database and calls one pbem service.

Every task is idempotent (keyed by game and move, or by outbox row, so a redelivery does
nothing new), acknowledged only when done (a worker killed mid-task leaves it to another),
and retried with backoff on transient errors (the database, the mail server). The sweep
finds whatever a lost message or a broker outage left undone.

The news of a game goes out through its channels (pbem.notify.channels: mail, Web Push, webhooks): one
delivery task hands a job to its channel, registered under each channel's job name
(`pbem.send_mail`, `pbem.send_push`), and the sweep posts again what each channel says is due.
"""

from __future__ import annotations

import base64
import logging
import os
import threading
from datetime import timedelta

from celery import Task, shared_task
from celery.signals import worker_process_shutdown

from pbem import boards, config, jobs, wiring
from pbem.db import Database
from pbem.mail import addresses, inbound, outbound
from pbem.notify import channels, digest
from pbem.players import bot_seats
from pbem.schedule import deadlines

log = logging.getLogger(__name__)

# A job retries with backoff while the database, the mail server or the network is away.
RETRY = {"acks_late": True, "autoretry_for": jobs.TRANSIENT_ERRORS + (channels.TransientDeliveryError,),
         "retry_backoff": 2, "retry_backoff_max": 300, "retry_jitter": True, "max_retries": 12}

wiring.connect()  # timeouts and mail commands change games: their news and deadlines must be written

_db: tuple[int, Database] | None = None
_db_lock = threading.Lock()


def db() -> Database:
    """This process's database (made after the fork: a pooled connection is never shared between processes)."""
    global _db
    with _db_lock:
        if _db is None or _db[0] != os.getpid():
            _db = (os.getpid(), Database(config.load().database_url))
        return _db[1]


@worker_process_shutdown.connect
def _dispose(**_kwargs) -> None:
    outbound.close_connections()
    if _db is not None and _db[0] == os.getpid():
        _db[1].dispose()


@shared_task(name=jobs.RENDER_BOARD, **RETRY)
def render_board(game_id: int, seq: int) -> int:
    """The spectator's board after a move, for the game page, unless the game has moved on since
    (a seat's own board is drawn with its mail)."""
    return int(boards.render_current(db(), game_id, seq) is not None)


@shared_task(name=jobs.DRAW_ANIMATION, **RETRY)
def draw_animation(game_id: int, language: str) -> str:
    """The animated replay someone asked for, drawn and stored (nothing when it is drawn or being drawn)."""
    return boards.draw_animation(db(), game_id, language).value


_DELIVERY: dict[str, Task] = {}  # the delivery task by job name


def delivery_task(channel: channels.Channel) -> Task:
    """The one delivery task, registered under the channel's job name (made once per name): it hands a job
    to the channel registered under that name now, which carries it once (a row claimed, a browser marked)."""
    task = _DELIVERY.get(channel.task)
    if task is None:
        name = channel.name

        def deliver(*job):
            return channels.get(name).deliver(db(), config.load(), *job)

        deliver.__name__ = deliver.__qualname__ = f"deliver_{name}"
        deliver.__doc__ = f"Deliver one job of the {name} channel (pbem.notify.channels)."
        task = _DELIVERY[channel.task] = shared_task(name=channel.task, **RETRY)(deliver)
    return task


for _channel in channels.registered():  # pbem.send_mail, pbem.send_push, pbem.send_webhook
    delivery_task(_channel)


@shared_task(name=jobs.RECEIVE_MAIL, **RETRY)
def receive_mail(raw_b64: str, envelope_to: list[str] | None = None, envelope_from: str | None = None) -> str:
    """Process one inbound message (idempotent by its Message-ID); returns its outcome."""
    received = inbound.receive(db(), base64.b64decode(raw_b64), envelope_to=envelope_to,
                               envelope_from=envelope_from)
    return getattr(received, "outcome", str(received))


@shared_task(name=jobs.EXPIRE_GAME, **RETRY)
def expire_game(game_id: int) -> str:
    """A reminder or a timeout that is due in one game."""
    return deadlines.process(db(), game_id)


@shared_task(name=bot_seats.PLAY_BOT, **RETRY)
def play_bot(game_id: int, version: int) -> str:
    """A bot's decision in one game at one position, played as a move (nothing when the game has moved on)."""
    return bot_seats.play(db(), game_id, version)


@shared_task(name=jobs.SWEEP, acks_late=True)
def sweep() -> dict:
    """Post whatever is due or was missed: old unsent mail, unrendered boards, animations asked for and not
    drawn, deadlines and reminders, bot turns waiting for their budget; try again the addresses whose mail bounces stopped some days ago;
    delete the raw inbound mail older than PBEM_INBOUND_KEEP_DAYS and what the embedded broker has delivered."""
    settings = config.load()
    news = {}
    for channel in channels.registered():  # the mail not sent yet, or whose sender died
        due = list(channel.due(db(), settings))
        for job in due:
            jobs.send(channel.task, *job)
        news[channel.name] = len(due)
    pictures = boards.missing(db(), settings.sweep_after_s)
    for game_id, seq in pictures:
        jobs.send(jobs.RENDER_BOARD, game_id, seq)
    animations = boards.waiting_animations(db(), settings.sweep_after_s)
    for game_id, language in animations:
        jobs.send(jobs.DRAW_ANIMATION, game_id, language)
    games = deadlines.due(db())
    for game_id in games:
        jobs.send(jobs.EXPIRE_GAME, game_id)
    # Bot turns that waited for a place in the site's budget, or whose job was lost (after the sweep's delay).
    bot_turns = bot_seats.due(db(), settings.sweep_after_s)
    for game_id, version in bot_turns:
        jobs.send(bot_seats.PLAY_BOT, game_id, version)
    # Daily digests become outbox rows here; the next sweep sends them like any other mail.
    written = digest.queue_digests(db(), settings)
    with db().transaction() as s:
        retried = addresses.retry_suppressed(s, timedelta(days=settings.suppression_retry_days))
    forgotten = inbound.forget_raw(db(), timedelta(days=settings.inbound_keep_days))
    pruned = jobs.prune_embedded_broker()  # the embedded broker's delivered messages
    counts = {**news, "boards": len(pictures), "animations": len(animations), "deadlines": len(games), "bot_turns": len(bot_turns),
              "digests": written, "addresses_retried": len(retried), "raw_mail_deleted": forgotten,
              "broker_messages_deleted": pruned}
    if any(counts.values()):
        log.info("sweep: %s", counts)
    return counts
