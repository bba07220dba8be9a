"""The faults the soak injects while the bots play, and the record of when each happened.

A Celery worker killed with SIGKILL (its process group: the pool too) and started again;
the broker paused (SIGSTOP/SIGCONT of the private redis); a share of the bots' mails
delivered twice (the same bytes, one copy after the other or both at once); a share of the
web move forms POSTed twice (the same way: a reload, a double click). The checks need the
record: log errors within a fault's window are expected, and a mail being sent when the
worker died may arrive twice. Illegal and stale moves are not faults of the service but
bots' choices (drivers).
"""

from __future__ import annotations

import collections
import dataclasses
import os
import signal
import threading
import time

from sqlalchemy import select

from bench.soak.world import POLL_S, now
from pbem.models import OutboundMail
from tests.support.net import wait_for

# Counted in `Faults.counts`, printed as faults.NAME figures.
COUNTED = ("worker_kills", "broker_pauses", "mail_duplicate_sequential", "mail_duplicate_concurrent",
           "web_double_sequential", "web_double_concurrent")
DUPLICATES = ("web_double", "mail_duplicate")
WAYS = ("sequential", "concurrent")


class Faults:
    """Injects the faults into `world`; `counts` and `windows` say what was done and when."""

    def __init__(self, world, dice, args, say):
        self.world = world
        self.dice = dice
        self.args = args
        self.say = say
        self.lock = threading.Lock()
        self.counts = collections.Counter()
        self.windows: list[dict] = []  # {"kind", "start", "end", "part"}
        self.sending_at_kill: set[int] = set()  # outbox rows being sent when the worker was killed

    # ------------------------------------------------------------------ processes

    def kill_worker(self) -> None:
        """SIGKILL to worker-a's process group; start it again --kill-down-s later."""
        part = self.world.parts["worker-a"]
        start = now()
        part.kill9()
        with self.world.db.sessions() as s:
            self.sending_at_kill = set(s.scalars(select(OutboundMail.id).where(OutboundMail.status == "sending")))
        self.say(f"fault: killed worker-a (SIGKILL to its process group); {len(self.sending_at_kill)} mail(s) "
                 "were being sent")
        time.sleep(self.args.kill_down_s)
        part.start()
        self.windows.append({"kind": "worker_kill", "start": start, "end": now(), "part": "worker-a"})
        with self.lock:
            self.counts["worker_kills"] += 1
        wait_for(lambda: " ready." in part.log_text(), 120, "the restarted worker", POLL_S)
        self.say("fault: worker-a restarted")

    def pause_broker(self) -> None:
        """SIGSTOP to the private redis for --pause-s seconds, then SIGCONT."""
        part = self.world.parts["redis"]
        start = now()
        os.kill(part.pid, signal.SIGSTOP)
        self.say(f"fault: broker paused (SIGSTOP to redis) for {self.args.pause_s:g} s")
        try:
            time.sleep(self.args.pause_s)
        finally:
            os.kill(part.pid, signal.SIGCONT)
        self.windows.append({"kind": "broker_pause", "start": start, "end": now(), "part": "redis"})
        with self.lock:
            self.counts["broker_pauses"] += 1
        self.say("fault: broker resumed (SIGCONT)")

    # ------------------------------------------------------------------ duplicates

    def copies(self, prefix: str, rate: float) -> str:
        """Whether to send this one twice: the first two are (one after the other, then at once), then a share."""
        with self.lock:
            for way in WAYS:
                if not self.counts[f"{prefix}_{way}"]:
                    self.counts[f"{prefix}_{way}"] += 1
                    return way
        if not self.dice.chance(rate):
            return ""
        way = self.dice.choice(WAYS)
        with self.lock:
            self.counts[f"{prefix}_{way}"] += 1
        return way

    def every_duplicate_done(self) -> bool:
        """Each kind of duplicate was sent each way at least once."""
        with self.lock:
            return all(self.counts[f"{prefix}_{way}"] for prefix in DUPLICATES for way in WAYS)

    def send_mail(self, client, sender: str, to: str, raw: bytes, copies: str) -> None:
        """Deliver a mail once, or twice with the same bytes (one after the other, or at the same time)."""
        if copies == "concurrent":
            errors = []

            def again():
                try:
                    client.smtp_send(sender, to, raw)
                except Exception as error:  # noqa: BLE001 - reported below
                    errors.append(error)

            other = threading.Thread(target=again)
            other.start()
            client.smtp_send(sender, to, raw)
            other.join()
            if errors:
                raise errors[0]
            return
        client.smtp_send(sender, to, raw)
        if copies == "sequential":
            client.smtp_send(sender, to, raw)

    def post_form(self, client, bot, path: str, fields: dict, copies: str) -> tuple[int, str, str]:
        """POST a form once, or twice (a reload after the answer, or a double click); returns the first
        answer's status and page, and the second one's status ("" when sent once)."""
        if copies == "concurrent":
            seen = {}

            def twin():
                # A second request of the same browser: the same session, its own answer.
                seen["second"] = client.web(dataclasses.replace(bot), "POST", path, fields)[0]

            other = threading.Thread(target=twin)
            other.start()
            status, _, answer = client.web(bot, "POST", path, fields)
            other.join()
            return status, answer, str(seen.get("second"))
        status, _, answer = client.web(bot, "POST", path, fields)
        second = ""
        if copies == "sequential":
            second = str(client.web(bot, "POST", path, fields)[0])
        return status, answer, second
