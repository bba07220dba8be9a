"""Real processes for the worker tests: a private Redis, an SMTP sink, Celery workers, a TCP proxy.

Everything listens on a free loopback port of its own and is stopped at the end of its
test, so tests run side by side under pytest-xdist and never touch the machine's shared
Redis or PostgreSQL beyond a database of their own.
"""

from __future__ import annotations

import email
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller

from pbem import jobs
from tests.conftest import service_missing

ROOT = Path(__file__).resolve().parents[2]


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


def wait_for(predicate, timeout: float, what: str, every: float = 0.1):
    """Poll `predicate` until it returns something true; fail with `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(every)


# --- Redis ---------------------------------------------------------------------------------------


class RedisServer:
    """A redis-server of our own on a free port (never the machine's shared one): it may be stopped."""

    def __init__(self, folder: Path):
        self.binary = shutil.which("redis-server")
        self.port = free_port()
        self.folder = folder
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(self.folder)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(lambda: port_open(self.port), 20, "redis-server")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=20)
        self.process = None


@pytest.fixture
def redis_server(tmp_path):
    server = RedisServer(tmp_path)
    if server.binary is None:
        service_missing("Redis (redis-server)", FileNotFoundError("redis-server is not installed"))
    server.start()
    yield server
    server.stop()


@pytest.fixture
def rabbitmq_url():
    """The machine's RabbitMQ (127.0.0.1:5672, guest), in a virtual host of this test's own, so that
    no other run's messages reach its worker; removed at the end."""
    ctl = shutil.which("rabbitmqctl")
    try:
        socket.create_connection(("127.0.0.1", 5672), timeout=2).close()
        if ctl is None:
            raise FileNotFoundError("rabbitmqctl is not installed")
    except OSError as error:
        service_missing("RabbitMQ", error)
    vhost = f"pbem-test-{os.getpid()}-{time.monotonic_ns()}"
    subprocess.run([ctl, "add_vhost", vhost], check=True, capture_output=True, timeout=60)
    subprocess.run([ctl, "set_permissions", "-p", vhost, "guest", ".*", ".*", ".*"], check=True,
                   capture_output=True, timeout=60)
    yield f"amqp://guest:guest@127.0.0.1:5672/{vhost}"
    jobs.close_clients()
    subprocess.run([ctl, "delete_vhost", vhost], capture_output=True, timeout=60)


# --- SMTP sink -----------------------------------------------------------------------------------


class SmtpSink:
    """An SMTP server on loopback that keeps every message it accepts."""

    def __init__(self):
        self.messages: list[email.message.Message] = []
        self.lock = threading.Lock()

    async def handle_DATA(self, server, session, envelope):
        message = email.message_from_bytes(envelope.content)
        with self.lock:
            self.messages.append(message)
        return "250 OK"

    def ids(self) -> Counter:
        with self.lock:
            return Counter(m["Message-ID"] for m in self.messages)


@pytest.fixture
def smtp_sink():
    """An SMTP sink with aiosmtpd's standard limits (lines of at most 1000 bytes, CRLF-terminated)."""
    sink = SmtpSink()
    controller = Controller(sink, hostname="127.0.0.1", port=free_port())
    controller.start()
    sink.url = f"smtp://127.0.0.1:{controller.port}"
    yield sink
    controller.stop()


# --- Celery processes ----------------------------------------------------------------------------


class CeleryProcess:
    """The real worker (or beat) in its own process group, so a kill -9 takes its pool processes too."""

    def __init__(self, role: str, env: dict, log: Path, concurrency: int = 2):
        args = ["worker", "--loglevel=INFO", f"--concurrency={concurrency}", "--without-gossip",
                "--without-mingle", f"--hostname={log.stem}@%h"] if role == "worker" else \
               ["beat", "--loglevel=INFO", f"--schedule={log.parent / 'celerybeat-schedule'}"]
        self.log = log
        self.handle = open(log, "ab")
        self.process = subprocess.Popen([sys.executable, "-m", "tests.worker.run_worker", *args], cwd=ROOT,
                                        env=env, stdout=self.handle, stderr=subprocess.STDOUT,
                                        start_new_session=True)

    def kill9(self) -> None:
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait()

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                pass
        self.kill9()
        self.handle.close()


@pytest.fixture
def celery(tmp_path):
    """Start workers and beat with `celery(role, env)`; all of them are stopped at the end."""
    started: list[CeleryProcess] = []

    def start(role: str, env: dict, concurrency: int = 2) -> CeleryProcess:
        full = {k: v for k, v in os.environ.items() if not k.startswith("PBEM_")}
        full.update({"PBEM_DATA_DIR": str(tmp_path / "data"), "PBEM_SECRET_KEY": "test-secret",
                     "PYTHONPATH": str(ROOT)}, **env)
        process = CeleryProcess(role, full, tmp_path / f"{role}{len(started)}.log", concurrency)
        started.append(process)
        return process

    yield start
    for process in started:
        process.stop()


@pytest.fixture
def broker(monkeypatch):
    """Post this test's jobs to `broker(url)` (the test process is a client like the web server)."""
    def use(url: str) -> None:
        monkeypatch.setenv("PBEM_BROKER_URL", url)
        jobs.close_clients()

    yield use
    jobs.close_clients()


# --- a TCP proxy in front of PostgreSQL ----------------------------------------------------------


class TcpProxy:
    """Forwards a loopback port to PostgreSQL; `cut()` drops every connection and refuses new ones."""

    def __init__(self, target_port: int):
        self.target = ("127.0.0.1", target_port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.settimeout(0.2)  # so close() is noticed: a blocked accept() would not wake up
        self.port = self.listener.getsockname()[1]
        self.up = threading.Event()
        self.up.set()
        self.closing = False
        self.lock = threading.Lock()
        self.pairs: list[tuple[socket.socket, socket.socket]] = []
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        while not self.closing:
            try:
                client, _ = self.listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            if not self.up.is_set() or self.closing:
                client.close()
                continue
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                client.close()
                continue
            upstream.settimeout(None)
            with self.lock:
                self.pairs.append((client, upstream))
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def cut(self) -> None:
        self.up.clear()
        with self.lock:
            pairs, self.pairs = self.pairs, []
        for pair in pairs:
            for sock in pair:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                sock.close()

    def restore(self) -> None:
        self.up.set()

    def close(self) -> None:
        self.closing = True
        self.cut()
        self.listener.close()
        self.thread.join(timeout=5)

