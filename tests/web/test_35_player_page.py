"""Issue 35 items 2 (a player page) and 6 (who is waiting on whom) through the web and the API: the page at
`/players/<id>/<name>`, names linked to it from the lobby, the game page and the replay, the hide setting on
the settings page, the lobby's "to move: NAME since DATE", `GET /api/v1/players/<id>`; and the page in a
real browser on a desk and a phone (the screenshots of docs/web.md, with PBEM_SCREENSHOTS=docs/images).
"""

from __future__ import annotations

import random
import re
from datetime import datetime, timedelta

import pytest
from sqlalchemy import select, update

from pbem import accounts, games
from pbem.games import archive
from pbem.models import Game, MoveRecord, User, utcnow
from tests.web.conftest import make_user, post, running_game
from tests.web.test_browser import (  # noqa: F401 - fixtures
    DESKTOP, PHONE, browser, check_accessibility, log_in, new_page, real_titles, save_screenshot, server,
)

LINK = '<a class="player-link" href="/players/{id}/{slug}">{name}</a>'
NO_PAGE = "There is no such page."


def link(player, name: str) -> str:
    return LINK.format(id=player.id, slug=name.lower(), name=name)


def finished_counters(db, players) -> int:
    """A counters game of the first two players, played to its end."""
    game_id, _ = running_game(db, players)
    while (data := games.view(db, game_id))["status"] == "running":
        games.submit(db, game_id, "take 3", seat=data["to_move"])
    return game_id


def set_hidden(client, hidden: bool):
    return post(client, "/settings/page", {"page_hidden": "y"} if hidden else {}, page="/settings")


def token_of(db, player) -> str:
    return accounts.create_api_token(db, player.id, "test")


def test_35_2_names_link_to_their_pages_in_the_lobby_the_game_page_and_the_replay(db, players):
    ana, ben, _ = players
    game_id, _ = running_game(db, players)
    games.submit(db, game_id, "take 1", seat=games.view(db, game_id)["to_move"])
    lobby = ana.client.get("/").get_data(as_text=True)
    page = ana.client.get(f"/games/{game_id}").get_data(as_text=True)
    replay = ana.client.get(f"/games/{game_id}/replay").get_data(as_text=True)
    for where in (lobby, page, replay):
        assert link(ana, "Ana") in where and link(ben, "Ben") in where
    assert ana.client.get(f"/players/{ben.id}/ben").status_code == 200


def test_35_2_an_imported_games_names_stay_plain_text(db, players):
    ana, ben, _ = players
    imported = archive.import_archive(db, archive.export_bytes(db, finished_counters(db, players)))
    for path in (f"/games/{imported}", f"/games/{imported}/replay"):
        text = ana.client.get(path).get_data(as_text=True)
        assert "Ana" in text and "Ben" in text and "player-link" not in text


def test_35_2_the_page_shows_games_in_play_and_finished_with_results_ratings_reliability_and_member_since(
        db, players):
    ana, ben, cy = players
    done = finished_counters(db, players)
    play, _ = running_game(db, [ana, cy])
    text = cy.client.get(f"/players/{ana.id}/ana").get_data(as_text=True)
    assert '<h1 id="player-name">Ana</h1>' in text and "Member since" in text and "English" in text
    finished = text[text.index('id="finished"'):]
    assert f'href="/games/{done}"' in finished and re.search(r"place \d of 2, \d+ points", finished)
    assert link(ben, "Ben") in finished
    playing = text[text.index('id="playing-title"'):text.index('id="finished-title"')]
    waiting = text[text.index('id="waiting-title"'):text.index('id="playing-title"')]
    assert f'href="/games/{play}"' in playing + waiting
    assert 'id="reliability"' in text and "Games played to the end" in text and 'id="ratings"' in text
    assert "ana@example.org" not in text  # the address is never shown


def test_35_2_the_id_alone_or_an_old_name_redirects_to_the_address_with_the_name_of_now(db, players):
    ana = players[0]
    assert ana.client.get(f"/players/{ana.id}").headers["Location"] == f"/players/{ana.id}/ana"
    accounts.update_settings(db, ana.id, display_name="Anna Berg", notify="turn", timezone="UTC", from_check=True)
    moved = ana.client.get(f"/players/{ana.id}/ana")
    assert moved.status_code == 302 and moved.headers["Location"] == f"/players/{ana.id}/anna-berg"
    assert "Anna Berg" in ana.client.get(moved.headers["Location"]).get_data(as_text=True)
    assert ana.client.get("/players/999999/ana").status_code == 404


def test_35_2_a_hidden_page_is_a_404_to_strangers_and_shown_to_its_player_and_those_who_played_with_them(
        app, db, players):
    ana, ben, cy = players
    running_game(db, [ana, ben])
    assert 'id="page_hidden"' in ana.client.get("/settings").get_data(as_text=True)
    assert set_hidden(ana.client, True).status_code == 303
    assert "checked" in re.search(r'<input type="checkbox" id="page_hidden"[^>]*>',
                                  ana.client.get("/settings").get_data(as_text=True)).group(0)
    nobody = cy.client.get("/players/999999/x")
    stranger = cy.client.get(f"/players/{ana.id}/ana")
    visitor = app.test_client().get(f"/players/{ana.id}")
    assert stranger.status_code == visitor.status_code == nobody.status_code == 404
    assert NO_PAGE in stranger.get_data(as_text=True) and "Ana" not in stranger.get_data(as_text=True)
    assert stranger.get_data() == nobody.get_data()  # existence is not told
    assert "shown only to players who played with Ana" in ben.client.get(f"/players/{ana.id}/ana").get_data(
        as_text=True)
    assert ana.client.get(f"/players/{ana.id}/ana").status_code == 200
    assert set_hidden(ana.client, False).status_code == 303
    assert cy.client.get(f"/players/{ana.id}/ana").status_code == 200


def test_35_2_the_hide_setting_without_its_csrf_token_changes_nothing(db, players):
    ana, _, cy = players
    refused = ana.client.post("/settings/page", data={"page_hidden": "y"})
    assert refused.status_code == 400
    assert cy.client.get(f"/players/{ana.id}/ana").status_code == 200


def test_35_6_the_lobby_says_who_is_to_move_and_since_when_in_the_readers_zone(db, players):
    ana, ben, cy = players
    game_id, _ = running_game(db, [ana, ben])
    mover = next(p for p in (ana, ben) if games.view(db, game_id, p.id)["my_seat"] == games.view(db, game_id)[
        "to_move"])
    with db.transaction() as s:
        s.execute(update(Game).where(Game.id == game_id).values(turn_started_at=datetime(2026, 3, 4, 12, 0)))
    accounts.update_settings(db, cy.id, display_name="Cy", notify="turn", timezone="Europe/Berlin",
                             from_check=True)
    row = cy.client.get("/").get_data(as_text=True)  # cy watches: the game is in "Games to watch"
    row = row[row.index(f'id="game-{game_id}"'):]
    name = "Ana" if mover is ana else "Ben"
    said = re.escape(f"to move: {link(mover, name)} since ") + r'<time datetime="2026-03-04T12:00:00Z">Wed, Mar 4, 1:00\sPM</time>'
    assert re.search(said, row)  # 12:00 UTC is 13:00 in Berlin


def test_35_6_the_player_page_lists_the_games_waiting_for_them(db, players):
    ana, ben, _ = players
    game_id, _ = running_game(db, [ana, ben])
    to_move = games.view(db, game_id)["to_move"]
    mover, other = (ana, ben) if games.view(db, game_id, ana.id)["my_seat"] == to_move else (ben, ana)
    names = {ana.id: "ana", ben.id: "ben"}
    mine = other.client.get(f"/players/{mover.id}/{names[mover.id]}").get_data(as_text=True)
    waiting = mine[mine.index('id="waiting-title"'):mine.index('id="playing-title"')]
    assert f'href="/games/{game_id}"' in waiting and "their turn since <time" in waiting
    theirs = mover.client.get(f"/players/{other.id}/{names[other.id]}").get_data(as_text=True)
    assert "Nobody is waiting for" in theirs
    games.submit(db, game_id, "take 1", user_id=mover.id)
    assert "Nobody is waiting for" in other.client.get(f"/players/{mover.id}/{names[mover.id]}").get_data(
        as_text=True)


def test_35_2_the_api_gives_the_same_facts_under_the_same_rule(app, db, players):
    ana, ben, cy = players
    done = finished_counters(db, players)
    client = app.test_client()
    body = client.get(f"/api/v1/players/{ana.id}").get_json()
    assert (body["name"], body["url"], body["languages"], body["hidden"]) == ("Ana", f"/players/{ana.id}/ana",
                                                                             ["en"], False)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", body["member_since"])
    [line] = body["finished"]
    assert line["id"] == done and line["place"] in (1, 2) and [x["user_id"] for x in line["players"]] in (
        [ana.id, ben.id], [ben.id, ana.id])
    assert body["finished_count"] == 1 and set(body["reliability"]) >= {"games_finished", "finished_share", "percent"}
    assert "ana@example.org" not in str(body)
    assert set_hidden(ana.client, True).status_code == 303
    assert client.get(f"/api/v1/players/{ana.id}").status_code == 404
    stranger = client.get(f"/api/v1/players/{ana.id}", headers={"Authorization": f"Bearer {token_of(db, cy)}"})
    nobody = client.get("/api/v1/players/999999", headers={"Authorization": f"Bearer {token_of(db, cy)}"})
    assert stranger.status_code == nobody.status_code == 404
    assert stranger.get_json()["message"].replace(str(ana.id), "N") == nobody.get_json()["message"].replace(
        "999999", "N")
    seen = client.get(f"/api/v1/players/{ana.id}", headers={"Authorization": f"Bearer {token_of(db, ben)}"})
    assert seen.status_code == 200 and seen.get_json()["hidden"] is True
    assert "/api/v1/players/{user_id}" in client.get("/api/v1/openapi.json").get_json()["paths"]


def test_35_6_the_api_lists_the_games_waiting_for_a_player_since_when(app, db, players):
    ana, ben, _ = players
    game_id, _ = running_game(db, [ana, ben])
    with db.transaction() as s:
        s.execute(update(Game).where(Game.id == game_id).values(turn_started_at=datetime(2026, 3, 4, 12, 0)))
    to_move = games.view(db, game_id)["to_move"]
    mover = ana if games.view(db, game_id, ana.id)["my_seat"] == to_move else ben
    [line] = app.test_client().get(f"/api/v1/players/{mover.id}").get_json()["waiting"]
    assert (line["id"], line["since"], line["to_move"]["user_id"]) == (game_id, "2026-03-04T12:00:00Z", mover.id)


# --- the page in a real browser: the screenshots of docs/web.md ---------------------------------------


def play_randomly(db, game_id: int, ids: list[int], moves: int | None, seed: int) -> None:
    """Random legal moves through the game service: `moves` of them, or to the end (None)."""
    chooser = random.Random(seed)
    while (data := games.view(db, game_id))["status"] == "running" and (moves is None or moves > 0):
        mover = next(u for u in ids if games.view(db, game_id, u)["my_seat"] == data["to_move"])
        games.submit(db, game_id, chooser.choice(games.view(db, game_id, mover)["legal_moves"]), user_id=mover)
        moves = None if moves is None else moves - 1


def a_record(db, ana: int, ben: int, cy: int) -> None:
    """Ana's games: three finished rated Tapaono games, a Tongiaki game waiting for her, a Discovery game
    waiting for Ben."""
    short = {"mode": "free", "markers": 3, "stars_to_win": 1}
    for n, (first, second) in enumerate(((ana, ben), (cy, ana), (ana, cy))):
        game_id = games.create_game(db, "tapaono", first, 2, short, rated=True)
        games.join_game(db, game_id, second)
        play_randomly(db, game_id, [first, second], None, seed=n)
    for title, seats, wanted in (("tongiaki", [ana, ben, cy], ana), ("discovery", [ben, ana], ben)):
        game_id = games.create_game(db, title, seats[0], len(seats), {})
        for user_id in seats[1:]:
            games.join_game(db, game_id, user_id)
        play_randomly(db, game_id, seats, 6, seed=1)
        while games.view(db, game_id, wanted)["my_seat"] != games.view(db, game_id)["to_move"]:
            play_randomly(db, game_id, seats, 1, seed=2)


def spread_in_time(db, user_ids: list[int]) -> None:
    """The games as a site in use has them: accounts from months ago, moves hours apart (a turn's own decisions
    minutes apart), the finished games over the last weeks, the running ones' turns begun hours ago."""
    now, chooser = utcnow(), random.Random(35)
    with db.transaction() as s:
        for n, user_id in enumerate(user_ids):
            s.get(User, user_id).created_at = now - timedelta(days=230 + 40 * n)
        for n, game in enumerate(s.scalars(select(Game).order_by(Game.id.desc())).all()):
            at = now - (timedelta(hours=chooser.uniform(3, 30)) if game.status == "running" else timedelta(days=4 * n))
            game.finished_at = at if game.status == "finished" else None
            game.turn_started_at = at if game.status == "running" else game.turn_started_at
            later = None
            for move in s.scalars(select(MoveRecord).where(MoveRecord.game_id == game.id)
                                  .order_by(MoveRecord.seq.desc())).all():
                at -= timedelta(minutes=chooser.uniform(1, 10)) if later == move.seat else timedelta(
                    hours=chooser.uniform(1, 20))
                move.created_at, later = at, move.seat
            game.created_at = game.started_at = at - timedelta(hours=1)


@pytest.mark.full  # a browser test: in make test-full, which CI runs too (issue 32 item 5)
def test_35_2_a_player_page_on_a_desk_and_a_phone(db, server, browser, real_titles, tmp_path):
    ana = make_user(db, "ana@example.org", "Ana")
    ben = make_user(db, "ben@example.org", "Ben")
    cy = make_user(db, "cy@example.org", "Cy")
    a_record(db, ana, ben, cy)
    spread_in_time(db, [ana, ben, cy])
    for viewport, name in ((DESKTOP, "web-player-desktop.png"), (PHONE, "web-player-phone.png")):
        page = new_page(browser, viewport)
        log_in(page, server, "ben@example.org")
        page.goto(f"{server}/players/{ana}")
        assert page.url.endswith(f"/players/{ana}/ana")
        page.wait_for_selector("#player-name")
        assert page.locator("#waiting li").count() == 1 and page.locator("#finished li").count() == 3
        assert page.locator("#ratings tbody tr").count() == 1
        check_accessibility(page, f"player page {viewport}")
        small = page.evaluate("""() => Array.from(document.querySelectorAll('main a, main button'))
            .map(e => [e.outerHTML.slice(0, 60), e.getBoundingClientRect()])
            .filter(([_, r]) => r.width < 24 || r.height < 24).map(([what]) => what)""")
        assert small == []  # every target of the page at least 24x24 CSS px
        save_screenshot(page, tmp_path, name, full_page=True)
        assert not page.script_errors
        page.context.close()
