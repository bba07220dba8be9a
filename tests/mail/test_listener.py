"""The SMTP listener on loopback, and whole games played by email only, from /new to the final scores."""

from __future__ import annotations

import random
import re
import smtplib
import time

import pytest

import engine
from pbem import games
from pbem.db import Database
from pbem.models import InboundMail
from tests.mail.conftest import compose, counters_game, deliver_all, reply_to
from tests.mail.smtp_world import MailWorld, Player, legal_moves, text_of

# Options that keep a random game short enough for the test budget (every option is a real one).
SHORT = {"counters": "pile=12", "tapaono": "mode=free markers=5 stars_to_win=1"}
MAX_DECISIONS = 1500


def available_titles() -> list[str]:
    titles = []
    for name in engine.names():
        try:
            engine.get(name).setup(2, {}, 1)
        except Exception:  # an engine still being written: not there yet
            continue
        titles.append(name)
    return titles


@pytest.fixture
def world(db, settings):
    world = MailWorld(db, settings)
    yield world
    world.close()


def test_unknown_recipients_are_refused_at_rcpt(world):
    with smtplib.SMTP("127.0.0.1", world.listener.port, timeout=30) as client:
        client.ehlo()
        client.mail("someone@example.org")
        code, _ = client.rcpt("postmaster@elsewhere.example")
        assert code == 550
        code, _ = client.rcpt("pbem-nobody@pbem.test")
        assert code == 550
        code, _ = client.rcpt("pbem+1.0.0.abc@pbem.test")
        assert code == 250


def test_an_over_size_message_is_refused_at_data(world, db):
    raw = compose("alice@example.org", "pbem@pbem.test", "take 1\n") + (b"y" * 76 + b"\r\n") * (20 * 1024 * 1024 // 78)
    with smtplib.SMTP("127.0.0.1", world.listener.port, timeout=60) as client:
        client.ehlo()
        client.mail("alice@example.org")  # no SIZE= announced: the listener must stop it at DATA
        assert client.rcpt("pbem@pbem.test")[0] == 250
        code, _ = client.data(raw)
        assert code == 552
    with pytest.raises(smtplib.SMTPSenderRefused) as refused:  # SIZE announced: refused at MAIL FROM
        world.send("alice@example.org", "pbem@pbem.test", raw)
    assert refused.value.smtp_code == 552
    with db.sessions() as s:
        assert s.query(InboundMail).count() == 0


def test_a_move_over_smtp_is_applied_once(world, db, settings):
    game_id, by_seat = counters_game(db)
    turn = deliver_all(db, settings)[0]
    raw = compose(by_seat[0], reply_to(turn), "take 3")
    world.send(by_seat[0], reply_to(turn), raw)
    world.send(by_seat[0], reply_to(turn), raw)  # the MTA delivered it twice
    assert [m["notation"] for m in games.history(db, game_id)] == ["take 3"]


def play_by_mail(world: MailWorld, title: str, seed: int) -> tuple[int, dict]:
    """Two bots start a game with /new and /join and play it to the end by replying to their mails."""
    rng = random.Random(seed)
    players = [Player(f"{name}.{title}@players.example.org", random.Random(seed + i))
               for i, name in enumerate(("ann", "bob"))]
    by_address = {p.address: p for p in players}

    def deliver():
        for address, mails in world.flush().items():
            by_address[address].inbox.extend(mails)

    def confirm(player):
        deliver()
        code = re.search(r"/confirm (\w+)", text_of(player.inbox[-1]))[1]
        player.write(world, f"/confirm {code}")
        deliver()
        assert "is confirmed" in text_of(player.inbox[-1])
        player.command = str(player.inbox[-1]["Reply-To"])  # where commands go from now on

    ann, bob = players
    ann.write(world, "", subject=f"/new {title} players=2 {SHORT.get(title, '')}".strip())
    confirm(ann)
    ann.write(world, f"/new {title} players=2 {SHORT.get(title, '')}".strip())
    deliver()
    game_id = int(re.search(r"Game (\d+) \(", text_of(ann.inbox[-1]))[1])
    bob.write(world, f"/join {game_id}")
    confirm(bob)
    bob.write(world, f"/join {game_id}")
    deliver()
    replies = 0
    deadline = time.monotonic() + 600
    while not all(any(str(m["X-Pbem-Kind"]) == "result" for m in p.inbox) for p in players):
        assert replies < MAX_DECISIONS and time.monotonic() < deadline, f"{title}: no end after {replies} moves"
        waiting = [(p, p.to_play()) for p in players]
        waiting = [(p, m) for p, m in waiting if m is not None]
        assert len(waiting) == 1, (f"{title}: {len(waiting)} players asked to move after {replies} moves; last mails: "
                                   + " || ".join(text_of(p.inbox[-1])[:1500] for p in players if p.inbox))
        player, message = waiting[0]
        move = rng.choice(legal_moves(message))
        player.inbox.clear()  # what is answered is done with
        player.reply(world, message, move)
        replies += 1
        deliver()
    return game_id, {p.address: p for p in players}, replies


def check_finished_by_mail(db, game_id, players, replies):
    data = games.view(db, game_id)
    assert data["status"] == "finished" and data["seed"]
    history = games.history(db, game_id)
    assert len([m for m in history if m["source"] == "email"]) == replies
    assert all(m["source"] in ("email", "auto") for m in history)
    for player in players.values():
        result = [m for m in player.inbox if str(m["X-Pbem-Kind"]) == "result"]
        assert len(result) == 1
        body = text_of(result[0])
        assert "Final scores" in body and data["seed"] in body


def test_a_whole_counters_game_by_email_only(db, settings):
    world = MailWorld(db, settings)
    try:
        game_id, players, replies = play_by_mail(world, "counters", seed=3)
    finally:
        world.close()
    check_finished_by_mail(db, game_id, players, replies)


@pytest.fixture
def quick_pg_db(pg_db):
    """The PostgreSQL test database without waiting for the disk at each commit (a test-speed
    setting of the session, not of pbem: what is committed and in what order is unchanged)."""
    database = Database(pg_db.url, connect_args={"options": "-c synchronous_commit=off"})
    yield database
    database.dispose()


@pytest.mark.parametrize("title", [t for t in available_titles() if t != "counters"])
def test_a_whole_game_by_email_only(quick_pg_db, title, settings):
    """Every real title registered now, on PostgreSQL (the production database)."""
    world = MailWorld(quick_pg_db, settings)
    try:
        game_id, players, replies = play_by_mail(world, title, seed=11)
    finally:
        world.close()
    check_finished_by_mail(quick_pg_db, game_id, players, replies)


def test_the_listener_speaks_lmtp_for_an_mta_in_front(db, settings):
    from pbem.mail import listener

    game_id, by_seat = counters_game(db)
    turn = deliver_all(db, settings)[0]
    controller = listener.start(db, settings, "127.0.0.1", 0, lmtp=True)
    try:
        with smtplib.LMTP("127.0.0.1", controller.port) as client:
            client.sendmail(by_seat[0], [reply_to(turn)], compose(by_seat[0], reply_to(turn), "draw"))
    finally:
        controller.stop()
    assert [m["notation"] for m in games.history(db, game_id)] == ["draw"]
