"""Issue 35 item 7 through the JSON API: GET/POST /api/v1/me/webhooks and DELETE /api/v1/me/webhooks/<id>, the same
guard as the page (an address inside the site refused with reason `address_refused`), and a webhook added by the
API getting its news in a local sink (127.0.0.1, a kernel-chosen port, allowed with PBEM_OUTGOING_ALLOW)."""

from __future__ import annotations

import ipaddress

import pytest

from pbem import accounts, games
from pbem.notify import channels, outgoing, webhooks
from pbem.notify.channels.webhook import WebhookChannel
from tests.notify.stubs import StubServer
from tests.notify.test_35_webhooks import the_one_post
from tests.web.conftest import running_game

SECRET_URL = "https://93.184.216.34/api/webhooks/123/very-secret-token"


@pytest.fixture
def no_allowance(monkeypatch):
    monkeypatch.delenv("PBEM_OUTGOING_ALLOW", raising=False)


def bearer(db, user_id: int) -> dict:
    return {"Authorization": f"Bearer {accounts.create_api_token(db, user_id, 'bot')}"}


def test_35_7_the_api_adds_lists_and_removes_webhooks(client, db, players, no_allowance):
    ana = players[0]
    auth = bearer(db, ana.id)
    assert client.get("/api/v1/me/webhooks").status_code == 401
    assert client.post("/api/v1/me/webhooks", json={"url": SECRET_URL, "format": "slack"}).status_code == 401
    assert client.get("/api/v1/me/webhooks", headers=auth).get_json() == []
    answer = client.post("/api/v1/me/webhooks", json={"url": SECRET_URL, "format": "slack"}, headers=auth)
    assert answer.status_code == 201
    added = answer.get_json()
    assert added["url"] == "https://93.184.216.34/…oken" and "very-secret-token" not in answer.get_data(as_text=True)
    assert added["kinds"] == list(webhooks.DEFAULT_KINDS) and added["format"] == "slack" and not added["paused"]
    assert client.get("/api/v1/me/webhooks", headers=auth).get_json() == [added]
    assert client.get("/api/v1/me/webhooks", headers=bearer(db, players[1].id)).get_json() == []
    gone = client.delete(f"/api/v1/me/webhooks/{added['id']}", headers=bearer(db, players[1].id))
    assert gone.status_code == 404  # not Ben's
    assert client.delete(f"/api/v1/me/webhooks/{added['id']}", headers=auth).get_json() == {"ok": True}
    assert client.get("/api/v1/me/webhooks", headers=auth).get_json() == []


@pytest.mark.parametrize("url", ["http://127.0.0.1:5000/hook", "https://169.254.169.254/latest/meta-data",
                                 "https://[fc00::1]/hook", "https://0177.0.0.1/hook"])
def test_35_7_the_api_refuses_a_webhook_to_a_loopback_or_private_address(client, db, players, no_allowance, url):
    auth = bearer(db, players[0].id)
    answer = client.post("/api/v1/me/webhooks", json={"url": url, "format": "discord"}, headers=auth)
    assert answer.status_code == 400
    body = answer.get_json()
    assert body["errors"] == {"reason": "address_refused"}
    assert "is an address inside this server's network" in body["message"]
    assert webhooks.listed(db, players[0].id) == []


def test_35_7_the_api_checks_format_and_kinds_and_finds_a_known_services_format(client, db, players, no_allowance,
                                                                               monkeypatch):
    auth = bearer(db, players[0].id)
    wrong = client.post("/api/v1/me/webhooks", json={"url": SECRET_URL, "format": "icq"}, headers=auth)
    assert wrong.status_code == 422 and "format" in wrong.get_json()["errors"]["json"]
    wrong = client.post("/api/v1/me/webhooks", json={"url": SECRET_URL, "format": "slack", "kinds": ["weather"]},
                        headers=auth)
    assert wrong.status_code == 422 and "kinds" in wrong.get_json()["errors"]["json"]
    unknown = client.post("/api/v1/me/webhooks", json={"url": SECRET_URL}, headers=auth)
    assert unknown.status_code == 400 and unknown.get_json()["errors"] == {"reason": "bad_format"}
    # discord.com's address says its format; its name resolves (here, by a stand-in) to a public address
    monkeypatch.setattr(outgoing, "resolve", lambda host, port: [ipaddress.ip_address("162.159.135.232")])
    found = client.post("/api/v1/me/webhooks", json={"url": "https://discord.com/api/webhooks/1/abcdefgh",
                                                     "kinds": ["result"]}, headers=auth)
    assert found.status_code == 201 and found.get_json()["format"] == "discord"
    assert found.get_json()["kinds"] == ["result"]


def test_35_7_a_webhook_added_by_the_api_gets_the_turn_in_a_local_sink(client, db, players, monkeypatch):
    monkeypatch.setenv("PBEM_OUTGOING_ALLOW", "127.0.0.1")
    channel = channels.register(WebhookChannel())
    game_id, by_seat = running_game(db, players)
    with StubServer() as sink:
        url = f"http://127.0.0.1:{sink.port}/api/webhooks/5/abcdefgh"
        answer = client.post("/api/v1/me/webhooks", json={"url": url, "format": "discord", "kinds": ["turn"]},
                             headers=bearer(db, by_seat[1].id))
        assert answer.status_code == 201
        games.submit(db, game_id, "take 1", user_id=by_seat[0].id)
        path, body = the_one_post(db, channel, sink)
    assert path == "/api/webhooks/5/abcdefgh"
    assert body["content"].startswith(f"Your turn in Counters, game {game_id}: move 2.\n")
    assert client.get("/api/v1/me/webhooks", headers=bearer(db, by_seat[1].id)).get_json()[0]["last_status"] == 201
