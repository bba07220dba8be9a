"""Issue 36, item 5: rules for players. Each title has a "How to play" page in each language (goal, a turn,
each action with a picture the renderers draw from a real position, scoring, the end) at /rules/<title>;
the game page links each kind of decision to its section; the notation moved to /rules/<title>/notation,
and the developers' text (engine paths, tests) to docs/games/ only.

The browser test reaches the how-to page from a decision on the game page by a click, at 1280x800 in
English and at 390x844 in German, runs axe on the how-to pages at both sizes in the four languages, and
saves the screenshots for docs/web.md (with $PBEM_SCREENSHOTS).
"""

from __future__ import annotations

import html
import os
import random
import re
from pathlib import Path

import pytest
from PIL import Image

import engine
from pbem import games
from pbem.models import User
from pbem.web.play import rules as rules_pages
from tests.web.conftest import make_user
from tests.web.test_browser import (  # noqa: F401 - fixtures
    DESKTOP, PHONE, browser, check_accessibility, log_in, new_page, real_titles, save_screenshot, server)

TITLES = ("tongiaki", "discovery", "tapaono")
LANGUAGES = ("en", "de", "nl", "fr")
PLAYOUT_SEEDS = range(3)
PLAYOUT_MOVES = 400
DEVELOPERS = ("engine/", "tests/", "shared/rules", "rules.view", "Recorded decisions")


def decision_words(title: str) -> set[str]:
    """The first word of every move random seeded games of this title offer: the kinds of decision there are."""
    rules = engine.get(title)
    words = set()
    for seed in PLAYOUT_SEEDS:
        state, chooser = rules.setup(rules.min_players, {}, seed), random.Random(seed)
        for _ in range(PLAYOUT_MOVES):
            if rules.to_move(state) is None:
                break
            legal = rules.legal_moves(state)
            words.update(rules.notation(state, move).split(" ", 1)[0] for move in legal)
            state = rules.apply(state, chooser.choice(legal))
    return words


@pytest.mark.parametrize("title", TITLES)
def test_36_5_every_kind_of_decision_has_a_section_in_every_language(app, title):
    """A decision the game page offers is explained on the how-to page in each language: its word is named
    by a section, which has an anchor the game page links to."""
    words = decision_words(title)
    assert len(words) >= 4
    with app.test_request_context():
        for language in LANGUAGES:
            found = rules_pages.howto_html(title, language)
            assert found.language == language, f"{title} has no how-to in {language}"
            assert words - set(found.actions) == set(), f"{title} in {language}: decisions without a section"
            for anchor, _ in found.actions.values():
                assert f'id="{anchor}"' in found.html


@pytest.mark.parametrize("language", LANGUAGES)
def test_36_5_the_rules_page_is_how_to_play_for_players(client, language):
    """/rules/<title> is the how-to page in the reader's language: the goal, a turn, the actions with their
    pictures, scoring and the end; no engine path or test; a link to the notation for those who type."""
    for title in TITLES:
        page = client.get(f"/rules/{title}", headers={"Accept-Language": language}).get_data(as_text=True)
        assert f'<html lang="{language}">' in page and 'id="howto"' in page and "not translated" not in page
        article = page[page.index('id="howto"'):page.index("</article>")]
        assert not [word for word in DEVELOPERS if word in article], title
        assert len(re.findall(r"<h[23] ", article)) >= 7  # goal, a turn, the actions, scoring, the end
        pictures = re.findall(r'<img src="([^"]+)" alt="([^"]+)"', article)
        assert len(pictures) >= 3 and len(re.findall("<figcaption>", article)) == len(pictures)
        for source, _ in pictures:
            assert source.startswith(f"/rules/{title}/pictures/")
            assert (language == "en") == ("lang=" not in source)  # the picture's words in the reader's language
        assert f'href="/rules/{title}/notation"' in page


@pytest.mark.parametrize("title", TITLES)
def test_36_5_each_picture_is_a_real_position_where_its_action_was_played(client, title):
    """A how-to picture is drawn from a seeded game in which the move it names was legal and was played;
    its caption gives the move. Only the pictures a page shows are drawn: any other name is a 404."""
    page = client.get(f"/rules/{title}").get_data(as_text=True)
    for source, caption in re.findall(r'<img src="([^"]+)".*?<figcaption>.*?<code>([^<]+)</code>', page, re.S):
        key = re.search(r"/pictures/([^.?]+)\.png", source).group(1)
        view, move = rules_pages.example(title, key)
        assert html.unescape(caption) == move and (move + " ").startswith(key.replace("_", " ") + " ")
        assert view["last_move"]["move"] == move  # the picture is the position the move made
        answer = client.get(source)
        assert answer.status_code == 200 and answer.data.startswith(b"\x89PNG")
    german = client.get(f"/rules/{title}", headers={"Accept-Language": "de"}).get_data(as_text=True)
    source = re.search(r'<img src="([^"]+)"', german).group(1)
    assert client.get(source).data != client.get(source.split("?")[0]).data  # the legend's words are German
    assert client.get(f"/rules/{title}/pictures/resign.png").status_code == 404
    assert client.get(f"/rules/{title}/pictures/{'x' * 500}.png").status_code == 404
    assert client.get("/rules/chess/pictures/place.png").status_code == 404


def test_36_5_the_notation_page_keeps_the_notation_without_the_developers_text(client):
    """The notation reference is /rules/<title>/notation, linked back to how to play; the engine's paths, the
    tests and the view's schema are only in docs/games/ (the same file, shown in part)."""
    for title in TITLES:
        for language in LANGUAGES:
            page = client.get(f"/rules/{title}/notation", headers={"Accept-Language": language}).get_data(as_text=True)
            article = page[page.index('id="rules"'):page.index("</article>")]
            opening = article[:article.index("<h2>")]  # it opened with the engine's path and its tests
            assert "<table>" in article and not [w for w in DEVELOPERS if w in opening], (title, language)
            assert "rules.view" not in article and "<h2>Recorded decisions" not in article
            assert f'href="/rules/{title}" id="howto-link"' in page
        source = (rules_pages.pages_folder(title) / f"{title}.md").read_text(encoding="utf-8")
        assert "engine/" in source  # still written, for developers
    assert "<code>expand &lt;island&gt;" in client.get("/rules/tongiaki/notation").get_data(as_text=True)
    assert client.get("/rules/chess/notation").status_code == 404


def test_36_5_a_title_without_a_how_to_shows_its_notation(client):
    """The suite's counters game has a notation page and no how-to: /rules/counters shows the notation."""
    page = client.get("/rules/counters").get_data(as_text=True)
    assert 'id="rules"' in page and "<code>take 1</code>" in page and 'id="howto"' not in page


@pytest.mark.parametrize("title", ["tongiaki", "tapaono"])
def test_36_5_the_game_page_links_each_decision_to_its_section(db, players, title):
    """The player to move sees "What is ...?" beside the moves, one link per section their decisions need,
    in their language, to the section's anchor; the player who waits sees no decision and no link."""
    ana, ben, _ = players
    game_id = games.create_game(db, title, ana.id, 2)
    games.join_game(db, game_id, ben.id)
    accounts_language(db, ben.id, "de")
    chooser = random.Random(4)
    for _ in range(12):
        data = games.view(db, game_id)
        mover = ana if games.view(db, game_id, ana.id)["my_seat"] == data["to_move"] else ben
        games.submit(db, game_id, chooser.choice(games.view(db, game_id, mover.id)["legal_moves"]), user_id=mover.id)
    data = games.view(db, game_id)
    mover, waiter = (ana, ben) if games.view(db, game_id, ana.id)["my_seat"] == data["to_move"] else (ben, ana)
    legal = games.view(db, game_id, mover.id)["legal_moves"]
    page = mover.client.get(f"/games/{game_id}").get_data(as_text=True)
    links = re.findall(rf'<a href="/rules/{title}#(move-[\w-]+)" class="howto-link">([^<]+)</a>', page)
    language = "de" if mover is ben else "en"
    with mover.client.application.test_request_context():
        actions = rules_pages.howto_html(title, language).actions
    expected = {actions[move.split(" ", 1)[0]][0] for move in legal}
    assert {anchor for anchor, _ in links} == expected and len(links) == len(expected)
    names = {name for _, name in actions.values()}
    assert all(any(name in html.unescape(text) for name in names) for _, text in links)
    assert "howto-link" not in waiter.client.get(f"/games/{game_id}").get_data(as_text=True)


def accounts_language(db, user_id: int, code: str) -> None:
    with db.transaction() as s:
        s.get(User, user_id).language = code


# --- in a browser ------------------------------------------------------------------------------------------


def save_part(page, selector: str, tmp_path, name: str) -> None:
    """A screenshot of one part of the page in the test's folder, and a palette copy in $PBEM_SCREENSHOTS."""
    path = tmp_path / name
    page.locator(selector).screenshot(path=str(path))
    target = os.environ.get("PBEM_SCREENSHOTS")
    if target:
        Path(target).mkdir(parents=True, exist_ok=True)
        with Image.open(path) as image:
            image.convert("RGB").quantize(colors=128).save(Path(target) / name, optimize=True)


@pytest.mark.full  # a browser test: in make test-full, which CI runs too (issue 32 item 5)
def test_36_5_how_to_play_is_a_click_from_a_decision_and_passes_axe(real_titles, server, browser, db, tmp_path):
    """Ana (English, desktop) and Ben (German, phone) are to move in a Tongiaki game: the "What is ...?" link
    beside their moves opens the how-to page at that action's section, in their language, on screen. axe
    finds nothing serious on the how-to pages at both sizes in the four languages."""
    base = server
    ana, ben = make_user(db, "ana@example.org", "Ana"), make_user(db, "ben@example.org", "Ben")
    accounts_language(db, ben, "de")
    game_id = games.create_game(db, "tongiaki", ana, 2)
    games.join_game(db, game_id, ben)
    chooser = random.Random(3)
    for user, email, viewport, size, lobby in ((ana, "ana@example.org", DESKTOP, "desktop", "My games"),
                                               (ben, "ben@example.org", PHONE, "phone", "Meine Partien")):
        while games.view(db, game_id)["version"] < 12 or len(games.view(db, game_id, user)["legal_moves"]) < 2:
            # past the setting up, this player to move, with a choice
            data = games.view(db, game_id)
            mover = ana if games.view(db, game_id, ana)["my_seat"] == data["to_move"] else ben
            games.submit(db, game_id, chooser.choice(games.view(db, game_id, mover)["legal_moves"]), user_id=mover)
        page = new_page(browser, viewport)
        log_in(page, base, email, lobby_heading=lobby)
        page.goto(f"{base}/games/{game_id}")
        link = page.locator("#howto-links a").first
        box = link.bounding_box()
        assert box["width"] >= 24 and box["height"] >= 24
        save_part(page, "#move", tmp_path, f"web-36-5-link-after-{size}.png")
        anchor = link.get_attribute("href").split("#")[1]
        with page.expect_navigation():
            link.click()  # the one click from the decision
        assert page.url.endswith(f"/rules/tongiaki#{anchor}")
        page.wait_for_function("s => { const r = document.querySelector(s).getBoundingClientRect();"
                               " return r.bottom > 0 && r.top < window.innerHeight; }", arg=f"#{anchor}")
        assert page.evaluate("() => window.scrollY") > 0 or anchor == "move-place"  # scrolled to the section
        assert page.locator("html").get_attribute("lang") == ("en" if user == ana else "de")
        assert page.locator(f"#{anchor} + p, #{anchor} ~ figure").count() > 0
        page.goto(f"{base}/rules/tongiaki")
        save_screenshot(page, tmp_path, f"web-36-5-rules-after-{size}.png")
        assert not page.script_errors, page.script_errors
        page.context.close()
    for viewport, size in ((DESKTOP, "desktop"), (PHONE, "phone")):
        for language in LANGUAGES:
            context = browser.new_context(viewport=viewport, locale=language)
            page = context.new_page()
            for title in TITLES:
                page.goto(f"{base}/rules/{title}")
                assert page.locator("html").get_attribute("lang") == language
                page.wait_for_function("() => Array.from(document.images).every(i => i.complete && i.naturalWidth)")
                check_accessibility(page, f"how to play {title}, {language}, {size}")
            page.goto(f"{base}/rules/tongiaki/notation")
            check_accessibility(page, f"tongiaki notation, {language}, {size}")
            context.close()
