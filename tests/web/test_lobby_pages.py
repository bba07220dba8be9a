"""The lobby: listing, the create form built from each game's options, join, leave, start, invite."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import select

import engine
from pbem import games
from pbem.models import Game, OutboundMail
from tests.web.conftest import post, seated


def game_row(db, game_id):
    with db.sessions() as s:
        return s.get(Game, game_id)


def test_lobby_lists_open_tables_with_free_seats(client, db, players):
    ana, ben, cy = players
    open_id = games.create_game(db, "counters", ana.id, 3)
    full_id = games.create_game(db, "counters", ana.id, 2)
    games.join_game(db, full_id, ben.id)  # full: it started
    page = cy.client.get("/").get_data(as_text=True)
    open_part = page.split("Open tables", 1)[1].split("<h2", 1)[0]
    assert f'/games/{open_id}"' in open_part and f'/games/{full_id}"' not in open_part
    assert "Counters" in open_part
    mine = ana.client.get("/").get_data(as_text=True).split("Open tables")[0]
    assert f'/games/{open_id}"' in mine and f'/games/{full_id}"' in mine
    assert f'/games/{open_id}/join' in ben.client.get("/").get_data(as_text=True)


@pytest.mark.parametrize("title", engine.names())
def test_the_create_form_is_built_from_the_games_options(players, title):
    describe = engine.get(title).describe()
    page = players[0].client.get(f"/games/new/{title}").get_data(as_text=True)
    for option in describe["options"]:
        assert f'name="opt_{option["name"]}"' in page
        for choice in option.get("choices", []):
            assert f'value="{choice}"' in page
    assert 'name="players"' in page and 'name="turn_hours"' in page and 'name="timeout_policy"' in page
    assert f'href="/games/new/{title}"' in players[0].client.get("/games/new").get_data(as_text=True)


def test_create_a_game_with_options_deadline_and_policy(db, players):
    ana = players[0]
    response = post(ana.client, "/games/new/counters", {"players": "3", "turn_hours": "48", "timeout_policy": "skip",
                                                        "opt_pile": "9"}, page="/games/new/counters")
    assert response.status_code == 302
    game_id = int(re.search(r"/games/(\d+)$", response.headers["Location"]).group(1))
    game = game_row(db, game_id)
    assert (game.title, game.players, game.turn_hours, game.timeout_policy, game.options) == (
        "counters", 3, 48, "skip", {"pile": 9, "bonus": False})  # an unticked box is "no"
    assert seated(db, game_id) == [ana.id]


def test_create_refusals_change_nothing(client, db, players):
    ana = players[0]
    for data in [{"players": "9", "opt_pile": "9"}, {"players": "2", "opt_pile": "99"}, {"players": "x"}]:
        response = post(ana.client, "/games/new/counters", {"timeout_policy": "wait", **data}, page="/games/new/counters")
        assert response.status_code == 400
    assert ana.client.get("/games/new/chess").status_code == 404
    response = client.post("/games/new/counters", data={"players": "2"})
    assert response.status_code in (302, 400)
    assert ana.client.post("/games/new/counters", data={"players": "2", "opt_pile": "9"}).status_code == 400  # no CSRF
    assert games.list_games(db) == []


def test_join_leave_and_start(db, players):
    ana, ben, cy = players
    game_id = games.create_game(db, "counters", ana.id, 4)
    page = f"/games/{game_id}"
    assert 'id="join"' in ben.client.get(page).get_data(as_text=True)
    response = post(ben.client, f"/games/{game_id}/join", page=page)
    assert response.status_code == 303 and seated(db, game_id) == [ana.id, ben.id]
    again = post(ben.client, f"/games/{game_id}/join", page=page, follow_redirects=True)
    assert b"You already have a seat" in again.data and seated(db, game_id) == [ana.id, ben.id]
    post(cy.client, f"/games/{game_id}/join", page=page)
    post(cy.client, f"/games/{game_id}/leave", page=page)
    assert seated(db, game_id) == [ana.id, ben.id]
    refused = post(ben.client, f"/games/{game_id}/start", page=page, follow_redirects=True)
    assert b"Only the player who opened" in refused.data and game_row(db, game_id).status == "open"
    post(ana.client, f"/games/{game_id}/start", page=page)
    assert game_row(db, game_id).status == "running"
    late = post(cy.client, f"/games/{game_id}/join", page=page, follow_redirects=True)
    assert b"only open games can be joined" in late.data and len(seated(db, game_id)) == 2


def test_lobby_actions_need_a_login_and_a_csrf_token(client, db, players):
    ana, ben, _ = players
    game_id = games.create_game(db, "counters", ana.id, 3)
    for action in ("join", "leave", "start", "invite", "resign"):
        response = client.post(f"/games/{game_id}/{action}", data={"csrf_token": "x"})
        assert response.status_code in (302, 400), action
        response = ben.client.post(f"/games/{game_id}/{action}", data={"email": "x@example.org"})
        assert response.status_code == 400 and b"CSRF" in response.data, action
    assert seated(db, game_id) == [ana.id] and game_row(db, game_id).status == "open"


def test_invite_by_email_queues_an_invitation_from_players_only(db, players):
    ana, ben, _ = players
    game_id = games.create_game(db, "counters", ana.id, 3)
    page = f"/games/{game_id}"
    response = post(ana.client, f"/games/{game_id}/invite", {"email": "Dora@Example.org"}, page=page,
                    follow_redirects=True)
    assert b"Invitation sent" in response.data
    refused = post(ben.client, f"/games/{game_id}/invite", {"email": "eve@example.org"}, page=page,
                   follow_redirects=True)
    assert b"Only players at game" in refused.data
    bad = post(ana.client, f"/games/{game_id}/invite", {"email": "no address"}, page=page, follow_redirects=True)
    assert b"is not an email address" in bad.data
    with db.sessions() as s:
        [mail] = s.scalars(select(OutboundMail).where(OutboundMail.kind == "invite")).all()
    assert mail.recipient == "dora@example.org" and mail.game_id == game_id and f"/games/{game_id}" in mail.body_text
