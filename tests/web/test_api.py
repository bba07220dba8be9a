"""The JSON API: bearer tokens, a whole game through it, every refusal, and the OpenAPI document."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import func, select

from pbem import accounts, games
from pbem.games import archive
from pbem.models import Game, MoveRecord
from tests.web.conftest import make_user, seated


@pytest.fixture
def bots(db):
    """Two users with API tokens: (user id, headers)."""
    out = []
    for name in ("ana", "ben", "cy"):
        user_id = make_user(db, f"{name}@example.org", name.title())
        out.append((user_id, {"Authorization": f"Bearer {accounts.create_api_token(db, user_id, 'bot')}"}))
    return out


def test_a_whole_game_through_the_api(client, db, bots):
    (ana, ana_h), (ben, ben_h), _ = bots
    titles = client.get("/api/v1/titles").json
    assert "counters" in [t["name"] for t in titles]
    response = client.post("/api/v1/games", json={"title": "counters", "players": 2, "options": {"pile": 5},
                                                  "turn_hours": 24, "timeout_policy": "skip"}, headers=ana_h)
    assert response.status_code == 201
    game_id = response.json["id"]
    assert client.get("/api/v1/games?status=open").json[0]["id"] == game_id
    joined = client.post(f"/api/v1/games/{game_id}/join", headers=ben_h)
    assert joined.status_code == 200 and joined.json["started"] is True
    headers = {ana: ana_h, ben: ben_h}
    by_seat = seated(db, game_id)
    for n in range(10):
        view = client.get(f"/api/v1/games/{game_id}", headers=headers[by_seat[0]]).json
        if view["status"] == "finished":
            break
        mover = by_seat[view["to_move"]]
        legal = client.get(f"/api/v1/games/{game_id}/legal-moves", headers=headers[mover]).json
        assert legal["moves"] == games.view(db, game_id, mover)["legal_moves"] and legal["version"] == view["version"]
        other = by_seat[1 - view["to_move"]]
        assert client.get(f"/api/v1/games/{game_id}/legal-moves", headers=headers[other]).json["moves"] == []
        move = "take 2" if "take 2" in legal["moves"] else legal["moves"][0]
        body = {"move": move, "expected_version": view["version"], "key": f"turn-{n}"}
        first = client.post(f"/api/v1/games/{game_id}/moves", json=body, headers=headers[mover])
        assert first.status_code == 201 and first.json["duplicate"] is False
        retry = client.post(f"/api/v1/games/{game_id}/moves", json=body, headers=headers[mover])
        assert retry.status_code == 201 and retry.json["duplicate"] is True and retry.json["seq"] == first.json["seq"]
    view = client.get(f"/api/v1/games/{game_id}").json
    assert view["status"] == "finished" and view["seed"] is not None
    history = client.get(f"/api/v1/games/{game_id}/moves").json
    assert [h["source"] for h in history] == ["api"] * len(history) and len(history) == view["version"]
    step = client.get(f"/api/v1/games/{game_id}/replay/1").json
    assert step["move"]["notation"] == history[0]["notation"] and step["of"] == len(history)
    response = client.get(f"/api/v1/games/{game_id}/archive")
    assert response.status_code == 200 and response.data == archive.export_bytes(db, game_id)


def test_the_view_for_a_seat_comes_only_with_its_own_token(client, db, bots):
    (ana, ana_h), (ben, ben_h), (cy, cy_h) = bots
    game_id = games.create_game(db, "counters", ana, 3)
    games.join_game(db, game_id, ben)
    games.start_game(db, game_id, ana, seed=11)
    by_seat = seated(db, game_id)
    headers = {ana: ana_h, ben: ben_h}
    games.submit(db, game_id, "draw", user_id=by_seat[0])
    for user in (ana, ben):
        got = client.get(f"/api/v1/games/{game_id}", headers=headers[user]).json
        assert got["board"] == games.view(db, game_id, user)["board"] and got["seed"] is None
    spectator = games.view(db, game_id)["board"]
    assert client.get(f"/api/v1/games/{game_id}", headers=cy_h).json["board"] == spectator
    assert client.get(f"/api/v1/games/{game_id}").json["board"] == spectator
    assert client.get(f"/api/v1/games/{game_id}/replay/1", headers=ana_h).json["board"] == \
        games.view_at(db, game_id, 1, None)["board"]


def test_refusals(client, db, bots):
    (ana, ana_h), (ben, ben_h), (cy, cy_h) = bots
    game_id = games.create_game(db, "counters", ana, 3)
    games.join_game(db, game_id, ben)
    # No token or a wrong one: 401, nothing created.
    for headers in ({}, {"Authorization": "Bearer pbem_wrong"}, {"Authorization": "Basic abc"}):
        response = client.post("/api/v1/games", json={"title": "counters", "players": 2}, headers=headers)
        assert response.status_code == 401 and response.headers["WWW-Authenticate"] == "Bearer"
    assert client.post(f"/api/v1/games/{game_id}/join").status_code == 401
    # Bad bodies: 422 with the field named.
    response = client.post("/api/v1/games", json={"title": "counters", "players": "two"}, headers=ana_h)
    assert response.status_code == 422 and "players" in json.dumps(response.json)
    response = client.post("/api/v1/games", json={"title": "chess", "players": 2}, headers=ana_h)
    assert response.status_code == 400 and "chess" in response.json["message"]
    response = client.post("/api/v1/games", json={"title": "counters", "players": 2, "options": {"pile": 99}},
                           headers=ana_h)
    assert response.status_code == 400 and "pile" in response.json["message"]
    # Only the creator starts early.
    response = client.post(f"/api/v1/games/{game_id}/start", headers=ben_h)
    assert response.status_code == 403 and response.json["errors"]["reason"] == "not_allowed"
    assert client.post(f"/api/v1/games/{game_id}/start", headers=ana_h).json == {"ok": True}
    by_seat = seated(db, game_id)
    headers = {ana: ana_h, ben: ben_h}
    mover, waiter = headers[by_seat[0]], headers[by_seat[1]]
    url = f"/api/v1/games/{game_id}/moves"
    cases = [
        (waiter, {"move": "take 1"}, 409, "not_your_turn"),
        (cy_h, {"move": "take 1"}, 403, "not_allowed"),
        (mover, {"move": "take 9"}, 422, "illegal_move"),
        (mover, {"move": "fly"}, 422, "illegal_move"),
        (mover, {"move": "take 1", "expected_version": 5}, 409, "stale_position"),
    ]
    for headers_, body, status, reason in cases:
        response = client.post(url, json=body, headers=headers_)
        assert response.status_code == status and response.json["errors"]["reason"] == reason, body
        assert response.json["message"]
    assert client.get(f"/api/v1/games/{game_id}/legal-moves", headers=cy_h).status_code == 403
    assert client.get(f"/api/v1/games/{game_id}/legal-moves").status_code == 401
    assert client.get(f"/api/v1/games/{game_id}/archive").status_code == 409
    assert client.get(f"/api/v1/games/{game_id}/replay/7").status_code == 400
    assert client.get("/api/v1/games/424242").status_code == 404
    assert client.get("/api/v1/nothing").status_code == 404
    with db.sessions() as s:
        assert s.scalar(select(func.count()).select_from(MoveRecord)) == 0
        assert s.scalar(select(func.count()).select_from(Game)) == 1
    # The API needs no CSRF token (bearer tokens are not sent by browsers on their own).
    assert client.post(url, json={"move": "take 1"}, headers=mover).status_code == 201


ILLEGAL_REASONS = {  # "place Tonga 9" at the setup of a Tongiaki game: the engine's reason, translated
    "en": "Tonga has beaches 1 to 6; '9' is not one of them.",
    "nl": "Tonga heeft de stranden 1 tot en met 6; '9' is er geen van.",
    "de": "Tonga hat die Strände 1 bis 6; '9' ist keiner davon.",
    "fr": "Tonga a les plages 1 à 6 ; '9' n'en fait pas partie.",
}


@pytest.mark.parametrize("header, language", [
    (None, "en"), ("es, it", "en"), ("en-GB", "en"), ("nl-BE", "nl"), ("de-DE, de;q=0.9, en;q=0.8", "de"),
    ("es, fr;q=0.5", "fr"),
])
def test_refusals_speak_english_unless_the_request_asks_for_one_of_our_languages(client, db, bots, header, language):
    (ana, ana_h), (ben, ben_h), _ = bots
    asked = {"Accept-Language": header} if header else {}
    game_id = games.create_game(db, "tongiaki", ana, 2, {})
    games.join_game(db, game_id, ben)
    mover, waiter = (ana_h, ben_h) if games.view(db, game_id, ana)["legal_moves"] else (ben_h, ana_h)
    url = f"/api/v1/games/{game_id}/moves"
    response = client.post(url, json={"move": "place Tonga 9"}, headers={**mover, **asked})
    assert response.status_code == 422 and response.json["errors"] == {"reason": "illegal_move"}  # the same kind
    assert response.json["message"] == ILLEGAL_REASONS[language]
    # The service's own refusals and the API's own messages follow the same rule.
    name = "Ana" if mover is ana_h else "Ben"
    response = client.post(url, json={"move": "place Tonga 1"}, headers={**waiter, **asked})
    assert response.status_code == 409 and response.json["errors"] == {"reason": "not_your_turn"}
    response = client.post("/api/v1/games", json={"title": "tongiaki", "players": 2}, headers=asked)
    assert response.status_code == 401
    expected = {
        "en": (f"It is not your turn in game {game_id}: {name} is to move.",
               "Send a valid API token: 'Authorization: Bearer <token>' (made on the settings page)."),
        "nl": (f"Je bent niet aan de beurt in partij {game_id}: {name} is aan zet.",
               "Stuur een geldige API-token: 'Authorization: Bearer <token>' (te maken op de pagina met "
               "instellingen)."),
        "de": (f"Du bist in Partie {game_id} nicht am Zug: {name} ist am Zug.",
               "Schick ein gültiges API-Token: 'Authorization: Bearer <token>' (erstellt auf der Seite der "
               "Einstellungen)."),
        "fr": (f"Ce n'est pas votre tour dans la partie {game_id} : c'est à {name} de jouer.",
               "Envoyez un jeton d'API valide : 'Authorization: Bearer <token>' (créé sur la page des paramètres)."),
    }[language]
    assert (client.post(url, json={"move": "place Tonga 1"}, headers={**waiter, **asked}).json["message"],
            response.json["message"]) == expected
    assert games.view(db, game_id)["version"] == 0


def test_the_openapi_document_describes_every_route(client):
    doc = client.get("/api/v1/openapi.json").json
    assert doc["openapi"].startswith("3.") and doc["components"]["securitySchemes"]["bearerAuth"]["scheme"] == "bearer"
    paths = set(doc["paths"])
    for path in ["/api/v1/games", "/api/v1/games/{game_id}", "/api/v1/games/{game_id}/join",
                 "/api/v1/games/{game_id}/start", "/api/v1/games/{game_id}/legal-moves",
                 "/api/v1/games/{game_id}/moves", "/api/v1/games/{game_id}/replay/{seq}",
                 "/api/v1/games/{game_id}/archive"]:
        assert path in paths, path
    assert "post" in doc["paths"]["/api/v1/games/{game_id}/moves"]


# A body or query that fails each check the schemas make, and the field it names.
SCHEMA_REFUSALS = [
    ("POST", "/api/v1/games", {"players": 2}, "title"),  # required
    ("POST", "/api/v1/games", {"title": None, "players": 2}, "title"),  # null
    ("POST", "/api/v1/games", {"title": "counters", "players": 2, "colours": "red"}, "colours"),  # unknown
    ("POST", "/api/v1/games", {"title": 5, "players": 2}, "title"),  # not a string
    ("POST", "/api/v1/games", {"title": "counters", "players": "two"}, "players"),  # not an integer
    ("POST", "/api/v1/games", {"title": "counters", "players": 2, "options": "all"}, "options"),  # not a mapping
    ("POST", "/api/v1/games", {"title": "counters", "players": 2, "timeout_policy": "sulk"}, "timeout_policy"),
    ("POST", "/api/v1/games", {"title": "", "players": 2}, "title"),  # length
    ("POST", "/api/v1/games", {"title": "counters", "players": 99}, "players"),  # range
    ("GET", "/api/v1/games?status=lost", None, "status"),  # one of, in the query
]


def test_a_schemas_refusal_names_the_fields_and_speaks_the_requests_language(client, bots):
    """A body or query the API's schemas refuse (422): `errors` names each field with marshmallow's message
    (English for bots), `message` says which fields; with Accept-Language: de, both are German."""
    _, ana_h = bots[0]
    for method, url, body, field in SCHEMA_REFUSALS:
        english = client.open(url, method=method, json=body, headers=ana_h)
        german = client.open(url, method=method, json=body, headers={**ana_h, "Accept-Language": "de"})
        assert english.status_code == german.status_code == 422, (url, body)
        location = "query" if method == "GET" else "json"
        english_says, german_says = english.json["errors"][location][field], german.json["errors"][location][field]
        assert field in english.json["message"] and field in german.json["message"]
        assert english.json["message"].startswith("These fields are not valid")
        assert german.json["message"].startswith("Diese Felder sind nicht gültig"), german.json["message"]
        assert len(german_says) == len(english_says) == 1
        assert german_says != english_says, f"{english_says} is not translated"  # a new marshmallow wording?
    body = client.post("/api/v1/games", json=[1, 2], headers={**ana_h, "Accept-Language": "fr"}).json
    assert body["errors"]["json"]["_schema"] == ["Type d'entrée non valide."]
    range_refusal = client.post("/api/v1/games", json={"title": "counters", "players": 99},
                                headers={**ana_h, "Accept-Language": "nl"}).json
    assert range_refusal["errors"]["json"]["players"] == ["Moet minstens 1 en hoogstens 12 zijn."]
    # The engines' and the service's refusals keep their own message and kind.
    refused = client.post("/api/v1/games", json={"title": "chess", "players": 2},
                          headers={**ana_h, "Accept-Language": "de"})
    assert refused.status_code == 400 and "chess" in refused.json["message"] and "Felder" not in refused.json["message"]
