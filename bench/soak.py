"""The soak test: the whole service under load, run the way a real site runs it (issue 10).

Usage: python bench/soak.py [--minutes 10 | --moves N] [--games 200] [--folder DIR] [options]

It starts, on loopback and free ports only: a scratch PostgreSQL database (made, migrated,
dropped at the end), a private redis-server as the Celery broker, gunicorn with two workers
(`pbem.web:create_app()`), two Celery workers and beat (the command lines of
`pbem.runner.plan`), the SMTP listener (`python -m pbem.runner mail-listener`) and an SMTP
sink that receives every outgoing mail. Each process writes its output to a file in the run
folder, which is kept.

Bots then play games of all three titles, all player counts and the engines' option presets
through the three doors: the JSON API (bearer token), the web pages (log in, GET the game
page, POST its move form with the CSRF token) and mail (reply to the turn notification that
arrived in the sink, through the SMTP listener). Each turn notification in the sink wakes
the player it is for. Setting up users (verified addresses, API tokens, passwords) goes
directly through pbem; tables are opened and joined through the doors too. At least
`--games` games are kept in flight; a game that ends is replaced.

Faults injected while it runs: one Celery worker killed with SIGKILL (its process group) and
restarted; the broker paused (SIGSTOP/SIGCONT of the private redis); a share of the mails
delivered twice (same bytes, same Message-ID; one after the other, or at the same time); a
share of the web move forms POSTed twice (one after the other, or at the same time). Bots
also send illegal moves and moves for a stale position, which must be refused with a reason.

After a drain period (the sweep must catch up) it checks and prints, one line per check:
`pbem verify --all`; per door, moves submitted = applied + refused with a reason, compared
with the move log by source and idempotency key, duplicates never applied twice; exactly one
turn notification per turn in the sink; no outbox row left unsent; no seed of a running game
and no hidden deck order in any captured mail, API answer, page or log line; no ERROR or
Traceback in the process logs other than those the faults provoke. Then the figures, as
`name: value unit` lines. Exit status 1 when a check fails. docs/operations.md ("Soak")
explains what it searches for and how to read the figures.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def _celery_child(argv: list[str]) -> None:
    """`soak.py --celery-child worker ...`: the production worker, with the mail claim timeout shortened.

    Only with --claim-timeout (the one-minute test): a worker killed while sending leaves its
    outbox row claimed for outbound.CLAIM_TIMEOUT (5 minutes in production) before the sweep
    hands it to another sender; a short soak cannot wait that long.
    """
    import os
    from datetime import timedelta

    from pbem.mail import outbound

    outbound.CLAIM_TIMEOUT = timedelta(seconds=float(os.environ["PBEM_SOAK_CLAIM_TIMEOUT_S"]))
    from worker.app import app

    app.start(argv=argv)


if __name__ == "__main__" and sys.argv[1:2] == ["--celery-child"]:
    _celery_child(sys.argv[2:])
    sys.exit(0)

# ruff: noqa: E402 - the child mode above must run before the rest is imported
import argparse
import collections
import email
import html
import http.client
import itertools
import json
import os
import queue
import random
import re
import secrets
import shutil
import signal
import smtplib
import socket
import subprocess
import threading
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timezone
from email import policy
from email.message import EmailMessage
from email.utils import make_msgid
from urllib.parse import urlencode

import sqlalchemy
from aiosmtpd.controller import Controller
from sqlalchemy import func, select

import engine
from pbem import accounts, config, games, migrate, runner
from pbem.db import Database
from pbem.notify import texts
from pbem.models import Game, InboundMail, MoveRecord, OutboundMail, Snapshot, User

DOORS = ("api", "web", "email")
PASSWORD = "soak password 1"
MAIL_DOMAIN = "pbem.localhost"
BOT_DOMAIN = "bots.example.org"
SHORT_TAPAONO = {"mode": "free", "mode_change": False, "markers": 3, "stars_to_win": 1}
HIDDEN_KEYS = {"tongiaki": ("pile",), "discovery": ("deck",), "tapaono": ("deck",)}  # orders no one may see
# How many consecutive items of a hidden order are searched for: enough that no public list matches
# by chance (Tapaono's deck holds only 8 kinds of card, so its windows are longer).
WINDOW = {"tongiaki": 8, "discovery": 8, "tapaono": 12}
HTTP_TIMEOUT = 120
SMTP_TIMEOUT = 120
ILLEGAL = "xyzzy 42"


class SoakError(Exception):
    """The soak could not run (a part did not start); not a failed check."""


def now() -> float:
    return time.time()


def utc(t: float) -> datetime:
    """A wall-clock time as the naive UTC datetime the database stores."""
    return datetime.fromtimestamp(t, timezone.utc).replace(tzinfo=None)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def port_open(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def wait_for(predicate, timeout: float, what: str, every: float = 0.2):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise SoakError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(every)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


# ==========================================================================================
# Processes


def _proc_stat(pid: int) -> tuple[int, float] | None:
    """(process group, CPU seconds) of a live process, from /proc."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    ticks = os.sysconf("SC_CLK_TCK")
    return int(fields[2]), (int(fields[11]) + int(fields[12])) / ticks


def _vm_hwm_kb(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def _all_pids() -> list[int]:
    return [int(name) for name in os.listdir("/proc") if name.isdigit()]


class Part:
    """One process of the service, in its own process group, its output in a file of the run folder."""

    def __init__(self, name: str, argv: list[str], env: dict, folder: Path, pidfile: Path):
        self.name = name
        self.argv = argv
        self.env = env
        self.folder = folder
        self.pidfile = pidfile
        self.process: subprocess.Popen | None = None
        self.logs: list[Path] = []

    def start(self) -> None:
        path = self.folder / (f"{self.name}.log" if not self.logs else f"{self.name}.{len(self.logs) + 1}.log")
        with open(path, "ab") as handle:
            self.process = subprocess.Popen(self.argv, cwd=ROOT, env=self.env, stdin=subprocess.DEVNULL,
                                            stdout=handle, stderr=subprocess.STDOUT, start_new_session=True)
        self.logs.append(path)
        with open(self.pidfile, "a") as handle:
            handle.write(f"{self.process.pid} {self.name}\n")

    @property
    def pid(self) -> int:
        return self.process.pid

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def log_text(self) -> str:
        return self.logs[-1].read_text(errors="replace") if self.logs else ""

    def kill9(self) -> None:
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait()

    def terminate(self) -> None:
        """SIGTERM to the main process: gunicorn and Celery then stop their own children in order."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)

    def stop(self, grace: float) -> None:
        if self.process is None:
            return
        self.terminate()
        try:
            self.process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            pass
        try:
            os.killpg(self.pid, signal.SIGKILL)  # stragglers: pool processes, gunicorn workers
        except (ProcessLookupError, PermissionError):
            pass
        if self.process.poll() is None:
            self.process.wait()


# ==========================================================================================
# What was captured: every mail, API answer and page, with the time it arrived


class Capture:
    """Append-only files of captured bytes with an index (time, kind, offset, length, label)."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.lock = threading.Lock()
        self.files = {kind: open(folder / f"captured-{kind}.bin", "wb") for kind in ("mail", "api", "page")}
        self.index: list[tuple[float, str, int, int, str]] = []

    def add(self, kind: str, data: bytes, label: str, at: float | None = None) -> None:
        with self.lock:
            handle = self.files[kind]
            offset = handle.tell()
            handle.write(data)
            self.index.append((now() if at is None else at, kind, offset, len(data), label))

    def close(self) -> None:
        with self.lock:
            for handle in self.files.values():
                handle.close()

    def items(self):
        handles = {kind: open(self.folder / f"captured-{kind}.bin", "rb") for kind in self.files}
        try:
            for t, kind, offset, length, label in self.index:
                handle = handles[kind]
                handle.seek(offset)
                yield t, kind, label, handle.read(length)
        finally:
            for handle in handles.values():
                handle.close()


class LogTail:
    """Reads the new bytes of every process log twice a second and remembers when each chunk appeared."""

    def __init__(self):
        self.sizes: dict[Path, int] = {}
        self.chunks: list[tuple[float, Path, int, int]] = []

    def poll(self, paths: list[Path]) -> None:
        t = now()
        for path in paths:
            try:
                size = path.stat().st_size
            except OSError:
                continue
            start = self.sizes.get(path, 0)
            if size > start:
                self.chunks.append((t, path, start, size))
                self.sizes[path] = size


# ==========================================================================================
# The SMTP sink


class SinkHandler:
    def __init__(self, deliver):
        self.deliver = deliver

    async def handle_DATA(self, server, session, envelope):
        raw = envelope.original_content or envelope.content
        if isinstance(raw, str):
            raw = raw.encode("utf-8", "surrogateescape")
        self.deliver(now(), list(envelope.rcpt_tos), raw)
        return "250 OK"


class SinkController(Controller):
    def _trigger_server(self):
        if self.port == 0:
            self.port = self.server.sockets[0].getsockname()[1]
        super()._trigger_server()


# ==========================================================================================
# Bots, tables and the ledger of what was sent and what the doors answered


@dataclass
class Bot:
    door: str
    email: str
    user_id: int
    token: str | None = None
    cookie: str = ""
    lock: threading.Lock = field(default_factory=threading.Lock)
    logged_in: bool = False


@dataclass
class Table:
    index: int
    title: str
    players: int
    options: dict
    bots: list[Bot]
    game_id: int | None = None
    ended: bool = False
    ended_at: float | None = None
    created_at: float = field(default_factory=now)


@dataclass
class Sent:
    """One submission by a bot: a move, a resignation, an illegal or a stale move."""

    door: str
    kind: str  # move | resign | illegal | stale
    game_id: int
    user_id: int
    key: str | None  # the idempotency key as the server stores it (moves only)
    text: str
    at: float = field(default_factory=now)
    outcome: str | None = None  # applied | duplicate | refused
    reason: str = ""
    answers: int = 0  # mail: answers received for this Message-ID
    message_id: str | None = None
    copies: str = ""  # duplicate injected: "sequential" or "concurrent"
    copy_outcome: str = ""  # what the door said to the second copy


class Ledger:
    def __init__(self):
        self.lock = threading.Lock()
        self.sent: list[Sent] = []
        self.by_message: dict[str, Sent] = {}
        self.applied = 0
        self.applied_by_door = collections.Counter()
        self.errors: list[str] = []  # answers a bot did not expect
        self.faults = collections.Counter()

    def add(self, item: Sent) -> Sent:
        with self.lock:
            self.sent.append(item)
            if item.message_id:
                self.by_message[item.message_id] = item
        return item

    def settle(self, item: Sent, outcome: str, reason: str = "") -> None:
        with self.lock:
            if item.outcome is None and outcome == "applied" and item.kind == "move":
                self.applied += 1
                self.applied_by_door[item.door] += 1
            if item.outcome is None:
                item.outcome, item.reason = outcome, reason

    def error(self, text: str) -> None:
        with self.lock:
            if len(self.errors) < 200:
                self.errors.append(text)


# ==========================================================================================
# HTML and mail parsing (as a browser and a mail client would read them)

_INPUT = re.compile(r"<input([^>]*)>", re.I)
_ATTR = re.compile(r'([\w-]+)="([^"]*)"')
_OPTION = re.compile(r'<option[^>]*value="([^"]*)"', re.I)
_FLASH = re.compile(r'<p class="flash[^"]*" role="status">(.*?)</p>', re.S)
_MOVE_ERROR = re.compile(r'<p class="error" role="alert" id="move-error">(.*?)</p>', re.S)
_TOKEN = re.compile(r"pbem\+(\d+)\.(\d+)\.(\d+)\.[0-9a-f]+@", re.I)
_TURN_SUBJECT = re.compile(r"^\[pbem #(\d+) [^\]]*\] your turn \(move (\d+)\)$")


def form_fields(page: str, action: str) -> dict | None:
    """The hidden inputs of the form posting to `action` (None when the page has no such form)."""
    start = page.find(f'action="{action}"')
    if start < 0:
        return None
    end = page.find("</form>", start)
    chunk = page[start:end]
    fields = {}
    for tag in _INPUT.findall(chunk):
        attrs = dict(_ATTR.findall(tag))
        if attrs.get("type") == "hidden" and "name" in attrs:
            fields[attrs["name"]] = html.unescape(attrs.get("value", ""))
    fields["_options"] = [html.unescape(v) for v in _OPTION.findall(chunk)]
    return fields


def flashes(page: str) -> list[str]:
    return [html.unescape(re.sub(r"<[^>]+>", "", m)).strip() for m in _FLASH.findall(page)]


def move_error(page: str) -> str:
    found = _MOVE_ERROR.search(page)
    return html.unescape(found.group(1)).strip() if found else ""


def text_of(message) -> str:
    body = message.get_body(("plain",))
    return body.get_content().replace("\r\n", "\n") if body is not None else ""


def listed_moves(text: str) -> list[str]:
    """The moves a mail lists under 'Your legal moves', as a player would copy them."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith(texts.LEGAL_HEADER)), None)
    if start is None:
        return []
    moves = []
    for line in lines[start + 1:]:
        if not line.strip():
            break
        item = line.strip()
        if item.endswith("moves):") or item.startswith("..."):
            continue
        moves.append(item)
    return moves


def searchable_mail_text(raw: bytes) -> str:
    """A mail's headers and decoded text parts (the board picture is not text and is left out)."""
    message = email.message_from_bytes(raw, policy=policy.default)
    parts = [str(message.items())]
    for part in message.walk():
        if part.get_content_maintype() == "text":
            try:
                parts.append(part.get_content())
            except Exception:  # noqa: BLE001 - an undecodable part is searched raw
                parts.append(part.get_payload(decode=True).decode("latin-1"))
    return "\n".join(parts)


# ==========================================================================================
# The soak


class Soak:
    def __init__(self, args):
        self.args = args
        self.began = now()
        self.rng = random.Random(args.seed)
        self.rng_lock = threading.Lock()
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        self.folder = Path(args.folder or ROOT / "var" / f"soak-{stamp}-{os.getpid()}").resolve()
        self.folder.mkdir(parents=True, exist_ok=True)
        self.pidfile = self.folder / "pids"
        self.parts: dict[str, Part] = {}
        self.capture = Capture(self.folder)
        self.tail = LogTail()
        self.ledger = Ledger()
        self.tables: list[Table] = []
        self.tables_by_game: dict[int, Table] = {}
        self.tables_lock = threading.Lock()
        self.acted: dict[tuple[int, int], int] = {}  # (game, user) -> highest turn seq acted on
        self.acted_lock = threading.Lock()
        self.answered: set[str] = set()  # our Message-IDs whose answer was acted on
        self.pending_new: dict[str, Table] = {}  # Message-ID of a /new mail -> its table
        self.old_tokens: dict[tuple[int, int], str] = {}  # (game, user) -> a reply address of an earlier turn
        self.turn_mails: list[tuple[int, int, int, str, float]] = []  # game, seat, seq, Message-ID, time
        self.mail_count = 0
        self.mail_queue: queue.Queue = queue.Queue()
        self.playing = False
        self.stopping = False
        self.pool: ThreadPoolExecutor | None = None
        self.busy = 0
        self.busy_lock = threading.Lock()
        self.faults: list[dict] = []  # {"kind", "start", "end", "part"}
        self.sending_at_kill: set[int] = set()
        self.hwm: dict[tuple[str, int], int] = {}
        self.cpu: dict[tuple[str, int], float] = {}
        self.roles: dict[tuple[str, int], str] = {}
        self.pg_cpu: dict[int, float] = {}
        self.monitor_stop = threading.Event()
        self.db: Database | None = None
        self.db_name = f"pbem_soak_{os.getpid()}_{secrets.token_hex(3)}"
        self.admin_url = args.postgres_url
        self.url = self.admin_url.rsplit("/", 1)[0] + "/" + self.db_name
        self.play_started = self.play_ended = 0.0
        self.next_index = itertools.count()
        self.bots: dict[str, list[Bot]] = {}
        self.bot_by_email: dict[str, Bot] = {}
        self.results: list[tuple[str, bool, str]] = []
        self.latency: dict[str, list[float]] = collections.defaultdict(list)  # client side, per kind of request
        self.latency_lock = threading.Lock()

    # ------------------------------------------------------------------ output

    def say(self, text: str) -> None:
        print(f"soak: [{now() - self.began:5.1f} s] {text}", flush=True)

    def choice(self, items):
        with self.rng_lock:
            return self.rng.choice(items)

    def chance(self, p: float) -> bool:
        with self.rng_lock:
            return self.rng.random() < p

    # ------------------------------------------------------------------ setting up

    def _admin(self, sql: str) -> None:
        """One statement on the server's admin database (CREATE/DROP DATABASE need autocommit)."""
        admin = sqlalchemy.create_engine(self.admin_url, isolation_level="AUTOCOMMIT")
        try:
            with admin.connect() as connection:
                connection.exec_driver_sql(sql)
        finally:
            admin.dispose()

    def create_database(self) -> None:
        self._admin(f'CREATE DATABASE "{self.db_name}"')
        migrate.upgrade(self.url)
        self.db = Database(self.url)

    def drop_database(self) -> None:
        if self.db is not None:
            self.db.dispose()
        self._admin(f'DROP DATABASE IF EXISTS "{self.db_name}" WITH (FORCE)')

    def start_services(self) -> None:
        args = self.args
        redis_binary = shutil.which("redis-server")
        if redis_binary is None:
            raise SoakError("redis-server is not installed")
        self.redis_port = free_port()
        self.web_port = free_port()
        self.smtp_port = free_port()
        self.sink = SinkController(SinkHandler(self.on_mail), hostname="127.0.0.1", port=0)
        self.sink.start()
        data = self.folder / "data"
        data.mkdir(exist_ok=True)
        env = {k: v for k, v in os.environ.items() if not k.startswith("PBEM_")}
        env.update({
            "PBEM_DATABASE_URL": self.url,
            "PBEM_BROKER_URL": f"redis://127.0.0.1:{self.redis_port}/0",
            "PBEM_SMTP_URL": f"smtp://127.0.0.1:{self.sink.port}",
            "PBEM_SECRET_KEY": secrets.token_hex(32),
            "PBEM_DATA_DIR": str(data),
            "PBEM_BASE_URL": f"http://127.0.0.1:{self.web_port}",
            "PBEM_MAIL_DOMAIN": MAIL_DOMAIN,
            "PBEM_MAIL_RATE_PER_HOUR": "1000000000",  # bots answer at machine speed; the limit is for people
            "PBEM_SWEEP_EVERY_S": str(args.sweep_every),
            "PBEM_SWEEP_AFTER_S": str(args.sweep_after),
            "PYTHONUNBUFFERED": "1",
            "PYTHONPATH": str(ROOT),
        })
        self.env = env
        settings = config.load(env)
        self.settings = settings
        plan = {part.name: part for part in runner.plan(settings, "127.0.0.1", self.web_port, "127.0.0.1",
                                                       self.smtp_port, concurrency=args.worker_concurrency)}
        redis_argv = [redis_binary, "--port", str(self.redis_port), "--bind", "127.0.0.1", "--save", "",
                      "--appendonly", "no", "--dir", str(data)]
        worker_argv = plan["worker"].argv
        if args.claim_timeout:
            env["PBEM_SOAK_CLAIM_TIMEOUT_S"] = str(args.claim_timeout)
            prefix = worker_argv.index("worker")
            worker_argv = [sys.executable, str(Path(__file__).resolve()), "--celery-child", *worker_argv[prefix:]]
        argv = {
            "redis": redis_argv,
            "web": plan["web"].argv,
            "worker-a": [a.replace("pbem@%h", "pbem-a@%h") for a in worker_argv],
            "worker-b": [a.replace("pbem@%h", "pbem-b@%h") for a in worker_argv],
            "beat": plan["beat"].argv,
            "mail": plan["mail"].argv,
        }
        for name, command in argv.items():
            self.parts[name] = Part(name, command, env, self.folder, self.pidfile)
        self.parts["redis"].start()
        wait_for(lambda: port_open(self.redis_port), 20, "redis-server")
        for name in ("web", "worker-a", "worker-b", "beat", "mail"):
            self.parts[name].start()
        wait_for(lambda: port_open(self.smtp_port), 90, "the SMTP listener")
        wait_for(lambda: self.http_get_status("/healthz") == 200, 90, "gunicorn")
        for name in ("worker-a", "worker-b"):
            wait_for(lambda: " ready." in self.parts[name].log_text(), 90, f"the Celery worker {name}")
        wait_for(lambda: "beat: Starting" in self.parts["beat"].log_text(), 90, "Celery beat")
        for name, part in self.parts.items():
            if not part.alive():
                raise SoakError(f"{name} exited: see {part.logs[-1]}")

    def http_get_status(self, path: str) -> int | None:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", self.web_port, timeout=5)
            conn.request("GET", path)
            status = conn.getresponse().status
            conn.close()
            return status
        except OSError:
            return None

    def make_users(self) -> None:
        """Bot users: verified addresses, an API token for API bots, a password for web bots."""
        per_door = max(4, self.args.games * 3 // 4)
        password_hash = accounts.hash_password(PASSWORD)  # one argon2 hash serves every web bot
        for door in DOORS:
            self.bots[door] = []
            for n in range(per_door):
                address = f"{door}-{n}@{BOT_DOMAIN}"
                user_id = accounts.ensure_user(self.db, address, f"{door}-{n}")
                with self.db.transaction() as s:
                    user = s.get(User, user_id)
                    user.email_verified = True
                    if door == "web":
                        user.password_hash = password_hash
                bot = Bot(door, address, user_id)
                if door == "api":
                    bot.token = accounts.create_api_token(self.db, user_id, "soak")
                self.bots[door].append(bot)
                self.bot_by_email[address] = bot

    # ------------------------------------------------------------------ monitoring

    def monitor(self) -> None:
        last_pg = 0.0
        while not self.monitor_stop.is_set():
            try:
                self.sample()
                if time.monotonic() - last_pg > 5 and self.db is not None:
                    last_pg = time.monotonic()
                    self.sample_postgres()
            except Exception:  # noqa: BLE001 - a sample missed is not worth stopping the soak for
                pass
            self.monitor_stop.wait(1.0)

    def sample(self) -> None:
        groups = {part.pid: name for name, part in self.parts.items() if part.process is not None}
        for pid in _all_pids():
            stat = _proc_stat(pid)
            if stat is None or stat[0] not in groups:
                continue
            name = groups[stat[0]]
            key = (name, pid)
            self.cpu[key] = stat[1]
            self.roles[key] = "main" if pid == stat[0] else "child"
            hwm = _vm_hwm_kb(pid)
            if hwm is not None:
                self.hwm[key] = max(self.hwm.get(key, 0), hwm)
        self.tail.poll([path for part in self.parts.values() for path in part.logs])

    def sample_postgres(self) -> None:
        with self.db.engine.connect() as connection:
            pids = [row[0] for row in connection.exec_driver_sql(
                "SELECT pid FROM pg_stat_activity WHERE datname = current_database()")]
        for pid in pids:
            stat = _proc_stat(pid)
            if stat is not None:
                self.pg_cpu[pid] = stat[1]

    # ------------------------------------------------------------------ HTTP

    def http(self, method: str, path: str, body: bytes | None = None, headers: dict | None = None,
             kind: str = "page") -> tuple[int, dict, bytes]:
        conn = http.client.HTTPConnection("127.0.0.1", self.web_port, timeout=HTTP_TIMEOUT)
        started = time.perf_counter()
        try:
            conn.request(method, path, body=body, headers=headers or {})
            response = conn.getresponse()
            data = response.read()
            result = (response.status, {k.lower(): v for k, v in response.getheaders()}, data)
            cookies = [v for k, v in response.getheaders() if k.lower() == "set-cookie"]
        finally:
            conn.close()
        self.timed(f"{method} {re.sub(r'/[0-9]+', '/<id>', path.split('?')[0])}", time.perf_counter() - started)
        if cookies:
            result[1]["set-cookie"] = cookies
        self.capture.add(kind, data, f"{method} {path} {result[0]}")
        return result

    def api(self, bot: Bot, method: str, path: str, payload: dict | None = None) -> tuple[int, dict]:
        headers = {"Authorization": f"Bearer {bot.token}"}
        body = None
        if payload is not None:
            body = json.dumps(payload).encode()
            headers["Content-Type"] = "application/json"
        status, _, data = self.http(method, "/api/v1" + path, body, headers, kind="api")
        try:
            return status, json.loads(data) if data else {}
        except ValueError:
            return status, {"raw": data[:200].decode("latin-1")}

    def web(self, bot: Bot, method: str, path: str, fields: dict | None = None) -> tuple[int, str, str]:
        """One request with the bot's session cookie; returns status, Location and the page."""
        headers = {"Cookie": bot.cookie} if bot.cookie else {}
        body = None
        if fields is not None:
            body = urlencode({k: v for k, v in fields.items() if not k.startswith("_")}).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        status, response_headers, data = self.http(method, path, body, headers)
        for value in response_headers.get("set-cookie", []):
            if value.startswith("session="):
                bot.cookie = value.split(";", 1)[0]
        return status, response_headers.get("location", ""), data.decode("utf-8", "replace")

    def login(self, bot: Bot) -> None:
        if bot.logged_in:
            return
        _, _, page = self.web(bot, "GET", "/login")
        fields = form_fields(page, "/login") or {}
        fields.update(email=bot.email, password=PASSWORD)
        status, _, _ = self.web(bot, "POST", "/login", fields)
        if status != 302:
            raise RuntimeError(f"login of {bot.email} answered {status}")
        bot.logged_in = True

    # ------------------------------------------------------------------ mail out (bots to the listener)

    def smtp_send(self, sender: str, recipient: str, raw: bytes) -> None:
        started = time.perf_counter()
        with smtplib.SMTP("127.0.0.1", self.smtp_port, timeout=SMTP_TIMEOUT) as client:
            client.sendmail(sender, [recipient], raw)
        self.timed("SMTP " + ("reply" if "+" in recipient else "command"), time.perf_counter() - started)

    def timed(self, what: str, seconds: float) -> None:
        with self.latency_lock:
            self.latency[what].append(seconds)

    def mail_out(self, bot: Bot, to: str, subject: str, body: str, reply_to=None) -> tuple[str, bytes]:
        """Send one mail as a mail client would (a reply quotes the original); returns its Message-ID."""
        message = EmailMessage()
        message["From"] = bot.email
        message["To"] = to
        message["Subject"] = subject
        message_id = make_msgid(domain=BOT_DOMAIN)
        message["Message-ID"] = message_id
        text = body + "\n"
        if reply_to is not None:
            message["In-Reply-To"] = str(reply_to["Message-ID"])
            message["References"] = f"{reply_to['References'] or ''} {reply_to['Message-ID']}".strip()
            quoted = "\n".join("> " + line for line in text_of(reply_to).splitlines()[:60])
            text += f"\nOn {reply_to['Date']}, pbem <{to}> wrote:\n{quoted}\n"
        message.set_content(text)
        return message_id, message.as_bytes(policy=policy.SMTP)

    def send_copies(self, bot: Bot, to: str, raw: bytes, duplicate: str) -> None:
        """Deliver a mail once, or twice with the same bytes (one after the other, or at the same time)."""
        if duplicate == "concurrent":
            errors = []

            def again():
                try:
                    self.smtp_send(bot.email, to, raw)
                except Exception as error:  # noqa: BLE001 - reported below
                    errors.append(error)

            other = threading.Thread(target=again)
            other.start()
            self.smtp_send(bot.email, to, raw)
            other.join()
            if errors:
                raise errors[0]
            return
        self.smtp_send(bot.email, to, raw)
        if duplicate == "sequential":
            self.smtp_send(bot.email, to, raw)

    # ------------------------------------------------------------------ the pool of bot actions

    def submit(self, function, *args) -> None:
        if self.pool is None or self.stopping:
            return
        with self.busy_lock:
            self.busy += 1

        def run():
            try:
                function(*args)
            except Exception as error:  # noqa: BLE001 - a bot that fails is recorded, the soak goes on
                self.ledger.error(f"{function.__name__}{args[:1]}: {type(error).__name__}: {error}\n"
                                  + traceback.format_exc(limit=3))
            finally:
                with self.busy_lock:
                    self.busy -= 1

        self.pool.submit(run)

    def idle(self) -> bool:
        with self.busy_lock:
            return self.busy == 0

    # ------------------------------------------------------------------ tables

    def table_specs(self):
        """Titles, player counts and option presets in turn, so that every combination comes up."""
        specs = []
        for name in ("tongiaki", "discovery", "tapaono"):
            rules = engine.get(name)
            presets = list(rules.option_presets())
            if name == "tapaono":
                presets.append(SHORT_TAPAONO)  # tens of decisions: games that end within a short soak
            counts = list(range(rules.min_players, rules.max_players + 1))
            for i in range(max(len(presets), len(counts))):
                specs.append((name, counts[i % len(counts)], presets[i % len(presets)]))
        # Interleave the titles so that a small soak has all three.
        by_title = collections.defaultdict(list)
        for spec in specs:
            by_title[spec[0]].append(spec)
        order = []
        for row in itertools.zip_longest(*by_title.values()):
            order += [spec for spec in row if spec is not None]
        return order

    def new_table(self) -> None:
        index = next(self.next_index)
        specs = self.specs
        title, players, options = specs[index % len(specs)]
        # Seat doors rotate with the table (and shift every third table, so that each title is opened
        # through every door): every door opens tables and every mix of doors meets.
        doors = [DOORS[(index + index // 3 + i) % 3] for i in range(players)]
        chosen: list[Bot] = []
        for door in doors:
            candidates = [b for b in self.bots[door] if b not in chosen]
            chosen.append(self.choice(candidates))
        table = Table(index, title, players, dict(options), chosen)
        with self.tables_lock:
            self.tables.append(table)
        self.submit(self.open_table, table)

    def in_flight(self) -> int:
        with self.tables_lock:
            return sum(not t.ended for t in self.tables)

    def table_ended(self, table: Table) -> None:
        with self.tables_lock:
            if table.ended:
                return
            table.ended, table.ended_at = True, now()
        if self.playing:
            self.new_table()

    def open_table(self, table: Table) -> None:
        creator = table.bots[0]
        if creator.door == "api":
            status, data = self.api(creator, "POST", "/games", {"title": table.title, "players": table.players,
                                                                "options": table.options})
            if status != 201:
                raise RuntimeError(f"POST /games answered {status}: {data}")
            self.table_open(table, data["id"])
        elif creator.door == "web":
            with creator.lock:
                self.login(creator)
                path = f"/games/new/{table.title}"
                _, _, page = self.web(creator, "GET", path)
                fields = form_fields(page, path)
                if fields is None:
                    raise RuntimeError(f"no create form on {path}")
                fields.update(players=str(table.players), turn_hours="", timeout_policy="wait")
                for option in engine.get(table.title).describe()["options"]:
                    value = table.options.get(option["name"], option["default"])
                    if option["type"] == "bool":
                        if value:
                            fields["opt_" + option["name"]] = "y"
                    else:
                        fields["opt_" + option["name"]] = str(value)
                status, location, page = self.web(creator, "POST", path, fields)
                found = re.search(r"/games/(\d+)$", location)
                if status != 302 or not found:
                    raise RuntimeError(f"POST {path} answered {status} {location} {page[:300]!r}")
            self.table_open(table, int(found.group(1)))
        else:
            words = " ".join(f"{k}={('yes' if v else 'no') if isinstance(v, bool) else v}"
                             for k, v in table.options.items())
            message_id, raw = self.mail_out(creator, f"pbem@{MAIL_DOMAIN}", "new game",
                                            f"/new {table.title} players={table.players} {words}".strip())
            with self.tables_lock:
                self.pending_new[message_id] = table
            self.smtp_send(creator.email, f"pbem@{MAIL_DOMAIN}", raw)
            # The game id comes back in the answer (on_answer).

    def table_open(self, table: Table, game_id: int) -> None:
        table.game_id = game_id
        with self.tables_lock:
            self.tables_by_game[game_id] = table
        for bot in table.bots[1:]:
            if bot.door == "api":
                status, data = self.api(bot, "POST", f"/games/{game_id}/join")
                if status != 200:
                    raise RuntimeError(f"join of game {game_id} answered {status}: {data}")
            elif bot.door == "web":
                with bot.lock:
                    self.login(bot)
                    _, _, page = self.web(bot, "GET", f"/games/{game_id}")
                    fields = form_fields(page, f"/games/{game_id}/join")
                    if fields is None:
                        raise RuntimeError(f"no join button on the page of game {game_id}")
                    status, _, _ = self.web(bot, "POST", f"/games/{game_id}/join", fields)
                    _, _, page = self.web(bot, "GET", f"/games/{game_id}")
                    if status != 303 or "You have a seat." not in flashes(page):
                        raise RuntimeError(f"web join of game {game_id}: {status} {flashes(page)}")
            else:
                _, raw = self.mail_out(bot, f"pbem@{MAIL_DOMAIN}", "join", f"/join {game_id}")
                self.smtp_send(bot.email, f"pbem@{MAIL_DOMAIN}", raw)

    # ------------------------------------------------------------------ decisions

    def decide(self, version: int, can_go_stale: bool = True) -> str:
        """What the bot does at one decision: move (a random legal one), resign, illegal or stale."""
        with self.rng_lock:
            x = self.rng.random()
        if x < self.args.resign_rate:
            return "resign"
        x -= self.args.resign_rate
        if x < self.args.bad_rate / 2:
            return "illegal"
        x -= self.args.bad_rate / 2
        if x < self.args.bad_rate / 2 and version > 0 and can_go_stale:
            return "stale"
        return "move"

    def copies(self, prefix: str, rate: float) -> str:
        """Whether to send this one twice: the first two are (one after the other, then at once), then a share."""
        with self.ledger.lock:
            for kind in ("sequential", "concurrent"):
                if not self.ledger.faults[f"{prefix}_{kind}"]:
                    self.ledger.faults[f"{prefix}_{kind}"] += 1
                    return kind
        if not self.chance(rate):
            return ""
        kind = self.choice(("sequential", "concurrent"))
        with self.ledger.lock:
            self.ledger.faults[f"{prefix}_{kind}"] += 1
        return kind

    def claim_turn(self, game_id: int, user_id: int, seq: int) -> bool:
        """True once per turn position: a bot acts on the first wake-up for a position, not on repeats."""
        with self.acted_lock:
            if self.acted.get((game_id, user_id), -1) >= seq:
                return False
            self.acted[(game_id, user_id)] = seq
            return True

    def play_api(self, bot: Bot, table: Table) -> None:
        game_id = table.game_id
        while self.playing and not table.ended:
            status, view = self.api(bot, "GET", f"/games/{game_id}")
            if status != 200:
                raise RuntimeError(f"GET game {game_id} answered {status}: {view}")
            moves = view.get("legal_moves") or []
            if not moves:
                return
            version = view["version"]
            if self.chance(0.1):  # what a spectator and the history show: searched for hidden information too
                self.http("GET", f"/api/v1/games/{game_id}", kind="api")
                self.http("GET", f"/api/v1/games/{game_id}/moves", kind="api")
            what = self.decide(version)
            if what == "resign":
                item = self.ledger.add(Sent("api", "resign", game_id, bot.user_id, None, "resign"))
                status, data = self.api(bot, "POST", f"/games/{game_id}/resign")
                if status == 200:
                    self.ledger.settle(item, "applied")
                else:
                    self.ledger.settle(item, "refused", data.get("message", ""))
                return
            key = secrets.token_hex(12)
            move = {"move": self.choice(moves), "expected_version": version, "key": key}
            if what == "illegal":
                move["move"] = ILLEGAL
            elif what == "stale":
                move["expected_version"] = version - 1
            item = self.ledger.add(Sent("api", what, game_id, bot.user_id, f"api:{bot.user_id}:{key}", move["move"]))
            status, data = self.api(bot, "POST", f"/games/{game_id}/moves", move)
            if status == 201:
                self.ledger.settle(item, "duplicate" if data.get("duplicate") else "applied")
                if data.get("finished"):
                    self.table_ended(table)
                    return
                if data.get("to_move") != view.get("my_seat"):
                    return
            elif 400 <= status < 500:
                self.ledger.settle(item, "refused", data.get("message", ""))
                if what == "move":
                    return  # a legal move refused: someone else moved meanwhile; wait for the next wake-up
            else:
                raise RuntimeError(f"POST move to game {game_id} answered {status}: {data}")

    def play_web(self, bot: Bot, table: Table) -> None:
        game_id = table.game_id
        path = f"/games/{game_id}"
        with bot.lock:
            self.login(bot)
            _, _, page = self.web(bot, "GET", path)
            while self.playing and not table.ended:
                form = form_fields(page, f"{path}/move")
                if form is None or not form["_options"]:
                    return
                version = int(form["expected_version"])
                if self.chance(0.1):  # the replay viewer and a spectator's page: searched for hidden information too
                    self.web(bot, "GET", f"{path}/replay?seq={max(0, version - 1)}")
                    self.http("GET", path)
                what = self.decide(version)
                if what == "resign":
                    resign = form_fields(page, f"{path}/resign")
                    item = self.ledger.add(Sent("web", "resign", game_id, bot.user_id, None, "resign"))
                    status, _, _ = self.web(bot, "POST", f"{path}/resign", resign)
                    _, _, page = self.web(bot, "GET", path)
                    if status == 303 and "You resigned." in flashes(page):
                        self.ledger.settle(item, "applied")
                    else:
                        self.ledger.settle(item, "refused", " ".join(flashes(page)))
                    return
                fields = dict(form)
                fields["move"] = self.choice(form["_options"])
                fields["text"] = ""
                if what == "illegal":
                    fields["text"] = ILLEGAL
                    fields["key"] = secrets.token_hex(16)
                elif what == "stale":
                    fields["expected_version"] = str(version - 1)
                    fields["key"] = secrets.token_hex(16)
                item = self.ledger.add(Sent("web", what, game_id, bot.user_id, f"web:{bot.user_id}:{fields['key']}",
                                            fields["text"] or fields["move"]))
                copies = self.copies("web_double", self.args.dup_web_rate) if what == "move" else ""
                item.copies = copies
                if copies == "concurrent":
                    seen = {}

                    def twin():
                        clone = Bot(bot.door, bot.email, bot.user_id, cookie=bot.cookie)
                        seen["second"] = self.web(clone, "POST", f"{path}/move", fields)[0]

                    other = threading.Thread(target=twin)
                    other.start()
                    status, _, answer = self.web(bot, "POST", f"{path}/move", fields)
                    other.join()
                    item.copy_outcome = str(seen.get("second"))
                else:
                    status, _, answer = self.web(bot, "POST", f"{path}/move", fields)
                    if copies == "sequential":
                        second, _, _ = self.web(bot, "POST", f"{path}/move", fields)
                        item.copy_outcome = str(second)
                if status == 303:
                    _, _, page = self.web(bot, "GET", path)
                    said = flashes(page)
                    if any(s.startswith("You played") for s in said):
                        self.ledger.settle(item, "applied")
                    elif any(s.startswith("That form was sent before") for s in said):
                        self.ledger.settle(item, "duplicate")
                    elif copies == "concurrent":
                        self.ledger.settle(item, "applied")  # the flash went with the other cookie; the log decides
                    else:
                        raise RuntimeError(f"move in game {game_id}: 303 without a flash: {said}")
                    if copies == "sequential":
                        item.copy_outcome += " " + ("duplicate" if any(
                            s.startswith("That form was sent before") for s in said) else "not recognised")
                    if any("The game is over." in s for s in said):
                        self.table_ended(table)
                        return
                elif status in (400, 403, 409, 422):
                    self.ledger.settle(item, "refused", move_error(answer))
                    page = answer  # the current board with the reason, and the form again
                    if what == "move":
                        return
                else:
                    raise RuntimeError(f"POST {path}/move answered {status}: {answer[:300]!r}")

    def play_mail(self, bot: Bot, table: Table, message, text: str, token: tuple[int, int, int]) -> None:
        """Answer a mail that lists this seat's legal moves: reply to its Reply-To with one decision."""
        game_id, _seat, seq = token
        moves = listed_moves(text)
        if not moves or not self.playing or table.ended:
            return
        reply_to = str(message["Reply-To"])
        old = self.old_tokens.get((game_id, bot.user_id))
        what = self.decide(seq, can_go_stale=old is not None and old != reply_to)
        to = reply_to
        if what == "resign":
            line = "/resign"
        elif what == "illegal":
            line = ILLEGAL
        elif what == "stale":
            line, to = self.choice(moves), old  # the reply address of an earlier turn: refused as stale
        else:
            line = self.choice(moves)
        self.old_tokens[(game_id, bot.user_id)] = reply_to
        message_id, raw = self.mail_out(bot, to, "Re: " + str(message["Subject"]), line, reply_to=message)
        kind = "resign" if what == "resign" else what
        key = None if kind == "resign" else f"mail:{message_id}#0"
        copies = self.copies("mail_duplicate", self.args.dup_mail_rate)
        self.ledger.add(Sent("email", kind, game_id, bot.user_id, key, line, message_id=message_id, copies=copies))
        self.send_copies(bot, to, raw, copies)

    # ------------------------------------------------------------------ mail in (the sink)

    def on_mail(self, t: float, rcpts: list[str], raw: bytes) -> None:
        self.mail_queue.put((t, rcpts, raw))

    def dispatch(self) -> None:
        while True:
            item = self.mail_queue.get()
            if item is None:
                return
            try:
                self.read_mail(*item)
            except Exception as error:  # noqa: BLE001 - recorded; the soak goes on
                self.ledger.error(f"reading a mail: {type(error).__name__}: {error}\n{traceback.format_exc(limit=3)}")
            finally:
                self.mail_queue.task_done()

    def read_mail(self, t: float, rcpts: list[str], raw: bytes) -> None:
        self.capture.add("mail", raw, ",".join(rcpts), t)
        self.mail_count += 1
        message = email.message_from_bytes(raw, policy=policy.default)
        text = text_of(message)
        subject = str(message["Subject"] or "")
        auto = str(message["Auto-Submitted"] or "")
        message_id = str(message["Message-ID"] or "")
        token_match = _TOKEN.search(str(message["Reply-To"] or ""))
        token = tuple(int(x) for x in token_match.groups()) if token_match else None
        for rcpt in rcpts:
            bot = self.bot_by_email.get(rcpt.lower())
            if bot is None:
                self.ledger.error(f"mail to a stranger {rcpt}: {subject}")
                continue
            turn = _TURN_SUBJECT.match(subject)
            if auto == "auto-generated" and turn:
                if token is None:
                    self.ledger.error(f"turn mail without a reply token: {subject}")
                    continue
                with self.tables_lock:
                    self.turn_mails.append((token[0], token[1], token[2], message_id, t))
                self.wake(bot, token, message, text, answer_to=None)
            elif auto == "auto-generated" and subject.endswith("] game over"):
                table = self.tables_by_game.get(int(message["X-Pbem-Game"]))
                if table is not None:
                    self.table_ended(table)
            elif auto == "auto-replied":
                self.on_answer(bot, message, text, token)

    def wake(self, bot: Bot, token, message, text: str, answer_to: str | None) -> None:
        game_id, _seat, seq = token
        table = self.tables_by_game.get(game_id)
        if table is None or table.ended or not self.playing:
            return
        if bot.door == "email":
            if answer_to is None and not self.claim_turn(game_id, bot.user_id, seq):
                return
            if answer_to is not None:
                with self.acted_lock:
                    if answer_to in self.answered or self.acted.get((game_id, bot.user_id), -1) > seq:
                        return
                    self.answered.add(answer_to)
                    self.acted[(game_id, bot.user_id)] = seq
            self.submit(self.play_mail, bot, table, message, text, token)
        elif self.claim_turn(game_id, bot.user_id, seq):
            self.submit(self.play_api if bot.door == "api" else self.play_web, bot, table)

    def on_answer(self, bot: Bot, message, text: str, token) -> None:
        """The service's answer to a bot's mail: what became of it, maybe the next decision to make."""
        answer_to = str(message["In-Reply-To"] or "")
        new = self.pending_new.pop(answer_to, None)
        if new is not None:
            found = re.search(r"Game (\d+) \(\w+\) is open", text)
            if not found:
                self.ledger.error(f"/new answered without a game: {text[:300]!r}")
                self.table_ended(new)
                return
            self.submit(self.table_open, new, int(found.group(1)))
            return
        item = self.ledger.by_message.get(answer_to)
        if item is None:
            if text.startswith("The results of your mail:") and "/join" in text and "Failed" not in text:
                return  # the answer to a /join
            self.ledger.error(f"an answer to no mail of ours: {text[:300]!r}")
            return
        with self.ledger.lock:
            item.answers += 1
        if "This turn has already been played" in text:
            self.ledger.settle(item, "refused", text.split("\n", 1)[0])
        elif "Failed (reading stopped here):" in text:
            lines = text.split("Failed (reading stopped here):", 1)[1].strip().splitlines()
            self.ledger.settle(item, "refused", lines[1].strip() if len(lines) > 1 else "")
        elif "Done:" in text:
            if item.kind == "resign" and "You resigned from game" in text:
                self.ledger.settle(item, "applied")
            elif item.kind != "resign" and re.search(r"-> move \d+: ", text):
                self.ledger.settle(item, "applied")
            else:
                self.ledger.error(f"an answer that says neither done nor failed: {text[:300]!r}")
        else:
            self.ledger.error(f"an answer I cannot read: {text[:300]!r}")
        if re.search(r"Game \d+ is over\.", text):
            table = self.tables_by_game.get(item.game_id)
            if table is not None:
                self.table_ended(table)
        if token is not None and listed_moves(text):
            self.wake(bot, token, message, text, answer_to=answer_to)

    # ------------------------------------------------------------------ faults

    def kill_worker(self) -> None:
        part = self.parts["worker-a"]
        start = now()
        part.kill9()
        with self.db.sessions() as s:
            self.sending_at_kill = set(s.scalars(select(OutboundMail.id).where(OutboundMail.status == "sending")))
        self.say(f"fault: killed worker-a (SIGKILL to its process group); {len(self.sending_at_kill)} mail(s) "
                 "were being sent")
        time.sleep(self.args.kill_down_s)
        part.start()
        self.faults.append({"kind": "worker_kill", "start": start, "end": now(), "part": "worker-a"})
        self.ledger.faults["worker_kills"] += 1
        wait_for(lambda: " ready." in part.log_text(), 120, "the restarted worker")
        self.say("fault: worker-a restarted")

    def pause_broker(self) -> None:
        part = self.parts["redis"]
        start = now()
        os.kill(part.pid, signal.SIGSTOP)
        self.say(f"fault: broker paused (SIGSTOP to redis) for {self.args.pause_s:g} s")
        try:
            time.sleep(self.args.pause_s)
        finally:
            os.kill(part.pid, signal.SIGCONT)
        self.faults.append({"kind": "broker_pause", "start": start, "end": now(), "part": "redis"})
        self.ledger.faults["broker_pauses"] += 1
        self.say("fault: broker resumed (SIGCONT)")

    # ------------------------------------------------------------------ the run

    def progress(self) -> float:
        """How far the play is (1 = done): --minutes or --moves, but not before every door has played
        --min-door-moves moves and every fault was injected, unless --max-minutes is up."""
        elapsed = (now() - self.play_started) / 60
        done = max(elapsed / self.args.minutes if self.args.minutes else 0.0,
                   self.ledger.applied / self.args.moves if self.args.moves else 0.0)
        if done < 1.0 or (self.args.max_minutes and elapsed >= self.args.max_minutes):
            return done
        faults = self.ledger.faults
        short = any(self.ledger.applied_by_door[door] < self.args.min_door_moves for door in DOORS) or not all(
            faults[f"{prefix}_{kind}"] for prefix in ("web_double", "mail_duplicate")
            for kind in ("sequential", "concurrent"))
        return 0.999 if short else done

    def play(self) -> None:
        self.specs = self.table_specs()
        self.pool = ThreadPoolExecutor(max_workers=self.args.threads, thread_name_prefix="bot")
        dispatcher = threading.Thread(target=self.dispatch, name="sink-dispatch", daemon=True)
        dispatcher.start()
        self.play_started = now()
        self.playing = True
        for _ in range(self.args.games):
            self.new_table()
        killed = paused = False
        last_report = time.monotonic()
        while self.progress() < 1.0:
            time.sleep(0.25)
            if not killed and self.progress() >= self.args.kill_at:
                killed = True
                self.kill_worker()
            if not paused and self.progress() >= self.args.pause_at:
                paused = True
                self.pause_broker()
            for name, part in self.parts.items():
                if not part.alive() and not (name == "worker-a" and not killed):
                    raise SoakError(f"{name} died during the run: see {part.logs[-1]}")
            if time.monotonic() - last_report > self.args.report_every:
                last_report = time.monotonic()
                self.report_progress()
        self.playing = False
        self.play_ended = now()
        self.say(f"play stopped after {(self.play_ended - self.play_started) / 60:.2f} min; draining")
        if not killed:
            self.kill_worker()
        if not paused:
            self.pause_broker()

    def report_progress(self) -> None:
        with self.db.sessions() as s:
            moves = s.scalar(select(func.count()).select_from(MoveRecord))
            pending = s.scalar(select(func.count()).select_from(OutboundMail).where(OutboundMail.status != "sent"))
        with self.tables_lock:
            ended = sum(t.ended for t in self.tables)
        self.say(f"t={now() - self.play_started:.0f}s moves={moves} games in flight={self.in_flight()} "
                 f"ended={ended} mails received={self.mail_count} outbox unsent={pending} "
                 f"bot actions busy={self.busy}")

    def drain(self) -> float:
        """Wait for the bots' last actions, then for the outbox to empty and the sink to read everything."""
        start = now()
        deadline = time.monotonic() + self.args.drain_s
        stable = 0
        while time.monotonic() < deadline:
            with self.db.sessions() as s:
                unsent = s.scalar(select(func.count()).select_from(OutboundMail)
                                  .where(OutboundMail.status.in_(("pending", "sending"))))
                processing = s.scalar(select(func.count()).select_from(InboundMail)
                                      .where(InboundMail.outcome == "processing"))
            quiet = unsent == 0 and processing == 0 and self.idle() and self.mail_queue.unfinished_tasks == 0
            stable = stable + 1 if quiet else 0
            if stable >= 3:
                break
            time.sleep(1.0)
        self.stopping = True
        self.pool.shutdown(wait=True, cancel_futures=True)
        self.mail_queue.join()
        usage = os.times()
        self.soak_cpu = usage.user + usage.system  # the bots and the sink, before the checks start
        return now() - start

    def stop_services(self) -> None:
        self.monitor_stop.set()
        for name in ("web", "mail", "beat", "worker-a", "worker-b", "redis"):
            part = self.parts.get(name)
            if part is not None and part.alive():
                try:
                    self.sample()
                except Exception:  # noqa: BLE001
                    pass
        order = [self.parts[name] for name in ("web", "mail", "beat", "worker-a", "worker-b") if name in self.parts]
        for part in order:  # all at once, then wait for each
            part.terminate()
        for part in order:
            part.stop(grace=15)
        if "redis" in self.parts:
            self.parts["redis"].stop(grace=15)
        if hasattr(self, "sink"):
            self.sink.stop()
        self.mail_queue.put(None)
        self.tail.poll([path for part in self.parts.values() for path in part.logs])

    # ==================================================================== checks

    def check(self, name: str, ok: bool, detail: str) -> None:
        self.results.append((name, ok, detail))
        print(f"check {name}: {'PASS' if ok else 'FAIL'} - {detail}", flush=True)

    def check_verify(self) -> None:
        pbem = Path(sys.executable).parent / "pbem"
        command = [str(pbem)] if pbem.exists() else [sys.executable, "-m", "pbem.cli"]
        done = subprocess.run([*command, "verify", "--all"], cwd=ROOT, env=self.env, capture_output=True, text=True,
                              timeout=1800)
        (self.folder / "verify.log").write_text(done.stdout + done.stderr)
        last = (done.stdout.strip().splitlines() or ["(no output)"])[-1]
        self.check("verify", done.returncode == 0, f"pbem verify --all: {last}")

    def load_log(self) -> dict[int, list]:
        with self.db.sessions() as s:
            rows = s.execute(select(MoveRecord.game_id, MoveRecord.seq, MoveRecord.seat, MoveRecord.source,
                                    MoveRecord.notation, MoveRecord.idempotency_key, MoveRecord.created_at)
                             .order_by(MoveRecord.game_id, MoveRecord.seq)).all()
        log = collections.defaultdict(list)
        for row in rows:
            log[row.game_id].append(row)
        return log

    def check_accounting(self, log: dict[int, list]) -> None:
        rows = [row for game in log.values() for row in game]
        with self.db.sessions() as s:
            mail_rows = collections.Counter(s.scalars(select(InboundMail.message_id)))
        for door in DOORS:
            source = door
            sent = [x for x in self.ledger.sent if x.door == door]
            by_kind = collections.Counter(x.kind for x in sent)
            applied = [x for x in sent if x.outcome in ("applied", "duplicate")]
            refused = [x for x in sent if x.outcome == "refused"]
            unanswered = [x for x in sent if x.outcome is None]
            no_reason = [x for x in refused if not x.reason.strip()]
            db_moves = {row.idempotency_key for row in rows
                        if row.source == source and row.notation != "resign" and row.idempotency_key}
            db_resigns = collections.Counter((row.game_id, row.seat) for row in rows
                                             if row.source == source and row.notation == "resign")
            told_moves = {x.key for x in applied if x.kind != "resign"}
            told_resigns = sum(1 for x in applied if x.kind == "resign")
            problems = []
            if len(sent) != len(applied) + len(refused) + len(unanswered):
                problems.append("ledger does not add up")
            if unanswered:
                problems.append(f"{len(unanswered)} never answered (e.g. {unanswered[0].kind} "
                                f"{unanswered[0].text!r} in game {unanswered[0].game_id})")
            if no_reason:
                problems.append(f"{len(no_reason)} refused without a reason")
            if told_moves != db_moves:
                problems.append(f"told applied but not in the log: {len(told_moves - db_moves)}; "
                                f"in the log but not told: {len(db_moves - told_moves)}")
            refused_in_log = {x.key for x in refused if x.key} & db_moves
            if refused_in_log:
                problems.append(f"{len(refused_in_log)} refused moves are in the log")
            if told_resigns != sum(db_resigns.values()):
                problems.append(f"resignations told {told_resigns}, in the log {sum(db_resigns.values())}")
            if any(n > 1 for n in db_resigns.values()):
                problems.append("a seat resigned twice")
            bad_refused = collections.Counter(x.kind for x in refused)
            unexpected = [x for x in sent if x.kind in ("illegal", "stale") and x.outcome != "refused"]
            if unexpected:
                problems.append(f"{len(unexpected)} illegal or stale submissions were not refused")
            legal_refused = [x for x in refused if x.kind in ("move", "resign")]
            if legal_refused:  # chosen from the legal moves of the position the bot was shown
                problems.append(f"{len(legal_refused)} legal moves or resignations refused, e.g. "
                                f"{legal_refused[0].text!r} in game {legal_refused[0].game_id}: {legal_refused[0].reason}")
            copies = [x for x in sent if x.copies]
            dup_problems = []
            for x in copies:
                if door == "web":
                    if not x.copy_outcome.startswith("303") or "not recognised" in x.copy_outcome:
                        dup_problems.append(f"second POST: {x.copy_outcome}")
                else:
                    if mail_rows.get(x.message_id, 0) != 1:
                        dup_problems.append(f"{x.message_id} stored {mail_rows.get(x.message_id, 0)} times")
                    if x.answers != 1:
                        dup_problems.append(f"{x.message_id} ({x.copies}) answered {x.answers} times")
            if dup_problems:
                problems.append(f"duplicates: {len(dup_problems)} problem(s), e.g. {dup_problems[0]}")
            if door == "email":
                answered_twice = [x for x in sent if x.answers > 1]
                if answered_twice:
                    problems.append(f"{len(answered_twice)} mails answered more than once")
            detail = (f"submitted {len(sent)} = applied {len(applied)} + refused with a reason {len(refused)} "
                      f"+ unanswered {len(unanswered)}; kinds {dict(by_kind)}; refused by kind {dict(bad_refused)}; "
                      f"log by source '{source}': {len(db_moves)} keyed moves, {sum(db_resigns.values())} "
                      f"resignations; duplicates injected {len(copies)}, applied twice 0 (unique key), "
                      f"recognised {len(copies) - len(dup_problems)}")
            if problems:
                detail += "; PROBLEMS: " + "; ".join(problems)
            self.check(f"accounting.{door}", not problems, detail)

    def expected_turns(self, log: dict[int, list]) -> set[tuple[int, int, int]]:
        """(game, seat, moves played) of every turn notification the log calls for.

        A change is one transaction: a player's move or resignation plus the automatic moves
        of resigned seats that follow it ('auto'). After it, the seat to move is the seat of
        the next change (bots act only on their own turn), or the game's current player. A
        turn notification is due when that seat differs from the one who acted.
        """
        with self.db.sessions() as s:
            current = {g.id: g for g in s.scalars(select(Game).where(Game.status.in_(("running", "finished"))))}
        expected = set()
        for game_id, game in current.items():
            entries = log.get(game_id, [])
            changes: list[list] = []
            for row in entries:
                if row.source == "auto" and changes:
                    changes[-1].append(row)
                else:
                    changes.append([row])
            first = changes[0][0].seat if changes else game.to_move
            if first is not None:
                expected.add((game_id, first, 0))
            for i, change in enumerate(changes):
                mover = change[0].seat
                after = change[-1].seq
                if i + 1 < len(changes):
                    nxt = changes[i + 1][0].seat
                elif game.status == "running":
                    nxt = game.to_move
                else:
                    nxt = None
                if nxt is not None and nxt != mover:
                    expected.add((game_id, nxt, after))
        return expected

    def check_turn_mails(self, log: dict[int, list]) -> None:
        expected = self.expected_turns(log)
        distinct = collections.defaultdict(set)
        copies = collections.Counter()
        for game_id, seat, seq, message_id, _t in self.turn_mails:
            distinct[(game_id, seat, seq)].add(message_id)
            copies[message_id] += 1
        got = set(distinct)
        missing = sorted(expected - got)
        extra = sorted(got - expected)
        several = {k: v for k, v in distinct.items() if len(v) > 1}
        with self.db.sessions() as s:
            allowed = set(s.scalars(select(OutboundMail.message_id).where(OutboundMail.id.in_(self.sending_at_kill)))) \
                if self.sending_at_kill else set()
        repeated = {m for m, n in copies.items() if n > 1}
        unexplained = repeated - allowed
        ok = not missing and not extra and not several and not unexplained
        detail = (f"{len(expected)} turns, {len(got)} notified; missing {len(missing)} {missing[:5]}, "
                  f"unexpected {len(extra)} {extra[:5]}, turns with several notifications {len(several)}; "
                  f"the same message received twice {len(repeated)} (allowed only for the {len(allowed)} "
                  f"mail(s) being sent when the worker was killed: {len(unexplained)} others)")
        self.check("turn_notifications", ok, detail)

    def check_outbox(self) -> None:
        with self.db.sessions() as s:
            by_status = dict(s.execute(select(OutboundMail.status, func.count()).group_by(OutboundMail.status)).all())
            inbound = dict(s.execute(select(InboundMail.outcome, func.count()).group_by(InboundMail.outcome)).all())
        unsent = {k: v for k, v in by_status.items() if k != "sent"}
        self.check("outbox", not unsent, f"outbox rows by status {by_status}; inbound mail by outcome {inbound}")

    def secrets_by_game(self, log: dict[int, list]):
        """Each game's seed (three spellings) and every window of its hidden orders, with when each stops being secret."""
        never = datetime.max
        seeds: dict[str, tuple[int, datetime]] = {}
        windows: dict[tuple, tuple[int, datetime]] = {}
        with self.db.sessions() as s:
            played = list(s.execute(select(Game.id, Game.title, Game.seed, Game.status, Game.finished_at)
                                    .where(Game.seed.is_not(None))).all())
        for game_id, title, seed, status, finished_at in played:
            end = finished_at if status == "finished" and finished_at else never
            number = int(seed, 16)
            for text in (seed.lower(), format(number, "x"), str(number)):
                seeds[text] = (game_id, end)
            keys = HIDDEN_KEYS.get(title, ())
            size = WINDOW.get(title, 8)
            times = {row.seq: row.created_at for row in log.get(game_id, [])}
            alive: set[tuple] = set()
            with self.db.sessions() as s:
                states = s.execute(select(Snapshot.seq, Snapshot.state).where(Snapshot.game_id == game_id)
                                   .order_by(Snapshot.seq))
                for seq, state in states:
                    data = json.loads(state)
                    now_set = set()
                    for key in keys:
                        order = [str(x) for x in data.get(key) or []]
                        now_set |= {tuple(order[i:i + size]) for i in range(len(order) - size + 1)}
                    for gone in alive - now_set:
                        windows[gone] = (game_id, times.get(seq, never))
                    alive = now_set
            for still in alive:
                windows[still] = (game_id, end)
        return seeds, windows

    def check_hidden(self, log: dict[int, list]) -> None:
        seeds, windows = self.secrets_by_game(log)
        by_prefix: dict[str, list[str]] = collections.defaultdict(list)
        for text in seeds:
            by_prefix[text[:24]].append(text)
        leaks: list[str] = []
        searched = collections.Counter()
        sizes = sorted({len(w) for w in windows})

        def search(text: str, at: datetime, where: str) -> None:
            for run in re.findall(r"[0-9a-fA-F]{24,}|\d{24,}", text):
                run = run.lower()
                for i in range(len(run) - 23):
                    for candidate in by_prefix.get(run[i:i + 24], ()):
                        if run.startswith(candidate, i):
                            game_id, end = seeds[candidate]
                            if at < end:
                                leaks.append(f"seed of game {game_id} in {where}")
            for group in re.findall(r"[\[\(]([^\[\]\(\)]*)[\]\)]", text):
                items = [x.strip().strip("'\"") for x in group.split(",")]
                for size in sizes:
                    for i in range(len(items) - size + 1):
                        hit = windows.get(tuple(items[i:i + size]))
                        if hit is not None and at < hit[1]:
                            leaks.append(f"hidden order of game {hit[0]} in {where}")

        # The canary: the search must find a planted seed (each spelling) and a planted hidden order,
        # or this check could pass by being blind.
        canaries = []
        if seeds and windows:
            number_text = next(iter(seeds))
            number = int(number_text, 16) if len(number_text) == 32 else None
            window = next(iter(windows))
            if number is not None:
                canaries = [f"seed={number:032x}.", f"Rng(seed={number:x}, counter=3)", f"seed {number} x",
                            "state " + json.dumps({"deck": list(window)}), "deck=(" + ", ".join(window) + ")"]
        blind = []
        for text in canaries:
            before = len(leaks)
            search(text, datetime.min, "canary")
            if len(leaks) == before:
                blind.append(text)
            del leaks[before:]
        if not canaries or blind:
            leaks.append(f"the search is blind: it did not find the planted secrets {blind or '(none planted)'}")
        for t, kind, label, data in self.capture.items():
            searched[kind] += 1
            text = searchable_mail_text(data) if kind == "mail" else html.unescape(data.decode("utf-8", "replace"))
            search(text, utc(t), f"{kind} {label}")
        for t, path, start, end in self.tail.chunks:
            searched["log chunks"] += 1
            with open(path, "rb") as handle:
                handle.seek(start)
                text = handle.read(end - start).decode("utf-8", "replace")
            search(text, utc(t), f"log {path.name}")
        detail = (f"searched {dict(searched)} for {len({g for g, _ in seeds.values()})} seeds (32-digit hex, "
                  f"unpadded hex, decimal) and {len(windows)} windows of consecutive items of hidden orders "
                  f"({', '.join(f'{k}.{v[0]} by {WINDOW[k]}' for k, v in HIDDEN_KEYS.items())}), each before it "
                  f"stopped being secret (and {len(canaries)} planted canaries, all found); leaks {len(leaks)}")
        if leaks:
            detail += ": " + "; ".join(leaks[:5])
        self.check("hidden_information", not leaks, detail)

    # The log records the faults provoke: (fault kind, part, pattern of the record's first line). Pausing
    # the broker makes the Celery processes' Redis connections time out: acknowledgements fail (the
    # message stays unacknowledged in Redis and is handed out again later; the tasks are idempotent),
    # the consumer reconnects, beat cannot post the sweep for a while.
    EXPECTED_ERRORS = [
        ("broker_pause", "worker", re.compile(r"CRITICAL/MainProcess\] Couldn't ack '[0-9a-f-]+', "
                                              r"reason:network:(TimeoutError|ConnectionError)")),
        ("broker_pause", "worker", re.compile(r"ERROR/MainProcess\] consumer: (Connection to broker lost|Cannot "
                                              r"connect to redis)")),
        ("broker_pause", "beat", re.compile(r"ERROR/MainProcess\] beat: Connection error")),
    ]
    _HEAD = re.compile(r"^(\[\d{4}-\d\d-\d\d[ T]|\d+:[A-Z] \d)")  # Celery, gunicorn and redis log lines
    _BAD = re.compile(r"\b(ERROR|CRITICAL|FATAL)\b|Traceback \(most recent call last\)")

    def log_records(self):
        """The process logs cut into records (a log line with its traceback), each with when it was read.

        A record starts at a line with a timestamp (Celery, gunicorn, redis) or, in the logs that
        print bare lines (Python's last-resort handler in the mail listener), at any line that is not
        part of a traceback: indented lines, "Traceback", "During handling ...", "The above
        exception ...", blank lines and the exception line that ends a traceback belong to the record.
        """
        records = []
        for part in self.parts.values():
            for path in part.logs:
                chunks = [(t, e) for t, p, _s, e in self.tail.chunks if p == path]  # in file order
                offset, k = 0, 0
                current = None
                in_traceback = False
                for raw_line in path.read_bytes().split(b"\n"):
                    line = raw_line.decode("utf-8", "replace")
                    while k < len(chunks) and chunks[k][1] <= offset:
                        k += 1
                    t = chunks[k][0] if k < len(chunks) else now()
                    offset += len(raw_line) + 1
                    continues = current is not None and not self._HEAD.match(line) and (
                        not line.strip() or line[0] in " \t" or line.startswith(
                            ("Traceback", "During handling", "The above exception")) or in_traceback)
                    if continues:
                        current["lines"].append(line)
                        if line.startswith("Traceback"):
                            in_traceback = True
                        elif line and line[0] not in " \t" and in_traceback:
                            in_traceback = False  # the exception line ends the traceback
                        continue
                    current = {"part": part.name, "log": path.name, "t": t, "lines": [line]}
                    in_traceback = line.startswith("Traceback")
                    records.append(current)
        return [r for r in records if any(self._BAD.search(line) for line in r["lines"])]

    def check_logs(self) -> None:
        records = self.log_records()
        expected, unexpected = [], []
        for record in records:
            head = record["lines"][0]
            explained = False
            for kind, part, pattern in self.EXPECTED_ERRORS:
                if not record["part"].startswith(part):
                    continue
                for fault in self.faults:
                    if fault["kind"] == kind and fault["start"] - 1 <= record["t"] <= fault["end"] + \
                            self.args.fault_grace_s and pattern.search(head):
                        explained = True
            (expected if explained else unexpected).append(record)
        with open(self.folder / "log-errors.txt", "w") as handle:
            for record in records:
                handle.write(f"--- {record['part']} {record['log']} at {utc(record['t'])}\n")
                handle.write("\n".join(record["lines"]) + "\n")
        detail = (f"{len(records)} ERROR/Traceback records: {len(expected)} provoked by the faults, "
                  f"{len(unexpected)} not (all in {self.folder / 'log-errors.txt'})")
        if unexpected:
            first = unexpected[0]
            detail += f"; first: {first['part']}: {first['lines'][0][:200]}"
        self.check("logs", not unexpected, detail)

    def check_bots(self) -> None:
        errors = self.ledger.errors
        (self.folder / "bot-errors.txt").write_text("\n\n".join(errors))
        self.check("bots", not errors, f"{len(errors)} unexpected answers or failures seen by the bots"
                   + (f"; first: {errors[0][:300]}" if errors else ""))

    def check_faults(self) -> None:
        f = self.ledger.faults
        doubles = f["web_double_sequential"] + f["web_double_concurrent"]
        dups = f["mail_duplicate_sequential"] + f["mail_duplicate_concurrent"]
        ok = f["worker_kills"] >= 1 and f["broker_pauses"] >= 1 and doubles >= 1 and dups >= 1
        self.check("faults_injected", ok, f"worker kills {f['worker_kills']}, broker pauses {f['broker_pauses']}, "
                   f"duplicate mails {dups}, double web submissions {doubles}")

    # ==================================================================== figures

    def figures(self, log: dict[int, list], drain_s: float) -> None:
        """The run's figures, one `name: value unit` line each."""
        def line(name: str, value, unit: str) -> None:
            print(f"{name}: {value:.1f} {unit}" if isinstance(value, float) else f"{name}: {value} {unit}")

        minutes = (self.play_ended - self.play_started) / 60
        start, end = utc(self.play_started), utc(self.play_ended)
        rows = [row for game in log.values() for row in game]
        in_play = [row for row in rows if start <= row.created_at <= end]
        with self.db.sessions() as s:
            finished = list(s.scalars(select(Game.finished_at).where(Game.finished_at.is_not(None))))
            started = s.scalar(select(func.count()).select_from(Game).where(Game.started_at.is_not(None)))
            turns = s.execute(select(OutboundMail.game_id, OutboundMail.seq, OutboundMail.sent_at)
                              .where(OutboundMail.kind == "turn", OutboundMail.seq > 0,
                                     OutboundMail.sent_at.is_not(None))).all()
            by_kind = dict(s.execute(select(OutboundMail.kind, func.count()).group_by(OutboundMail.kind)).all())
        # Sustained: from the first move (before it, the tables are being opened and joined) to the end of play.
        first = min((row.created_at for row in in_play), default=end)
        steady = max((end - first).total_seconds() / 60, 1e-9)
        per_minute = collections.Counter(int((row.created_at - first).total_seconds() // 60) for row in in_play)
        full = [per_minute.get(i, 0) for i in range(int(steady))]
        times = {(row.game_id, row.seq): row.created_at for row in rows}
        latency = [(sent - times[(g, q)]).total_seconds() for g, q, sent in turns if (g, q) in times]
        line("play_time", minutes, "min")
        line("drain_time", drain_s, "s")
        line("games_in_flight_target", self.args.games, "games")
        line("games_started", started, "games")
        line("games_finished", len(finished), "games")
        line("warmup_time", (first - start).total_seconds(), "s (opening the first tables, to the first move)")
        line("games_per_minute", sum(1 for t in finished if first <= t <= end) / steady, "games/min")
        line("moves_applied", len(rows), "moves")
        line("moves_per_minute", len(in_play) / steady, "moves/min")
        if full:
            line("moves_per_minute_slowest_whole_minute", min(full), "moves/min")
            line("moves_per_minute_fastest_whole_minute", max(full), "moves/min")
        for source, n in sorted(collections.Counter(r.source for r in rows).items()):
            line(f"moves_applied.{source}", n, "moves")
        with self.db.sessions() as s:
            titles = dict(s.execute(select(Game.id, Game.title)).all())
            variants = collections.Counter(
                (title, players) for title, players in s.execute(select(Game.title, Game.players)
                                                                  .where(Game.started_at.is_not(None))))
        for title, n in sorted(collections.Counter(titles[r.game_id] for r in rows).items()):
            line(f"moves_applied.{title}", n, "moves")
        for (title, players), n in sorted(variants.items()):
            line(f"games_started.{title}.{players}p", n, "games")
        for kind, n in sorted(by_kind.items()):
            line(f"mails_sent.{kind}", n, "mails")
        line("mails_received_by_sink", self.mail_count, "mails")
        line("turn_notification_latency_p50", percentile(latency, 0.5) * 1000, "ms")
        line("turn_notification_latency_p99", percentile(latency, 0.99) * 1000, "ms")
        line("turn_notification_latency_max", max(latency, default=float("nan")) * 1000, "ms")
        for name in ("worker_kills", "broker_pauses", "mail_duplicate_sequential", "mail_duplicate_concurrent",
                     "web_double_sequential", "web_double_concurrent"):
            line(f"faults.{name}", self.ledger.faults[name], "times")
        for (door, kind), n in sorted(collections.Counter((x.door, x.kind) for x in self.ledger.sent).items()):
            line(f"submitted.{door}.{kind}", n, "submissions")
        for name in self.parts:  # every process: the part's main process, then its children by pid
            keys = sorted((k for k in self.hwm if k[0] == name), key=lambda k: (self.roles.get(k) != "main", k[1]))
            children = 0
            for key in keys:
                if self.roles.get(key) == "main":
                    label = "main" if key[1] == self.parts[name].pid else f"main_pid{key[1]}"
                else:
                    children += 1
                    label = f"child{children}"
                line(f"peak_rss.{name}.{label}", self.hwm[key] / 1024, f"MB (pid {key[1]})")
        cpu = {name: sum(v for k, v in self.cpu.items() if k[0] == name) for name in self.parts}
        cpu["postgres_backends"] = sum(self.pg_cpu.values())
        cpu["soak_bots_and_sink"] = self.soak_cpu
        for name, seconds in cpu.items():
            line(f"cpu.{name}", seconds, "s")
        line("cpu_per_move", sum(cpu.values()) / max(1, len(rows)) * 1000, "ms")
        for what, values in sorted(self.latency.items()):
            name = "client." + re.sub(r"[^A-Za-z0-9_.]+", "_", what).strip("_")
            line(f"{name}.count", len(values), "requests")
            line(f"{name}.p50", percentile(values, 0.5) * 1000, "ms")
            line(f"{name}.p99", percentile(values, 0.99) * 1000, "ms")
        tasks = collections.defaultdict(list)
        for name in ("worker-a", "worker-b"):
            for path in self.parts[name].logs:
                for task, took in re.findall(r"Task (pbem\.\w+)\[[^\]]+\] succeeded in ([0-9.]+)s",
                                             path.read_text(errors="replace")):
                    tasks[task].append(float(took))
        for task, values in sorted(tasks.items()):
            line(f"task.{task}.runs", len(values), "runs")
            line(f"task.{task}.total", sum(values), "s")
            line(f"task.{task}.p50", percentile(values, 0.5) * 1000, "ms")
        line("machine.cores", os.cpu_count(), "cores (shared with other work)")
        line("machine.load_average_1min_at_end", os.getloadavg()[0], "")

    # ==================================================================== main

    def run(self) -> int:
        self.say(f"run folder {self.folder}")
        monitor = threading.Thread(target=self.monitor, name="monitor", daemon=True)
        try:
            self.create_database()
            self.say(f"database {self.db_name} migrated")
            self.start_services()
            monitor.start()
            self.say(f"started: web http://127.0.0.1:{self.web_port}/ (gunicorn, 2 workers), smtp listener "
                     f"127.0.0.1:{self.smtp_port}, sink 127.0.0.1:{self.sink.port}, redis 127.0.0.1:{self.redis_port}, "
                     "workers a and b, beat")
            self.make_users()
            self.play()
            drain_s = self.drain()
            self.say(f"drained in {drain_s:.1f} s; checking")
            self.stop_services()
            self.capture.close()
            log = self.load_log()
            self.check_verify()
            self.check_accounting(log)
            self.check_turn_mails(log)
            self.check_outbox()
            self.check_hidden(log)
            self.check_logs()
            self.check_bots()
            self.check_faults()
            self.figures(log, drain_s)
            failed = [name for name, ok, _ in self.results if not ok]
            print(f"soak: {'PASS' if not failed else 'FAIL (' + ', '.join(failed) + ')'}", flush=True)
            return 1 if failed else 0
        finally:
            self.stopping = True
            self.playing = False
            self.monitor_stop.set()
            for part in self.parts.values():
                part.stop(grace=5)
            if hasattr(self, "sink"):
                try:
                    self.sink.stop()
                except Exception:  # noqa: BLE001 - already stopped
                    pass
            if self.pool is not None:
                self.pool.shutdown(wait=False, cancel_futures=True)
            if not self.args.keep_db:
                self.drop_database()


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=None, help="play this long (default 10 without --moves)")
    parser.add_argument("--moves", type=int, default=None, help="play until this many moves were applied")
    parser.add_argument("--games", type=int, default=20, help="games kept in flight")
    parser.add_argument("--min-door-moves", type=int, default=0,
                        help="play on past --minutes/--moves until each door applied this many moves and "
                             "every fault was injected (up to --max-minutes)")
    parser.add_argument("--max-minutes", type=float, default=None, help="the longest play with --min-door-moves")
    parser.add_argument("--folder", help="run folder (default var/soak-<time>-<pid>)")
    parser.add_argument("--seed", type=int, default=1, help="the bots' random choices")
    parser.add_argument("--threads", type=int, default=24, help="bot actions at the same time")
    parser.add_argument("--postgres-url", default=os.environ.get(
        "PBEM_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"),
        help="an admin URL; the soak makes and drops a database of its own next to it")
    parser.add_argument("--keep-db", action="store_true", help="do not drop the scratch database")
    parser.add_argument("--worker-concurrency", type=int, default=2, help="pool processes per Celery worker")
    parser.add_argument("--sweep-every", type=float, default=5, help="PBEM_SWEEP_EVERY_S")
    parser.add_argument("--sweep-after", type=float, default=20, help="PBEM_SWEEP_AFTER_S")
    parser.add_argument("--claim-timeout", type=float, default=None,
                        help="shorten the mail claim timeout in the workers (seconds; production: 300)")
    parser.add_argument("--resign-rate", type=float, default=0.01, help="share of decisions that resign")
    parser.add_argument("--bad-rate", type=float, default=0.03, help="share of decisions sent illegal or stale")
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
    except SoakError as error:
        print(f"soak: could not run: {error}", flush=True)
        return 2
    except KeyboardInterrupt as error:
        print(f"soak: interrupted ({error})", flush=True)
        return 3


if __name__ == "__main__":
    sys.exit(main())
