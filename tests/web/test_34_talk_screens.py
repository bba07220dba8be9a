"""Issue 34, "Must show": the conversation panel of the game page in a real browser (Chromium, Playwright) at
1280x800 and 390x844, with the screenshots docs/web.md shows ("Table talk").

Ana, Ben and Cy play Tongiaki. They have talked: three messages to the table (one of them by mail), one
private message from Ana to Ben, and a note Ben keeps. Each of them opens the game page: the private
message is on Ana's and Ben's panels and nowhere on Cy's page, the note only on Ben's; on the phone the
panel's controls (the text, whom to write to, Send, Keep the note) are at least 24x24 CSS px; Ben sends a
message with the form and it stands in the conversation without a reload; axe-core finds no serious or
critical violation. The screenshots are Ben's (he reads the private message and his note) and go to the
test's folder, and to docs/images when $PBEM_SCREENSHOTS is set:

    PBEM_SCREENSHOTS=docs/images .venv/bin/python -m pytest -q tests/web/test_34_talk_screens.py
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pbem import games, talk
from tests.web.test_36_3_7_8_browser import SIZES, done, enter, play, user
from tests.web.test_browser import browser, check_accessibility, real_titles, server  # noqa: F401

PRIVATE = "Ben, shall we keep Cy out of Tahiti? Between us only."
NOTE = "Ana bluffs about Tahiti; watch her canoes at move 8."
PUBLIC = ("Good luck, both of you!", "Thanks, Ana. May the winds be kind.", "Hello from the far east. See you at sea.")
SENT = "Deal. I sail west next turn."
MIN_TARGET = 24  # CSS px, each way (WCAG 2.5.8)
CONTROLS = ("#talk-text", ".talk-to label.check", "#talk-form button", "#note-text", "#note-form button")


@pytest.fixture
def table(db, real_titles):
    """A running Tongiaki game of Ana, Ben and Cy, a few moves in, with its talk; returns (game id, users)."""
    ana, ben, cy = user(db, "ana@example.org", "Ana"), user(db, "ben@example.org", "Ben"), \
        user(db, "cy@example.org", "Cy")
    game_id = games.create_game(db, "tongiaki", ana, 3, turn_hours=72)
    games.join_game(db, game_id, ben)
    games.join_game(db, game_id, cy, seed=5)
    play(db, game_id, [ana, ben, cy], 4)
    ben_seat = games.view(db, game_id, ben)["my_seat"]
    talk.post(db, game_id, ana, PUBLIC[0], source="web")
    talk.post(db, game_id, ben, PUBLIC[1], source="web")
    talk.post(db, game_id, ana, PRIVATE, to=(ben_seat,), source="web")
    talk.post(db, game_id, cy, PUBLIC[2], source="mail")
    talk.write_note(db, game_id, ben, NOTE)
    return game_id, {"ana": ana, "ben": ben, "cy": cy}


def panel_of(browser, server, game_id, name, size):  # noqa: F811 - the fixtures, passed on
    """The game page of a player at a size, its talk panel loaded (talk.js fetches it into #talk)."""
    page = enter(browser, server, f"{name}@example.org", size)
    page.goto(f"{server}/games/{game_id}")
    page.wait_for_selector("#talk-panel #messages")
    return page


def save(page, tmp_path, name, clip_to=None):
    """A screenshot in the test's folder, and a small palette copy in $PBEM_SCREENSHOTS (docs/images)."""
    path = tmp_path / name
    page.wait_for_function("() => Array.from(document.images).every(i => i.complete)")
    if clip_to:
        page.locator(clip_to).screenshot(path=str(path))
    else:
        page.screenshot(path=str(path))
    assert path.stat().st_size > 1000
    target = os.environ.get("PBEM_SCREENSHOTS")
    if target:
        from PIL import Image

        Path(target).mkdir(parents=True, exist_ok=True)
        with Image.open(path) as image:
            image.convert("RGB").quantize(colors=128).save(Path(target) / name, optimize=True)


@pytest.mark.full  # a browser test: in make test-full, which CI runs too (issue 32 item 5)
@pytest.mark.parametrize("size", SIZES)
def test_34_must_show_the_panel_each_reader_sees_with_screenshots(size, table, server, browser, tmp_path):
    game_id, _users = table
    for name in ("ana", "cy"):
        page = panel_of(browser, server, game_id, name, size)
        messages, whole = page.inner_text("#messages"), page.content()
        assert all(text in messages for text in PUBLIC), name
        assert (PRIVATE in messages) == (name == "ana"), name  # Ana wrote it; Cy is not its reader
        assert NOTE not in whole, name  # Ben's note, on nobody's page but his
        if name == "cy":
            assert PRIVATE not in whole and "Between us only" not in whole
        done(page)
    page = panel_of(browser, server, game_id, "ben", size)
    assert PRIVATE in page.inner_text("#talk-panel .message.private") and NOTE in page.inner_text("#notes")
    if size == "phone":
        for selector in CONTROLS:
            for box in (page.locator(selector).nth(i).bounding_box() for i in range(page.locator(selector).count())):
                assert box and box["width"] >= MIN_TARGET and box["height"] >= MIN_TARGET, (selector, box)
    check_accessibility(page, f"game page with its talk ({size})")
    if size == "desktop":
        page.evaluate("() => window.scrollTo(0, document.getElementById('talk-panel').getBoundingClientRect().top"
                      " + window.scrollY - 8)")  # the panel from its heading down
        save(page, tmp_path, "web-34-talk-desktop.png")
    else:
        save(page, tmp_path, "web-34-talk-phone.png", clip_to="#talk-panel")
    page.fill("#talk-text", SENT)
    page.click("#talk-form button")
    page.wait_for_function("text => document.getElementById('messages').innerText.includes(text)", arg=SENT)
    assert page.input_value("#talk-text") == ""
    done(page)
