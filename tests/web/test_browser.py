"""Real browser (Debian's chromium driven by Playwright) against the app served by a real WSGI server.

Two users sign up (confirming their address through the link in the outbox), one opens a
table, the other joins, and they play to the end through the pages; then the replay viewer
is stepped with its buttons, the arrow keys and the slider. Counters is played entirely
through the pages. A real title (tongiaki, discovery, tapaono) can take hundreds of
decisions: its first moves go through the pages, the middle is played through the game
service (random legal moves from a fixed seed), and the move that ends the game and the
replay go through the pages again.

Screenshots of the game page and the replay viewer are saved to the test's folder, and to
$PBEM_WEB_SCREENSHOTS (docs/images for the documentation) when that is set.
"""

from __future__ import annotations

import json
import os
import random
import re
import threading
from pathlib import Path

import pytest
from sqlalchemy import select
from werkzeug.serving import make_server

import engine
from engine.core import canonical_json
from pbem import games
from pbem.models import OutboundMail, Seat, User
from pbem.web import create_app
from pbem.web.play import pictures_for
from tests.conftest import service_missing
from tests.web.conftest import PASSWORD, SECRET

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
PHONE = {"width": 390, "height": 844}
PAGE_MOVES = 3  # moves of a real title played through the pages before the service takes over
TIMEOUT_MS = 90_000  # a bound for a loaded machine, not an expectation
# Options (set in the create form) for a short game: Tapaono's normal mode takes 1000-2500
# decisions of random play, its free mode with 3 markers and one star to win a few dozen.
SHORT_GAME = {"counters": {"#opt_pile": "7"},
              "tapaono": {"#opt_mode": "free", "#opt_markers": "3", "#opt_stars_to_win": "1"}}


@pytest.fixture
def server(db, monkeypatch):
    """The app on a free loopback port, served by werkzeug's threaded WSGI server."""
    monkeypatch.setenv("PBEM_SECRET_KEY", SECRET)
    app = create_app({"DATABASE_URL": db.url, "SECRET_KEY": SECRET})
    httpd = make_server("127.0.0.1", 0, app, threaded=True)
    # Join the request threads on close, so none still holds a database connection at dispose.
    httpd.daemon_threads = False
    httpd.block_on_close = True
    base = f"http://127.0.0.1:{httpd.server_port}"
    app.config["BASE_URL"] = base
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield base
    httpd.shutdown()
    thread.join(timeout=10)
    httpd.server_close()
    app.extensions["pbem_db"].dispose()


@pytest.fixture
def browser():
    if not os.path.exists(CHROMIUM):
        service_missing("chromium", FileNotFoundError(CHROMIUM))
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


def sign_up(browser, base, db, email, name):
    """A new browser context (its own cookies) that signs up and finishes by the mailed link (logged in then)."""
    context = browser.new_context(viewport=PHONE)
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    page.goto(f"{base}/signup")
    page.fill("#email", email)
    page.fill("#display_name", name)
    page.fill("#password", PASSWORD)
    page.fill("#confirm", PASSWORD)
    page.click("#submit")
    page.wait_for_selector("text=Check your mail")
    with db.sessions() as s:
        mail = s.scalars(select(OutboundMail).where(OutboundMail.recipient == email,
                                                    OutboundMail.kind == "verify")).one()
    link = re.search(r"(http://\S+/verify/\S+)", mail.body_text).group(1)
    page.goto(link)
    page.fill("#password", PASSWORD)
    page.click("#submit")
    page.wait_for_selector("text=My games")
    with db.sessions() as s:
        user = s.scalars(select(User).where(User.email == email)).one()
    return page, user.id


def play_through_page(page, base, game_id, notation):
    """Choose a move in the grouped choice list and send the form; the page comes back with it played."""
    page.goto(f"{base}/games/{game_id}")
    page.select_option("#move-select", value=notation)
    with page.expect_navigation():
        page.click("#play")
    assert page.locator(".error").count() == 0, page.locator(".error").first.inner_text()
    page.wait_for_selector(f"text=You played {notation}")


def play_by_map(page, base, game_id) -> str | None:
    """Click the first position of the board picture's image map; the move it names is chosen and played."""
    page.goto(f"{base}/games/{game_id}")
    areas = page.locator("map[name=board-map] area")
    if areas.count() == 0:
        return None
    area = areas.first
    moves = json.loads(area.get_attribute("data-moves"))
    area.dispatch_event("click")
    assert page.locator("#move-select").input_value() == moves[0]
    assert page.locator("#map-hint").is_visible()
    with page.expect_navigation():
        page.click("#play")
    page.wait_for_selector(f"text=You played {moves[0]}")
    return moves[0]


def save_screenshot(page, tmp_path, name):
    path = tmp_path / name
    page.screenshot(path=str(path))
    target = os.environ.get("PBEM_WEB_SCREENSHOTS")
    if target:
        from PIL import Image  # a small palette PNG: fine for a page of text and flat colours

        Path(target).mkdir(parents=True, exist_ok=True)
        with Image.open(path) as image:
            image.convert("RGB").quantize(colors=64).save(Path(target) / name, optimize=True)
    assert path.stat().st_size > 1000


def ends_game(rules, state, move) -> bool:
    return rules.to_move(rules.apply(state, move)) is None


def test_two_players_play_counters_to_the_end_and_replay_it(server, browser, db, tmp_path, request):
    play_to_the_end_and_replay("counters", server, browser, db, tmp_path, request)


# The real titles run on PostgreSQL only, to keep the budget (counters runs on both databases).
@pytest.mark.parametrize("db", ["postgresql"], indirect=True)
@pytest.mark.parametrize("title", ["tongiaki", "discovery", "tapaono"])
def test_two_players_play_a_real_title_to_the_end_and_replay_it(title, server, browser, db, tmp_path, request):
    play_to_the_end_and_replay(title, server, browser, db, tmp_path, request)


def play_to_the_end_and_replay(title, server, browser, db, tmp_path, request):
    """Two users sign up, create, join and play a game through the pages, then step through its replay."""
    base = server
    rules = engine.get(title)
    ana, ana_id = sign_up(browser, base, db, "ana@example.org", "Ana")
    ben, ben_id = sign_up(browser, base, db, "ben@example.org", "Ben")
    pages = {ana_id: ana, ben_id: ben}

    # Ana opens a table for two from the form built from the game's options.
    ana.click("text=New game")
    ana.click(f"a[href='/games/new/{title}']")
    ana.fill("#players", "2")
    for selector, value in SHORT_GAME.get(title, {}).items():
        if ana.locator(selector).evaluate("el => el.tagName") == "SELECT":
            ana.select_option(selector, value)
        else:
            ana.fill(selector, value)
    ana.fill("#turn_hours", "72")
    with ana.expect_navigation():
        ana.click("#submit")
    game_id = int(re.search(r"/games/(\d+)$", ana.url).group(1))
    ana.wait_for_selector("text=is open")

    # Ben finds it in the lobby and joins: the last seat starts the game.
    ben.goto(base + "/")
    with ben.expect_navigation():
        ben.click(f"#join-{game_id}")
    ben.wait_for_selector("text=You have a seat.")
    assert games.view(db, game_id)["status"] == "running"
    if title == "tapaono":
        assert games.view(db, game_id)["options"]["mode"] == "free"
    with db.sessions() as s:
        by_seat = [x.user_id for x in s.scalars(select(Seat).where(Seat.game_id == game_id).order_by(Seat.number))]

    rng = random.Random(20261122)
    through_pages = 0
    shot_taken = False
    # A mirror of the game's state: the engine is deterministic (chance comes from the state's
    # own RNG), so applying the same moves here keeps it equal to the server's without a query.
    state = games.load_state(_game_row(db, game_id))
    while rules.to_move(state) is not None:
        mover = by_seat[rules.to_move(state)]
        legal = rules.legal_moves(state)
        finishing = [m for m in legal if ends_game(rules, state, m)] if title != "counters" else []
        if title == "counters" or through_pages < PAGE_MOVES or finishing:
            move = (finishing or legal)[0] if title != "counters" else legal[min(1, len(legal) - 1)]
            if not shot_taken:
                pages[mover].goto(f"{base}/games/{game_id}")
                save_screenshot(pages[mover], tmp_path, f"web-game-{title}.png")
                shot_taken = True
            if title != "counters" and through_pages == 0 and not finishing and pictures_for(title):
                clicked = play_by_map(pages[mover], base, game_id)
                assert clicked is not None, "the renderer gave no image map for the first move"
                move = rules.parse(state, clicked)
            else:
                play_through_page(pages[mover], base, game_id, rules.notation(state, move))
            through_pages += 1
        else:
            move = rng.choice(legal)
            games.submit(db, game_id, rules.notation(state, move), user_id=mover, source="api")
        state = rules.apply(state, move)
        assert through_pages <= rules.max_decisions
    assert _game_row(db, game_id).state == canonical_json(rules.state_to_json(state))

    final = games.view(db, game_id)
    assert final["status"] == "finished" and final["seed"]
    history = games.history(db, game_id)
    assert history[-1]["source"] == "web"  # the last move went through the page
    ana.goto(f"{base}/games/{game_id}")
    assert ana.locator("#seed").inner_text() == final["seed"]
    assert final["result"]["reason"] in ana.content()

    # The replay viewer: buttons, arrow keys, Home/End and the slider.
    ana.click("#replay-link")
    ana.wait_for_selector("#replay-nav")
    assert ana.locator("#seq").inner_text() == "0" and ana.locator("#notation").inner_text() == "the start"
    with ana.expect_navigation():
        ana.click("#next")
    assert ana.locator("#seq").inner_text() == "1"
    assert ana.locator("#notation").inner_text() == history[0]["notation"]
    assert ana.locator("#mover").inner_text() == history[0]["player"]
    with ana.expect_navigation():
        ana.keyboard.press("ArrowRight")
    assert ana.locator("#seq").inner_text() == "2" and ana.locator("#notation").inner_text() == history[1]["notation"]
    with ana.expect_navigation():
        ana.keyboard.press("ArrowLeft")
    assert ana.locator("#seq").inner_text() == "1"
    with ana.expect_navigation():
        ana.keyboard.press("End")
    last = len(history)
    assert ana.locator("#seq").inner_text() == str(last)
    assert ana.locator("#notation").inner_text() == history[-1]["notation"]
    middle = last // 2
    with ana.expect_navigation():
        ana.locator("#slider").evaluate(
            "(el, v) => { el.value = v; el.dispatchEvent(new Event('change')); }", middle)
    assert ana.locator("#seq").inner_text() == str(middle)
    save_screenshot(ana, tmp_path, f"web-replay-{title}.png")
    with ana.expect_navigation():
        ana.click("#first")
    assert ana.locator("#seq").inner_text() == "0"
    # The archive downloads from the replay page.
    with ana.expect_download() as download:
        ana.click("#archive-link")
    archive_path = tmp_path / "archive.json"
    download.value.save_as(archive_path)
    from pbem.games import archive

    assert archive_path.read_bytes() == archive.export_bytes(db, game_id)
    for p in pages.values():
        p.context.close()


def _game_row(db, game_id):
    from pbem.models import Game

    with db.sessions() as s:
        return s.get(Game, game_id)
