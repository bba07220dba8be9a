"""Issue 35 item 7: chat webhooks (Discord, Slack, Matrix), the third notification channel.

The webhooks are kept by pbem.notify.webhooks (behind the address guard of push endpoints) and posted
by the channel pbem.notify.channels.webhook, whose `deliver` is what the worker's delivery task calls.
The posts go to a real HTTP server on 127.0.0.1 and a port the kernel chose (tests/notify/stubs.py);
since 127.0.0.1 is inside the site, those tests allow it explicitly, as an operator would, with
PBEM_OUTGOING_ALLOW; every other test runs without that allowance.
"""

from __future__ import annotations

import ipaddress
import json
import socket
from datetime import timedelta

import pytest
from sqlalchemy import func, select

from pbem import accounts, config, games, talk
from pbem.models import Webhook, WebhookDelivery
from pbem.notify import channels, webhooks
from pbem.notify.channels import TransientDeliveryError
from pbem.notify.channels import webhook as channel_module
from pbem.schedule import deadlines
from tests.notify.stubs import StubServer

SEED = 18  # draws the seats in the order the players joined, for two players and for three
BASE = "https://pbem.example"
PUBLIC = "https://93.184.216.34/hooks/abcdefgh"  # a public address written as one: no DNS asked


@pytest.fixture
def settings(tmp_path):
    return config.load({"PBEM_DATA_DIR": str(tmp_path / "data"), "PBEM_SECRET_KEY": "test-secret-key",
                        "PBEM_BASE_URL": BASE, "PBEM_SWEEP_AFTER_S": "0"})


@pytest.fixture
def no_allowance(monkeypatch):
    monkeypatch.delenv("PBEM_OUTGOING_ALLOW", raising=False)


@pytest.fixture
def sink(monkeypatch):
    """A chat service's webhook endpoint on 127.0.0.1 (kernel-chosen port), allowed as an operator would allow it."""
    monkeypatch.setenv("PBEM_OUTGOING_ALLOW", "127.0.0.1")
    with StubServer() as server:
        server.base = f"http://127.0.0.1:{server.port}"
        yield server


@pytest.fixture
def channel():
    """The webhook channel as pbem.wiring registers it (another test may have put a channel of its own there)."""
    return channels.register(channel_module.WebhookChannel())


def table(db, names=("Ann", "Ben"), **options):
    """A running counters game, Ann to move first (the seed draws the seats); returns (game id, user ids by name)."""
    users = [accounts.ensure_user(db, f"{name.lower()}@example.org", name) for name in names]
    game_id = games.create_game(db, "counters", users[0], len(users) + 1, {"pile": 15}, **options)
    for user in users[1:]:
        games.join_game(db, game_id, user)
    games.start_game(db, game_id, users[0], seed=SEED)
    assert to_move(db, game_id) == "Ann"
    return game_id, users


def to_move(db, game_id) -> str:
    view = games.view(db, game_id)
    return next(seat["name"] for seat in view["seats"] if seat["seat"] == view["to_move"])


def play(db, game_id, users, times=1):
    """`times` moves by whoever is to move (`users` in the order of `table`'s names)."""
    for _ in range(times):
        name = to_move(db, game_id)
        games.submit(db, game_id, "take 1", user_id=users[["Ann", "Ben", "Cy"].index(name)])


def rows(db, hook_id=None):
    with db.sessions() as s:
        query = select(WebhookDelivery).order_by(WebhookDelivery.id)
        if hook_id is not None:
            query = query.where(WebhookDelivery.webhook_id == hook_id)
        found = list(s.scalars(query))
        s.expunge_all()
        return found


def stored(db, hook_id):
    with db.sessions() as s:
        hook = s.get(Webhook, hook_id)
        s.expunge_all()
        return hook


def the_one_post(db, channel, sink, settings=None) -> tuple[str, dict]:
    """Deliver the one webhook row written so far, as the worker's delivery task does; the path and the JSON the
    sink got (the web, API and mail tests use it too)."""
    with db.sessions() as s:
        [delivery] = s.scalars(select(WebhookDelivery.id))
    assert channel.deliver(db, settings or config.load(), delivery) == "sent"
    [request] = sink.requests
    return request["path"], json.loads(request["body"])


def count_hooks(db):
    with db.sessions() as s:
        return s.scalar(select(func.count()).select_from(Webhook))


# --- the address guard ------------------------------------------------------------------------------------


@pytest.mark.parametrize("url", [
    "https://127.0.0.1/hooks/x",
    "http://127.0.0.1:8080/hooks/x",
    "https://localhost/hooks/x",
    "https://[::1]/hooks/x",
    "https://0x7f.1/hooks/x",  # 127.0.0.1 written another way
    "https://2130706433/hooks/x",
    "https://[::ffff:127.0.0.1]/hooks/x",
    "https://10.0.0.5/hooks/x",
    "https://172.16.3.4/hooks/x",
    "https://192.168.1.20/hooks/x",
    "https://100.64.0.1/hooks/x",  # shared (CGNAT)
    "https://169.254.169.254/latest/meta-data",  # where cloud metadata answers
    "https://[fd00::1]/hooks/x",
    "https://0.0.0.0/hooks/x",
])
def test_35_7_a_webhook_to_a_loopback_or_private_address_is_refused(db, no_allowance, url):
    user = accounts.ensure_user(db, "ann@example.org", "Ann")
    with pytest.raises(webhooks.WebhookError) as refused:
        webhooks.add(db, user, url, "discord")
    assert refused.value.code == "address_refused" and refused.value.field == "url"
    assert "inside this server's network" in str(refused.value)
    assert count_hooks(db) == 0


def test_35_7_a_name_that_resolves_inside_the_site_is_refused_when_saved(db, no_allowance):
    user = accounts.ensure_user(db, "ann@example.org", "Ann")
    inside = lambda host, port: [ipaddress.ip_address("10.1.2.3")]  # noqa: E731 - a stand-in resolver
    with pytest.raises(webhooks.WebhookError, match="hooks.example.org is an address inside"):
        webhooks.add(db, user, "https://hooks.example.org/x", "slack", resolver=inside)
    # one private address among public ones refuses the name too
    mixed = lambda host, port: [ipaddress.ip_address("93.184.216.34"), ipaddress.ip_address("127.0.0.1")]  # noqa: E731
    with pytest.raises(webhooks.WebhookError):
        webhooks.add(db, user, "https://hooks.example.org/x", "slack", resolver=mixed)
    assert count_hooks(db) == 0


@pytest.mark.parametrize("url, says", [
    ("http://93.184.216.34/hooks/x", "must be an https address"),
    ("ftp://93.184.216.34/x", "not a web address"),
    ("https://127.0.0.1\\@discord.com/api/webhooks/1/x", "not a web address"),  # read two ways: refused
    ("https://user:secret@discord.com/api/webhooks/1/x", "not a web address"),
    ("discord.com/api/webhooks/1/x", "not a web address"),
    ("", "Give the webhook's address"),
])
def test_35_7_an_address_that_is_not_a_plain_https_url_is_refused(db, no_allowance, url, says):
    user = accounts.ensure_user(db, "ann@example.org", "Ann")
    with pytest.raises(webhooks.WebhookError, match=says):
        webhooks.add(db, user, url, "discord")
    assert count_hooks(db) == 0


def test_35_7_the_loopback_exception_is_the_operators_explicit_allowance(db, monkeypatch):
    user = accounts.ensure_user(db, "ann@example.org", "Ann")
    monkeypatch.setenv("PBEM_OUTGOING_ALLOW", "127.0.0.1")
    added = webhooks.add(db, user, "http://127.0.0.1:9/hooks/secret-token", "discord")
    assert added["url"] == "http://127.0.0.1:9/…oken"  # the secret is never shown whole again
    with pytest.raises(webhooks.WebhookError):  # only what is allowed: not the rest of the site
        webhooks.add(db, user, "https://10.0.0.5/hooks/x", "discord")
    with pytest.raises(webhooks.WebhookError, match="https"):  # plain http only to a loopback host
        webhooks.add(db, user, "http://93.184.216.34/hooks/x", "discord")


def test_35_7_format_and_kinds_are_checked_and_the_same_address_again_changes_the_webhook(db, no_allowance):
    user = accounts.ensure_user(db, "ann@example.org", "Ann")
    with pytest.raises(webhooks.WebhookError, match="Say which service") as refused:
        webhooks.add(db, user, PUBLIC)  # no format, and the host says none
    assert refused.value.field == "format"
    with pytest.raises(webhooks.WebhookError, match="icq is not a format"):
        webhooks.add(db, user, PUBLIC, "icq")
    with pytest.raises(webhooks.WebhookError, match="weather is no kind of news") as refused:
        webhooks.add(db, user, PUBLIC, "slack", ["turn", "weather"])
    assert refused.value.field == "kinds"
    with pytest.raises(webhooks.WebhookError, match="at least one kind"):
        webhooks.add(db, user, PUBLIC, "slack", [])
    assert count_hooks(db) == 0
    first = webhooks.add(db, user, PUBLIC, "slack")
    assert first["kinds"] == ["turn", "result", "reminder", "vacation", "mentioned"] and first["format"] == "slack"
    again = webhooks.add(db, user, PUBLIC, "matrix", ["MESSAGE", "turn"])
    assert again["id"] == first["id"] and again["kinds"] == ["turn", "message"] and again["format"] == "matrix"
    assert [h["id"] for h in webhooks.listed(db, user)] == [first["id"]]
    for n in range(1, webhooks.MAX_WEBHOOKS):
        webhooks.add(db, user, f"https://93.184.216.34/hooks/{n}-abcdefgh", "discord")
    with pytest.raises(webhooks.WebhookError, match="the most pbem keeps"):
        webhooks.add(db, user, "https://93.184.216.34/hooks/one-more", "discord")
    assert count_hooks(db) == webhooks.MAX_WEBHOOKS
    other = accounts.ensure_user(db, "ben@example.org", "Ben")
    assert not webhooks.remove(db, other, first["id"])  # not Ben's
    assert webhooks.remove(db, user, first["id"]) and count_hooks(db) == webhooks.MAX_WEBHOOKS - 1


def test_35_7_the_choices_are_the_notice_kinds_and_mentioned():
    assert set(webhooks.CHOICES) == set(channels.KINDS) | {"mentioned"}
    assert set(webhooks.KIND_LABELS) == set(webhooks.CHOICES)


# --- the channel ----------------------------------------------------------------------------------------------


def test_35_7_a_discord_webhook_gets_the_turn_in_a_local_sink(db, sink, settings, channel):
    game_id, (ann, ben) = table(db)
    hook = webhooks.add(db, ben, f"{sink.base}/api/webhooks/42/tok-en", "discord", ["turn"])
    play(db, game_id, [ann, ben])  # Ann takes: Ben's turn
    [row] = rows(db)
    assert row.webhook_id == hook["id"] and row.kind == "turn" and row.status == "pending"
    assert list(channel.due(db, settings)) == [(row.id,)]  # what the sweep would post again
    assert channel.deliver(db, settings, row.id) == "sent"
    [request] = sink.requests
    assert request["method"] == "POST" and request["path"] == "/api/webhooks/42/tok-en"
    assert request["headers"]["content-type"] == "application/json"
    assert json.loads(request["body"]) == {
        "content": f"Your turn in Counters, game {game_id}: move 2.\n{BASE}/games/{game_id}",
        "allowed_mentions": {"parse": []}}
    assert channel.deliver(db, settings, row.id) == "already sent"  # a job delivered twice posts once
    assert len(sink.requests) == 1 and list(channel.due(db, settings)) == []
    kept = stored(db, hook["id"])
    assert kept.last_status == 201 and kept.last_error is None and kept.last_sent_at is not None
    play(db, game_id, [ann, ben])  # Ben moves: Ann's turn, and Ann has no webhook
    assert len(rows(db)) == 1


def test_35_7_the_player_chooses_which_news_goes_where(db, sink, settings, channel):
    game_id, (ann, ben, cy) = table(db, ("Ann", "Ben", "Cy"), turn_hours=24)
    turns = webhooks.add(db, ben, f"{sink.base}/turns-abcd", "slack", ["turn"])
    talk_ = webhooks.add(db, ben, f"{sink.base}/talk-abcd", "matrix", ["mentioned", "result", "reminder"])
    every = webhooks.add(db, cy, f"{sink.base}/every-abcd", "discord", list(webhooks.CHOICES))
    users = [ann, ben, cy]
    play(db, game_id, users)  # Ann moved: Ben's turn
    assert [r.kind for r in rows(db, turns["id"])] == ["turn"]
    assert [r.kind for r in rows(db, every["id"])] == ["move"]
    assert rows(db, talk_["id"]) == []
    talk.post(db, game_id, ann, "good luck all")
    talk.post(db, game_id, ann, "@Ben your move")
    assert [r.kind for r in rows(db, talk_["id"])] == ["mentioned"]  # not the message that does not name him
    assert [r.kind for r in rows(db, every["id"])] == ["move", "message", "message"]
    with db.sessions() as s:
        from pbem.models import Game
        deadline = s.get(Game, game_id).deadline
    assert deadlines.process(db, game_id, at=deadline - timedelta(hours=1)) == "reminded"
    assert [r.kind for r in rows(db, talk_["id"])] == ["mentioned", "reminder"]
    assert [r.kind for r in rows(db, turns["id"])] == ["turn"]
    assert rows(db, every["id"])[-1].kind == "message"  # the reminder is Ben's alone
    for row in rows(db):
        assert channel.deliver(db, settings, row.id) == "sent"
    posted = {r["path"]: json.loads(r["body"]) for r in sink.requests}
    assert posted["/turns-abcd"] == {"text": f"Your turn in Counters, game {game_id}: move 2.\n<{BASE}/games/{game_id}>"}
    matrix = [json.loads(r["body"]) for r in sink.requests if r["path"] == "/talk-abcd"]
    assert matrix[0] == {"text": f"Counters, game {game_id}: Ann mentioned you: @Ben your move\n{BASE}/games/{game_id}",
                         "html": f"Counters, game {game_id}: Ann mentioned you: @Ben your move<br>"
                                 f'<a href="{BASE}/games/{game_id}">{BASE}/games/{game_id}</a>'}
    assert matrix[1]["text"].startswith(f"Reminder: your move 2 in Counters, game {game_id}, is due by ")


def test_35_7_a_private_message_reaches_only_its_readers_webhooks(db, sink, settings, channel):
    game_id, (ann, ben, cy) = table(db, ("Ann", "Ben", "Cy"))
    to_ben = webhooks.add(db, ben, f"{sink.base}/ben-abcd", "discord", ["message"])
    to_cy = webhooks.add(db, cy, f"{sink.base}/cy-abcd", "discord", ["message", "mentioned"])
    seats = {seat["name"]: seat["seat"] for seat in games.view(db, game_id)["seats"]}
    talk.post(db, game_id, ann, "secret plan: *attack* Cy", to=(seats["Ben"],))
    assert rows(db, to_cy["id"]) == []  # Cy may not read it: nothing of it goes to Cy's webhook
    [row] = rows(db, to_ben["id"])
    assert channel.deliver(db, settings, row.id) == "sent"
    [request] = sink.requests
    assert json.loads(request["body"])["content"].startswith(
        f"Counters, game {game_id}: Ann wrote privately: secret plan: \\*attack\\* Cy")


def test_35_7_a_message_hidden_before_it_is_posted_is_not_posted(db, sink, settings, channel):
    game_id, (ann, ben) = table(db)
    hook = webhooks.add(db, ben, f"{sink.base}/ben-abcd", "discord", ["message"])
    message_id = talk.post(db, game_id, ann, "something rude")
    with db.transaction() as s:
        from pbem.models import Message
        s.get(Message, message_id).hidden_at = s.get(Message, message_id).created_at
    [row] = rows(db, hook["id"])
    assert channel.deliver(db, settings, row.id) == "hidden"
    assert sink.requests == [] and rows(db)[0].status == "failed"


def test_35_7_a_server_error_is_tried_again_and_given_up_after_the_last_try(db, sink, settings, channel):
    game_id, (ann, ben) = table(db)
    hook = webhooks.add(db, ben, f"{sink.base}/hooks/503", "discord", ["turn"])
    play(db, game_id, [ann, ben])
    [row] = rows(db)
    for attempt in range(1, channel_module.MAX_ATTEMPTS):
        with pytest.raises(TransientDeliveryError):
            channel.deliver(db, settings, row.id)
        assert rows(db)[0].status == "pending" and rows(db)[0].attempts == attempt
        assert list(channel.due(db, settings)) == [(row.id,)]  # the sweep would post it again too
    assert channel.deliver(db, settings, row.id) == "failed"
    assert len(sink.requests) == channel_module.MAX_ATTEMPTS
    kept = stored(db, hook["id"])
    assert kept.last_status == 503 and "after 5 tries" in kept.last_error and kept.failures == 1
    assert list(channel.due(db, settings)) == [] and channel.deliver(db, settings, row.id) == "failed"


@pytest.mark.parametrize("status, transient", [(429, True), (500, True), (404, False), (400, False), (302, False)])
def test_35_7_the_answer_decides_between_trying_again_and_failing_for_good(db, sink, settings, channel, status,
                                                                             transient):
    game_id, (ann, ben) = table(db)
    hook = webhooks.add(db, ben, f"{sink.base}/hooks/{status}", "discord", ["turn"])
    play(db, game_id, [ann, ben])
    [row] = rows(db)
    if transient:
        with pytest.raises(TransientDeliveryError):
            channel.deliver(db, settings, row.id)
    else:
        assert channel.deliver(db, settings, row.id) == "failed"
    assert rows(db)[0].status == ("pending" if transient else "failed")
    kept = stored(db, hook["id"])
    assert kept.last_status == status and kept.last_error == f"HTTP {status}"
    assert kept.failures == (0 if transient else 1)


def test_35_7_no_connection_and_no_answer_in_time_are_tried_again(db, sink, settings, channel, monkeypatch):
    game_id, (ann, ben) = table(db)
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen()  # the kernel completes the connection; nobody ever answers
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))  # bound, never listening: connections are refused
    monkeypatch.setattr(channel_module, "TIMEOUT_S", 0.3)
    try:
        webhooks.add(db, ben, f"http://127.0.0.1:{silent.getsockname()[1]}/hook-abcd", "discord", ["turn"])
        webhooks.add(db, ben, f"http://127.0.0.1:{closed.getsockname()[1]}/hook-abcd", "discord", ["turn"])
        play(db, game_id, [ann, ben])
        slow, refused = rows(db)
        with pytest.raises(TransientDeliveryError, match="No answer in time"):
            channel.deliver(db, settings, slow.id)
        with pytest.raises(TransientDeliveryError, match="No connection"):
            channel.deliver(db, settings, refused.id)
    finally:
        silent.close()
        closed.close()
    assert [r.status for r in rows(db)] == ["pending", "pending"]


def test_35_7_the_connection_refuses_an_address_that_was_allowed_when_saved(db, sink, settings, channel,
                                                                          monkeypatch):
    game_id, (ann, ben) = table(db)
    hook = webhooks.add(db, ben, f"{sink.base}/hook-abcd", "discord", ["turn"])
    monkeypatch.delenv("PBEM_OUTGOING_ALLOW")  # the operator took the allowance back
    play(db, game_id, [ann, ben])
    [row] = rows(db)
    assert channel.deliver(db, settings, row.id) == "failed"
    assert sink.requests == [] and "may not reach" in stored(db, hook["id"]).last_error


def test_35_7_a_webhook_that_keeps_failing_is_paused_until_it_is_saved_again(db, sink, settings, channel):
    game_id, (ann, ben) = table(db)
    hook = webhooks.add(db, ben, f"{sink.base}/hooks/404", "discord", ["move", "turn"])
    with db.transaction() as s:
        s.get(Webhook, hook["id"]).failures = webhooks.PAUSE_AFTER - 1
    play(db, game_id, [ann, ben])
    [row] = rows(db)
    assert channel.deliver(db, settings, row.id) == "failed"
    assert webhooks.listed(db, ben)[0]["paused"]
    play(db, game_id, [ann, ben], times=2)  # Ben's move and Ann's: nothing more for the paused webhook
    assert len(rows(db)) == 1
    webhooks.add(db, ben, f"{sink.base}/hooks/404", "discord", ["move", "turn"])  # saved again
    assert not webhooks.listed(db, ben)[0]["paused"]
    play(db, game_id, [ann, ben], times=2)  # Ben's move and Ann's: Ben's turn again
    assert len(rows(db)) == 2


def test_35_7_a_change_that_rolls_back_writes_no_delivery(db, no_allowance, channel):
    game_id, (ann, ben) = table(db)
    webhooks.add(db, ben, PUBLIC, "discord", ["turn", "move"])
    with pytest.raises(games.IllegalMoveError):
        games.submit(db, game_id, "take 9", user_id=ann)
    assert rows(db) == []


def test_35_7_the_news_is_written_in_the_readers_language(db, sink, settings, channel):
    game_id, (ann, ben) = table(db)
    accounts.update_language(db, ben, "de")
    webhooks.add(db, ben, f"{sink.base}/hook-abcd", "slack", ["turn"])
    play(db, game_id, [ann, ben])
    [row] = rows(db)
    from pbem import i18n
    assert row.text == i18n.texts("de").gettext(channel_module.TEXTS["turn"], title="Counters", game=game_id, move=2)


def test_35_7_slack_and_matrix_texts_are_escaped_for_their_services():
    text = "Ann wrote: <!channel> & <b>hi</b>"
    assert channel_module.payload("slack", text, "https://x/games/1") == {
        "text": "Ann wrote: &lt;!channel&gt; &amp; &lt;b&gt;hi&lt;/b&gt;\n<https://x/games/1>"}
    matrix = channel_module.payload("matrix", text, "https://x/games/1")
    assert matrix["text"] == f"{text}\nhttps://x/games/1"
    assert "<b>" not in matrix["html"] and "&lt;b&gt;hi&lt;/b&gt;" in matrix["html"]
    discord = channel_module.payload("discord", "@everyone [click](https://evil)", "https://x/games/1")
    assert discord["content"] == "\\@everyone \\[click\\]\\(https://evil\\)\nhttps://x/games/1"
    assert discord["allowed_mentions"] == {"parse": []}


def test_35_7_a_webhook_kept_under_older_rules_is_checked_again_before_each_post(db, no_allowance, settings, channel):
    game_id, (ann, ben) = table(db)
    with db.transaction() as s:  # plain http to a public host: never saved so today, but a row may be older
        s.add(Webhook(user_id=ben, url="http://93.184.216.34/hooks/old-abcd", format="discord", kinds=["turn"],
                      failures=0))
    play(db, game_id, [ann, ben])
    [row] = rows(db)
    assert channel.deliver(db, settings, row.id) == "failed"
    assert rows(db)[0].last_error == "The address is no longer one pbem posts to."
