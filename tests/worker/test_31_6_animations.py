"""Issue 31, item 6, with a real worker: a web request asks for an animated replay, a worker on the
pictures queue draws it, and the web serves what the worker stored; the web process draws nothing."""

from __future__ import annotations

import re
from types import SimpleNamespace

import renderers
from pbem import accounts, jobs
from pbem.web import create_app
from tests.web.conftest import finished_tapaono
from tests.worker.conftest import wait_for

TIMEOUT = 120  # seconds; generous for a loaded 2-core machine, never a measure of speed
SECRET = "test-secret"


def test_31_6_a_worker_on_the_pictures_queue_draws_the_animation_a_web_request_asked_for(
        pg_db, redis_server, celery, broker, monkeypatch):
    broker(redis_server.url)
    picture_worker = celery("worker", {"PBEM_DATABASE_URL": pg_db.url, "PBEM_BROKER_URL": redis_server.url},
                            concurrency=1, queues=jobs.PICTURES_QUEUE)
    users = [SimpleNamespace(id=accounts.ensure_user(pg_db, f"a{n}@example.org", f"A{n}")) for n in range(3)]
    game_id = finished_tapaono(pg_db, users)

    def never_here(*args, **kwargs):
        raise AssertionError("the web process drew an animation")

    monkeypatch.setattr(renderers, "render_replay", never_here)  # in this process: the web's
    monkeypatch.setenv("PBEM_SECRET_KEY", SECRET)
    app = create_app({"DATABASE_URL": pg_db.url, "TESTING": True, "SECRET_KEY": SECRET})
    try:
        client = app.test_client()
        asked = client.get(f"/games/{game_id}/replay/animation?lang=de")
        assert asked.status_code == 202 and "X-Pbem-Drawn" in asked.headers
        wait_for(lambda: client.get(f"/games/{game_id}/replay/animation/status?lang=de").json["status"] == "ready",
                 TIMEOUT, "the worker to draw the animation")
        gif = client.get(f"/games/{game_id}/replay/animation?lang=de")
        assert gif.status_code == 200 and gif.data.startswith(b"GIF8")
    finally:
        app.extensions["pbem_db"].dispose()
    log = picture_worker.log.read_text()
    assert len(re.findall(rf"Task {re.escape(jobs.DRAW_ANIMATION)}\[[^\]]+\] succeeded", log)) == 1, log[-3000:]
