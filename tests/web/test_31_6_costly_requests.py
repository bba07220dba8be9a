"""Issue 31, item 6: archive uploads and animated replays no longer cost anyone's CPU at will.

Reproduced through the real doors (the Flask client with its CSRF tokens, an anonymous client, a real
browser): five uploads of one archive made five games, and every anonymous request for an animation
not drawn yet drew it in the web process. Now an upload needs an account and counts against the
account's and the site's limits, the same archive is one game, and no web request draws an animation:
the worker does (`pbem.draw_animation`), within the site's budget, and the page says it is being
prepared and asks again until it is there. docs/security.md and docs/web.md describe it.
"""

from __future__ import annotations

import io
import json
import re
import threading
from types import SimpleNamespace

import pytest
from sqlalchemy import func, select

from pbem import boards
from pbem.games import archive
from pbem.models import Animation, Game
from pbem.web import ratelimit
from tests.web.conftest import csrf_of, finished_tapaono, make_user, running_game
from tests.web.test_browser import DESKTOP, browser, check_accessibility, new_page, server  # noqa: F401 - fixtures
from tests.web.test_game_pages import finish


def upload(client, raw: bytes):
    token = csrf_of(client, "/archives/upload")
    return client.post("/archives/upload", data={"csrf_token": token, "archive": (io.BytesIO(raw), "game.json")},
                       content_type="multipart/form-data")


def game_count(db) -> int:
    with db.sessions() as s:
        return s.scalar(select(func.count()).select_from(Game))


def finished_counters(db, players) -> int:
    game_id, by_seat = running_game(db, players, options={"pile": 5})
    finish(db, game_id, by_seat)
    return game_id


def replay_of(response) -> int:
    assert response.status_code == 303, response.status_code
    return int(re.search(r"/games/(\d+)/replay", response.headers["Location"]).group(1))


def recorded_drawings(monkeypatch) -> list:
    """The animations the renderers draw from now on (their frame counts), wherever they are drawn."""
    import renderers
    real, drawn = renderers.render_replay, []
    monkeypatch.setattr(renderers, "render_replay",
                        lambda title, frames, texts: drawn.append(len(frames)) or real(title, frames, texts=texts))
    return drawn


# --------------------------------------------------------------------------------------
# Archive uploads


def test_31_6_the_same_archive_uploaded_five_times_is_one_game(db, players):
    game_id = finished_counters(db, players)
    raw = archive.export_bytes(db, game_id)
    before = game_count(db)
    ana, ben, _ = players
    first = replay_of(upload(ana.client, raw))
    assert "it is game" in ana.client.get(f"/games/{first}/replay").get_data(as_text=True)
    # Again, by anyone, laid out otherwise (no whitespace, other key order): the game it already is.
    relaid = json.dumps(dict(reversed(list(json.loads(raw).items()))), separators=(",", ":")).encode()
    for client, same in [(ana.client, raw), (ben.client, raw), (ben.client, relaid), (ana.client, relaid)]:
        response = upload(client, same)
        assert replay_of(response) == first
        assert f"This archive was uploaded before: it is game {first}." in client.get(
            response.headers["Location"]).get_data(as_text=True)
    assert game_count(db) == before + 1


def test_31_6_uploads_need_an_account_and_are_limited_per_account_and_per_site(app, db, players, monkeypatch):
    # raising=False: on a version without these limits, the test fails on what the doors do.
    monkeypatch.setattr(ratelimit, "UPLOADS_PER_ACCOUNT", "2 per hour", raising=False)
    monkeypatch.setattr(ratelimit, "UPLOADS_PER_SITE", "3 per hour", raising=False)
    game_id = finished_counters(db, players)
    raw = archive.export_bytes(db, game_id)
    ana, ben, cy = players
    anonymous = app.test_client()
    token = csrf_of(anonymous, "/login")
    refused = anonymous.post("/archives/upload", content_type="multipart/form-data",
                             data={"csrf_token": token, "archive": (io.BytesIO(raw), "game.json")})
    assert refused.status_code == 302 and "/login" in refused.headers["Location"]
    before = game_count(db)
    assert upload(ana.client, b'{"not": "an archive"}').status_code == 400  # a refused upload counts too
    assert upload(ana.client, raw).status_code == 303
    refused = upload(ana.client, raw)  # the account's limit
    assert refused.status_code == 429 and "Too many requests of this kind" in refused.get_data(as_text=True)
    assert ana.client.get("/archives/upload").status_code == 200  # the form itself is not counted
    assert upload(ben.client, raw).status_code == 303
    assert upload(cy.client, raw).status_code == 429  # the site's limit: three uploads this hour
    assert game_count(db) == before + 1


# --------------------------------------------------------------------------------------
# Animated replays


def test_31_6_no_web_request_draws_an_animation(app, db, players, monkeypatch):
    game_id = finished_tapaono(db, players)
    drawn = recorded_drawings(monkeypatch)
    anonymous = [app.test_client() for _ in range(4)]
    answers = [client.get(f"/games/{game_id}/replay/animation") for client in anonymous]
    for n, answer in enumerate(answers):
        assert answer.status_code == 202, f"request {n + 1}: {answer.status_code} {answer.mimetype}"
        page = answer.get_data(as_text=True)
        assert answer.headers["Retry-After"] == str(boards.ANIMATION_POLL_S)
        assert "The animated replay is being prepared" in page and answer.headers["Cache-Control"] == "no-store"
        assert ('X-Pbem-Drawn' in answer.headers) == (n == 0)  # the first asked for it: it counts for its client
        assert 'src="/static/animation.js"' in page and "<script>" not in page  # the page asks by itself (CSP)
    status = anonymous[0].get(f"/games/{game_id}/replay/animation/status")
    assert status.status_code == 202 and status.json["status"] == "preparing" and status.json["retry_after"] == 5
    german = anonymous[0].get(f"/games/{game_id}/replay/animation?lang=de").get_data(as_text=True)
    assert f'data-status-url="/games/{game_id}/replay/animation/status?lang=de"' in german  # asks for its own
    assert drawn == [], "a web request drew the animation"
    with db.sessions() as s:
        assert s.get(Animation, (game_id, "en")).status == "requested"
    # The replay page links to it and carries the script that asks where it stands.
    replay = anonymous[1].get(f"/games/{game_id}/replay").get_data(as_text=True)
    assert f'data-status-url="/games/{game_id}/replay/animation/status"' in replay and "animation.js" in replay
    assert boards.draw_animation(db, game_id, "en") == boards.AnimationStatus.DONE  # the worker's job
    assert len(drawn) == 1
    assert anonymous[2].get(f"/games/{game_id}/replay/animation/status").json["status"] == "ready"
    gif = anonymous[3].get(f"/games/{game_id}/replay/animation")
    assert gif.status_code == 200 and gif.data.startswith(b"GIF8") and len(drawn) == 1


def test_31_6_beyond_the_sites_budget_the_answer_says_when_to_try_again(app, db, players, monkeypatch):
    monkeypatch.setattr(boards, "ANIMATIONS_PER_HOUR", 1, raising=False)
    game_id = finished_tapaono(db, players)
    drawn = recorded_drawings(monkeypatch)
    client = app.test_client()
    assert client.get(f"/games/{game_id}/replay/animation").status_code == 202
    busy = client.get(f"/games/{game_id}/replay/animation?lang=de")  # a second drawing this hour
    text = busy.get_data(as_text=True)
    assert busy.status_code == 503 and 3590 <= int(busy.headers["Retry-After"]) <= 3600
    assert "this site draws at most 1 an hour): try again in 60 minutes." in text
    assert "X-Pbem-Drawn" not in busy.headers and busy.headers["Cache-Control"] == "no-store"
    status = client.get(f"/games/{game_id}/replay/animation/status?lang=de")
    assert status.status_code == 503 and status.json["status"] == "busy" and status.json["retry_after"] >= 3590
    # In the reader's language, as every page.
    german = client.get(f"/games/{game_id}/replay/animation/status?lang=de", headers={"Accept-Language": "de"})
    assert "60 Minuten" in german.json["message"], german.json["message"]
    with db.sessions() as s:
        assert s.get(Animation, (game_id, "de")) is None  # not asked for: nothing for the worker
    boards.draw_animation(db, game_id, "en")
    assert client.get(f"/games/{game_id}/replay/animation").status_code == 200  # a drawn one: whatever the budget
    assert drawn and len(drawn) == 1


@pytest.mark.parametrize("db", ["postgresql"], indirect=True)  # a browser is slow: one database, as test_browser
def test_31_6_the_replay_page_says_being_prepared_and_downloads_it_once_drawn(server, browser, db):
    """In a real browser under the Content-Security-Policy: the link on the replay page, then the page a
    direct link opens; each says the animation is being prepared and downloads it when the worker is done."""
    users = [SimpleNamespace(id=make_user(db, f"{name}@example.org")) for name in ("ana", "ben", "cy")]
    game_id = finished_tapaono(db, users)
    page = new_page(browser, DESKTOP)
    page.goto(f"{server}/games/{game_id}/replay")
    with page.expect_download() as download:
        page.click("#animation-link")
        page.wait_for_selector("#animation-status:has-text('being prepared')")
        assert page.url.endswith(f"/games/{game_id}/replay")  # the page stays
        threading.Timer(1, boards.draw_animation, (db, game_id, "en")).start()  # the worker, a moment later
    assert download.value.suggested_filename == f"pbem-game-{game_id}.gif"
    assert download.value.path().read_bytes().startswith(b"GIF8")
    page.goto(f"{server}/games/{game_id}/replay/animation?lang=fr")
    page.wait_for_selector("#animation-status:has-text('being prepared')")
    check_accessibility(page, "the animation being prepared")
    with page.expect_download() as download:
        threading.Timer(1, boards.draw_animation, (db, game_id, "fr")).start()
    assert download.value.suggested_filename == f"pbem-game-{game_id}.gif"
    assert page.script_errors == []
