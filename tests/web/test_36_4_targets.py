"""Issue 36, item 4: places big enough to tap, and the picture's words as text, in a real browser.

For each title, three positions of a seeded game whose decisions name places on the board
(the first three kinds of decision the game reaches), opened by the player to move at
390x844 (a phone) and at 1280x800: every target the board panel offers (the board's places,
the zoom buttons, the move buttons, the chooser's buttons, the typed field) measures at least
24x24 CSS px (WCAG 2.2, 2.5.8) at the default zoom. A place too small to tap there has a
24 px tap area that zooms instead of choosing: after that tap the picture is zoomed around
the place, no place is too small any more, and a second tap on the place opens the chooser
(whose buttons are measured too). On the phone, the picture's caption and legend (its status
lines, notes and players' rows) are text on the page, in a readable size.
"""

from __future__ import annotations

import random
import re

import pytest
from markupsafe import escape

import renderers
from pbem import games
from tests.web.conftest import make_user
from tests.web.test_browser import (  # noqa: F401 - fixtures
    DESKTOP, PHONE, browser, check_accessibility, log_in, new_page, real_titles, save_screenshot, server,
)

TAP_PX = 24  # WCAG 2.2, 2.5.8
SEEDS = {"tongiaki": 11, "discovery": 12, "tapaono": 13}
WARM_UP = {"tongiaki": 24, "discovery": 8, "tapaono": 0}  # random decisions first: a board with crowded coasts
MAX_STEPS = 80  # random decisions played looking for three kinds of decision that name places
LEGIBLE_PX = 13  # the least font size of the picture's words on the page

# Everything in the board panel a pointer can act on, with its box in CSS px (hidden ones have no box).
TARGETS_JS = """() => {
  const sel = "a[href], button, input:not([type=hidden]), select, textarea, summary, [role=button],"
            + " [tabindex]:not([tabindex='-1'])";
  const out = [];
  for (const el of document.querySelectorAll(".board-panel " + sel.split(",").join(", .board-panel "))) {
    if (!el.getClientRects().length || el.closest("[hidden]")) continue;
    const style = getComputedStyle(el);
    if (style.visibility === "hidden" || style.pointerEvents === "none") continue;
    const box = el.getBoundingClientRect();
    out.push({what: el.id || el.dataset.target || el.textContent.trim().slice(0, 30) || el.tagName,
              width: box.width, height: box.height, far: el.classList.contains("far")});
  }
  return out;
}"""


def seated_users(db, game_id, users):
    return {games.view(db, game_id, user)["my_seat"]: user for user in users}


def places_named(title, data):
    """How many legal moves of the player to move name a place of the picture."""
    return sum(1 for move in data["legal_moves"] if renderers.targets(title, data["board"], move))


def advance_to_positions(db, game_id, title, users, seed):
    """Play seeded random decisions; yield (mover, data) at the first three kinds of decision that name places."""
    by_seat = seated_users(db, game_id, users)
    chooser = random.Random(seed)
    seen = set()
    for step in range(WARM_UP[title] + MAX_STEPS):
        spectator = games.view(db, game_id)
        mover = by_seat[spectator["to_move"]]
        data = games.view(db, game_id, mover)
        kinds = frozenset(move.split()[0] for move in data["legal_moves"])
        if step >= WARM_UP[title] and kinds not in seen and places_named(title, data):
            seen.add(kinds)
            yield mover, data
            if len(seen) == 3:
                return
        games.submit(db, game_id, chooser.choice(data["legal_moves"]), user_id=mover)
    pytest.fail(f"{title}: fewer than three kinds of decision with places in {MAX_STEPS} decisions")


def open_position(page, base, game_id, version):
    page.goto(f"{base}/games/{game_id}")
    page.wait_for_selector(f'#status[data-version="{version}"]', state="attached")
    page.wait_for_function("() => document.getElementById('board-img').complete")
    page.wait_for_selector("#board-map[data-scale]", state="attached")


def assert_big_enough(page, where):
    targets = page.evaluate(TARGETS_JS)
    assert any(t["what"] for t in targets), where
    small = [t for t in targets if t["width"] < TAP_PX or t["height"] < TAP_PX]
    assert not small, f"{where}: targets under {TAP_PX}x{TAP_PX} px: {small[:8]}"
    return targets


def tap_a_place(page, where):
    """Tap the first place: a far one zooms around it first, then a second tap chooses it; the chooser opens."""
    far = page.locator("#board-map .region.far")
    zooms = far.count() > 0
    if zooms:
        region = far.last  # the last drawn is on top: nothing covers its centre
        target = region.get_attribute("data-target")
        width = page.locator("#board-canvas").bounding_box()["width"]
        region.click(timeout=5000)
        assert page.locator("#chooser").is_hidden(), f"{where}: a tap on a place too small to tap chose it"
        assert page.locator("#board-canvas").bounding_box()["width"] > width, f"{where}: the tap did not zoom"
        page.wait_for_selector('#board-map[data-far="0"]', state="attached")
        assert page.locator("#zoom-tap").get_attribute("aria-pressed") == "true"
        region = page.locator(f'#board-map .region[data-target="{target}"]').first
        box, frame = region.bounding_box(), page.locator("#board-frame").bounding_box()
        centre = (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        assert frame["x"] <= centre[0] <= frame["x"] + frame["width"], f"{where}: the place is not in view"
        assert frame["y"] <= centre[1] <= frame["y"] + frame["height"], f"{where}: the place is not in view"
        assert_big_enough(page, f"{where}, zoomed")
    else:
        region = page.locator("#board-map .region").last
    region.click(timeout=5000)
    page.wait_for_selector("#chooser:not([hidden])")
    assert_big_enough(page, f"{where}, chooser open")
    return zooms


def assert_words_on_the_page(page, title, data, where):
    """The picture's caption, status lines, notes and players' rows are readable text on the page."""
    # The view as the picture is drawn from it (pbem.boards): with the players' names and the move it waits for.
    view = {**data["board"], "player_names": [seat["name"] for seat in data["seats"]], "move_number": data["version"] + 1}
    legend = renderers.legend(title, view)
    text = " ".join(page.inner_text("body").split())
    for words in [legend["title"], *legend["lines"], *legend["notes"], *(p["details"] for p in legend["players"])]:
        assert " ".join(words.split()) in text, f"{where}: {words!r} is not text on the page"
    sizes = page.evaluate("() => Array.from(document.querySelectorAll('#board-legend p, #board-legend li'))"
                          ".map(el => parseFloat(getComputedStyle(el).fontSize))")
    assert sizes and min(sizes) >= LEGIBLE_PX, f"{where}: the picture's words are {sizes} px"


@pytest.mark.full  # a browser test: in make test-full, which CI runs too (issue 32 item 5)
@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
@pytest.mark.parametrize("title", ["tongiaki", "discovery", "tapaono"])
def test_36_4_every_target_is_24_px_and_the_legend_is_text(title, real_titles, server, browser, db, tmp_path):
    base = server
    ana, ben = make_user(db, "ana@example.org", "Ana"), make_user(db, "ben@example.org", "Ben")
    game_id = games.create_game(db, title, ana, 2)
    games.join_game(db, game_id, ben, seed=SEEDS[title])
    pages = {}
    for size, viewport in (("phone", PHONE), ("desktop", DESKTOP)):
        for user, email in ((ana, "ana@example.org"), (ben, "ben@example.org")):
            pages[size, user] = new_page(browser, viewport)
            log_in(pages[size, user], base, email)
    zoomed = {"phone": 0, "desktop": 0}
    for n, (mover, data) in enumerate(advance_to_positions(db, game_id, title, [ana, ben], SEEDS[title])):
        for size in ("phone", "desktop"):
            page = pages[size, mover]
            where = f"{title} at move {data['version']} ({', '.join(sorted({m.split()[0] for m in data['legal_moves']}))}), {size}"
            open_position(page, base, game_id, data["version"])
            assert page.locator("#board-map .region").count() > 0, where
            assert_big_enough(page, where)
            if size == "phone":
                assert_words_on_the_page(page, title, data, where)
            if n == 0:
                save_screenshot(page, tmp_path, f"web-36-4-targets-{title}-after-{size}.png")
            zoomed[size] += tap_a_place(page, where)
            if n == 0:
                check_accessibility(page, where)
                save_screenshot(page, tmp_path, f"web-36-4-zoomed-{title}-after-{size}.png")
    assert zoomed["phone"], f"{title}: no position had a place too small to tap on the phone: the zoom was not tried"
    for page in pages.values():
        assert not page.script_errors, page.script_errors
        page.context.close()


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
@pytest.mark.parametrize("title", ["tongiaki", "discovery", "tapaono"])
def test_36_4_the_pictures_words_are_text_under_the_board(title, db, players):
    """Without a browser: the page carries the picture's title, lines and notes under the board, the decision once."""
    ana, ben, _ = players
    game_id = games.create_game(db, title, ana.id, 2)
    games.join_game(db, game_id, ben.id, seed=SEEDS[title])
    data = games.view(db, game_id)
    page = (ana if games.view(db, game_id, ana.id)["my_seat"] == data["to_move"] else ben).client
    html = page.get(f"/games/{game_id}").get_data(as_text=True)
    block = re.search(r'<div class="board-legend" id="board-legend">(.*?)</div>', html, re.S)
    assert block, "no text legend under the board"
    view = {**data["board"], "player_names": [seat["name"] for seat in data["seats"]], "move_number": data["version"] + 1}
    legend = renderers.legend(title, view)
    for words in [legend["title"], *legend["lines"][1:], *legend["notes"]]:
        assert str(escape(words)) in block.group(1), words
    assert str(escape(legend["lines"][0])) not in block.group(1)  # the decision: the turn box says it
    assert html.count(str(escape(legend["lines"][0]))) == 1
