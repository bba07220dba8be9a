"""`pbem run`: migrate, then run the web server, a Celery worker, Celery beat and the mail listener.

A quiet start: `pbem run` prints where each part listens and where its log goes, then only
warnings and errors. The web server logs at WARNING; the worker's and beat's INFO lines (a
line per task) go to `worker.log` and `beat.log` in the data folder, and a follower thread
(`LogFollower`) echoes their WARNING, ERROR and CRITICAL records, tracebacks included.

Each part is a child process in its own process group (a Celery worker's pool processes
are in its group too). Ctrl-C or SIGTERM stops them all: SIGTERM to each part, a grace
period, then SIGKILL to every part's whole group for any straggler. If one part dies on its own, the others are
stopped too and `pbem run` exits non-zero, so an outer supervisor (systemd, a container
runtime) restarts the whole service in a known state.

The worker package is never imported here: the children are started by command line.
"""

from __future__ import annotations

import importlib.util
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from dataclasses import dataclass, field
from typing import Callable
from urllib.parse import urlsplit, urlunsplit

from pbem import config, jobs, migrate

GRACE_S = 20.0
POLL_S = 0.2
LOG_FILES = {"worker": "worker.log", "beat": "beat.log"}  # in the data folder
# A Celery log record starts "[2026-11-25 01:32:38,578: WARNING/MainProcess] ..."; its traceback lines do not.
RECORD = re.compile(r"^\[[^\]]*?: (?P<level>[A-Z]+)/[^\]]*\]")
SHOWN_LEVELS = ("WARNING", "ERROR", "CRITICAL")


@dataclass
class Part:
    name: str
    argv: list[str]
    where: str
    process: subprocess.Popen | None = field(default=None, repr=False)


def redact(url: str) -> str:
    """A URL without its password, for printing."""
    parts = urlsplit(url)
    if parts.password:
        netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
        return urlunsplit(parts._replace(netloc=netloc))
    return url


def mail_listener_available() -> bool:
    try:
        return importlib.util.find_spec("pbem.mail.listener") is not None
    except ModuleNotFoundError:
        return False


def _gunicorn_extra() -> list[str]:
    """No control socket where gunicorn has one: it sits at one path per user, shared by every instance."""
    from gunicorn.config import KNOWN_SETTINGS

    return ["--no-control-socket"] if any(s.name == "control_socket_disable" for s in KNOWN_SETTINGS) else []


def plan(settings: config.Settings, host: str, port: int, smtp_host: str, smtp_port: int,
         concurrency: int = 2, mail: bool = True, quiet: bool = False) -> list[Part]:
    """The child processes of `pbem run`, each with its command line and where it listens.

    `quiet` (as `pbem run` has it): gunicorn logs at WARNING, the worker and beat write their
    INFO lines to log files in the data folder instead of the terminal. Without it every
    part logs INFO to its standard error (the soak reads those).
    """
    python = sys.executable
    banner = ["--quiet"] if quiet else []  # no Celery banner on the terminal

    def to_file(part: str) -> list[str]:
        return [f"--logfile={log_path(settings, part)}"] if quiet else []

    def where_log(part: str) -> str:
        return f", log {log_path(settings, part)}" if quiet else ""

    parts = [
        # gunicorn's sync workers: under bench/web.py's 16 clients two sync workers served more pages
        # per second than two gthread workers of four threads, without their tail (docs/web.md, "Benchmark").
        Part("web", [python, "-m", "gunicorn", f"--bind={host}:{port}", "--workers=2", "--graceful-timeout=10",
                     *(["--log-level=warning"] if quiet else []), *_gunicorn_extra(), "pbem.web:create_app()"],
             f"http://{host}:{port}/"),
        Part("worker", [python, "-m", "celery", "-A", "worker.app", *banner, "worker", "--loglevel=INFO",
                        *to_file("worker"), f"--concurrency={concurrency}", "--without-gossip", "--without-mingle",
                        "--hostname=pbem@%h"], f"broker {redact(settings.broker_url)}{where_log('worker')}"),
        Part("beat", [python, "-m", "celery", "-A", "worker.app", *banner, "beat", "--loglevel=INFO",
                      *to_file("beat"), f"--schedule={settings.data_dir / 'celerybeat-schedule'}"],
             f"sweep every {settings.sweep_every_s:g} s{where_log('beat')}"),
    ]
    if mail and mail_listener_available():
        parts.append(Part("mail", [python, "-m", "pbem.runner", "mail-listener", smtp_host, str(smtp_port)],
                          f"smtp://{smtp_host}:{smtp_port}"))
    return parts


def log_path(settings: config.Settings, part: str) -> Path:
    return settings.data_dir / LOG_FILES[part]


class LogFollower:
    """Echoes the WARNING, ERROR and CRITICAL records (with their traceback lines) that parts write to log files.

    Only what is written after it starts is read; a file that does not exist yet is waited for.
    """

    def __init__(self, files: dict[str, Path], echo: Callable[[str], None], poll_s: float = POLL_S):
        self.echo = echo
        self.poll_s = poll_s
        self.offsets = {name: (path, path.stat().st_size if path.exists() else 0) for name, path in files.items()}
        self.showing = {name: False for name in files}
        self.partial = {name: "" for name in files}
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, name="pbem-log-follower", daemon=True)

    def start(self) -> "LogFollower":
        self.thread.start()
        return self

    def stop(self) -> None:
        self.stopped.set()
        self.thread.join(timeout=5)
        self.read_all()

    def _run(self) -> None:
        while not self.stopped.wait(self.poll_s):
            self.read_all()

    def read_all(self) -> None:
        for name, (path, offset) in list(self.offsets.items()):
            try:
                with open(path, "r", encoding="utf-8", errors="replace") as handle:
                    if os.fstat(handle.fileno()).st_size < offset:
                        offset = 0  # the file was rotated or truncated
                    handle.seek(offset)
                    text = handle.read()
                    self.offsets[name] = (path, handle.tell())
            except FileNotFoundError:
                continue
            text = self.partial[name] + text
            lines = text.split("\n")
            self.partial[name] = lines.pop()  # an unfinished last line waits for the rest
            for line in lines:
                self.line(name, line)

    def line(self, name: str, line: str) -> None:
        record = RECORD.match(line)
        if record:
            self.showing[name] = record.group("level") in SHOWN_LEVELS
        if self.showing[name] and line.strip():
            self.echo(f"pbem: {name}: {line}")


class Supervisor:
    """Starts the parts, waits for a signal or for one to die, then stops them all."""

    def __init__(self, parts: list[Part], echo: Callable[[str], None] = print):
        self.parts = parts
        self.echo = echo
        self.stopping: str | None = None

    def _signal(self, signum, _frame) -> None:
        self.stopping = signal.Signals(signum).name

    def start(self) -> None:
        for part in self.parts:
            # Its own session: the terminal's Ctrl-C reaches only us, and we stop the children in order.
            part.process = subprocess.Popen(part.argv, start_new_session=True)
            self.echo(f"pbem: {part.name:<6} pid {part.process.pid:<7} {part.where}")

    def run(self, logs: dict[str, Path] | None = None) -> int:
        previous = {sig: signal.signal(sig, self._signal) for sig in (signal.SIGINT, signal.SIGTERM)}
        follower = LogFollower(logs or {}, self.echo).start()
        try:
            self.start()
            self.echo("pbem: running (Ctrl-C stops everything)")
            code = 0
            while self.stopping is None:
                dead = [p for p in self.parts if p.process.poll() is not None]
                if dead:
                    for part in dead:
                        self.echo(f"pbem: {part.name} exited with status {part.process.returncode}; stopping")
                    code = 1
                    break
                time.sleep(POLL_S)
            if self.stopping:
                self.echo(f"pbem: {self.stopping} received; stopping")
            self.stop()
            return code
        finally:
            follower.stop()
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def stop(self, grace: float | None = None) -> None:
        """SIGTERM every part, wait up to `grace` seconds, then SIGKILL what is left of each process group.

        The signal goes to each part's main process, not its whole group: a Celery worker or
        gunicorn then stops its own pool in order (a task running finishes, or goes back to the queue).
        """
        grace = GRACE_S if grace is None else grace
        started = [p for p in self.parts if p.process is not None]
        for part in started:
            if part.process.poll() is None:
                part.process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + grace
        for part in started:
            try:
                part.process.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                self.echo(f"pbem: {part.name} did not stop in {grace:g} s; killing it")
        for part in started:
            _kill_group(part.process.pid, signal.SIGKILL)  # stragglers: pool processes, a stuck child
            if part.process.poll() is None:
                part.process.wait()
        self.echo("pbem: stopped")


def _kill_group(pgid: int, sig: signal.Signals) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def run(host: str = "127.0.0.1", port: int = 5000, smtp_host: str = "127.0.0.1", smtp_port: int = 2525,
        concurrency: int = 2, echo: Callable[[str], None] = print) -> int:
    """Migrate the database, then supervise the parts until Ctrl-C; returns the exit status."""
    settings = config.load()
    config.protect(settings)  # every part inherits the umask: what they write is private (docs/security.md)
    migrate.upgrade(settings.database_url)
    echo(f"pbem: database {redact(settings.database_url)} at revision {migrate.current(settings.database_url)}")
    echo(f"pbem: mail out via {redact(settings.smtp_url)}")
    jobs.prepare_broker(settings.broker_url)
    jobs.close_clients()
    parts = plan(settings, host, port, smtp_host, smtp_port, concurrency, quiet=True)
    if not any(p.name == "mail" for p in parts):
        echo("pbem: no mail listener (pbem.mail.listener is not installed)")
    logs = {p.name: log_path(settings, p.name) for p in parts if p.name in LOG_FILES}
    return Supervisor(parts, echo).run(logs)


def serve_mail(host: str, port: int) -> None:
    """Run the SMTP listener until SIGTERM or SIGINT (the `mail` part of `pbem run`)."""
    from pbem import wiring
    from pbem.db import Database
    from pbem.mail import listener

    wiring.connect()
    settings = config.load()
    db = Database(settings.database_url)
    stop = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.append(True))
    controller = listener.start(db, settings, host, port)
    try:
        while not stop:
            time.sleep(POLL_S)
    finally:
        controller.stop()
        db.dispose()


if __name__ == "__main__":
    if sys.argv[1:2] == ["mail-listener"]:
        serve_mail(sys.argv[2], int(sys.argv[3]))
    else:
        sys.exit("usage: python -m pbem.runner mail-listener HOST PORT")
