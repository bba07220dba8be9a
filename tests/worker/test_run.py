"""`pbem run` starts web, worker, beat and mail listener on the embedded defaults, and stops them all."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

from sqlalchemy import insert

from pbem import runner as runner_module
from pbem.db import Database
from pbem.models import OutboundMail, utcnow
from tests.worker.conftest import ROOT, free_port, port_open, wait_for

TIMEOUT = 120


def descendants(pid: int) -> set[int]:
    """Every live process below `pid` (from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            children.setdefault(ppid, []).append(int(entry.name))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def healthy(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


def smtp_banner(port: int) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        banner = sock.recv(200)
        sock.sendall(b"QUIT\r\n")
        return banner


def test_pbem_run_starts_everything_and_ctrl_c_stops_everything(tmp_path):
    data = tmp_path / "data"
    web, smtp = free_port(), free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PBEM_")}  # the embedded defaults
    env.update(PBEM_DATA_DIR=str(data), PBEM_SWEEP_EVERY_S="1", PBEM_SWEEP_AFTER_S="0", PYTHONPATH=str(ROOT))
    log = open(tmp_path / "run.log", "wb")
    runner = subprocess.Popen([sys.executable, "-m", "pbem.cli", "run", f"--port={web}", f"--smtp-port={smtp}"],
                              cwd=tmp_path, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    db = None
    try:
        wait_for(lambda: healthy(web), TIMEOUT, "the web server's /healthz")
        wait_for(lambda: port_open(smtp), TIMEOUT, "the mail listener")
        assert smtp_banner(smtp).startswith(b"220")
        db = Database(f"sqlite:///{data / 'pbem.sqlite3'}")  # made and migrated by `pbem run`
        with db.transaction() as s:
            outbox_id = s.execute(insert(OutboundMail).returning(OutboundMail.id).values(
                kind="notice", recipient="someone@example.org", subject="hello", body_text="hello",
                headers={}, attachments=[], status="pending", attempts=0, created_at=utcnow())).scalar_one()

        def sent():
            with db.sessions() as s:
                return s.get(OutboundMail, outbox_id).status == "sent"

        wait_for(sent, TIMEOUT, "beat's sweep and the worker to send the mail")
        assert (data / "outbox" / f"{outbox_id:08d}.eml").exists()
        family = descendants(runner.pid)
        assert len(family) >= 5  # web (and its workers), worker (and its pool), beat, mail listener
        os.killpg(runner.pid, signal.SIGINT)  # what Ctrl-C in the terminal does
        assert runner.wait(timeout=TIMEOUT) == 0
        wait_for(lambda: not any(alive(pid) for pid in family), 30, "every child process to be gone")
    finally:
        if db is not None:
            db.dispose()
        if runner.poll() is None:
            os.killpg(runner.pid, signal.SIGKILL)
            runner.wait()
        log.close()
    output = (tmp_path / "run.log").read_text()
    for line in (f"web    pid", f"http://127.0.0.1:{web}/", "worker pid", "beat   pid", f"smtp://127.0.0.1:{smtp}",
                 "SIGINT received; stopping", "pbem: stopped"):
        assert line in output, output[-3000:]
    # A quiet start: no INFO lines on the console; the worker's go to its log file.
    assert "[INFO]" not in output and "INFO/" not in output, output[-3000:]
    assert "Task pbem.send_mail" in (data / "worker.log").read_text()


def test_when_one_part_dies_the_others_are_stopped_and_stragglers_killed(tmp_path, monkeypatch):
    stubborn = tmp_path / "stubborn.py"
    stubborn.write_text("import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
                        "open(__file__ + '.ready', 'w').close()\ntime.sleep(600)\n")
    parts = [runner_module.Part("stubborn", [sys.executable, str(stubborn)], "nowhere"),
             runner_module.Part("calm", [sys.executable, "-c", "import time; time.sleep(600)"], "nowhere"),
             runner_module.Part("fragile", [sys.executable, "-c",
                                            f"import os, sys, time\nwhile not os.path.exists({str(stubborn)!r} + "
                                            "'.ready'): time.sleep(0.05)\nsys.exit(3)"], "nowhere")]
    lines: list[str] = []
    supervisor = runner_module.Supervisor(parts, lines.append)
    monkeypatch.setattr(runner_module, "GRACE_S", 1.0)  # the straggler is killed after this
    assert supervisor.run() == 1
    assert "pbem: fragile exited with status 3; stopping" in lines
    assert "pbem: stubborn did not stop in 1 s; killing it" in lines
    assert all(part.process.poll() is not None for part in parts)
    assert parts[1].process.returncode == -signal.SIGTERM and parts[0].process.returncode == -signal.SIGKILL
