"""Issue 35 item 7 on the settings page: a player adds and removes chat webhooks, an address inside the site is
refused with the reason beside the field, and a webhook added there gets its news in a local sink (127.0.0.1, a
kernel-chosen port, allowed explicitly with PBEM_OUTGOING_ALLOW as an operator would)."""

from __future__ import annotations

import html
import re

import pytest

from pbem import games
from pbem.notify import channels, webhooks
from pbem.notify.channels.webhook import WebhookChannel
from tests.notify.stubs import StubServer
from tests.notify.test_35_webhooks import the_one_post
from tests.web.conftest import post, running_game

SECRET_URL = "https://93.184.216.34/api/webhooks/123/very-secret-token"


@pytest.fixture
def no_allowance(monkeypatch):
    monkeypatch.delenv("PBEM_OUTGOING_ALLOW", raising=False)


def section(page: str) -> str:
    return page[page.index('<section id="webhooks"'):page.index("</section>", page.index('<section id="webhooks"'))]


def test_35_7_the_settings_page_adds_lists_and_removes_a_webhook(db, players, no_allowance):
    ana = players[0]
    page = section(ana.client.get("/settings").get_data(as_text=True))
    assert 'id="webhook-form"' in page and '<label for="webhook-url">' in page
    assert all(f'id="webhook-kind-{kind}"' in page for kind in webhooks.CHOICES)
    assert 'value="turn" checked' in page and 'value="move">' in page  # the defaults are ticked
    answer = post(ana.client, "/settings/webhooks", {"url": SECRET_URL, "format": "slack",
                                                    "kinds": ["turn", "message"]}, page="/settings")
    assert answer.status_code == 302 and answer.headers["Location"].endswith("/settings#webhooks")
    [hook] = webhooks.listed(db, ana.id)
    assert hook["format"] == "slack" and hook["kinds"] == ["turn", "message"]
    page = section(ana.client.get("/settings").get_data(as_text=True))
    assert "https://93.184.216.34/…oken" in page and "very-secret-token" not in page
    assert "Slack" in page and "your turn, every message you may read." in page
    assert webhooks.listed(db, players[1].id) == []
    other = post(players[1].client, f"/settings/webhooks/{hook['id']}/remove", page="/settings")
    assert other.status_code == 302 and len(webhooks.listed(db, ana.id)) == 1  # not Ben's to remove
    assert post(ana.client, f"/settings/webhooks/{hook['id']}/remove", page="/settings").status_code == 302
    assert webhooks.listed(db, ana.id) == []


@pytest.mark.parametrize("url", ["http://127.0.0.1:5000/hook", "https://10.1.2.3/hook", "https://[::1]/hook",
                                 "https://localhost/hook"])
def test_35_7_a_webhook_to_a_loopback_or_private_address_is_refused_beside_the_field(db, players, no_allowance, url):
    ana = players[0]
    answer = post(ana.client, "/settings/webhooks", {"url": url, "format": "discord", "kinds": ["turn"]},
                  page="/settings")
    assert answer.status_code == 400
    page = section(answer.get_data(as_text=True))
    error = re.search(r'<p class="error" role="alert" id="webhook-error-url">([^<]*)</p>', page)
    assert error and "is an address inside this server's network" in html.unescape(error[1])
    assert 'aria-invalid="true"' in page and f'value="{url}"' in page  # what was entered stays
    assert webhooks.listed(db, ana.id) == []


def test_35_7_a_webhook_without_news_is_refused_beside_the_check_boxes(db, players, no_allowance):
    ana = players[0]
    answer = post(ana.client, "/settings/webhooks", {"url": SECRET_URL, "format": "matrix"}, page="/settings")
    assert answer.status_code == 400
    page = section(answer.get_data(as_text=True))
    assert 'id="webhook-error-kinds">Choose at least one kind of news for the webhook.</p>' in page
    assert 'value="turn" checked' not in page  # the boxes as they were sent: none ticked
    assert webhooks.listed(db, ana.id) == []


def test_35_7_a_discord_webhook_added_on_the_page_gets_the_turn_in_a_local_sink(db, players, monkeypatch):
    monkeypatch.setenv("PBEM_OUTGOING_ALLOW", "127.0.0.1")
    channel = channels.register(WebhookChannel())
    game_id, by_seat = running_game(db, players)
    waiting = by_seat[1]  # the seat that moves second
    with StubServer() as sink:
        url = f"http://127.0.0.1:{sink.port}/api/webhooks/9/abcdefgh"
        answer = post(waiting.client, "/settings/webhooks", {"url": url, "format": "discord", "kinds": ["turn"]},
                      page="/settings")
        assert answer.status_code == 302
        games.submit(db, game_id, "take 1", user_id=by_seat[0].id)
        path, body = the_one_post(db, channel, sink)
    assert path == "/api/webhooks/9/abcdefgh"
    assert body["content"].startswith(f"Your turn in Counters, game {game_id}: move 2.\n")
    assert body["allowed_mentions"] == {"parse": []}
