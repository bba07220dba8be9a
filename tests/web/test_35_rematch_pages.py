"""Issue 35, item 5: a rematch on the game page and through the API.

The finished game's page offers its players a Rematch button; the others see the offer with Accept
and Decline buttons (CSRF-protected forms, targets of at least 24x24 CSS px in a real browser) and one
click each starts the new game. The API proposes and accepts with POST, declines with DELETE, and the
game's JSON carries the offer.
"""

from __future__ import annotations

import re

import pytest
from sqlalchemy import func, select

from pbem import accounts, games
from pbem.mail.commands.rematch import tell
from pbem.models import Game, OutboundMail, RematchOffer
from pbem.players import rematch
from tests.web.conftest import csrf_of, make_user, post, running_game, seated
from tests.web.test_browser import PHONE, browser, check_accessibility, log_in, new_page, server  # noqa: F401

OFFER_ID = re.compile(r'name="offer" value="(\d+)"')


def play_out(db, game_id: int) -> None:
    while (data := games.view(db, game_id))["status"] == "running":
        mover = seated(db, game_id)[data["to_move"]]
        games.submit(db, game_id, f"take {min(3, data['board']['pile'])}", user_id=mover)


def finished(db, players, n: int = 2) -> tuple[int, list]:
    """A finished counters game of the first n players; its id and its players by seat."""
    game_id, by_seat = running_game(db, players, n=n, options={"pile": 5})
    play_out(db, game_id)
    return game_id, by_seat


def page(client, game_id: int) -> str:
    response = client.get(f"/games/{game_id}")
    assert response.status_code == 200
    return response.get_data(as_text=True)


def click(client, game_id: int, action: str = "", offer: str | None = None, json: bool = False):
    """A button of the rematch banner, with the CSRF token the page gave."""
    data = {"csrf_token": csrf_of(client, f"/games/{game_id}")}
    if offer is not None:
        data["offer"] = offer
    headers = {"Accept": "application/json"} if json else {}
    return client.post(f"/games/{game_id}/rematch{action}", data=data, headers=headers)


def offers(db) -> int:
    with db.sessions() as s:
        return s.scalar(select(func.count()).select_from(RematchOffer))


def test_35_5_the_finished_game_page_offers_a_rematch_and_one_click_each_starts_it(db, players):
    game_id, (first, second) = finished(db, players)
    html = page(first.client, game_id)
    assert 'id="rematch-propose"' in html and f'action="/games/{game_id}/rematch"' in html
    answer = click(first.client, game_id)
    assert answer.status_code == 303 and answer.headers["Location"].endswith(f"/games/{game_id}")
    assert "You proposed a rematch" in page(first.client, game_id)
    html = page(second.client, game_id)
    banner = html[html.index('id="rematch-offer"'):]
    assert "proposes a rematch" in banner and 'id="rematch-accept"' in banner and 'id="rematch-decline"' in banner
    # The order of play of the rematch: the first player of this game moves last.
    listed = banner[banner.index('id="rematch-players"'):banner.index("</ol>")]
    assert listed.index(second.email.split("@")[0].title()) < listed.index(first.email.split("@")[0].title())
    with db.sessions() as s:  # the other player was mailed too, in the game's thread
        assert s.scalars(select(OutboundMail.recipient).where(OutboundMail.kind == "rematch")).all() == [second.email]
    answer = click(second.client, game_id, offer=OFFER_ID.search(banner).group(1))
    with db.sessions() as s:
        new_id = s.scalar(select(RematchOffer.new_game_id))
        assert s.get(Game, new_id).status == "running"
    assert answer.status_code == 303 and answer.headers["Location"].endswith(f"/games/{new_id}")
    assert seated(db, new_id) == [second.id, first.id]
    html = page(first.client, game_id)
    assert f'href="/games/{new_id}"' in html and 'id="rematch-game"' in html and 'id="rematch-propose"' not in html


def test_35_5_the_banner_is_for_the_players_only(db, players, client):
    game_id, (first, _second) = finished(db, players)
    click(first.client, game_id)
    for reader in (players[2].client, client):  # a player of another table, a visitor
        assert 'id="rematch' not in reader.get(f"/games/{game_id}").get_data(as_text=True)
    answer = click(players[2].client, game_id)
    assert answer.status_code == 303
    assert "Only the players of game" in players[2].client.get(answer.headers["Location"]).get_data(as_text=True)
    running, (one, _other) = running_game(db, players, n=2)
    assert 'id="rematch' not in page(one.client, running)
    assert post(one.client, "/games/99999/rematch").status_code == 404


def test_35_5_a_rematch_form_without_its_csrf_token_changes_nothing(db, players):
    game_id, (first, second) = finished(db, players)
    assert first.client.post(f"/games/{game_id}/rematch", data={}).status_code == 400
    assert offers(db) == 0
    click(first.client, game_id)
    assert second.client.post(f"/games/{game_id}/rematch/decline", data={}).status_code == 400
    assert rematch.current(db, game_id).status == "open"


def test_35_5_a_click_on_an_offer_declined_meanwhile_is_refused_with_the_reason(db, players):
    game_id, (first, second, third) = finished(db, players, n=3)
    click(first.client, game_id)
    shown = OFFER_ID.search(page(second.client, game_id)).group(1)  # Ben's page shows the offer ...
    answer = click(third.client, game_id, "/decline", offer=shown, json=True)  # ... which Cy declines
    assert answer.get_json() == {"ok": True, "message": "You declined the rematch.", "new_game": None}
    answer = click(second.client, game_id, offer=shown, json=True)
    assert answer.status_code == 409 and answer.get_json()["ok"] is False
    assert "declined the rematch" in answer.get_json()["message"]
    assert offers(db) == 1 and rematch.current(db, game_id).status == "declined"
    html = page(second.client, game_id)  # the page says so, and offers a new rematch
    assert "declined the last rematch offer" in html and 'id="rematch-propose"' in html


def test_35_5_rematch_through_the_api(db, players):
    game_id, (first, second) = finished(db, players)
    token = {p.id: {"Authorization": f"Bearer {accounts.create_api_token(db, p.id, 'bot')}"} for p in players}
    api = first.client
    assert api.post(f"/api/v1/games/{game_id}/rematch").status_code == 401
    assert api.get(f"/api/v1/games/{game_id}").get_json()["rematch"] is None
    answer = api.post(f"/api/v1/games/{game_id}/rematch", headers=token[first.id])
    assert answer.status_code == 200 and answer.get_json()["outcome"] == "proposed"
    offer = api.get(f"/api/v1/games/{game_id}").get_json()["rematch"]
    assert offer["status"] == "open" and [p["accepted"] for p in offer["players"]] == [False, True]
    stranger = api.post(f"/api/v1/games/{game_id}/rematch", headers=token[players[2].id])
    assert stranger.status_code == 403 and stranger.get_json()["errors"]["reason"] == "not_allowed"
    stale = api.post(f"/api/v1/games/{game_id}/rematch", json={"offer": offer["id"] + 1}, headers=token[second.id])
    assert stale.status_code == 409 and "no longer open" in stale.get_json()["message"]
    answer = api.post(f"/api/v1/games/{game_id}/rematch", json={"offer": offer["id"]}, headers=token[second.id])
    body = answer.get_json()
    assert body["outcome"] == "started" and body["offer"]["new_game_id"] > game_id
    assert api.get(f"/api/v1/games/{body['offer']['new_game_id']}").get_json()["status"] == "running"
    again = api.post(f"/api/v1/games/{game_id}/rematch", json={"offer": offer["id"]}, headers=token[second.id])
    assert again.get_json()["outcome"] == "already"
    declined = api.delete(f"/api/v1/games/{game_id}/rematch", headers=token[first.id])
    assert declined.status_code == 409 and "already begun" in declined.get_json()["message"]
    running, _ = running_game(db, players, n=2)
    refused = api.post(f"/api/v1/games/{running}/rematch", headers=token[first.id])
    assert refused.status_code == 409 and "still being played" in refused.get_json()["message"]
    with db.sessions() as s:
        assert s.scalar(select(func.count()).select_from(Game)) == 3


def test_35_5_declining_through_the_api(db, players):
    game_id, (first, second) = finished(db, players)
    headers = {"Authorization": f"Bearer {accounts.create_api_token(db, second.id, 'bot')}"}
    rematch.accept(db, game_id, first.id, tell=tell)
    answer = first.client.delete(f"/api/v1/games/{game_id}/rematch", headers=headers)
    assert answer.status_code == 200 and answer.get_json()["offer"]["status"] == "declined"
    assert first.client.get(f"/api/v1/games/{game_id}").get_json()["rematch"]["declined_by"] == \
        second.email.split("@")[0].title()


@pytest.mark.full  # a browser test: in make test-full, which CI runs too (issue 32 item 5)
def test_35_5_the_rematch_buttons_in_a_real_browser_on_a_phone(server, browser, db, tmp_path):  # noqa: F811
    ana, ben = (make_user(db, f"{name}@example.org", name.title()) for name in ("ana", "ben"))
    game_id = games.create_game(db, "counters", ana, 2, {"pile": 5})
    games.join_game(db, game_id, ben)
    play_out(db, game_id)
    rematch.accept(db, game_id, ana, tell=tell)
    page_ = new_page(browser, PHONE)
    log_in(page_, server, "ben@example.org")
    page_.goto(f"{server}/games/{game_id}")
    for target in ("#rematch-accept", "#rematch-decline"):
        box = page_.locator(target).bounding_box()
        assert box["width"] >= 24 and box["height"] >= 24, (target, box)
    check_accessibility(page_, "the rematch banner on a phone")
    with page_.expect_navigation():
        page_.click("#rematch-accept")
    with db.sessions() as s:
        new_id = s.scalar(select(RematchOffer.new_game_id))
    assert seated(db, new_id) == seated(db, game_id)[::-1]  # two players: the seats moved round by one
    assert page_.url.endswith(f"/games/{new_id}") and "is game" in page_.content()
    assert page_.script_errors == []
