"""Processes the tests and the soak start: a command in a process group of its own, a private Redis.

A process group per command lets one signal reach its children too (gunicorn's workers,
Celery's pool processes): a kill -9 of a Celery worker takes its pool with it, as a crash of
the machine's worker would. This module starts and stops processes; what runs in them (the
command lines of the service, the test games a worker knows) is the caller's business.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from pathlib import Path

from tests.support.net import free_port, port_open, wait_for

ROOT = Path(__file__).resolve().parents[2]


class GroupProcess:
    """A command in a process group of its own, its output (stdout and stderr) appended to a log file."""

    def __init__(self, argv: list[str], env: dict, cwd: Path = ROOT):
        self.argv = argv
        self.env = env
        self.cwd = cwd
        self.process: subprocess.Popen | None = None

    def start(self, log: Path) -> None:
        """Start the command (again, after a kill) with its output going to the end of `log`."""
        with open(log, "ab") as handle:
            self.process = subprocess.Popen(self.argv, cwd=self.cwd, env=self.env, stdin=subprocess.DEVNULL,
                                            stdout=handle, stderr=subprocess.STDOUT, start_new_session=True)

    @property
    def pid(self) -> int:
        """The main process's id, which is also the process group's."""
        return self.process.pid

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill9(self) -> None:
        """SIGKILL to the whole process group, then reap the main process."""
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):  # the group is gone already
            pass
        self.process.wait()

    def terminate(self, group: bool = False) -> None:
        """SIGTERM to the main process (gunicorn and Celery then stop their own children in order),
        or to every process of the group."""
        if self.alive():
            if group:
                os.killpg(self.pid, signal.SIGTERM)
            else:
                self.process.send_signal(signal.SIGTERM)

    def stop(self, grace: float, group: bool = False) -> None:
        """SIGTERM, up to `grace` seconds to exit, then SIGKILL to whatever of the group is left."""
        if self.process is None:
            return
        self.terminate(group)
        try:
            self.process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            pass
        self.kill9()  # stragglers: pool processes, gunicorn workers


def redis_binary() -> str | None:
    """The path of redis-server, None when it is not installed."""
    return shutil.which("redis-server")


def redis_command(binary: str, port: int, folder: Path) -> list[str]:
    """The command line of a private, loopback-only redis-server that persists nothing."""
    return [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
            "--dir", str(folder)]


class RedisServer:
    """A redis-server of our own on a free port (never the machine's shared one): it may be stopped."""

    def __init__(self, folder: Path):
        self.binary = redis_binary()
        self.port = free_port()
        self.folder = folder
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(redis_command(self.binary, self.port, self.folder),
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(lambda: port_open(self.port), 20, "redis-server")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=20)
        self.process = None
