"""Issue 36 items 3, 7 and 8: axe-core finds no serious or critical violation on the pages these items changed
(a running game page of the reader, a finished one, the lobby, the settings) at 1280x800 and 390x844, in each of
the four languages. The fixtures are test_browser's."""

from __future__ import annotations

import pytest

from pbem import games
from tests.web.test_36_3_7_8_browser import SIZES, enter, play, user
from tests.web.test_browser import browser, check_accessibility, real_titles, server  # noqa: F401


@pytest.mark.full  # a browser test: in make test-full, which CI runs too (issue 32 item 5)
@pytest.mark.parametrize("language", ["en", "de", "nl", "fr"])
def test_36_3_7_8_the_changed_pages_pass_axe_at_both_sizes(language, real_titles, server, browser, db):
    reader = user(db, f"reader-{language}@example.org", "Rea", language)
    other = user(db, "other@example.org", "Oto")
    running = games.create_game(db, "tongiaki", reader, 2, turn_hours=48)
    games.join_game(db, running, other)
    play(db, running, [reader, other], 6)
    finished = games.create_game(db, "tapaono", reader, 2)
    games.join_game(db, finished, other)
    play(db, finished, [reader, other], 3)
    games.resign(db, finished, other)
    for size in SIZES:
        page = enter(browser, server, f"reader-{language}@example.org", size)
        assert page.locator("html").get_attribute("lang") == language
        for path in (f"/games/{running}", f"/games/{finished}", "/", "/settings"):
            page.goto(server + path)
            page.wait_for_function("() => Array.from(document.images).every(i => i.complete)")
            check_accessibility(page, f"{path} in {language} at {size}")
        assert not page.script_errors, page.script_errors
        page.context.close()
