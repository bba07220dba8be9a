"""Issue 35 item 7 by mail: /webhook lists, adds and removes the sender's chat webhooks, behind the same guard
as the settings page; a webhook added by mail gets its news in a local sink (127.0.0.1, a kernel-chosen port,
allowed explicitly with PBEM_OUTGOING_ALLOW as an operator would)."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from pbem import games
from pbem.models import Webhook
from pbem.notify import channels, webhooks
from pbem.notify.channels.webhook import WebhookChannel
from tests.mail.conftest import command_address, compose, deliver_all, mail_text, receive, verified_user
from tests.notify.stubs import StubServer
from tests.notify.test_35_webhooks import the_one_post

PLAIN = "pbem@pbem.test"
SECRET_URL = "https://93.184.216.34/api/webhooks/123/very-secret-token"


def answer(db, settings, address: str) -> str:
    """The newest answer mailed to `address`, its lines joined with single spaces."""
    mails = [m for m in deliver_all(db, settings) if str(m["To"]) == address]
    return " ".join(mail_text(mails[-1]).split())


def hooks_of(db, user_id: int) -> list[Webhook]:
    with db.sessions() as s:
        found = list(s.scalars(select(Webhook).where(Webhook.user_id == user_id).order_by(Webhook.id)))
        s.expunge_all()
        return found


@pytest.fixture
def anna(db, settings, monkeypatch):
    monkeypatch.delenv("PBEM_OUTGOING_ALLOW", raising=False)
    user = verified_user(db, "anna@example.org", "Anna")
    return user, command_address(db, settings, "anna@example.org")


def test_35_7_webhook_add_by_mail_refuses_a_loopback_or_private_address_with_the_reason(db, settings, anna):
    user, key = anna
    for url in ("http://127.0.0.1:8080/hook", "https://192.168.0.10/hook"):
        result = receive(db, settings, compose("anna@example.org", key, f"/webhook add {url} discord"))
        assert result.outcome == "failed"
        text = answer(db, settings, "anna@example.org")
        assert "The webhook was not added:" in text and "is an address inside this server's network" in text
    receive(db, settings, compose("anna@example.org", key, "/webhook add https://93.184.216.34/x icq"))
    assert "Say which service the webhook is of: discord, slack or matrix." in answer(db, settings, "anna@example.org")
    receive(db, settings, compose("anna@example.org", key, "/webhook add https://93.184.216.34/x slack weather"))
    assert "weather is no kind of news; the kinds are: turn, move," in answer(db, settings, "anna@example.org")
    assert hooks_of(db, user) == []


def test_35_7_webhook_lists_adds_and_removes_and_shows_the_address_only_shortened(db, settings, anna):
    user, key = anna
    receive(db, settings, compose("anna@example.org", key, "/webhook"))
    assert "You have no webhook." in answer(db, settings, "anna@example.org")
    done = receive(db, settings, compose("anna@example.org", key, f"/webhook add {SECRET_URL} discord turn,result"))
    assert done.outcome == "done"
    [hook] = hooks_of(db, user)
    assert hook.url == SECRET_URL and hook.format == "discord" and hook.kinds == ["turn", "result"]
    text = answer(db, settings, "anna@example.org")
    assert f"Webhook {hook.id} is added: it posts your turn, game over." in text
    assert f"{hook.id}. Discord https://93.184.216.34/…oken: your turn, game over" in text
    # The answer repeats the line Anna wrote (to her own address); what pbem itself says never has the address.
    assert text.count("very-secret-token") == 1 and "very-secret-token" not in text.split(" is added:")[1]
    receive(db, settings, compose("anna@example.org", key, f"/webhook remove {hook.id + 1}"))
    assert f"You have no webhook {hook.id + 1}" in answer(db, settings, "anna@example.org")
    receive(db, settings, compose("anna@example.org", key, f"/webhook remove {hook.id}"))
    assert f"Webhook {hook.id} is removed." in answer(db, settings, "anna@example.org")
    assert hooks_of(db, user) == []
    assert receive(db, settings, compose("anna@example.org", key, "/webhook drop 1")).outcome == "failed"
    assert "Write /webhook, /webhook add URL" in answer(db, settings, "anna@example.org")


def test_35_7_webhook_add_without_a_key_only_asks_to_confirm(db, settings, anna):
    user, _key = anna
    result = receive(db, settings, compose("anna@example.org", PLAIN, f"/webhook add {SECRET_URL} slack"))
    assert result.outcome == "to_confirm" and hooks_of(db, user) == []


def test_35_7_a_webhook_added_by_mail_gets_the_turn_in_a_local_sink(db, settings, monkeypatch):
    monkeypatch.setenv("PBEM_OUTGOING_ALLOW", "127.0.0.1")
    channel = channels.register(WebhookChannel())
    anna, ben = verified_user(db, "anna@example.org", "Anna"), verified_user(db, "ben@example.org", "Ben")
    game_id = games.create_game(db, "counters", anna, 2, {"pile": 9})
    games.join_game(db, game_id, ben, seed=18)  # the last seat starts the game; seat 0 (Anna) is to move
    with StubServer() as sink:
        key = command_address(db, settings, "ben@example.org")
        url = f"http://127.0.0.1:{sink.port}/api/webhooks/7/abcdefgh"
        assert receive(db, settings, compose("ben@example.org", key, f"/webhook add {url} discord turn")).outcome == "done"
        games.submit(db, game_id, "take 1", user_id=anna)
        path, body = the_one_post(db, channel, sink, settings)
    assert path == "/api/webhooks/7/abcdefgh"
    assert body["content"] == (f"Your turn in Counters, game {game_id}: move 2.\n"
                                                      f"{settings.base_url}/games/{game_id}")
    assert webhooks.listed(db, ben)[0]["last_status"] == 201
