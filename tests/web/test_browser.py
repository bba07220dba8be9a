"""Two players in a real browser (Debian's chromium driven by Playwright) against the app on a real WSGI server.

Ana plays at 1280x800, Ben on a phone's 390x844. For each real title they play a game to its
end by clicking the board: a click on each place a move names, then the move in the chooser
the clicks open (Discovery's tile is turned with "Rotate" on the board's preview before it is
placed); a move that names no place (settle, pass, end, keep, ...) is the board's move button.
The opponent's page, never reloaded, follows each move by itself (its polling) and its title
says "(your turn)". Then the replay viewer is stepped with the keys, the slider and autoplay,
and opened at a move by its link (#move=N). axe-core finds no serious or critical violation
on any page at either size.

A whole game of Tongiaki or Discovery is 80 to 270 decisions, too many for the suite's time:
those games are played through the game service (random legal moves) up to CLICKED_MOVES
before their end, and the rest by clicks; Tapaono's shortest game (free mode, 3 markers, one
star) is clicked whole when it is at most CLICKED_MOVES long. Counters (the test game, no
picture) is played through its move buttons after both players sign up through the pages.

Screenshots go to the test's folder, and to $PBEM_SCREENSHOTS (docs/images) when that is set.
"""

from __future__ import annotations

import os
import random
import re
import threading
from pathlib import Path

import pytest
from sqlalchemy import select
from werkzeug.serving import make_server

import engine
from pbem import games
from pbem.models import Game, OutboundMail, User
from pbem.web import create_app
from tests.conftest import service_missing
from tests.engine import toygame
from tests.web.conftest import PASSWORD, SECRET, make_user

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
TIMEOUT_MS = 60_000  # a bound for a loaded machine, not an expectation
FOLLOW_MS = 10_000  # the other page shows a move within this (it polls every 1.5 s; the machine is shared)
CLICKED_MOVES = 14  # the last moves of a game, played by clicks
# The shortest game each title offers (set in the create form).
SHORT_GAME = {"tapaono": {"#opt_mode": "free", "#opt_markers": "3", "#opt_stars_to_win": "1"},
              "counters": {"#opt_pile": "5"}}
SERIOUS = ("serious", "critical")


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
def real_titles(monkeypatch):
    """The site as it serves players: the real titles only, without the suite's small test game, whose
    name would otherwise show in the lobby's filter, the home page and the screenshots of the docs."""
    names = [name for name in engine.names() if name != toygame.RULES.name]
    monkeypatch.setattr(engine, "names", lambda: list(names))
    return names


@pytest.fixture
def browser():
    if not os.path.exists(CHROMIUM):
        service_missing("chromium", FileNotFoundError(CHROMIUM))
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


def new_page(browser, viewport):
    context = browser.new_context(viewport=viewport)
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    # A script or style the Content-Security-Policy refuses (docs/security.md: none inline) is an error too.
    page.on("console", lambda message: errors.append(message.text)
            if "Content Security Policy" in message.text else None)
    page.script_errors = errors
    return page


def log_in(page, base, email, lobby_heading="My games"):
    """Log in through the form; the lobby's heading (in the user's language) says it worked."""
    page.goto(f"{base}/login")
    page.fill("#email", email)
    page.fill("#password", PASSWORD)
    with page.expect_navigation():
        page.click("#submit")
    page.wait_for_selector(f"text={lobby_heading}")


def save_screenshot(page, tmp_path, name, full_page=False):
    """A screenshot in the test's folder, and a small palette copy in $PBEM_SCREENSHOTS for the docs."""
    path = tmp_path / name
    page.evaluate("() => window.scrollTo(0, 0)")
    page.wait_for_function("() => Array.from(document.images).every(i => i.complete)")
    page.screenshot(path=str(path), full_page=full_page)
    assert path.stat().st_size > 1000
    target = os.environ.get("PBEM_SCREENSHOTS")
    if target:
        from PIL import Image

        Path(target).mkdir(parents=True, exist_ok=True)
        with Image.open(path) as image:
            image.convert("RGB").quantize(colors=128).save(Path(target) / name, optimize=True)


def check_accessibility(page, where):
    """axe-core on the page as it is now: no violation of serious or critical impact."""
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page)
    bad = [f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
           for v in results.response["violations"] if v["impact"] in SERIOUS]
    assert not bad, f"{where}: " + "; ".join(bad)


def open_table(page, base, title, players=2):
    """The create form through the pages: New game, the title's card, the shortest options; returns the game id."""
    page.goto(base + "/")
    page.click("#nav-new")
    page.click(f"#new-{title}")
    if page.locator("#players").count() and page.locator("#players").get_attribute("type") != "hidden":
        page.fill("#players", str(players))
    for selector, value in SHORT_GAME.get(title, {}).items():
        if page.locator(selector).evaluate("el => el.tagName") == "SELECT":
            page.select_option(selector, value)
        else:
            page.fill(selector, value)
    page.fill("#turn_hours", "72")
    with page.expect_navigation():
        page.click("#submit")
    page.wait_for_selector("text=is open")
    return int(re.search(r"/games/(\d+)$", page.url).group(1))


def join_from_lobby(page, base, game_id):
    page.goto(base + "/")
    with page.expect_navigation():
        page.click(f"#join-{game_id}")
    page.wait_for_selector("text=You have a seat")


def plan_to_the_end(rules, state, seed):
    """A random game from this position to its end (the engine is deterministic: the server plays the same)."""
    chooser = random.Random(seed)
    plan = []
    while rules.to_move(state) is not None:
        move = chooser.choice(rules.legal_moves(state))
        plan.append((rules.to_move(state), rules.notation(state, move)))
        state = rules.apply(state, move)
    return plan


def wait_for_version(page, version):
    page.wait_for_selector(f'#status[data-version="{version}"]', timeout=FOLLOW_MS, state="attached")


def click_move(page, move):
    """Play one move by clicking the board: its places, then the move in the chooser they open."""
    data = page.evaluate("() => [JSON.parse(document.getElementById('moves-data').textContent),"
                         " JSON.parse(document.getElementById('targets-data').textContent)]")
    moves, targets = data
    assert move in moves, f"{move!r} is not offered: {moves[:10]}"
    places = targets[moves.index(move)] if targets else []
    chooser = page.locator("#chooser")
    if places:
        for place in places:
            region = page.locator(f'#board-map .region[data-target="{place}"]').first
            if "far" in (region.get_attribute("class") or "").split():  # too small to tap: zooms first (issue 36, 4)
                region.dispatch_event("click")
            region.scroll_into_view_if_needed()
            try:
                region.click(timeout=3000)
            except Exception:  # noqa: BLE001 - another region lies on top at its centre (a piece on a field)
                region.dispatch_event("click")
            if chooser.is_visible() and (page.locator("#chooser-place").count()
                                         or chooser.locator(f'button:text-is("{move}")').count() == 1):
                break
    else:  # a move that names no place: its button beside the board
        page.locator(f'.move-button[value="{move}"]').click()
    assert chooser.is_visible()
    if page.locator("#chooser-place").count():  # a tile on a square: turn it on the board's preview, then place
        for _ in range(4):
            if page.locator("#chooser-title").inner_text() == move:
                break
            page.click("#chooser-rotate")
        assert page.locator("#chooser-title").inner_text() == move
        assert "preview.png" in page.locator("#board-img").get_attribute("src")
        page.click("#chooser-place")
    else:
        chooser.locator(f'button:text-is("{move}")').click()
    page.locator("#turn-confirm").click()  # the move is a step of the turn being built: confirm it (issue 36)


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_two_players_play_counters_through_the_pages_and_replay_it(server, browser, db, tmp_path):
    """Sign up through the pages (the link in the mail), open and join a table, play by buttons to the end."""
    base = server
    pages = {}
    for email, name, viewport in (("ana@example.org", "Ana", DESKTOP), ("ben@example.org", "Ben", PHONE)):
        page = new_page(browser, viewport)
        page.goto(f"{base}/")
        page.click("text=Sign up to play")
        page.fill("#email", email)
        page.fill("#display_name", name)
        page.fill("#password", PASSWORD)
        page.fill("#confirm", PASSWORD)
        page.click("#submit")
        page.wait_for_selector("text=Check your mail")
        with db.sessions() as s:  # a pending sign-up: no account until the mailed link is opened
            mail = s.scalars(select(OutboundMail).where(OutboundMail.recipient == email,
                                                        OutboundMail.kind == "verify")).one()
        page.goto(re.search(r"(http://\S+/verify/\S+)", mail.body_text).group(1))
        page.wait_for_selector("text=Finish signing up")
        page.fill("#password", PASSWORD)  # only the person who chose the password can finish
        with page.expect_navigation():
            page.click("#submit")
        page.wait_for_selector("text=My games")
        with db.sessions() as s:
            user = s.scalars(select(User).where(User.email == email)).one()
        pages[user.id] = page
    (ana_id, ana), (ben_id, ben) = pages.items()
    game_id = open_table(ana, base, "counters")
    join_from_lobby(ben, base, game_id)
    for p in pages.values():
        p.goto(f"{base}/games/{game_id}")
    rules = engine.get("counters")
    # Keyboard only: the first move by focus and Enter (a move button, then the chooser it opens).
    data = games.view(db, game_id)
    mover = ana_id if games.view(db, game_id, ana_id)["my_seat"] == data["to_move"] else ben_id
    first = games.view(db, game_id, mover)["legal_moves"][0]
    pages[mover].locator(f'.move-button[value="{first}"]').focus()
    pages[mover].keyboard.press("Enter")
    assert pages[mover].evaluate("() => document.activeElement.textContent") == first  # the chooser took the focus
    pages[mover].keyboard.press("Enter")  # the move is the turn's first step: Confirm takes the focus (issue 36)
    pages[mover].wait_for_selector("#turn-confirm:focus")
    pages[mover].keyboard.press("Enter")
    wait_for_version(pages[mover], 1)
    assert games.history(db, game_id)[0]["notation"] == first
    while (data := games.view(db, game_id))["status"] == "running":
        mover = ana_id if games.view(db, game_id, ana_id)["my_seat"] == data["to_move"] else ben_id
        page = pages[mover]
        other = ben if page is ana else ana
        wait_for_version(page, data["version"])
        legal = games.view(db, game_id, mover)["legal_moves"]
        click_move(page, legal[min(1, len(legal) - 1)])
        wait_for_version(page, data["version"] + 1)
        wait_for_version(other, data["version"] + 1)
    assert games.history(db, game_id)[-1]["source"] == "web"
    assert rules.to_move(games.load_state(_game(db, game_id))) is None
    for p in pages.values():
        p.wait_for_selector("text=Game over")
        assert p.locator("#seed").inner_text() == games.view(db, game_id)["seed"]
        assert not p.script_errors, p.script_errors
    ana.click("#replay-link")
    ana.wait_for_selector("#replay-nav")
    with ana.expect_navigation():  # no picture to swap: the viewer steps through the page's links
        ana.keyboard.press("Home")
    assert ana.locator("#seq").inner_text() == "0" and ana.locator("#notation").inner_text() == "the start"
    for p in pages.values():
        p.context.close()


@pytest.mark.parametrize("db", ["postgresql"], indirect=True)
@pytest.mark.parametrize("title", ["tongiaki", "discovery", "tapaono"])
def test_two_players_play_a_title_to_the_end_by_clicking_the_board(title, real_titles, server, browser, db, tmp_path):
    base = server
    rules = engine.get(title)
    ana_id, ben_id = make_user(db, "ana@example.org", "Ana"), make_user(db, "ben@example.org", "Ben")
    ana, ben = new_page(browser, DESKTOP), new_page(browser, PHONE)
    log_in(ana, base, "ana@example.org")
    log_in(ben, base, "ben@example.org")
    game_id = open_table(ana, base, title)
    join_from_lobby(ben, base, game_id)
    assert games.view(db, game_id)["status"] == "running"
    if title == "tapaono":
        options = games.view(db, game_id)["options"]
        assert (options["mode"], options["markers"], options["stars_to_win"]) == ("free", 3, 1)
    seat_of = {ana_id: games.view(db, game_id, ana_id)["my_seat"], ben_id: games.view(db, game_id, ben_id)["my_seat"]}
    user_of = {seat: user for user, seat in seat_of.items()}
    pages = {ana_id: ana, ben_id: ben}

    # The game up to CLICKED_MOVES before its end through the service, the rest by clicks.
    state = games.load_state(_game(db, game_id))
    plan = plan_to_the_end(rules, state, seed=game_id)
    through_service = max(0, len(plan) - CLICKED_MOVES)
    for seat, move in plan[:through_service]:
        games.submit(db, game_id, move, user_id=user_of[seat], source="api")
    for p in pages.values():
        p.goto(f"{base}/games/{game_id}")
        p.evaluate("() => { window.notReloaded = true; }")
    _lobby_screenshots(ana, ben, base, tmp_path, game_id)
    shots = set()
    for n, (seat, move) in enumerate(plan[through_service:], start=through_service):
        page = pages[user_of[seat]]
        other = ben if page is ana else ana
        wait_for_version(page, n)
        assert page.title().startswith("(your turn)"), page.title()
        if page not in shots and n >= through_service + 2:  # the game page at both sizes, mid-game
            for who, p in (("desktop", ana), ("phone", ben)):
                save_screenshot(p, tmp_path, f"web-game-{title}-{who}.png")
            shots.add(page)
        click_move(page, move)
        wait_for_version(page, n + 1)
        wait_for_version(other, n + 1)  # the other page followed by itself
    assert games.view(db, game_id)["status"] == "finished"
    history = games.history(db, game_id)
    assert [m["notation"] for m in history] == [move for _, move in plan]
    assert {m["source"] for m in history[through_service:]} == {"web"}
    for p in pages.values():
        p.wait_for_selector("text=Game over")
        assert p.evaluate("() => window.notReloaded === true"), "the page reloaded"
        assert not p.title().startswith("(your turn)")
        assert not p.script_errors, p.script_errors
    check_accessibility(ana, f"{title} game page, finished, desktop")
    check_accessibility(ben, f"{title} game page, finished, phone")

    # The replay viewer, by keyboard, slider and autoplay, and at a move by its link.
    last = len(history)
    ana.click("#replay-link")
    ana.wait_for_selector("#replay-nav")
    ana.wait_for_load_state("load")  # replay.js, at the end of the page, listens for the keys once it has run
    assert ana.locator("#seq").inner_text() == str(last)
    ana.keyboard.press("Home")
    assert ana.locator("#seq").inner_text() == "0" and ana.locator("#notation").inner_text() == "the start"
    ana.keyboard.press("ArrowRight")
    assert ana.locator("#seq").inner_text() == "1" and ana.locator("#notation").inner_text() == history[0]["notation"]
    assert ana.locator("#mover").inner_text() == history[0]["player"] and ana.url.endswith("#move=1")
    ana.keyboard.press("ArrowRight")
    ana.keyboard.press("ArrowLeft")
    assert ana.locator("#seq").inner_text() == "1"
    ana.keyboard.press("End")
    assert ana.locator("#seq").inner_text() == str(last)
    assert ana.locator("#notation").inner_text() == history[-1]["notation"]
    ana.locator("#slider").evaluate("(el, v) => { el.value = v; el.dispatchEvent(new Event('input')); }", last // 2)
    assert ana.locator("#seq").inner_text() == str(last // 2)
    ana.wait_for_function("() => document.getElementById('board-img').complete")
    ana.keyboard.press("Home")
    ana.select_option("#speed", "400")
    ana.click("#autoplay")
    ana.wait_for_function("() => Number(document.getElementById('seq').textContent) >= 2", timeout=FOLLOW_MS)
    ana.click("#autoplay")  # pause
    paused = ana.locator("#seq").inner_text()
    ana.wait_for_timeout(900)
    assert ana.locator("#seq").inner_text() == paused
    move_n = max(1, last - 3)
    ben.goto(f"{base}/games/{game_id}/replay#move={move_n}")
    ben.wait_for_function(f"() => document.getElementById('seq').textContent === '{move_n}'")
    assert ben.locator("#notation").inner_text() == history[move_n - 1]["notation"]
    ana.keyboard.press("End")
    ana.wait_for_function("() => document.getElementById('board-img').complete")
    ben.wait_for_function("() => document.getElementById('board-img').complete")
    save_screenshot(ana, tmp_path, f"web-replay-{title}-desktop.png")
    save_screenshot(ben, tmp_path, f"web-replay-{title}-phone.png")
    check_accessibility(ana, f"{title} replay, desktop")
    check_accessibility(ben, f"{title} replay, phone")
    for p in pages.values():
        assert not p.script_errors, p.script_errors
        p.context.close()


def _lobby_screenshots(ana, ben, base, tmp_path, game_id):
    """The lobby at both sizes (once, with a game in it), checked by axe."""
    for who, page in (("desktop", ana), ("phone", ben)):
        page.goto(base + "/")
        assert page.locator(f"#game-{game_id}").count() == 1
        assert page.get_by_text(toygame.RULES.title).count() == 0, "the lobby names the suite's test game"
        check_accessibility(page, f"lobby, {who}")
        save_screenshot(page, tmp_path, f"web-lobby-{who}.png")
        page.goto(f"{base}/games/{game_id}")
        page.evaluate("() => { window.notReloaded = true; }")


@pytest.mark.parametrize("db", ["postgresql"], indirect=True)
def test_every_other_page_passes_axe_at_both_sizes(real_titles, server, browser, db, tmp_path):
    """The home page, sign-up, log-in, the rules, the title list, the create form, the settings, an open table."""
    base = server
    make_user(db, "ana@example.org", "Ana")
    for viewport, size in ((DESKTOP, "desktop"), (PHONE, "phone")):
        page = new_page(browser, viewport)
        for path in ("/", "/signup", "/login", "/rules/tongiaki", "/rules/discovery", "/rules/tapaono"):
            page.goto(base + path)
            check_accessibility(page, f"{path} logged out, {size}")
        if size == "phone":
            page.goto(base + "/")
            save_screenshot(page, tmp_path, "web-home-phone.png", full_page=False)
        log_in(page, base, "ana@example.org")
        for path in ("/games/new", "/games/new/tapaono", "/games/new/tongiaki", "/settings", "/archives/upload"):
            page.goto(base + path)
            check_accessibility(page, f"{path}, {size}")
        if size == "desktop":
            page.goto(base + "/games/new/tapaono")
            assert page.locator("#field-opt_markers").is_hidden()  # a free-mode option, and the mode is normal
            page.select_option("#opt_mode", "free")
            assert page.locator("#field-opt_markers").is_visible()
        game_id = open_table(page, base, "discovery", players=3)
        check_accessibility(page, f"an open table, {size}")
        assert not page.script_errors, page.script_errors
        page.context.close()
        assert game_id


def _game(db, game_id):
    with db.sessions() as s:
        return s.get(Game, game_id)


@pytest.mark.parametrize("db", ["postgresql"], indirect=True)
def test_a_game_page_in_german_and_in_dutch(real_titles, server, browser, db, tmp_path):
    """Issue 24: the game page mid-game as a German and a Dutch player see it (the page, the board's
    legend, the moves' buttons), screenshots for the docs, and axe on both."""
    base = server
    anke = make_user(db, "anke@example.org", "Anke")
    bram = make_user(db, "bram@example.org", "Bram")
    with db.transaction() as s:
        s.get(User, anke).language, s.get(User, bram).language = "de", "nl"
    game_id = games.create_game(db, "tongiaki", anke, 2)
    games.join_game(db, game_id, bram)
    chooser = random.Random(3)
    for _ in range(24):  # mid-game, through the service
        data = games.view(db, game_id)
        mover = anke if games.view(db, game_id, anke)["my_seat"] == data["to_move"] else bram
        games.submit(db, game_id, chooser.choice(games.view(db, game_id, mover)["legal_moves"]), user_id=mover)
    for email, language, words in (("anke@example.org", "de", ("Partien", "Abmelden")),
                                   ("bram@example.org", "nl", ("Partijen", "Uitloggen"))):
        page = new_page(browser, DESKTOP)
        log_in(page, base, email, lobby_heading=words[1])
        page.goto(f"{base}/games/{game_id}")
        page.wait_for_function("() => document.getElementById('board-img').complete")
        assert page.locator("html").get_attribute("lang") == language
        body = page.inner_text("body")
        assert all(word in body for word in words), body[:300]
        save_screenshot(page, tmp_path, f"web-game-tongiaki-{language}.png")
        check_accessibility(page, f"tongiaki game page in {language}")
        assert not page.script_errors, page.script_errors
        page.context.close()

