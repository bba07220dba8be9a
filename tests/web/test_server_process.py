"""A server's app (made without a test configuration) tunes its process for the page latency's tail."""

from __future__ import annotations

import gc
import sys

from pbem.web import SWITCH_INTERVAL_S, create_app


def test_a_servers_app_freezes_its_startup_heap_and_shortens_the_gil_switch(monkeypatch, tmp_path):
    monkeypatch.setenv("PBEM_DATABASE_URL", f"sqlite:///{tmp_path / 'pbem.sqlite3'}")
    monkeypatch.setenv("PBEM_DATA_DIR", str(tmp_path))
    interval = sys.getswitchinterval()
    gc.unfreeze()
    try:
        create_app({"TESTING": True})  # a test's app leaves the process as it is
        assert gc.get_freeze_count() == 0 and sys.getswitchinterval() == interval
        app = create_app()  # what gunicorn 'pbem.web:create_app()' makes
        assert app.extensions["pbem_db"] is not None
        # Everything built before the first request is out of the full collections' walk.
        assert gc.get_freeze_count() > 10_000
        assert sys.getswitchinterval() == SWITCH_INTERVAL_S
    finally:
        gc.unfreeze()
        sys.setswitchinterval(interval)
