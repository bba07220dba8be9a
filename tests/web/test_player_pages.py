"""Pages that speak to people: the home page, rules, the create form in words, time zones by region,
the lobby's order, filters and pages, the live poll's ETag, moves answered as JSON, Discovery's preview."""

from __future__ import annotations

import html
import re

import pytest

import engine
from pbem import accounts, games
from pbem.web.play import rules as rules_pages
from tests.web.conftest import csrf_of, post, running_game


def test_the_home_page_says_what_the_site_is_and_shows_each_game(client):
    page = client.get("/").get_data(as_text=True)
    assert "Board games at your own pace" in page and "How to start" in page and 'href="/signup"' in page
    for title in ("tongiaki", "discovery", "tapaono"):
        assert f'src="/titles/{title}.png"' in page and f'href="/rules/{title}"' in page
        picture = client.get(f"/titles/{title}.png")
        assert picture.status_code == 200 and picture.data.startswith(b"\x89PNG")
    assert client.get("/titles/chess.png").status_code == 404


def test_every_title_has_a_rules_page_with_its_notation(client):
    for title in ("tongiaki", "discovery", "tapaono"):
        page = client.get(f"/rules/{title}/notation").get_data(as_text=True)  # how to play is /rules/<title>
        assert "<table>" in page and "notation" in page.lower()
        assert "View (`rules.view" not in page and "<h2>View" not in page  # the developers' schema stays in docs/
    assert "<code>expand &lt;island&gt;" in client.get("/rules/tongiaki/notation").get_data(as_text=True)
    assert client.get("/rules/chess").status_code == 404


FENCE = re.compile(r"^```.*?^```", re.M | re.S)
CODE_SPAN = re.compile(r"`[^`]+`")  # a code span may run over a line break (CommonMark reads it as a space)


def notation_of(markdown: str) -> tuple[set[str], list[str], int, int]:
    """What a translation must keep of a rules page: its code spans (the notation, commands, coordinates), its
    fenced blocks (what players type and the service prints), and its count of sections and of table rows."""
    blocks = FENCE.findall(markdown)
    prose = FENCE.sub("", markdown)
    spans = {" ".join(span.split()) for span in CODE_SPAN.findall(prose)}
    return spans, blocks, len(re.findall(r"^## ", prose, re.M)), len(re.findall(r"^\|", prose, re.M))


@pytest.mark.parametrize("language", ["nl", "de", "fr"])
@pytest.mark.parametrize("title", ["tongiaki", "discovery", "tapaono"])
def test_each_rules_page_is_translated_and_keeps_the_notation_of_the_english(title, language):
    """docs/games/<language>/<title>.md translates the sections of docs/games/<title>.md that the rules page
    shows: every code span and block as the English has them (a change to the notation in the English page
    fails here until the translations follow), the same sections and table rows."""
    folder = rules_pages.pages_folder(title)  # the pages ship in the title's package (docs/games links to them)
    english = rules_pages.player_sections((folder / f"{title}.md").read_text(encoding="utf-8"))
    translated = folder / language / f"{title}.md"
    assert translated.is_file(), f"{translated} is missing"
    spans, blocks, sections, rows = notation_of(english)
    t_spans, t_blocks, t_sections, t_rows = notation_of(rules_pages.player_sections(translated.read_text(encoding="utf-8")))
    assert spans - t_spans == set(), "code spans of the English page missing in the translation"
    assert t_spans - spans == set(), "code spans of the translation that the English page does not have"
    assert (t_blocks, t_sections, t_rows) == (blocks, sections, rows)
    assert english_sentences_in(english, translated.read_text(encoding="utf-8")) == []


def english_sentences_in(english: str, translated: str) -> list[str]:
    """The English page's sentences of six words or more (code spans and blocks left out) found in a translation."""
    def prose(markdown: str) -> str:
        return " ".join(CODE_SPAN.sub(" ", FENCE.sub(" ", markdown)).split())

    text = prose(translated)
    sentences = re.split(r"(?<=[.:;!?])\s+|\s*\|\s*", prose(english))
    def english(sentence: str) -> bool:  # the pages quote the Dutch and German manuals, which stay as they are
        words = re.findall(r"[A-Za-z]{2,}", sentence)
        return len(words) >= 6 and len(ENGLISH_WORDS.intersection(w.lower() for w in words)) >= 2

    return [s for s in sentences if english(s) and s in text]


ENGLISH_WORDS = {"the", "and", "of", "is", "are", "with", "that", "its", "this", "which", "when", "from"}


def test_a_rules_page_speaks_the_readers_language_and_says_when_it_is_english(client, monkeypatch, tmp_path):
    german = client.get("/rules/tongiaki/notation", headers={"Accept-Language": "de"}).get_data(as_text=True)
    heading = (rules_pages.pages_folder("tongiaki") / "de" / "tongiaki.md").read_text(encoding="utf-8").splitlines()[0].lstrip("# ")
    assert '<html lang="de">' in german and html.escape(heading.split("`")[0].strip()) in german
    assert 'id="rules" lang=' not in german and "noch nicht übersetzt" not in german
    assert "<code>expand &lt;island&gt;" in german  # the notation stays as it is typed
    english = client.get("/rules/tongiaki/notation").get_data(as_text=True)
    assert '<html lang="en">' in english and "<h1>Tongiaki" in english and "not translated" not in english
    only_english = tmp_path / "games"  # a page without a translation: English, and the page says so
    only_english.mkdir()
    (only_english / "tongiaki.md").write_text("# Tongiaki\n\nThe rules.\n", encoding="utf-8")
    monkeypatch.setattr(rules_pages, "pages_folder", lambda title: only_english)
    rules_pages.rules_html.cache_clear()
    try:
        french = client.get("/rules/tongiaki/notation", headers={"Accept-Language": "fr"}).get_data(as_text=True)
    finally:
        rules_pages.rules_html.cache_clear()
    assert '<html lang="fr">' in french and "pas encore traduite" in french
    assert '<article class="rules" id="rules" lang="en">' in french and "The rules." in french


def test_the_create_form_speaks_words_and_shows_only_options_that_apply(db, players):
    ana = players[0]
    page = ana.client.get("/games/new/tapaono").get_data(as_text=True)
    assert "Mode change allowed" in page and "mode_change:" not in page and "2 to 2" not in page
    assert "2 players" in page and 'type="hidden" value="2"' in page  # no seat field for a two-player game
    assert 'data-applies-field="opt_mode" data-applies-value="free"' in page.split('id="field-opt_markers"')[1][:80]
    assert "data-applies" not in page.split('id="field-opt_mode_change"')[1][:80]
    assert "Players (2 to 6)" in ana.client.get("/games/new/tongiaki").get_data(as_text=True)
    # The free-mode options are sent only in the free mode; otherwise the title's defaults hold.
    fields = {"players": "2", "timeout_policy": "wait", "opt_mode": "normal", "opt_stars_to_win": "1", "opt_counting_stars": "all",
              "opt_markers": "3", "opt_mode_change": "y"}
    response = post(ana.client, "/games/new/tapaono", fields, page="/games/new/tapaono")
    game_id = int(re.search(r"/games/(\d+)$", response.headers["Location"]).group(1))
    options = games.view(db, game_id)["options"]
    defaults = {o["name"]: o["default"] for o in engine.get("tapaono").describe()["options"]}
    assert options["mode"] == "normal" and options["markers"] == defaults["markers"]
    response = post(ana.client, "/games/new/tapaono", {**fields, "opt_mode": "free"}, page="/games/new/tapaono")
    game_id = int(re.search(r"/games/(\d+)$", response.headers["Location"]).group(1))
    assert (games.view(db, game_id)["options"]["markers"], games.view(db, game_id)["options"]["stars_to_win"]) == (3, 1)


def test_time_zones_are_a_short_list_by_region(players):
    page = players[0].client.get("/settings").get_data(as_text=True)
    select = page.split('name="timezone"', 1)[1].split("</select>", 1)[0]
    regions = re.findall(r'<optgroup label="([^"]+)">', select)
    assert regions[:5] == ["Europe", "Americas", "Africa", "Asia", "Oceania"]
    assert 40 < select.count("<option") < 120 and ">New York</option>" in select and "Etc/GMT" not in select


def test_the_lobby_puts_my_turn_first_and_filters_and_pages_open_tables(db, players):
    ana, ben, cy = players
    game_id, by_seat = running_game(db, players)
    mover = by_seat[0]
    page = mover.client.get("/").get_data(as_text=True)
    assert page.index("Your turn") < page.index(f'id="game-{game_id}"') < page.index("Open tables")
    assert "your turn</span>" in page.split(f'id="game-{game_id}"')[1].split("</li>")[0]
    waiting = by_seat[1].client.get("/").get_data(as_text=True)
    assert "No game waits for you." in waiting and waiting.index("My other games") < waiting.index(
        f'id="game-{game_id}"')
    hosts = [accounts.ensure_user(db, f"host{n}@example.org", f"Host {n}") for n in range(2)]
    for n in range(17):  # a player may have at most 10 open tables (issue 19): two hosts open them
        games.create_game(db, "tongiaki", hosts[n % 2], 3, turn_hours=72)
    discovery = games.create_game(db, "discovery", ben.id, 3, {"double": True})
    first = cy.client.get("/").get_data(as_text=True)
    assert "Page 1 of 2" in first and first.count('class="game-row"') == 15 + 1  # + the game cy watches
    assert "3 days a move" in first and "Double tile" in first
    second = cy.client.get("/?page=2").get_data(as_text=True)
    open_part = second.split("Open tables")[1].split("Games to watch")[0]
    assert "Page 2 of 2" in second and open_part.count('class="game-row"') == 3
    only = cy.client.get("/?title=discovery").get_data(as_text=True)
    assert f'id="game-{discovery}"' in only and 'data-title="tongiaki"' not in only


def test_the_live_poll_answers_304_until_the_position_changes(client, db, players):
    game_id, by_seat = running_game(db, players)
    first = client.get(f"/games/{game_id}/live")
    etag = first.get_json()["etag"]
    assert first.status_code == 200 and first.headers["ETag"] == f'"{etag}"'
    again = client.get(f"/games/{game_id}/live", headers={"If-None-Match": f'"{etag}"'})
    assert again.status_code == 304 and not again.data
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert f'data-etag="{etag}"' in page
    games.submit(db, game_id, "take 1", user_id=by_seat[0].id)
    moved = client.get(f"/games/{game_id}/live", headers={"If-None-Match": f'"{etag}"'})
    assert moved.status_code == 200 and moved.get_json()["etag"] != etag and moved.get_json()["version"] == 1
    assert client.get("/games/999999/live").status_code == 404


def test_a_move_sent_by_the_pages_script_is_answered_in_json(db, players):
    game_id, (first, second) = running_game(db, players)
    page = first.client.get(f"/games/{game_id}").get_data(as_text=True)
    key = re.search(r'name="key" type="hidden" value="([^"]+)"', page).group(1)
    data = {"csrf_token": csrf_of(first.client, f"/games/{game_id}"), "expected_version": "0", "key": key,
            "move": "take 2", "text": ""}
    answer = first.client.post(f"/games/{game_id}/move", data=data, headers={"Accept": "application/json"})
    assert answer.status_code == 200 and answer.get_json()["ok"] and answer.get_json()["notation"] == "take 2"
    refused = second.client.post(f"/games/{game_id}/move", headers={"Accept": "application/json"}, data={
        **data, "csrf_token": csrf_of(second.client, f"/games/{game_id}"), "expected_version": "1", "move": "take 9"})
    assert refused.status_code == 422 and refused.get_json()["ok"] is False and "take 1 to 3" in refused.get_json()[
        "message"]


def test_discovery_shows_a_placed_tile_on_the_board_only_to_the_player_to_move(db, players):
    ana, ben, cy = players
    for _ in range(20):  # a first tile that fits one way only is placed by the engine itself: take another game
        game_id = games.create_game(db, "discovery", ana.id, 2)
        games.join_game(db, game_id, ben.id)
        to_move = games.view(db, game_id)["to_move"]
        if any(m.startswith("place ") for seat in (ana, ben)
               for m in games.view(db, game_id, seat.id)["legal_moves"]) and to_move is not None:
            break
    mover = ana if games.view(db, game_id, ana.id)["my_seat"] == games.view(db, game_id)["to_move"] else ben
    other = ben if mover is ana else ana
    place = next(m for m in games.view(db, game_id, mover.id)["legal_moves"] if m.startswith("place "))
    version = games.view(db, game_id)["version"]
    url = f"/games/{game_id}/preview.png?move={place}"
    picture = mover.client.get(url)
    assert picture.status_code == 200 and picture.data.startswith(b"\x89PNG")
    assert picture.data != mover.client.get(f"/games/{game_id}/board/0.png").data
    assert other.client.get(url).status_code == 403 and cy.client.get(url).status_code == 403
    assert mover.client.get(f"/games/{game_id}/preview.png?move=place 99,99 0").status_code == 422
    assert games.view(db, game_id)["version"] == version  # a preview plays nothing
    tongiaki, by_seat = running_game(db, players)
    assert by_seat[0].client.get(f"/games/{tongiaki}/preview.png?move=take 1").status_code == 404
