"""A quiet start: `pbem run` shows where each part listens and then only warnings and errors.

The INFO lines of the worker and beat (a line per task) go to log files in the data folder;
the runner's LogFollower echoes the records of WARNING and above from them, tracebacks included.
"""

from __future__ import annotations

from pbem import config, runner


def test_the_parts_log_quietly_and_the_worker_and_beat_to_files(tmp_path):
    settings = config.load({"PBEM_DATA_DIR": str(tmp_path), "PBEM_SECRET_KEY": "x"})
    loud = {p.name: p for p in runner.plan(settings, "127.0.0.1", 5000, "127.0.0.1", 2525, mail=False)}
    assert not any("--logfile" in a or a == "--quiet" for p in loud.values() for a in p.argv)  # the soak reads these
    parts = {p.name: p for p in runner.plan(settings, "127.0.0.1", 5000, "127.0.0.1", 2525, mail=False, quiet=True)}
    assert "--log-level=warning" in parts["web"].argv
    for name in ("worker", "beat"):
        argv = parts[name].argv
        assert "--quiet" in argv and f"--logfile={tmp_path / runner.LOG_FILES[name]}" in argv
        assert str(tmp_path / runner.LOG_FILES[name]) in parts[name].where  # the start says where the log is


def test_the_follower_echoes_warnings_and_errors_with_their_tracebacks_and_nothing_else(tmp_path):
    log = tmp_path / "worker.log"
    log.write_text("[2026-11-25 01:00:00,000: ERROR/MainProcess] an old error, before the start\n")
    shown = []
    follower = runner.LogFollower({"worker": log, "beat": tmp_path / "beat.log"}, shown.append, poll_s=60)
    with log.open("a") as handle:
        handle.write("[2026-11-25 01:00:01,000: INFO/MainProcess] Task pbem.send_mail[1] received\n"
                     "[2026-11-25 01:00:01,100: INFO/ForkPoolWorker-1] Task pbem.send_mail[1] succeeded\n"
                     "[2026-11-25 01:00:02,000: ERROR/ForkPoolWorker-2] Task pbem.render_board[2] raised\n"
                     "Traceback (most recent call last):\n"
                     '  File "x.py", line 1, in <module>\n'
                     "ValueError: boom\n"
                     "[2026-11-25 01:00:03,000: INFO/MainProcess] Task pbem.sweep[3] received\n"
                     "[2026-11-25 01:00:04,000: WARNING/MainProcess] broker connection lost, retr")
    follower.read_all()
    assert shown == ["pbem: worker: [2026-11-25 01:00:02,000: ERROR/ForkPoolWorker-2] Task pbem.render_board[2] raised",
                     "pbem: worker: Traceback (most recent call last):",
                     'pbem: worker:   File "x.py", line 1, in <module>',
                     "pbem: worker: ValueError: boom"]
    with log.open("a") as handle:  # the rest of a line written in two parts
        handle.write("ying\n")
    (tmp_path / "beat.log").write_text("[2026-11-25 01:00:05,000: CRITICAL/MainProcess] beat: cannot start\n")
    follower.read_all()
    assert shown[4:] == ["pbem: worker: [2026-11-25 01:00:04,000: WARNING/MainProcess] broker connection lost, retrying",
                         "pbem: beat: [2026-11-25 01:00:05,000: CRITICAL/MainProcess] beat: cannot start"]
