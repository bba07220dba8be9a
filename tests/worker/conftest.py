"""Real processes for the worker tests: a private Redis, an SMTP sink, Celery workers, a TCP proxy; and the
jobs of this process (`memory_broker`, `worker_db`: the worker's tasks called here).

Everything listens on a free loopback port of its own and is stopped at the end of its
test, so tests run side by side under pytest-xdist and never touch the machine's shared
Redis or PostgreSQL beyond a database of their own. The plain helpers (ports, processes, Redis,
the sink) live in tests/support, where the soak uses them too; these are their fixtures.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from kombu import Connection

from pbem import jobs
from tests.conftest import service_missing
from tests.support.net import free_port, port_open, wait_for
from tests.support.processes import ROOT, GroupProcess, RedisServer
from tests.support.smtp import SmtpSink

__all__ = ["ROOT", "free_port", "port_open", "wait_for", "TcpProxy"]  # the plain helpers the tests import from here


# --- Redis ---------------------------------------------------------------------------------------


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


@pytest.fixture
def smtp_sink():
    """An SMTP sink with aiosmtpd's standard limits (lines of at most 1000 bytes, CRLF-terminated)."""
    sink = SmtpSink()
    sink.start()
    yield sink
    sink.stop()


# --- Celery processes ----------------------------------------------------------------------------


class CeleryProcess(GroupProcess):
    """The real worker (or beat) in its own process group, so a kill -9 takes its pool processes too."""

    def __init__(self, role: str, env: dict, log: Path, concurrency: int = 2, queues: str | None = None):
        args = ["worker", "--loglevel=INFO", f"--concurrency={concurrency}", "--without-gossip",
                "--without-mingle", f"--hostname={log.stem}@%h"] if role == "worker" else \
               ["beat", "--loglevel=INFO", f"--schedule={log.parent / 'celerybeat-schedule'}"]
        if queues:
            args.append(f"--queues={queues}")
        super().__init__([sys.executable, "-m", "tests.worker.run_worker", *args], env)
        self.log = log
        self.start(log)


@pytest.fixture
def celery(tmp_path):
    """Start workers and beat with `celery(role, env)`; all of them are stopped at the end."""
    started: list[CeleryProcess] = []

    def start(role: str, env: dict, concurrency: int = 2, queues: str | None = None) -> CeleryProcess:
        full = {k: v for k, v in os.environ.items() if not k.startswith("PBEM_")}
        full.update({"PBEM_DATA_DIR": str(tmp_path / "data"), "PBEM_SECRET_KEY": "test-secret",
                     "PYTHONPATH": str(ROOT)}, **env)
        process = CeleryProcess(role, full, tmp_path / f"{role}{len(started)}.log", concurrency, queues)
        started.append(process)
        return process

    yield start
    for process in started:
        process.stop(grace=30, group=True)


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


# --- jobs in this process -------------------------------------------------------------------------


@pytest.fixture
def memory_broker(monkeypatch):
    """A broker in this process: `posted()` reads back (task name, args) of what was posted since."""
    url = "memory://"
    monkeypatch.setenv("PBEM_BROKER_URL", url)
    jobs.close_clients()
    connection = Connection(url)
    queues = [connection.SimpleQueue(name) for name in (jobs.QUEUE, jobs.PICTURES_QUEUE)]
    for queue in queues:
        queue.clear()

    def posted():
        assert jobs.flush()  # the poster thread has posted every job committed so far
        out = []
        for queue in queues:
            while True:
                try:
                    message = queue.get(block=False)
                except queue.Empty:
                    break
                out.append((message.headers["task"], message.decode()[0]))  # protocol 2: (args, kwargs, embed)
                message.ack()
        return out

    yield posted
    for queue in queues:
        queue.close()
    connection.release()
    jobs.close_clients()


@pytest.fixture
def worker_db(db, monkeypatch):
    """The worker's tasks, called in this process, work on the test's database."""
    from worker import tasks

    monkeypatch.setenv("PBEM_DATABASE_URL", db.url)
    monkeypatch.setattr(tasks, "_db", (os.getpid(), db))
    return tasks
