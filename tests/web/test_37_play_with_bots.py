"""Play with bots on the web (issue 37 item 2): from the lobby a newcomer starts a game against bots in two
clicks, the game page shows the bots' seats, bad input changes nothing, and the JSON API opens such a game."""

from __future__ import annotations

import re

from sqlalchemy import func, select

from pbem import accounts
from pbem.models import Game, Seat
from tests.web.conftest import CSRF_RE

HREF = re.compile(r'<a href="([^"]+)"[^>]*id="bots-tongiaki"')


def form_fields(page: str) -> dict:
    """What a browser sends for the bots form as it is filled in: its inputs' values and the selected option."""
    form = page[page.index('id="bots-form"'):page.index("</form>", page.index('id="bots-form"'))]
    fields = dict(re.findall(r'<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"', form))
    for name, options in re.findall(r'<select[^>]*name="([^"]+)"[^>]*>(.*?)</select>', form, re.S):
        fields[name] = re.search(r'<option selected value="([^"]*)"|<option value="([^"]*)" selected', options).group(1)
    fields.pop("submit", None)
    return fields


def games_of(db, user_id):
    with db.sessions() as s:
        return list(s.scalars(select(Game).join(Seat, Seat.game_id == Game.id).where(Seat.user_id == user_id)))


def test_37_2_two_clicks_from_the_lobby_start_a_game_against_bots(db, players):
    ana = players[0]
    lobby = ana.client.get("/").get_data(as_text=True)
    href = HREF.search(lobby).group(1)  # click 1: "Tongiaki against bots"
    page = ana.client.get(href)
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    fields = form_fields(text)
    assert fields["players"] == "2" and fields["bot_level"] == "easy"  # filled in (the fewest seats): nothing to type
    started = ana.client.post(href, data=fields)  # click 2: "Start the game"
    assert started.status_code == 302
    [game] = games_of(db, ana.id)
    assert game.status == "running" and game.players == 2 and not game.rated
    with db.sessions() as s:
        names = sorted(s.scalars(select(Seat.display_name).where(Seat.game_id == game.id, Seat.bot_level.is_not(None))))
    assert names == ["Bot 1 (easy)"]
    shown = ana.client.get(started.headers["Location"]).get_data(as_text=True)
    assert "Bot 1 (easy)" in shown


def test_37_2_the_home_page_offers_bots_and_asks_a_visitor_to_log_in_first(client):
    home = client.get("/").get_data(as_text=True)
    href = HREF.search(home).group(1)
    assert client.get(href).status_code == 302  # logged out: to the login page, then back here


def test_37_2_a_bad_level_or_player_count_is_refused_and_starts_nothing(db, players):
    ana = players[0]
    page = ana.client.get("/games/bots/tongiaki").get_data(as_text=True)
    token = CSRF_RE.search(page).group(1)
    for data in ({"players": "3", "bot_level": "grandmaster"}, {"players": "9", "bot_level": "easy"}):
        answer = ana.client.post("/games/bots/tongiaki", data={**data, "csrf_token": token})
        assert answer.status_code == 400
    assert games_of(db, ana.id) == []
    assert ana.client.get("/games/bots/nosuchgame").status_code == 404


def test_37_2_the_api_opens_a_game_against_bots(app, db, players):
    ana = players[0]
    token = accounts.create_api_token(db, ana.id, "bots")
    headers = {"Authorization": f"Bearer {token}"}
    client = app.test_client()
    answer = client.post("/api/v1/games", json={"title": "tongiaki", "players": 3, "options": {},
                                                "bots": 2, "bot_level": "easy"}, headers=headers)
    assert answer.status_code == 201, answer.get_json()
    game_id = answer.get_json()["id"]
    with db.sessions() as s:
        assert s.get(Game, game_id).status == "running"
        assert s.scalar(select(func.count()).select_from(Seat).where(Seat.game_id == game_id,
                                                                     Seat.bot_level == "easy")) == 2
    refused = client.post("/api/v1/games", json={"title": "tongiaki", "players": 3, "options": {}, "bots": 2,
                                                 "bot_level": "easy", "rated": True}, headers=headers)
    assert refused.status_code == 400 and "not rated" in refused.get_json()["message"], refused.get_json()
    with db.sessions() as s:
        assert s.scalar(select(func.count()).select_from(Game)) == 1  # the refused one was not opened


# --- item 3: abandoned seats on the web and through the API -----------------------------------------


def test_37_3_a_seat_left_on_the_web_is_listed_in_the_lobby_and_taken_with_one_button(app, db, players):
    from tests.web.conftest import post

    ana, ben, cy = players
    token = accounts.create_api_token(db, ana.id, "bots")
    answer = app.test_client().post("/api/v1/games", json={
        "title": "tongiaki", "players": 2, "options": {}, "replace_after": 2, "bot_level": "easy"},
        headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == 201, answer.get_json()
    game_id = answer.get_json()["id"]
    assert post(ben.client, f"/games/{game_id}/join").status_code == 303
    assert post(ben.client, f"/games/{game_id}/leave").status_code == 303  # running: the seat goes to a bot
    with db.sessions() as s:
        seat = s.scalars(select(Seat).where(Seat.game_id == game_id, Seat.display_name == "Bot 1 (easy)")).one()
        number = seat.number
    assert seat.user_id is None and seat.open_since is not None
    lobby = cy.client.get("/").get_data(as_text=True)
    assert 'id="offered-seats"' in lobby and f'id="take-{game_id}-{number}"' in lobby
    assert f'id="take-{game_id}-{number}"' not in ana.client.get("/").get_data(as_text=True)  # she sits there
    assert post(cy.client, f"/games/{game_id}/seats/{number}/take").status_code == 303
    with db.sessions() as s:
        seat = s.get(Seat, seat.id)
        assert (seat.user_id, seat.bot_level, seat.open_since) == (cy.id, None, None)
    assert f'id="take-{game_id}-{number}"' not in cy.client.get("/").get_data(as_text=True)
    refused = app.test_client().post(f"/api/v1/games/{game_id}/seats/{number}/take",
                                     headers={"Authorization": f"Bearer {token}"})
    assert refused.status_code in (400, 409) and "not offered" in refused.get_json()["message"]
