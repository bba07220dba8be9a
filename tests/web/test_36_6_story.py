"""Issue 36 item 6: the game page's log tells the story, as the turn mail's "Since your last turn" does.

Each of the latest moves is told in the reader's language, in the mail's sentences
(renderers.text.events): the move, the die, the tile or card drawn, the engine's own moves, the
points; each links into the replay at that move (`/games/<id>/replay?seq=N#move=N`). They are made
from the viewer's own views only (a spectator's for a spectator), so nothing hidden reaches the log:
Discovery's double-tile hands are the test of that. The browser test reads the log at 1280x800 and
390x844, in English and in German, and runs axe on it.

Games are played through the game service with seeded random legal moves (tests.mail's `Table`) up
to a position whose latest moves hold what the test looks for.
"""

from __future__ import annotations

import random
import re

import lxml.html
import pytest
from sqlalchemy import select

from pbem.accounts.passwords import hash_password
from pbem.models import Seat, User
from pbem.web.play.game import LAST_MOVES_SHOWN
from tests.mail.test_33_since_last_turn import Table
from tests.web.conftest import PASSWORD, login
from tests.web.test_browser import DESKTOP, PHONE, browser, check_accessibility, server  # noqa: F401 - fixtures

STORY_ENGLISH = {"die": "The die showed", "drawn": " was drawn", "auto": "The engine made the only possible choice"}
STORY_GERMAN = {"die": "Der Würfel zeigte", "drawn": " wurde aufgedeckt", "auto": "Das Spiel traf die einzig mögliche"}


def tapaono_rolled(table: Table) -> bool:
    """The latest move was a roll of the die, and a card was drawn among the moves the log shows."""
    latest = table.log[-LAST_MOVES_SHOWN - 1:]
    return (len(table.log) > LAST_MOVES_SHOWN and table.log[-1][1].kind == "roll"
            and any(len(a.deck) < len(b.deck) for (_, _, b), (_, _, a) in zip(latest, latest[1:])))


def tongiaki_drew_and_chose(table: Table) -> bool:
    """Among the latest moves of the log, a tile was drawn and the engine decided by itself."""
    kinds = {e[0] for _, _, after in table.log[-LAST_MOVES_SHOWN:] for e in after.events}
    return {"draw", "auto"} <= kinds


def played(db, title: str, seed: int, stop, players: int = 2, options: dict | None = None) -> Table:
    table = Table(db, title, players, seed, options)
    assert table.walk(random.Random(seed), stop, limit=800), f"{title}: no such position"
    return table


def log_of(page: str) -> list[dict]:
    """The page's log as the reader sees it: per move (newest first) its number, link, sentence and details."""
    tree = lxml.html.fromstring(page)
    entries = []
    for li in tree.xpath('//ol[@id="history"]/li'):
        link = li.xpath('./a[contains(@class, "log-move")]')[0]
        entries.append({"seq": int(li.get("value")), "href": link.get("href"),
                        "text": " ".join(link.text_content().split()),
                        "details": [" ".join(d.text_content().split()) for d in li.xpath('./ul/li')]})
    return entries


def whole(entries: list[dict]) -> str:
    return " ".join(e["text"] + " " + " ".join(e["details"]) for e in entries)


# --- the page, without a browser ------------------------------------------------------------------------


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_36_6_spectator_log_tells_the_die_and_the_card_each_linking_into_the_replay(db, client):
    table = played(db, "tapaono", 2, tapaono_rolled)
    version = len(table.log)
    page = client.get(f"/games/{table.game_id}", headers={"Accept-Language": "en"}).get_data(as_text=True)
    entries = log_of(page)
    assert [e["seq"] for e in entries] == list(range(version, version - LAST_MOVES_SHOWN, -1))
    colours = table.rules.view(table.state, None)["colours"]
    for e in entries:
        assert e["href"] == f"/games/{table.game_id}/replay?seq={e['seq']}#move={e['seq']}"
        seat = table.log[e["seq"] - 1][0]
        assert e["text"].startswith(f"{table.name[seat]} ({colours[seat]}) "), e  # a sentence, not "Bea: roll 2"
        assert e["text"].endswith(".")
    mover, roll = table.log[-1][0], table.log[-1][2].last_roll
    assert entries[0]["text"] == f"{table.name[mover]} ({colours[mover]}) rolled for piece {roll[1]}."
    assert f"The die showed {roll[2]} for piece {roll[1]}." in entries[0]["details"]
    assert re.search(r"\) drew (Transport \+2|Conquer six|Conquer three|Raid|Loss|Landing|Star jump|Recall)\.",
                     whole(entries))
    # Each link opens the replay at its move; the earlier moves are one link away.
    for e in (entries[0], entries[-1]):
        replay = lxml.html.fromstring(client.get(e["href"].split("#")[0]).get_data(as_text=True))
        assert replay.get_element_by_id("replay").get("data-seq") == str(e["seq"])
    earlier = lxml.html.fromstring(page).get_element_by_id("earlier-link").get("href")
    before = version - LAST_MOVES_SHOWN
    assert earlier == f"/games/{table.game_id}/replay?seq={before}#move={before}"


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_36_6_log_tells_a_tile_drawn_and_the_engines_moves_in_german(db, client):
    table = played(db, "tongiaki", 0, tongiaki_drew_and_chose)
    english = whole(log_of(client.get(f"/games/{table.game_id}", headers={"Accept-Language": "en"})
                           .get_data(as_text=True)))
    german = whole(log_of(client.get(f"/games/{table.game_id}", headers={"Accept-Language": "de"})
                          .get_data(as_text=True)))
    assert STORY_ENGLISH["drawn"] in english and STORY_ENGLISH["auto"] in english
    assert STORY_GERMAN["drawn"] in german and STORY_GERMAN["auto"] in german
    assert STORY_ENGLISH["auto"] not in german


def logged_in(db, app, table: Table, seat: int):
    """A client logged in as the user of a seat (Table's users sign up by mail: they get a password here)."""
    with db.transaction() as s:
        user = s.scalars(select(User).join(Seat, Seat.user_id == User.id).where(
            Seat.game_id == table.game_id, Seat.number == seat)).one()
        user.password_hash = hash_password(PASSWORD)
        email = user.email
    client = app.test_client()
    login(client, email)
    return client


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_36_6_a_player_reads_you_for_their_own_moves(db, app):
    table = played(db, "tapaono", 2, tapaono_rolled)
    mover = table.log[-1][0]
    roll = table.log[-1][2].last_roll
    entries = log_of(logged_in(db, app, table, mover).get(f"/games/{table.game_id}").get_data(as_text=True))
    assert entries[0]["text"] == f"You rolled for piece {roll[1]}."
    other = log_of(logged_in(db, app, table, 1 - mover).get(f"/games/{table.game_id}").get_data(as_text=True))
    assert other[0]["text"].startswith(f"{table.name[mover]} (")


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_36_6_spectator_log_never_names_a_tile_in_a_hidden_hand(db, client):
    """Discovery with double tiles (D18): a spectator's log says that a player drew into the hidden hand,
    never which tile; the number of a tile only a hand holds is nowhere in the log."""
    table = played(db, "discovery", 56, lambda t: any(
        len(a.deck) < len(b.deck) for (_, _, b), (_, _, a) in zip(t.log[-LAST_MOVES_SHOWN - 1:],
                                                                  t.log[-LAST_MOVES_SHOWN:])), players=3,
                   options={"double": True})
    state = table.state
    view = table.rules.view(state, None)
    seen = {tile["tile"] for tile in view["board"]} | {tile["tile"] for tile in view["removed"]}
    hidden = {n for hand in state.hands for n in hand} - seen
    assert hidden
    told = whole(log_of(client.get(f"/games/{table.game_id}").get_data(as_text=True)))
    assert "into the hidden hand" in told
    assert not {int(n) for n in re.findall(r"#(\d+)", told)} & hidden


# --- in a browser: both sizes, English and German ----------------------------------------------------------


def read_log(page) -> list[dict]:
    """The log's entries as the browser shows them: number, link, the link's box, sentence and details."""
    return page.evaluate("""() => Array.from(document.querySelectorAll('#history > li')).map(li => {
        const a = li.querySelector('a.log-move'); const box = a.getBoundingClientRect();
        return {seq: li.value, href: a.getAttribute('href'), text: a.innerText.trim(), width: box.width,
                height: box.height, details: Array.from(li.querySelectorAll('ul > li')).map(d => d.innerText.trim())};
    })""")


@pytest.mark.full  # a browser test: in make test-full, which CI runs too (issue 32 item 5)
@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_36_6_the_log_tells_the_story_in_a_browser_at_both_sizes_in_english_and_german(db, server, browser,
                                                                                       tmp_path):
    """A spectator's page of a Tapaono game (a die just rolled, a card drawn) and of a Tongiaki game (a tile
    drawn, the engine's own move): the log tells them in sentences of the page's language, every entry a
    target of at least 24x24 px that opens the replay at its move; axe finds nothing serious."""
    tapaono = played(db, "tapaono", 2, tapaono_rolled)
    tongiaki = played(db, "tongiaki", 0, tongiaki_drew_and_chose)
    for viewport, size in ((DESKTOP, "desktop"), (PHONE, "phone")):
        for language, words in (("en", STORY_ENGLISH), ("de", STORY_GERMAN)):
            context = browser.new_context(viewport=viewport, locale=language)
            page = context.new_page()
            told = ""
            for table, kinds in ((tapaono, ("die",)), (tongiaki, ("drawn", "auto"))):
                page.goto(f"{server}/games/{table.game_id}")
                entries = read_log(page)
                assert [e["seq"] for e in entries] == list(range(len(table.log), len(table.log) - LAST_MOVES_SHOWN, -1))
                text = " ".join(e["text"] + " " + " ".join(e["details"]) for e in entries)
                assert all(words[kind] in text for kind in kinds), (language, size, text)
                assert not re.search(r": (roll|move|land|expand|emigrate|place|tile) ", text), text  # no notation
                for e in entries:
                    assert e["width"] >= 24 and e["height"] >= 24, e
                    assert e["href"] == f"/games/{table.game_id}/replay?seq={e['seq']}#move={e['seq']}"
                told += text
            if size == "phone":
                page.locator("#history").scroll_into_view_if_needed()
            page.locator("section.log").screenshot(path=str(tmp_path / f"log-{size}-{language}.png"))
            check_accessibility(page, f"game page log, {size}, {language}")
            # The newest entry opens the replay at that move.
            newest = page.locator("#history > li a.log-move").first
            seq = newest.evaluate("a => a.closest('li').value")
            with page.expect_navigation():
                newest.click()
            assert page.locator("#replay").get_attribute("data-seq") == str(seq)
            assert page.locator("#seq").inner_text() == str(seq)
            assert words["auto"] in told
            context.close()
