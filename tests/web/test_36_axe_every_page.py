"""Issue 36, Must show: axe-core finds no serious or critical violation on every kind of page, at 1280x800
and 390x844, in each of the four languages.

The pages the items of issue 36 changed are checked in their own files (test_36_3_7_8_axe: a running
and a finished game, the lobby, the settings; test_36_5_howto: the how-to and notation pages). Here
are the other kinds, as a reader of each language sees them: logged out (the home page, sign-up and
log-in, in the browser's language), and logged in (the new-game choice and a title's form, the form
of a game against bots, the upload of an archive, a finished game's replay, the table talk, a player
page). In `make test-full` (CI): 88 runs of axe, about two minutes.
"""

from __future__ import annotations

import pytest

from pbem import games, talk
from tests.web.test_36_3_7_8_browser import SIZES, enter, play, user
from tests.web.test_browser import browser, check_accessibility, real_titles, server  # noqa: F401

LOCALES = {"en": "en-GB", "de": "de-DE", "nl": "nl-NL", "fr": "fr-FR"}


def settle(page) -> None:
    page.wait_for_function("() => Array.from(document.images).every(i => i.complete)")


@pytest.mark.full
@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
@pytest.mark.parametrize("language", list(LOCALES))
def test_36_every_other_page_kind_passes_axe_at_both_sizes_in_each_language(language, real_titles, server,
                                                                             browser, db):
    reader = user(db, f"reader-{language}@example.org", "Rea", language)
    other = user(db, "other@example.org", "Oto")
    finished = games.create_game(db, "tapaono", reader, 2)
    games.join_game(db, finished, other)
    play(db, finished, [reader, other], 4)
    talk.post(db, finished, other, "@Rea good game? https://example.org/a-link")
    games.resign(db, finished, other)
    for size, viewport in SIZES.items():
        context = browser.new_context(viewport=viewport, locale=LOCALES[language])
        page = context.new_page()
        for path in ("/", "/signup", "/login"):
            page.goto(server + path)
            assert page.locator("html").get_attribute("lang") == language, f"{path} logged out in {language}"
            check_accessibility(page, f"{path} logged out in {language} at {size}")
        context.close()
        page = enter(browser, server, f"reader-{language}@example.org", size)
        for path in ("/games/new", "/games/new/tongiaki", "/games/bots/tapaono", "/archives/upload",
                     f"/games/{finished}/replay", f"/games/{finished}/talk", f"/players/{other}",
                     f"/players/{reader}"):
            page.goto(server + path)
            settle(page)
            assert page.locator("html").get_attribute("lang") == language, path
            check_accessibility(page, f"{path} in {language} at {size}")
        assert not page.script_errors, page.script_errors
        page.context.close()
