"""Issue 36 items 3, 7 and 8 through the app (no browser): the decision in words, one language and one
counter, the end of a game and a lobby that follows the games. The browser tests are in
test_36_3_7_8_browser.py and test_36_3_7_8_axe.py."""

from __future__ import annotations

import html
import random
import re
from pathlib import Path

import pytest
from sqlalchemy import select

import pbem.web
import renderers
from pbem import boards, games, i18n
from pbem.models import User
from tests.web.conftest import csrf_of

ENGLISH_COLOURS = re.compile(r"\b(blue|green|orange|purple|red|yellow|black|grey)\b")


def tongiaki(db, players, moves: int = 6, seed: int = 3) -> int:
    """A two-player Tongiaki of the first two players, `moves` random moves in (through the service)."""
    ana, ben, _ = players
    game_id = games.create_game(db, "tongiaki", ana.id, 2)
    games.join_game(db, game_id, ben.id)
    chooser = random.Random(seed)
    for _ in range(moves):
        mover = mover_of(db, game_id, players)
        games.submit(db, game_id, chooser.choice(games.view(db, game_id, mover.id)["legal_moves"]), user_id=mover.id)
    return game_id


def mover_of(db, game_id, players):
    to_move = games.view(db, game_id)["to_move"]
    return next(p for p in players if games.view(db, game_id, p.id)["my_seat"] == to_move)


def speak(db, user_id, language):
    with db.transaction() as s:
        s.get(User, user_id).language = language


def part(text: str, element_id: str) -> str:
    """The text of the element with this id (tags dropped, entities read)."""
    found = re.search(rf'<(\w+)[^>]*id="{element_id}"[^>]*>(.*?)</\1>', text, re.S)
    assert found, f"no #{element_id} on the page"
    return html.unescape(re.sub(r"<[^>]+>", " ", found.group(2))).strip()


def turn_box(text: str) -> str:
    found = re.search(r'<div class="turn" id="status"[^>]*>(.*?)</div>', text, re.S)
    assert found
    return html.unescape(re.sub(r"<[^>]+>", " ", found.group(1)))


def test_36_3_the_decision_whose_turn_and_deadline_are_words_of_the_page(db, players):
    ana = players[0]
    game_id = tongiaki(db, players)
    text = ana.client.get(f"/games/{game_id}").get_data(as_text=True)
    data = games.view(db, game_id)
    mover = data["seats"][data["to_move"]]["name"]
    decision = part(text, "decision")
    assert decision.startswith(f"{mover} (") and "to move:" in decision, decision
    box = turn_box(text)
    assert mover in box and ("Deadline" in box or "No deadline." in box)
    # the stylesheet no longer hides it on a phone: the last word on .decision under 40rem shows it
    css = (Path(pbem.web.__file__).parent / "static" / "pbem.css").read_text()
    phone_rules = re.findall(r"@media \(max-width: 40rem\)\s*\{[^@]*?\.turn \.decision \{ display: (\w+)", css)
    assert phone_rules and phone_rules[-1] == "block", phone_rules


def test_36_7_a_german_page_says_colours_in_german_and_one_counter_with_the_picture(db, players):
    ana, ben, _ = players
    speak(db, ana.id, "de")
    game_id = tongiaki(db, players)
    text = ana.client.get(f"/games/{game_id}").get_data(as_text=True)
    seats = part(text, "seats")
    assert not ENGLISH_COLOURS.search(seats), seats
    assert not ENGLISH_COLOURS.search(turn_box(text)), turn_box(text)
    words = {i18n.texts("de").gettext(c) for c in ("blue", "green", "orange", "purple", "red", "yellow", "black")}
    assert any(w in seats for w in words), seats
    # one counter: the page's words are the picture's caption ("Tongiaki - Zug 7, Runde 4") after its title
    data = games.view(db, game_id, ana.id, language="de")
    view = {**data["board"], "player_names": [s["name"] for s in data["seats"]], "move_number": data["version"] + 1}
    caption = renderers.legend("tongiaki", view, texts=i18n.texts("de"))["title"]
    counter = part(text, "counter")
    assert counter.rstrip(".") == caption.split(" - ", 1)[1][:1].upper() + caption.split(" - ", 1)[1][1:], \
        (counter, caption)
    assert f"Zug {data['version'] + 1}" in counter


def test_36_7_a_move_played_on_the_page_is_told_in_words_not_notation(db, players):
    """The flash after a move is the mail's sentence of the move ("You occupied ..."), not "You played <notation>"."""
    game_id = tongiaki(db, players, moves=0)
    mover = mover_of(db, game_id, players)
    move = games.view(db, game_id, mover.id)["legal_moves"][0]
    text = mover.client.get(f"/games/{game_id}").get_data(as_text=True)
    key = re.search(r'id="key" name="key" type="hidden" value="([^"]+)"', text).group(1)
    answer = mover.client.post(f"/games/{game_id}/move", headers={"Accept": "application/json"},
                               data={"csrf_token": csrf_of(mover.client, f"/games/{game_id}"), "expected_version": "0",
                                     "key": key, "move": move, "text": ""})
    assert answer.status_code == 200, answer.get_data(as_text=True)
    message = answer.get_json()["message"]
    assert message.startswith("You ") and "You played" not in message and message.endswith("."), message
    assert not re.match(r"\d+\.", message)


def finish_by_resignation(db, players) -> int:
    ana, ben, _ = players
    game_id = tongiaki(db, players, moves=8)
    games.resign(db, game_id, ana.id)
    return game_id


def test_36_8_a_resigned_game_opens_with_who_won_and_why(db, players):
    ana, ben, cy = players
    game_id = finish_by_resignation(db, players)
    text = cy.client.get(f"/games/{game_id}").get_data(as_text=True)
    assert part(text, "outcome") == "Ben wins."
    assert "Resigned: Ana." in turn_box(text)
    assert text.index('id="outcome"') < text.index('class="table-layout"')  # it opens the page


def test_36_8_the_final_picture_of_a_resigned_game_says_it_is_over(db, players):
    game_id = finish_by_resignation(db, players)
    data = games.view(db, game_id)
    view = {**data["board"], "player_names": [s["name"] for s in data["seats"]], "move_number": data["version"] + 1}
    assert data["board"]["pending"] is not None  # the engine's position still waits for a move: the service ended it
    legend = renderers.legend("tongiaki", {**view, "game_over": True})
    assert legend["lines"][0] == "The game is over." and "(game over)" in legend["title"]
    assert not any(row["to_move"] for row in legend["players"])
    stored = boards.picture(db, game_id, data["version"])
    assert stored.data == renderers.render("tongiaki", {**view, "game_over": True})
    assert stored.data != renderers.render("tongiaki", view)  # what it drew before: "Ben (..) to move"


def test_36_8_the_lobby_stamp_changes_when_a_turn_passes_and_is_304_otherwise(db, players):
    ana, ben, _ = players
    game_id = tongiaki(db, players, moves=2)
    first = ana.client.get("/lobby/live")
    etag = first.get_json()["etag"]
    assert first.status_code == 200 and first.headers["ETag"] == f'"{etag}"'
    assert f'data-etag="{etag}"' in ana.client.get("/").get_data(as_text=True)
    assert ana.client.get("/lobby/live", headers={"If-None-Match": f'"{etag}"'}).status_code == 304
    mover = mover_of(db, game_id, players)
    games.submit(db, game_id, games.view(db, game_id, mover.id)["legal_moves"][0], user_id=mover.id)
    again = ana.client.get("/lobby/live", headers={"If-None-Match": f'"{etag}"'})
    assert again.status_code == 200 and again.get_json()["etag"] != etag


def test_36_8_the_lobby_stamp_is_for_logged_in_players_only(client):
    assert client.get("/lobby/live").status_code in (302, 401)


def test_36_8_an_open_table_has_no_empty_board_or_fair_play_box(db, players):
    ana, ben, _ = players
    game_id = games.create_game(db, "tongiaki", ana.id, 3)
    text = ben.client.get(f"/games/{game_id}").get_data(as_text=True)
    assert 'class="board-panel"' not in text
    assert 'id="fair-title"' not in text
    assert 'id="seats"' in text  # the players are there
    games.join_game(db, game_id, ben.id)
    games.start_game(db, game_id, ana.id)
    text = ben.client.get(f"/games/{game_id}").get_data(as_text=True)
    assert 'class="board-panel"' in text and 'id="commitment"' in text  # once it runs: the board and the commitment


@pytest.mark.parametrize("language", ["de", "nl", "fr"])
def test_36_7_the_lobby_names_colours_in_the_readers_language(db, players, language):
    ana, ben, _ = players
    speak(db, ana.id, language)
    game_id = games.create_game(db, "tongiaki", ben.id, 3, colour="blue")
    text = ana.client.get("/").get_data(as_text=True)
    row = re.search(rf'<li class="game-row[^"]*"[^>]*id="game-{game_id}">(.*?)</li>', text, re.S).group(1)
    seats = html.unescape(re.search(r'<div class="seats">(.*?)</div>', row, re.S).group(1))
    assert f"({i18n.texts(language).gettext('blue')})" in seats and "(blue)" not in seats, seats
    join = re.search(rf'<select name="colour" id="colour-{game_id}">(.*?)</select>', row, re.S).group(1)
    offered = dict(re.findall(r'<option value="(\w+)">([^<]+)</option>', join))
    assert offered["green"] == i18n.texts(language).gettext("green") != "green"  # the value stays typeable
