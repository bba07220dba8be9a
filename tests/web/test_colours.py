"""Colours through the web: the create form's select, the lobby's join select and table, and the JSON API."""

from __future__ import annotations

import re

import pytest

from pbem import accounts, games
from tests.web.conftest import make_user, post


def colours_of(db, game_id):
    return [(s["name"], s["colour"]) for s in games.view(db, game_id)["seats"]]


def test_create_form_offers_the_titles_colours_and_keeps_the_choice(db, players):
    ana = players[0]
    page = ana.client.get("/games/new/tongiaki").get_data(as_text=True)
    select = page.split('name="colour"', 1)[1].split("</select>", 1)[0]
    assert re.findall(r'value="([a-z]+)"', select) == ["any", "blue", "green", "orange", "purple", "red", "yellow"]
    response = post(ana.client, "/games/new/tongiaki", {"players": "3", "colour": "orange", "timeout_policy": "wait"},
                    page="/games/new/tongiaki")
    assert response.status_code == 302
    game_id = int(re.search(r"/games/(\d+)$", response.headers["Location"]).group(1))
    assert colours_of(db, game_id) == [("Ana", "orange")]
    bad = post(ana.client, "/games/new/tapaono", {"players": "2", "colour": "green", "timeout_policy": "wait",
                                                  "opt_mode": "normal", "opt_stars_to_win": "5",
                                                  "opt_counting_stars": "all", "opt_markers": "100"},
               page="/games/new/tapaono")
    assert bad.status_code == 400 and len(games.list_games(db)) == 1


def test_the_lobby_shows_colours_and_offers_only_free_ones(db, players):
    ana, ben, cy = players
    game_id = games.create_game(db, "discovery", ana.id, 3, colour="red")
    page = ben.client.get("/").get_data(as_text=True)
    row = page.split("Open tables", 1)[1].split(f'id="game-{game_id}"', 1)[1].split("</li>", 1)[0]
    assert "Ana (red)" in re.sub(r"<[^>]+>", "", row)  # the name links to Ana's page (issue 35)
    offered = re.findall(r'<option value="([a-z]+)"', row.split(f'id="colour-{game_id}"', 1)[1].split("</select>")[0])
    assert offered == ["any", "blue", "green", "yellow", "purple"]
    response = post(ben.client, f"/games/{game_id}/join", {"colour": "purple"}, follow_redirects=True)
    assert b"You have a seat, in purple." in response.data
    refused = post(cy.client, f"/games/{game_id}/join", {"colour": "red"}, follow_redirects=True)
    assert f"Red is taken at game {game_id}; the free colours are blue, green, yellow.".encode() in refused.data
    assert colours_of(db, game_id) == [("Ana", "red"), ("Ben", "purple")]
    post(cy.client, f"/games/{game_id}/join", {"colour": "any"})  # full: started
    colours = dict(colours_of(db, game_id))
    assert colours["Ana"] == "red" and colours["Ben"] == "purple" and colours["Cy"] == "blue"
    assert "Cy (blue)" in re.sub(r"<[^>]+>", "", ana.client.get("/").get_data(as_text=True).split("Open tables")[0])


@pytest.fixture
def tokens(db):
    out = []
    for name in ("ana", "ben", "cy"):
        user_id = make_user(db, f"{name}@example.org", name.title())
        out.append({"Authorization": f"Bearer {accounts.create_api_token(db, user_id, 'bot')}"})
    return out


def test_the_api_takes_a_colour_at_create_and_join(client, db, tokens):
    ana, ben, cy = tokens
    tongiaki = next(t for t in client.get("/api/v1/titles").json if t["name"] == "tongiaki")
    assert tongiaki["colours"] == ["blue", "green", "orange", "purple", "red", "yellow"]
    created = client.post("/api/v1/games", json={"title": "tongiaki", "players": 3, "colour": "green"}, headers=ana)
    assert created.status_code == 201
    game_id = created.json["id"]
    view = client.get(f"/api/v1/games/{game_id}").json
    assert view["seats"][0]["colour"] == "green"
    assert view["free_colours"] == ["blue", "orange", "purple", "red", "yellow"]
    joined = client.post(f"/api/v1/games/{game_id}/join", json={"colour": "yellow"}, headers=ben)
    assert joined.status_code == 200 and joined.json == {"seat": 1, "colour": "yellow", "started": False}
    taken = client.post(f"/api/v1/games/{game_id}/join", json={"colour": "Yellow"}, headers=cy)
    assert taken.status_code == 400
    assert taken.json["message"] == (f"Yellow is taken at game {game_id}; the free colours are "
                                     "blue, orange, purple, red.")
    assert client.post(f"/api/v1/games/{game_id}/join", json={"colour": 3}, headers=cy).status_code == 422
    started = client.post(f"/api/v1/games/{game_id}/join", headers=cy)  # no body: any colour
    assert started.status_code == 200 and started.json["started"] is True and started.json["colour"] == "blue"
    view = client.get(f"/api/v1/games/{game_id}").json
    assert sorted(s["colour"] for s in view["seats"]) == ["blue", "green", "yellow"]
    assert view["board"]["colours"] == [s["colour"] for s in view["seats"]] and view["free_colours"] == []


def test_the_openapi_document_names_the_colour_fields(client):
    doc = client.get("/api/v1/openapi.json").json
    schemas = doc["components"]["schemas"]
    assert "colour" in schemas["CreateGame"]["properties"] and "colour" in schemas["JoinGame"]["properties"]
    assert "free_colours" in schemas["GameView"]["properties"] and "colours" in schemas["Title"]["properties"]
    join = doc["paths"]["/api/v1/games/{game_id}/join"]["post"]
    assert join["requestBody"]["required"] is False
