"""The timing, absence, worker and beat commands of `pbem`, on a SQLite file."""

from __future__ import annotations

import subprocess
import sys
from datetime import timedelta

import pytest

from pbem.schedule import deadlines
from tests.service.test_cli import run  # noqa: F401 - the same fixture: `pbem` on a fresh SQLite file
from tests.worker.conftest import ROOT


def test_timing_and_absences_from_the_command_line(run):  # noqa: F811 - the fixture
    run("game", "create", "counters", "--as", "ann@example.org", "--players", "2", "--hours", "24")
    run("game", "join", "1", "--as", "bob@example.org")
    shown = run("game", "timing", "1", "--as", "ann@example.org", "--weekdays", "12345", "--policy", "random").output
    assert "24 hours per turn, weekdays 12345, policy random" in shown
    refused = run("game", "timing", "1", "--as", "bob@example.org", "--hours", "48", ok=False)
    assert refused.exit_code == 1 and "Only the player who opened game 1" in refused.output
    day = (deadlines.now() + timedelta(days=10)).date()
    too_long = run("away", "--as", "bob@example.org", "--until", day + timedelta(days=40), ok=False)
    assert too_long.exit_code == 1 and "at most 30 days" in too_long.output
    away = run("away", "--as", "ann@example.org", "--from", day, "--until", day + timedelta(days=4), "--note", "trip")
    assert "absence 1 recorded" in away.output
    assert f"{day}T00:00:00Z to {day + timedelta(days=4)}T00:00:00Z (declared) trip" in away.output
    assert f"{day}" not in run("away", "--as", "ann@example.org", "--end", "1").output  # not begun: cancelled


@pytest.mark.parametrize("command, says", [("worker", "celery worker"), ("beat", "celery beat")])
def test_worker_and_beat_commands_start_celery(command, says, tmp_path):
    done = subprocess.run([sys.executable, "-m", "pbem.cli", command, "--help"], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, env={"PATH": "/usr/bin:/bin", "PBEM_DATA_DIR": str(tmp_path)})
    assert done.returncode == 0 and says in done.stdout.lower(), done.stderr[-2000:]
