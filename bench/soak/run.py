"""One soak run from start to end, and its command line (`python bench/soak.py --help`).

`Soak.run` makes the world (database, processes), the bots, the faults, the ledger and the
capture, then: plays until --minutes or --moves (injecting the worker kill and the broker
pause on the way; the bot jobs queued sampled every second), drains (no bot left to move,
the outbox must empty, the sink read everything), stops the
processes, runs the checks, prints the figures and the verdict line `soak: PASS` or
`soak: FAIL (names)`. Exit status: 0 all checks passed, 1 a check failed, 2 the soak could
not run (a part did not start or died), 3 interrupted. Whatever happens, every process is
stopped and the scratch database dropped (unless --keep-db).
"""

from __future__ import annotations

import argparse
import os
import signal
import time
from datetime import datetime
from pathlib import Path

from sqlalchemy import func, select

import bench.soak
from bench.soak import report
from bench.soak.checks import Checks, load_log
from bench.soak.doors import Client
from bench.soak.drivers import DOORS, Players
from bench.soak.faults import Faults
from bench.soak.ledger import Capture, Dice, Ledger
from bench.soak.world import ROOT, SoakError, World, now
from pbem.models import BotTurn, InboundMail, MoveRecord, OutboundMail
from pbem.players import bot_seats
from tests.support.databases import POSTGRES_ADMIN_URL
from tests.support.net import WaitTimeoutError

TICK_S = 0.25  # how often the play loop looks at the progress, the faults due and the processes
BOT_SAMPLE_S = 1.0  # how often the bot jobs posted and not done are counted (issue 37: the bots_budget check)


class Soak:
    """The run: its parts, wired together, and the order of its phases."""

    def __init__(self, args):
        self.args = args
        self.began = now()
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        self.folder = Path(args.folder or ROOT / "var" / f"soak-{stamp}-{os.getpid()}").resolve()
        self.folder.mkdir(parents=True, exist_ok=True)
        self.world = World(args, self.folder)
        self.capture = Capture(self.folder)
        self.ledger = Ledger()
        self.dice = Dice(args.seed)
        self.client = Client(self.world, self.capture)
        self.faults = Faults(self.world, self.dice, args, self.say)
        self.players = Players(self.world, self.client, self.ledger, self.faults, self.dice, args)
        self.play_started = self.play_ended = self.drained_at = 0.0
        self.soak_cpu = 0.0

    def say(self, text: str) -> None:
        print(f"soak: [{now() - self.began:5.1f} s] {text}", flush=True)

    def run(self) -> int:
        world = self.world
        self.say(f"run folder {self.folder}")
        try:
            world.create_database()
            self.say(f"database {world.db_name} migrated")
            world.start()
            world.meter.start()
            self.say(f"started: web http://127.0.0.1:{world.web_port}/ (gunicorn, 2 workers), smtp listener "
                     f"127.0.0.1:{world.smtp_port}, sink 127.0.0.1:{world.sink.port}, redis "
                     f"127.0.0.1:{world.redis_port}, workers a and b, beat")
            self.players.make_users()
            self.play()
            drain_s = self.drain()
            self.say(f"drained in {drain_s:.1f} s; checking")
            world.stop()
            self.capture.close()
            log = load_log(world.db)
            failed = Checks(self).run(log)
            report.collect(self, log, drain_s).print()
            print(f"soak: {'PASS' if not failed else 'FAIL (' + ', '.join(failed) + ')'}", flush=True)
            return 1 if failed else 0
        finally:
            self.players.halt()
            world.close()
            if not self.args.keep_db:
                world.drop_database()

    # ------------------------------------------------------------------ the phases

    def progress(self) -> float:
        """How far the play is (1 = done): --minutes or --moves, but not before every door has played
        --min-door-moves moves and every fault was injected (and, with --min-door-moves, a game ended and
        every door posted a message), unless --max-minutes is up."""
        elapsed = (now() - self.play_started) / 60
        done = max(elapsed / self.args.minutes if self.args.minutes else 0.0,
                   self.ledger.applied / self.args.moves if self.args.moves else 0.0)
        if done < 1.0 or (self.args.max_minutes and elapsed >= self.args.max_minutes):
            return done
        short = any(self.ledger.applied_by_door[door] < self.args.min_door_moves for door in DOORS) or \
            not self.faults.every_duplicate_done()
        if self.args.min_door_moves:  # what the ratings and talk checks must see at least once
            silent = self.args.talk_rate > 0 and any(not n for n in self.ledger.messages_posted(DOORS).values())
            short = short or not self.players.ended() or silent
        return 0.999 if short else done

    def play(self) -> None:
        """The bots play; the worker is killed and the broker paused on the way (at the end at the latest)."""
        self.players.start()
        self.play_started = now()
        self.players.play()
        killed = paused = False
        last_report = last_sample = time.monotonic()
        while self.progress() < 1.0:
            time.sleep(TICK_S)
            if time.monotonic() - last_sample >= BOT_SAMPLE_S:
                last_sample = time.monotonic()
                self.sample_bot_queue()
            if not killed and self.progress() >= self.args.kill_at:
                killed = True
                self.faults.kill_worker()
            if not paused and self.progress() >= self.args.pause_at:
                paused = True
                self.faults.pause_broker()
            for name, part in self.world.parts.items():
                if not part.alive() and not (name == "worker-a" and not killed):
                    raise SoakError(f"{name} died during the run: see {part.logs[-1]}")
            if time.monotonic() - last_report > self.args.report_every:
                last_report = time.monotonic()
                self.report_progress()
        self.players.playing = False
        self.play_ended = now()
        self.say(f"play stopped after {(self.play_ended - self.play_started) / 60:.2f} min; draining")
        if not killed:
            self.faults.kill_worker()
        if not paused:
            self.faults.pause_broker()

    def sample_bot_queue(self) -> int:
        """Sample the bot jobs posted and not done (what bot_seats.SITE_BUDGET bounds) into the ledger; return
        the bot turns of the site, posted or waiting for a place (0: no bot is to move anywhere)."""
        self.ledger.sample_bot_queue(bot_seats.queued(self.world.db))
        with self.world.db.sessions() as s:
            return s.scalar(select(func.count()).select_from(BotTurn))

    def report_progress(self) -> None:
        with self.world.db.sessions() as s:
            moves = s.scalar(select(func.count()).select_from(MoveRecord))
            pending = s.scalar(select(func.count()).select_from(OutboundMail).where(OutboundMail.status != "sent"))
        players = self.players
        self.say(f"t={now() - self.play_started:.0f}s moves={moves} games in flight={players.in_flight()} "
                 f"ended={players.ended()} mails received={players.mail_count} outbox unsent={pending} "
                 f"bot actions busy={players.busy} bot jobs queued max={self.ledger.bot_queue_max()}")

    def drain(self) -> float:
        """Wait for the bots' last actions, the bot seats' last turns (no bot is to move anywhere), then for the
        outbox to empty and the sink to read everything; the bot queue is sampled on the way."""
        start = now()
        deadline = time.monotonic() + self.args.drain_s
        stable = 0
        while time.monotonic() < deadline:
            with self.world.db.sessions() as s:
                unsent = s.scalar(select(func.count()).select_from(OutboundMail)
                                  .where(OutboundMail.status.in_(("pending", "sending"))))
                processing = s.scalar(select(func.count()).select_from(InboundMail)
                                      .where(InboundMail.outcome == "processing"))
            bot_turns = self.sample_bot_queue()
            quiet = unsent == 0 and processing == 0 and bot_turns == 0 and self.players.idle() and \
                self.world.inbox.unfinished_tasks == 0
            stable = stable + 1 if quiet else 0
            if stable >= 3:
                break
            time.sleep(1.0)
        self.players.finish()
        self.sample_bot_queue()
        self.drained_at = now()
        usage = os.times()
        self.soak_cpu = usage.user + usage.system  # the bots and the sink, before the checks start
        return now() - start


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=bench.soak.__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=None, help="play this long (default 10 without --moves)")
    parser.add_argument("--moves", type=int, default=None, help="play until this many moves were applied")
    parser.add_argument("--games", type=int, default=20, help="games kept in flight")
    parser.add_argument("--min-door-moves", type=int, default=0,
                        help="play on past --minutes/--moves until each door applied this many moves, "
                             "every fault was injected, a game ended and each door posted a message "
                             "(up to --max-minutes)")
    parser.add_argument("--max-minutes", type=float, default=None, help="the longest play with --min-door-moves")
    parser.add_argument("--folder", help="run folder (default var/soak-<time>-<pid>)")
    parser.add_argument("--seed", type=int, default=1, help="the bots' random choices")
    parser.add_argument("--threads", type=int, default=24, help="bot actions at the same time")
    parser.add_argument("--postgres-url", default=POSTGRES_ADMIN_URL,
                        help="an admin URL; the soak makes and drops a database of its own next to it")
    parser.add_argument("--keep-db", action="store_true", help="do not drop the scratch database")
    parser.add_argument("--worker-concurrency", type=int, default=2, help="pool processes per Celery worker")
    parser.add_argument("--sweep-every", type=float, default=5, help="PBEM_SWEEP_EVERY_S")
    parser.add_argument("--sweep-after", type=float, default=20, help="PBEM_SWEEP_AFTER_S")
    parser.add_argument("--claim-timeout", type=float, default=None,
                        help="shorten the mail claim timeout in the workers (seconds; production: 300)")
    parser.add_argument("--bot-tables", type=float, default=0.25,
                        help="share of the tables where one player plays alone with bots (issue 37; not rated)")
    parser.add_argument("--resign-rate", type=float, default=0.01, help="share of decisions that resign")
    parser.add_argument("--bad-rate", type=float, default=0.03, help="share of decisions sent illegal or stale")
    parser.add_argument("--talk-rate", type=float, default=0.05,
                        help="chance, at each bot decision, that the bot writes at its table (to the table, to one "
                             "seat, or a note); the same chance that it reads the table's talk")
    parser.add_argument("--dup-mail-rate", type=float, default=0.1, help="share of mails delivered twice")
    parser.add_argument("--dup-web-rate", type=float, default=0.1, help="share of web moves POSTed twice")
    parser.add_argument("--kill-at", type=float, default=0.2, help="when the worker is killed (share of the run)")
    parser.add_argument("--kill-down-s", type=float, default=3, help="how long the killed worker stays down")
    parser.add_argument("--pause-at", type=float, default=0.5, help="when the broker is paused (share of the run)")
    parser.add_argument("--pause-s", type=float, default=10, help="how long the broker is paused")
    parser.add_argument("--fault-grace-s", type=float, default=60,
                        help="errors this long after a fault are counted as provoked by it")
    parser.add_argument("--drain-s", type=float, default=420, help="longest wait for the outbox to empty")
    parser.add_argument("--report-every", type=float, default=30, help="progress line every this many seconds")
    args = parser.parse_args(argv)
    if args.minutes is None and args.moves is None:
        args.minutes = 10.0
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    soak = Soak(args)

    def stop(signum, _frame):
        raise KeyboardInterrupt(signal.Signals(signum).name)

    signal.signal(signal.SIGTERM, stop)
    try:
        return soak.run()
    except (SoakError, WaitTimeoutError) as error:
        print(f"soak: could not run: {error}", flush=True)
        return 2
    except KeyboardInterrupt as error:
        print(f"soak: interrupted ({error})", flush=True)
        return 3
