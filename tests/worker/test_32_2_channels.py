"""Issue 32 item 2: a channel is one module. The notify package decides who is told what; a channel
(mail, Web Push, and here a webhook written as a site would add one: tests/worker/webhook_channel.py)
only how it gets there, through the worker's one delivery task and the sweep."""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from pbem import games, jobs
from pbem.notify import channels, push
from tests.worker.helpers import mails, table
from tests.worker.webhook_channel import WebhookChannel
from tests.support.net import ServedHTTP


class HookService(ServedHTTP):
    """A chat service's webhook endpoint on 127.0.0.1: keeps the JSON of each POST and answers 204."""

    def __init__(self):
        self.posts: list[tuple[str, dict]] = []
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - the http.server name
                body = self.rfile.read(int(self.headers["Content-Length"]))
                service.posts.append((self.path, json.loads(body)))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_port}"


@pytest.fixture
def hook_service(monkeypatch):
    monkeypatch.setenv("PBEM_OUTGOING_ALLOW", "127.0.0.1")  # the stub is inside the site
    with HookService() as running:
        yield running


@pytest.fixture
def webhook():
    """The webhook channel, registered as pbem.wiring registers mail and push (one `register`), for this test."""
    replaced = {c.name: c for c in channels.registered()}.get(WebhookChannel.name)  # the site's own webhooks
    channel = channels.register(WebhookChannel({}))
    yield channel
    channels.unregister(channel.name)
    if replaced is not None:
        channels.register(replaced)


def test_32_2_a_webhook_channel_in_one_module_gets_the_turn_through_the_one_delivery_task(db, memory_broker, worker_db,
                                                                                           hook_service, webhook):
    game_id, users = table(db)  # seat 0 (users[0]) to move
    webhook.hooks[users[1]] = f"{hook_service.base}/hooks/player1"
    memory_broker()
    games.submit(db, game_id, "take 1", user_id=users[0])  # the turn passes to seat 1
    posted = memory_broker()
    assert [args for name, args in posted if name == webhook.task] == [[users[1], game_id, 1]]
    # The mail channel took the same notice its own way: the turn mail, as before.
    turn_mail = [m.id for m in mails(db, "turn") if m.seq == 1]
    assert [args for name, args in posted if name == jobs.SEND_MAIL] == [turn_mail]

    task = worker_db.delivery_task(webhook)  # what the worker registers for each channel at its start
    assert task.name == "pbem.send_webhook"
    assert task(users[1], game_id, 1) == "sent"
    assert hook_service.posts == [("/hooks/player1", {"content": f"Your turn: Counters, game {game_id}: "
                                                                 f"Player 0 played take 1. Move 2 is yours."})]
    assert task(users[1], game_id, 1) == "already sent"  # a job delivered twice posts once
    games.submit(db, game_id, "take 1", user_id=users[1])  # seat 0's turn: nobody gave a hook for it
    assert [name for name, _ in memory_broker() if name == webhook.task] == []
    assert len(hook_service.posts) == 1


def test_32_2_a_change_that_rolls_back_tells_no_channel(db, memory_broker, webhook):
    game_id, users = table(db)
    webhook.hooks.update({users[0]: "http://127.0.0.1:9/", users[1]: "http://127.0.0.1:9/"})
    memory_broker()
    with pytest.raises(games.IllegalMoveError):
        games.submit(db, game_id, "take 9", user_id=users[0])
    assert memory_broker() == []


def test_32_2_the_sweep_posts_again_what_each_channel_says_is_due(db, memory_broker, worker_db, webhook):
    webhook.undone = [(7, 8, 9)]
    counts = worker_db.sweep()
    assert counts["webhook"] == 1 and counts["push"] == 0 and counts["mail"] == 0
    assert (webhook.task, [7, 8, 9]) in memory_broker()


def test_32_2_the_worker_delivers_mail_and_push_under_the_job_names_they_always_had(worker_db):
    """One delivery task, registered under each channel's name: the broker's messages of the code before
    (and the soak's task figures, task.pbem.send_mail) keep their names."""
    from worker.app import app

    assert [(c.name, c.task) for c in channels.registered()][:2] == [("mail", "pbem.send_mail"),
                                                                     ("push", push.SEND_PUSH)]
    assert push.SEND_PUSH == "pbem.send_push" and jobs.SEND_MAIL == "pbem.send_mail"
    for channel in channels.registered()[:2]:
        assert worker_db.delivery_task(channel).name == channel.task
        assert app.tasks[channel.task].name == channel.task
