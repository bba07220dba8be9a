"""The world the soak plays in: the service's processes as a site runs them, on loopback.

A scratch PostgreSQL database (made, migrated, dropped at the end), a private redis-server
as the Celery broker, gunicorn with two workers, two Celery workers and beat (the command
lines of `pbem.runner.plan`, what `pbem run` starts), the SMTP listener, and an SMTP sink
that receives every outgoing mail into `World.inbox`. Each process is a process group of its
own with its output in a file of the run folder (`pids` lists the groups); the `Meter`
samples their memory and CPU and reads their logs as they grow.

The world starts and stops processes and measures them; it does not play (drivers), break
anything on purpose (faults) or judge what happened (checks).
"""

from __future__ import annotations

import http.client
import os
import queue
import secrets
import sys
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

from bench.soak.celery_child import CLAIM_TIMEOUT_ENV
from pbem import config, migrate, runner
from pbem.db import Database
from tests.support.databases import ScratchDatabase
from tests.support.net import free_port, port_open, wait_for
from tests.support.processes import ROOT, GroupProcess, redis_binary, redis_command
from tests.support.smtp import SmtpSink

MAIL_DOMAIN = "pbem.localhost"
POLL_S = 0.2  # how often a start-up condition is tested


class SoakError(Exception):
    """The soak could not run (a part did not start); not a failed check."""


def now() -> float:
    return time.time()


def utc(t: float) -> datetime:
    """A wall-clock time as the naive UTC datetime the database stores."""
    return datetime.fromtimestamp(t, timezone.utc).replace(tzinfo=None)


class Part(GroupProcess):
    """One process of the service, named; each start writes to a new log file of the run folder."""

    def __init__(self, name: str, argv: list[str], env: dict, folder: Path, pidfile: Path):
        super().__init__(argv, env)
        self.name = name
        self.folder = folder
        self.pidfile = pidfile
        self.logs: list[Path] = []

    def start(self, log: Path | None = None) -> None:
        """Start (again): by default into NAME.log, then NAME.2.log, ... so that each start has its own."""
        path = log or self.folder / (f"{self.name}.log" if not self.logs else f"{self.name}.{len(self.logs) + 1}.log")
        super().start(path)
        self.logs.append(path)
        with open(self.pidfile, "a") as handle:
            handle.write(f"{self.process.pid} {self.name}\n")

    def log_text(self) -> str:
        """What the part wrote since it was last started."""
        return self.logs[-1].read_text(errors="replace") if self.logs else ""


# ==========================================================================================
# Measuring the processes


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
    """A process's peak resident memory (VmHWM) in kB."""
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


class Meter:
    """Once a second: peak RSS and CPU of every process of every part, new log bytes; every 5 s, the CPU
    of PostgreSQL's backends for the scratch database."""

    def __init__(self, world: World):
        self.world = world
        self.tail = LogTail()
        self.hwm: dict[tuple[str, int], int] = {}  # (part, pid) -> kB
        self.cpu: dict[tuple[str, int], float] = {}  # (part, pid) -> s
        self.roles: dict[tuple[str, int], str] = {}  # (part, pid) -> "main" or "child"
        self.pg_cpu: dict[int, float] = {}  # backend pid -> s
        self.halt = threading.Event()
        self.thread = threading.Thread(target=self.run, name="monitor", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.halt.set()

    def run(self) -> None:
        last_pg = 0.0
        while not self.halt.is_set():
            try:
                self.sample()
                if time.monotonic() - last_pg > 5 and self.world.db is not None:
                    last_pg = time.monotonic()
                    self.sample_postgres()
            except Exception:  # noqa: BLE001 - a sample missed is not worth stopping the soak for
                pass
            self.halt.wait(1.0)

    def sample(self) -> None:
        parts = self.world.parts
        groups = {part.pid: name for name, part in parts.items() if part.process is not None}
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
        self.tail.poll(self.world.log_paths())

    def sample_postgres(self) -> None:
        with self.world.db.engine.connect() as connection:
            pids = [row[0] for row in connection.exec_driver_sql(
                "SELECT pid FROM pg_stat_activity WHERE datname = current_database()")]
        for pid in pids:
            stat = _proc_stat(pid)
            if stat is not None:
                self.pg_cpu[pid] = stat[1]


# ==========================================================================================
# The world


class World:
    """The scratch database and the processes of the service, started and stopped in order."""

    def __init__(self, args, folder: Path):
        self.args = args
        self.folder = folder
        self.pidfile = folder / "pids"
        self.parts: dict[str, Part] = {}
        self.scratch = ScratchDatabase(f"pbem_soak_{os.getpid()}_{secrets.token_hex(3)}", args.postgres_url)
        self.db_name = self.scratch.name
        self.url = self.scratch.url
        self.db: Database | None = None
        self.inbox: queue.Queue = queue.Queue()  # (time, recipients, raw) of every mail the sink received
        self.sink: SmtpSink | None = None
        self.meter = Meter(self)
        self.env: dict = {}
        self.redis_port = self.web_port = self.smtp_port = 0

    def log_paths(self) -> list[Path]:
        return [path for part in self.parts.values() for path in part.logs]

    def create_database(self) -> None:
        self.scratch.create()
        migrate.upgrade(self.url)
        self.db = Database(self.url)

    def drop_database(self) -> None:
        if self.db is not None:
            self.db.dispose()
        self.scratch.drop()

    def start(self) -> None:
        """Start redis, then gunicorn, the workers, beat and the mail listener; wait until each is ready."""
        args = self.args
        redis = redis_binary()
        if redis is None:
            raise SoakError("redis-server is not installed")
        self.redis_port = free_port()
        self.web_port = free_port()
        self.smtp_port = free_port()
        self.sink = SmtpSink(deliver=lambda rcpts, raw: self.inbox.put((now(), rcpts, raw)))
        self.sink.start()
        data = self.folder / "data"
        data.mkdir(exist_ok=True)
        env = {k: v for k, v in os.environ.items() if not k.startswith("PBEM_")}
        env.update({
            "PBEM_DATABASE_URL": self.url,
            "PBEM_BROKER_URL": f"redis://127.0.0.1:{self.redis_port}/0",
            "PBEM_SMTP_URL": self.sink.url,
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
        plan = {part.name: part for part in runner.plan(settings, "127.0.0.1", self.web_port, "127.0.0.1",
                                                       self.smtp_port, concurrency=args.worker_concurrency)}
        worker_argv = plan["worker"].argv
        if args.claim_timeout:
            env[CLAIM_TIMEOUT_ENV] = str(args.claim_timeout)
            prefix = worker_argv.index("worker")
            worker_argv = [sys.executable, "-m", "bench.soak.celery_child", *worker_argv[prefix:]]
        argv = {
            "redis": redis_command(redis, self.redis_port, data),
            "web": plan["web"].argv,
            "worker-a": [a.replace("pbem@%h", "pbem-a@%h") for a in worker_argv],
            "worker-b": [a.replace("pbem@%h", "pbem-b@%h") for a in worker_argv],
            "beat": plan["beat"].argv,
            "mail": plan["mail"].argv,
        }
        for name, command in argv.items():
            self.parts[name] = Part(name, command, env, self.folder, self.pidfile)
        self.parts["redis"].start()
        wait_for(lambda: port_open(self.redis_port), 20, "redis-server", POLL_S)
        for name in ("web", "worker-a", "worker-b", "beat", "mail"):
            self.parts[name].start()
        wait_for(lambda: port_open(self.smtp_port), 90, "the SMTP listener", POLL_S)
        wait_for(lambda: self.http_get_status("/healthz") == 200, 90, "gunicorn", POLL_S)
        for name in ("worker-a", "worker-b"):
            wait_for(lambda: " ready." in self.parts[name].log_text(), 90, f"the Celery worker {name}", POLL_S)
        wait_for(lambda: "beat: Starting" in self.parts["beat"].log_text(), 90, "Celery beat", POLL_S)
        for name, part in self.parts.items():
            if not part.alive():
                raise SoakError(f"{name} exited: see {part.logs[-1]}")

    def http_get_status(self, path: str) -> int | None:
        """The status of a GET of `path` on gunicorn, None when it does not answer."""
        try:
            conn = http.client.HTTPConnection("127.0.0.1", self.web_port, timeout=5)
            conn.request("GET", path)
            status = conn.getresponse().status
            conn.close()
            return status
        except OSError:
            return None

    def stop(self) -> None:
        """Stop every process in order (a last sample first), the sink, and read the logs' last bytes."""
        self.meter.stop()
        if any(part.alive() for part in self.parts.values()):
            try:
                self.meter.sample()
            except Exception:  # noqa: BLE001 - a sample missed is not worth stopping the soak for
                pass
        order = [self.parts[name] for name in ("web", "mail", "beat", "worker-a", "worker-b") if name in self.parts]
        for part in order:  # all at once, then wait for each
            part.terminate()
        for part in order:
            part.stop(grace=15)
        if "redis" in self.parts:
            self.parts["redis"].stop(grace=15)
        if self.sink is not None:
            self.sink.stop()
        self.inbox.put(None)  # the end of the mail, for whoever reads the inbox
        self.meter.tail.poll(self.log_paths())

    def close(self) -> None:
        """Whatever happened: no process left and the sink stopped (the database is dropped apart)."""
        self.meter.stop()
        for part in self.parts.values():
            part.stop(grace=5)
        if self.sink is not None:
            try:
                self.sink.stop()
            except Exception:  # noqa: BLE001 - already stopped
                pass
