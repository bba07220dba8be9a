"""The soak test in about a minute (bench/soak.py): the production shape under load, with faults.

gunicorn, two Celery workers and beat on a private Redis, the SMTP listener and a sink, on a
scratch PostgreSQL database; bots play a dozen games of every title through the API, the web
forms and mail while a worker is killed, the broker paused, mails delivered twice and forms
posted twice, and talk at their tables (to the table, privately to one seat, notes: issue 34).
A quarter of the tables is a player alone with bots (issue 37), played by the worker's
`pbem.play_bot`. Every check the soak makes must pass (the talk check: no private message or note
read by anyone but its writer and recipients; bots_budget: never more bot jobs queued than the
site's budget, every table with bots moved by them, none left undone), and no process may be left behind.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import sqlalchemy

from tests.conftest import service_missing
from tests.support.databases import POSTGRES_ADMIN_URL
from tests.support.processes import redis_binary

ROOT = Path(__file__).resolve().parents[2]
CHECKS = {"verify", "accounting.api", "accounting.web", "accounting.email", "turn_notifications", "outbox",
          "hidden_information", "talk", "logs", "bots", "faults_injected", "ratings", "bots_budget"}

pytestmark = pytest.mark.services


def needs_services() -> None:
    if redis_binary() is None:
        service_missing("Redis (redis-server)", FileNotFoundError("redis-server is not installed"))
    admin = sqlalchemy.create_engine(POSTGRES_ADMIN_URL)
    try:
        with admin.connect():
            pass
    except sqlalchemy.exc.OperationalError as error:
        service_missing("PostgreSQL", error)
    finally:
        admin.dispose()


def groups_alive(pgids: set[int]) -> list[int]:
    alive = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as handle:
                    fields = handle.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) in pgids and fields[0] != "Z":
                alive.append(int(name))
    return alive


def test_a_one_minute_soak_passes_every_check(tmp_path):
    needs_services()
    folder = tmp_path / "soak"
    command = [sys.executable, str(ROOT / "bench" / "soak.py"), "--minutes", "0.5", "--games", "12",
               # On a busy machine, play on (up to 1.5 min) until every door moved and every fault happened.
               "--min-door-moves", "3", "--max-minutes", "1.5",
               "--folder", str(folder), "--postgres-url", POSTGRES_ADMIN_URL, "--report-every", "10",
               # Short enough for a minute: the sweep, the claim of a killed sender, the broker pause
               # (longer than the 5 s a post waits, so posts fail and the sweep must catch up).
               "--sweep-every", "3", "--sweep-after", "10", "--claim-timeout", "10", "--pause-s", "7",
               "--kill-at", "0.15", "--pause-at", "0.45", "--drain-s", "60",
               # More of everything rare, so that each happens at least once in a dozen games.
               "--resign-rate", "0.03", "--bad-rate", "0.1", "--dup-mail-rate", "0.3", "--dup-web-rate", "0.3",
               # Each door writes a few messages (some private) and notes in half a minute, and reads some.
               "--talk-rate", "0.2"]
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               start_new_session=True)
    pgids: set[int] = set()
    try:
        out, _ = process.communicate(timeout=300)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)  # the soak stops its parts in its own finally
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        pidfile = folder / "pids"
        if pidfile.exists():
            pgids = {int(row.split()[0]) for row in pidfile.read_text().splitlines() if row.strip()}
        for pgid in pgids:  # each part is a process group of its own
            try:
                os.killpg(pgid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    print(out)
    checks = dict(re.findall(r"^check (\S+): (PASS|FAIL)", out, re.M))
    assert set(checks) == CHECKS, out[-3000:]
    failed = [line for line in out.splitlines() if re.match(r"check \S+: FAIL", line)]
    assert not failed, "\n".join(failed)
    assert process.returncode == 0 and out.rstrip().endswith("soak: PASS")
    figures = dict(re.findall(r"^([\w.<>/-]+): (-?[\d.]+) ", out, re.M))
    for name in ("faults.worker_kills", "faults.broker_pauses"):
        assert float(figures[name]) >= 1, name
    assert float(figures["faults.mail_duplicate_sequential"]) + float(figures["faults.mail_duplicate_concurrent"]) >= 1
    assert float(figures["faults.web_double_sequential"]) + float(figures["faults.web_double_concurrent"]) >= 1
    assert float(figures["bots.tables"]) >= 3 and float(figures["bots.moves"]) > 0  # bot tables, through each door
    assert float(figures["bots.queue_max"]) <= 8  # bot_seats.SITE_BUDGET
    for door in ("api", "web", "email"):  # every door played
        assert float(figures.get(f"moves_applied.{door}", 0)) > 0, door
    for title in ("tongiaki", "discovery", "tapaono"):  # every title played
        assert float(figures.get(f"moves_applied.{title}", 0)) > 0, title
    assert len(pgids) == 7  # redis, web, two workers (one restarted after the kill), beat, mail
    assert groups_alive(pgids) == []
