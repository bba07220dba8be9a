"""Issue 36 items 3, 7 and 8 in a real browser (Chromium, Playwright) at 1280x800 and 390x844: the decision in
words on a phone, a German game page without English colour words or move sentences, a resigned game's
headline and final picture, a lobby that follows a turn by itself, and the small things (no empty boxes on an
open table, the settings' forms apart). The fixtures are test_browser's."""

from __future__ import annotations

import random
import re

import pytest

import renderers
from pbem import games, i18n
from pbem.models import User
from pbem.web.lobby import LOBBY_POLL_MS
from tests.web.conftest import PASSWORD, make_user
from tests.web.test_browser import DESKTOP, FOLLOW_MS, PHONE, browser, new_page, real_titles, server  # noqa: F401

SIZES = {"desktop": DESKTOP, "phone": PHONE}
ENGLISH_COLOURS = re.compile(r"\b(blue|green|orange|purple|red|yellow|black|grey)\b")
ENGLISH_SENTENCES = re.compile(r"\b(You|played|placed|to move|Move \d|turn \d|Your turn|is to move)\b")


def user(db, email, name, language="en"):
    user_id = make_user(db, email, name)
    with db.transaction() as s:
        s.get(User, user_id).language = language
    return user_id


def pair(db):
    """Ana and Ben, who read English."""
    return user(db, "ana@example.org", "Ana"), user(db, "ben@example.org", "Ben")


def done(page):
    """No script error on the page (a refused inline script counts), then close it."""
    assert not page.script_errors, page.script_errors
    page.context.close()


def enter(browser, base, email, size):  # noqa: F811 - the fixture, passed on
    """A page of this size, logged in through the form."""
    page = new_page(browser, SIZES[size])
    page.goto(f"{base}/login")
    page.fill("#email", email)
    page.fill("#password", PASSWORD)
    with page.expect_navigation():
        page.click("#submit")
    assert "/login" not in page.url
    return page


def play(db, game_id, users, moves, seed=3):
    chooser = random.Random(seed)
    for _ in range(moves):
        data = games.view(db, game_id)
        mover = next(u for u in users if games.view(db, game_id, u)["my_seat"] == data["to_move"])
        games.submit(db, game_id, chooser.choice(games.view(db, game_id, mover)["legal_moves"]), user_id=mover)


def in_view(page, selector):
    """Whether the element is shown and lies wholly inside the viewport's width, its top on the first screen."""
    box = page.locator(selector).bounding_box()
    size = page.viewport_size
    return box is not None and box["x"] >= 0 and box["x"] + box["width"] <= size["width"] and \
        0 <= box["y"] < size["height"]


@pytest.mark.full  # a browser test: in make test-full, which CI runs too (issue 32 item 5)
@pytest.mark.parametrize("size", SIZES)
def test_36_3_the_decision_whose_turn_and_deadline_are_readable_text_on_every_size(size, real_titles, server,
                                                                                   browser, db):
    ana, ben = pair(db)
    game_id = games.create_game(db, "tapaono", ana, 2, turn_hours=72)
    games.join_game(db, game_id, ben)
    play(db, game_id, [ana, ben], 5)
    page = enter(browser, server, "ana@example.org", size)
    page.goto(f"{server}/games/{game_id}")
    decision = page.locator("#decision")
    assert decision.is_visible()
    name = games.view(db, game_id)["seats"][games.view(db, game_id)["to_move"]]["name"]
    assert decision.inner_text().startswith(f"{name} (") and "to move:" in decision.inner_text()
    assert in_view(page, "#decision") and in_view(page, "#status .whose") and in_view(page, "#status .deadline")
    assert "Deadline" in page.locator("#status .deadline").inner_text()
    assert float(decision.evaluate("el => parseFloat(getComputedStyle(el).fontSize)")) >= 14
    done(page)


@pytest.mark.full  # a browser test: in make test-full, which CI runs too (issue 32 item 5)
@pytest.mark.parametrize("size", SIZES)
def test_36_7_a_german_game_page_says_colours_moves_and_the_counter_in_german(size, real_titles, server, browser,
                                                                             db):
    anke = user(db, "anke@example.org", "Anke", "de")
    bram = user(db, "bram@example.org", "Bram", "nl")
    game_id = games.create_game(db, "tongiaki", anke, 2)
    games.join_game(db, game_id, bram)
    play(db, game_id, [anke, bram], 24)
    page = enter(browser, server, "anke@example.org", size)
    page.goto(f"{server}/games/{game_id}")
    words = page.locator("#status").inner_text() + "\n" + page.locator("#seats").inner_text()
    if page.locator("#words").count():
        words += "\n" + page.locator("#words").text_content()
    assert not ENGLISH_COLOURS.search(words), ENGLISH_COLOURS.search(words)
    assert not ENGLISH_SENTENCES.search(words), ENGLISH_SENTENCES.search(words)
    german = i18n.texts("de")
    assert german.gettext("blue") in words or german.gettext("green") in words
    # one counter: the page's counter is the picture's caption ("Tongiaki - Zug 25, Runde 7") after its title
    data = games.view(db, game_id, anke, language="de")
    caption = renderers.legend("tongiaki", {**data["board"], "player_names": [s["name"] for s in data["seats"]],
                                            "move_number": data["version"] + 1}, texts=german)["title"]
    counter = page.locator("#counter").inner_text()
    assert caption.endswith(counter.rstrip(".")[1:]) and f"Zug {data['version'] + 1}" in counter, (caption, counter)
    done(page)


@pytest.mark.full  # a browser test: in make test-full, which CI runs too (issue 32 item 5)
@pytest.mark.parametrize("size", SIZES)
def test_36_8_a_resigned_game_opens_with_the_winner_and_its_picture_says_it_is_over(size, real_titles, server,
                                                                                    browser, db):
    ana, ben = pair(db)
    game_id = games.create_game(db, "tongiaki", ana, 2)
    games.join_game(db, game_id, ben)
    play(db, game_id, [ana, ben], 10)
    games.resign(db, game_id, ana)
    page = enter(browser, server, "ana@example.org", size)
    page.goto(f"{server}/games/{game_id}")
    assert page.locator("#outcome").inner_text() == "Ben wins." and in_view(page, "#outcome")
    assert "Resigned: Ana." in page.locator("#status").inner_text()
    page.wait_for_function("() => document.getElementById('board-img').complete")
    picture = page.request.get(page.locator("#board-img").evaluate("img => img.src")).body()
    data = games.view(db, game_id)
    view = {**data["board"], "player_names": [s["name"] for s in data["seats"]], "move_number": data["version"] + 1}
    assert picture == renderers.render("tongiaki", {**view, "game_over": True})
    legend = renderers.legend("tongiaki", {**view, "game_over": True})
    assert legend["lines"][0] == "The game is over." and "(game over)" in legend["title"]
    assert "to move" not in " ".join(legend["lines"])
    done(page)


@pytest.mark.full  # a browser test: in make test-full, which CI runs too (issue 32 item 5)
@pytest.mark.parametrize("size", SIZES)
def test_36_8_the_lobby_follows_a_turn_by_itself(size, real_titles, server, browser, db):
    ana, ben = pair(db)
    game_id = games.create_game(db, "tongiaki", ana, 2)
    games.join_game(db, game_id, ben)
    page = enter(browser, server, "ana@example.org", size)
    page.goto(f"{server}/")
    row = page.locator(f"#game-{game_id}")
    assert "move 1" in row.inner_text()
    page.evaluate("() => { window.notReloaded = true; }")
    play(db, game_id, [ana, ben], 1)  # a turn passes elsewhere (the mail, another page)
    page.wait_for_function(f"() => /move 2\\b/.test(document.getElementById('game-{game_id}').innerText)",
                           timeout=max(FOLLOW_MS, 4 * LOBBY_POLL_MS))
    assert page.evaluate("() => window.notReloaded === true")  # the lobby followed by itself, not a reload
    mine = games.view(db, game_id)["to_move"] == games.view(db, game_id, ana)["my_seat"]
    assert ("your turn" in page.locator(f"#game-{game_id}").inner_text()) == mine
    done(page)


@pytest.mark.full  # a browser test: in make test-full, which CI runs too (issue 32 item 5)
@pytest.mark.parametrize("size", SIZES)
def test_36_8_an_open_table_has_no_empty_boxes_and_the_settings_forms_stand_apart(size, real_titles, server,
                                                                                  browser, db):
    ana, _ = pair(db)
    game_id = games.create_game(db, "discovery", ana, 3)
    page = enter(browser, server, "ben@example.org", size)
    page.goto(f"{server}/games/{game_id}")
    assert page.locator(".board-panel").count() == 0 and page.locator("section.fair").count() == 0
    assert page.locator("#seats").is_visible() and page.locator("#join").is_visible()
    # the players' box starts right under the table's status: no blank board area above or beside it
    status = page.locator("#status").bounding_box()
    players = page.locator("section.players").bounding_box()
    assert players["y"] - (status["y"] + status["height"]) < 40 and players["x"] < 40
    page.goto(f"{server}/settings")
    save = page.locator("form[action$='/settings/language'] [type=submit]")
    following = page.locator("form[action$='/settings/language'] + form label").first
    gap = following.bounding_box()["y"] - (save.bounding_box()["y"] + save.bounding_box()["height"])
    assert gap >= 12, gap
    done(page)
