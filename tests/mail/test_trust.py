"""Issue 19 (Trust), the mail items: one regression test per item, through the real doors.

Each test plays the hostile player of the security review against the SMTP listener on
loopback (or `pbem mail ingest`), and checks what docs/security.md says instead: a key acts
for one thing only, answers go to the registered address, forged bounces and forged senders
change nothing, the door is exactly-once and bounded.
"""

from __future__ import annotations

import smtplib
import threading
import time
from datetime import timedelta
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import make_msgid

import pytest
from click.testing import CliRunner
from sqlalchemy import func, select, update

from pbem import games, mailkeys
from pbem.cli import main
from pbem.mail import addresses, inbound, mime, outbound, turns
from pbem.models import Game, InboundMail, MailAddress, OutboundMail, User, utcnow
from pbem.notify import outbox
from tests.mail.conftest import command_address, compose, counters_game, verified_user
from tests.mail.smtp_world import MailWorld, text_of

STRANGER = "mallory@example.net"


@pytest.fixture
def world(db, settings):
    world = MailWorld(db, settings)
    yield world
    world.close()


def send(world: MailWorld, sender: str, to: str, body: str, subject: str = "Re: your turn", **kwargs) -> InboundMail:
    """One mail through the SMTP listener; returns its stored row (the listener answers after processing)."""
    message_id = kwargs.pop("message_id", None) or make_msgid(domain="example.org")
    world.send(sender, to, compose(sender, to, body, subject, message_id=message_id, **kwargs))
    with world.db.sessions() as s:
        return s.scalars(select(InboundMail).where(InboundMail.message_id == message_id)).one()


def begin(world: MailWorld, db):
    """A running counters game and seat 0's turn mail; returns (game id, {seat: email}, turn mail)."""
    game_id, by_seat = counters_game(db)
    turn = world.flush()[by_seat[0]][-1]
    return game_id, by_seat, turn


def user(db, email: str) -> User:
    with db.sessions() as s:
        return s.scalars(select(User).where(User.email == email)).one()


def version(db, game_id: int) -> int:
    with db.sessions() as s:
        return s.get(Game, game_id).version


def set_user(db, email: str, **fields) -> None:
    with db.transaction() as s:
        s.execute(update(User).where(User.email == email).values(**fields))


# --------------------------------------------------------------------------------------
# 1. An old reply address acts on commands other than moves


def test_19_1_an_old_reply_address_acts_on_nothing_and_resign_needs_the_current_key(world, db):
    game_id, by_seat, old_turn = begin(world, db)
    alice, bob = by_seat[0], by_seat[1]
    old_key = str(old_turn["Reply-To"])
    assert send(world, alice, old_key, "take 1").outcome == "done"
    bob_turn = world.flush()[bob][-1]
    assert send(world, bob, str(bob_turn["Reply-To"]), "take 1").outcome == "done"
    current = [m for m in world.flush()[alice] if str(m["X-Pbem-Move"]) == "3" and str(m["X-Pbem-Kind"]) == "turn"][-1]
    # The old key (move 1), from the seat's own address: no command of any kind acts through it.
    for body in ("/resign", "/board", "/notify none", "/fromcheck off", f"/join {game_id}", f"/start {game_id}"):
        assert send(world, alice, old_key, body).outcome == "stale", body
    assert games.view(db, game_id)["status"] == "running" and version(db, game_id) == 2
    assert (user(db, alice).notify, user(db, alice).from_check) == ("turn", True)
    # Settings never go through a game's key, even the current one.
    refused = send(world, alice, str(current["Reply-To"]), "/notify none\n/fromcheck off")
    assert refused.outcome == "failed" and user(db, alice).notify == "turn"
    # /resign through the current key, but from another address (From-check off): refused.
    set_user(db, alice, from_check=False)
    assert send(world, "alice.at.work@example.com", str(current["Reply-To"]), "/resign").outcome == "failed"
    assert games.view(db, game_id)["status"] == "running"
    # Through the current key from the seat's address it is done; the key is dead after that.
    assert send(world, alice, str(current["Reply-To"]), "/resign").outcome == "done"
    assert games.view(db, game_id)["status"] == "finished"


# --------------------------------------------------------------------------------------
# 2. From-check off hands a stranger the player's other games


def test_19_2_a_leaked_key_plays_one_turn_and_answers_go_to_the_registered_address(world, db):
    game_id, by_seat, turn = begin(world, db)
    alice, bob = by_seat[0], by_seat[1]
    other_id = games.create_game(db, "counters", user(db, alice).id, 2, {})  # Alice's other game
    games.join_game(db, other_id, user(db, bob).id)
    world.flush()
    set_user(db, alice, from_check=False)
    key = str(turn["Reply-To"])  # read by a stranger in a forwarded mail
    # No command mints a key for another game, or shows it, through this key.
    assert send(world, STRANGER, key, f"/board {other_id}").outcome == "failed"
    assert send(world, STRANGER, key, f"/moves {other_id}").outcome == "failed"
    # Without a key the stranger is an unknown address: a confirmation code, nothing about games.
    assert send(world, STRANGER, f"pbem@{world.settings.mail_domain}", f"/board {other_id}").outcome == "unverified"
    # The one turn of the leaked key can be played, and then the key is dead.
    assert send(world, STRANGER, key, "take 2").outcome == "done"
    assert send(world, STRANGER, key, "take 1").outcome == "stale"
    assert [m["notation"] for m in games.history(db, game_id)] == ["take 2"]
    mails = world.flush()
    to_stranger = mails.get(STRANGER, [])
    assert len(to_stranger) == 1 and "/confirm" in text_of(to_stranger[0])
    assert not any(f"game {other_id}" in text_of(m) or "pbem+" in text_of(m) for m in to_stranger)
    answers = [m for m in mails[alice] if str(m["Subject"]).startswith("Re:")]
    assert len(answers) == 4  # every answer about Alice's seat went to Alice
    assert all(f"pbem+{other_id}." not in text_of(m) + str(m["Reply-To"]) for m in answers)


# --------------------------------------------------------------------------------------
# 4. Forged bounces silence anyone, for good


def dsn(to: str, reported: str, message_id: str, status: str = "5.1.1") -> bytes:
    return (f"Return-Path: <>\r\nFrom: MAILER-DAEMON@mx.example.org\r\nTo: {to}\r\n"
            f"Subject: Undelivered Mail Returned to Sender\r\nMessage-ID: {message_id}\r\n"
            "MIME-Version: 1.0\r\nContent-Type: multipart/report; report-type=delivery-status; boundary=b\r\n\r\n"
            "--b\r\nContent-Type: text/plain\r\n\r\nYour mail could not be delivered.\r\n"
            "--b\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; mx.example.org\r\n\r\n"
            f"Final-Recipient: rfc822; {reported}\r\nAction: failed\r\nStatus: {status}\r\n--b--\r\n").encode()


def test_19_4_only_signed_bounces_count_once_per_mail_and_suppression_ends(world, db, settings):
    game_id, by_seat, turn = begin(world, db)
    alice = by_seat[0]
    domain = world.settings.mail_domain
    for n in range(5):  # unsigned DSNs naming Alice's address, to the plain address: nothing counts
        world.send("", f"pbem@{domain}", dsn(f"pbem@{domain}", alice, f"<forged.{n}@mx>"))
    with db.sessions() as s:
        assert s.get(MailAddress, alice) is None or s.get(MailAddress, alice).hard_bounces == 0
    with db.sessions() as s:
        turn_id = s.scalars(select(OutboundMail.id).where(OutboundMail.kind == "turn")).one()
    signed = mailkeys.encode_bounce(settings.secret_key, domain, turn_id)
    for n in range(3):  # the same signed bounce replayed: one mail bounced once
        world.send("", signed, dsn(signed, alice, f"<replayed.{n}@mx>"))
    with db.sessions() as s:
        assert s.get(MailAddress, alice).hard_bounces == 1 and s.get(MailAddress, alice).stopped_at is None
    with db.transaction() as s:  # two more of Alice's mails bounce: three different mails, mail stops
        ids = [outbox.queue(s, kind="move", recipient=alice, subject=f"m{n}", body="x") for n in range(2)]
        s.execute(update(OutboundMail).where(OutboundMail.id.in_(ids)).values(status="sent"))
    for outbox_id in ids:
        address = mailkeys.encode_bounce(settings.secret_key, domain, outbox_id)
        world.send("", address, dsn(address, alice, f"<real.{outbox_id}@mx>"))
    with db.sessions() as s:
        assert addresses.is_stopped(s, alice)
    # The player resumes by mail, with the command key...
    assert send(world, alice, command_address(db, world.settings, alice), "/notify resume").outcome == "done"
    with db.sessions() as s:
        assert not addresses.is_stopped(s, alice)
        assert s.get(MailAddress, alice).hard_bounces == 0
    # ... and pbem tries a stopped address again by itself after PBEM_SUPPRESSION_RETRY_DAYS.
    with db.transaction() as s:
        s.execute(update(MailAddress).where(MailAddress.address == alice).values(
            stopped_at=utcnow() - timedelta(days=settings.suppression_retry_days, minutes=1), hard_bounces=3))
        assert addresses.retry_suppressed(s, timedelta(days=settings.suppression_retry_days)) == [alice]
    with db.sessions() as s:
        row = s.get(MailAddress, alice)  # one more hard bounce stops it again at once
        assert row.stopped_at is None and row.hard_bounces == addresses.HARD_BOUNCE_LIMIT - 1


def test_19_4_a_suppressed_player_sees_it_on_the_settings_page_and_resumes(db, settings, monkeypatch):
    from pbem.web import create_app
    from tests.web.conftest import SECRET, login, make_user, post

    monkeypatch.setenv("PBEM_SECRET_KEY", SECRET)
    app = create_app({"DATABASE_URL": db.url, "TESTING": True, "SECRET_KEY": SECRET, "BASE_URL": "http://pbem.test"})
    try:
        make_user(db, "ann@example.org")
        client = app.test_client()
        login(client, "ann@example.org")
        assert 'id="mail-stopped"' not in client.get("/settings").get_data(as_text=True)
        with db.transaction() as s:
            for _ in range(addresses.HARD_BOUNCE_LIMIT):
                addresses.record_bounce(s, "ann@example.org", True, "550 5.1.1 no such user")
        page = client.get("/settings").get_data(as_text=True)
        assert 'id="mail-stopped"' in page and "550 5.1.1 no such user" in page and "/notify resume" in page
        assert post(client, "/settings/mail/resume", page="/settings").status_code == 302
        with db.sessions() as s:
            assert not addresses.is_stopped(s, "ann@example.org")
        assert 'id="mail-stopped"' not in client.get("/settings").get_data(as_text=True)
    finally:
        app.extensions["pbem_db"].dispose()


# --------------------------------------------------------------------------------------
# 5. A forged From alone runs commands


def test_19_5_a_forged_from_runs_nothing_and_the_owner_confirms_by_reply(world, db):
    game_id, by_seat, turn = begin(world, db)
    alice = by_seat[0]
    open_id = games.create_game(db, "counters", user(db, by_seat[1]).id, 2, {})
    plain = f"pbem@{world.settings.mail_domain}"
    # Anyone can write "From: alice": without a key nothing that changes anything is run.
    asked = send(world, alice, plain, f"/notify none\n/fromcheck off\n/join {open_id}")
    assert asked.outcome == "to_confirm"
    assert (user(db, alice).notify, user(db, alice).from_check) == ("turn", True)
    assert len(games.view(db, open_id)["seats"]) == 1
    request = world.flush()[alice][-1]  # the answer goes to Alice, whoever wrote
    assert "nothing was done yet" in text_of(request) and "/notify none" not in text_of(request)
    key = mailkeys.decode(str(request["Reply-To"]), world.settings.mail_domain)
    assert isinstance(key, mailkeys.RequestKey) and key.inbound_id == asked.id
    # The confirmation is taken from Alice's address only, and once.
    assert send(world, STRANGER, str(request["Reply-To"]), "yes").outcome == "forged_from"
    assert user(db, alice).notify == "turn"
    assert send(world, alice, str(request["Reply-To"]), "yes, do it").outcome == "done"
    assert (user(db, alice).notify, user(db, alice).from_check) == ("none", False)
    assert len(games.view(db, open_id)["seats"]) == 2
    assert send(world, alice, str(request["Reply-To"]), "again").outcome == "request_gone"
    # The command key takes commands from the owner's address only.
    assert send(world, STRANGER, command_address(db, world.settings, alice), "/notify every").outcome == "forged_from"
    assert user(db, alice).notify == "none"


def test_19_5_a_mail_that_failed_dmarc_is_refused_and_not_answered(world, db):
    game_id, by_seat, turn = begin(world, db)
    alice = by_seat[0]
    world.flush()
    verdict = "mx.pbem.test; spf=fail smtp.mailfrom=example.org; dkim=none; dmarc=fail (p=reject) header.from=example.org"
    for to, body in ((str(turn["Reply-To"]), "take 1"), (command_address(db, world.settings, alice), "/notify none")):
        row = send(world, alice, to, body, headers={"Authentication-Results": verdict})
        assert row.outcome == "dmarc_fail"
    assert version(db, game_id) == 0 and user(db, alice).notify == "turn"
    assert world.flush() == {}  # not answered: an answer would go to the forged address
    passed = verdict.replace("dmarc=fail", "dmarc=pass")
    assert send(world, alice, str(turn["Reply-To"]), "take 1", headers={"Authentication-Results": passed}
                ).outcome == "done"


def test_19_5_newkeys_kills_every_key_made_before(world, db):
    game_id, by_seat, turn = begin(world, db)
    alice = by_seat[0]
    old_command = command_address(db, world.settings, alice)
    assert send(world, alice, old_command, "/newkeys").outcome == "done"
    answer = [m for m in world.flush()[alice] if str(m["Subject"]).startswith("Re:")][-1]
    new_command = command_address(db, world.settings, alice)
    assert new_command != old_command and str(answer["Reply-To"]) == new_command
    new_turn = text_of(answer).split("Send your move to ")[1].split()[0]  # the new key of the turn, in the text
    assert new_turn != str(turn["Reply-To"])
    assert send(world, alice, old_command, "/notify none").outcome == "bad_token"
    assert send(world, alice, str(turn["Reply-To"]), "take 1").outcome == "bad_token"
    assert user(db, alice).notify == "turn" and version(db, game_id) == 0
    assert send(world, alice, new_turn, "take 1").outcome == "done"
    assert send(world, alice, new_command, "/notify none").outcome == "done"


def test_19_5_a_new_password_kills_the_command_key_of_old_mails(world, db):
    """docs/security.md: a command key lives until the user's nonce changes, and a new password changes it."""
    from pbem import accounts

    alice = "alice@example.org"
    user_id = verified_user(db, alice)
    with db.transaction() as s:
        s.get(User, user_id).password_hash = accounts.hash_password("an old password here")
    old_command = command_address(db, world.settings, alice)
    accounts.change_password(db, user_id, "an old password here", "a brand new password", keep_session=None)
    assert command_address(db, world.settings, alice) != old_command
    assert send(world, alice, old_command, "/notify none").outcome == "bad_token"
    assert user(db, alice).notify == "turn"
    assert send(world, alice, command_address(db, world.settings, alice), "/notify none").outcome == "done"


# --------------------------------------------------------------------------------------
# 7. An 8.5 MB HTML mail costs 9 s of CPU


def test_19_7_html_is_parsed_only_up_to_the_cap(world, db, monkeypatch):
    import lxml.html

    game_id, by_seat, turn = begin(world, db)
    parsed = []
    real = lxml.html.fromstring

    def spy(html, *args, **kwargs):
        parsed.append(len(html))
        return real(html, *args, **kwargs)

    monkeypatch.setattr(lxml.html, "fromstring", spy)
    html = "<html><body><div>take 2</div>" + "<p>padding padding padding</p>\n" * 290_000 + "</body></html>"
    assert len(html) > 8_500_000
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = by_seat[0], str(turn["Reply-To"]), "Re: your turn"
    message["Message-ID"] = make_msgid(domain="example.org")
    message.set_content(html, subtype="html", cte="8bit")
    world.send(by_seat[0], str(turn["Reply-To"]), message.as_bytes(policy=policy.SMTP))
    assert [m["notation"] for m in games.history(db, game_id)] == ["take 2"]
    assert parsed and max(parsed) <= mime.MAX_HTML_CHARS


# --------------------------------------------------------------------------------------
# 8. Unlimited mail to any address


def test_19_8_a_stranger_gets_one_code_an_hour_and_never_their_subject_back(world, db):
    plain = f"pbem@{world.settings.mail_domain}"
    victim = "victim@example.org"  # no account: someone writes with this From
    for n in range(4):
        send(world, victim, plain, "/games", subject=f"BUY CHEAP PILLS {n} http://spam.example")
    mails = world.flush().get(victim, [])
    assert len(mails) == 1 and "/confirm" in text_of(mails[0])
    assert "PILLS" not in str(mails[0]["Subject"]) and "spam" not in text_of(mails[0])
    with db.sessions() as s:
        assert s.scalars(select(User).where(User.email == victim)).first() is None


def test_19_8_answers_to_an_address_are_limited_whoever_writes(db, settings):
    world = MailWorld(db, settings, rate_per_hour=3)
    try:
        game_id, by_seat, turn = begin(world, db)
        alice = by_seat[0]
        set_user(db, alice, from_check=False)
        key = str(turn["Reply-To"])
        outcomes = [send(world, f"sender{n}@example.net", key, "/board").outcome for n in range(6)]
        assert outcomes == ["done"] * 3 + ["rate_limited"] * 3
        answers = world.flush()[alice]
        assert len([m for m in answers if str(m["Subject"]).startswith("Re:")]) == 4
        assert "only notice" in text_of(answers[-1])
    finally:
        world.close()


def test_19_8_the_smtp_door_says_the_same_for_known_and_unknown_senders(world, db):
    import smtplib

    verified_user(db, "known@example.org")
    replies = []
    for sender in ("known@example.org", "unknown@example.org"):
        with smtplib.SMTP("127.0.0.1", world.listener.port, timeout=30) as client:
            client.ehlo()
            replies.append((client.mail(sender)[0], client.rcpt(f"pbem@{world.settings.mail_domain}")[0],
                            client.data(compose(sender, "pbem@pbem.test", "/games"))[0]))
    assert replies[0] == replies[1] == (250, 250, 250)


# --------------------------------------------------------------------------------------
# 9. Poison outbox rows


def test_19_9_a_mail_that_cannot_be_built_ends_as_failed_and_is_listed(world, db, settings):
    game_id, by_seat, turn = begin(world, db)
    # A folded Message-ID is cleaned where it enters: its answer is built and sent.
    raw = compose(by_seat[1], "pbem@pbem.test", "/games").replace(b"Message-ID: <", b"Message-ID: <fold\r\n ed.")
    world.send(by_seat[1], "pbem@pbem.test", raw)
    with db.sessions() as s:
        stored = s.scalars(select(InboundMail).where(InboundMail.message_id.like("<fold%"))).one()
        assert "\n" not in stored.message_id and "\r" not in stored.message_id
    world.flush()  # raises unless every answer was built and sent
    # Display names and subjects with line breaks are cleaned by the outbox.
    with db.transaction() as s:
        clean = outbox.queue(s, kind="late", recipient=by_seat[1], subject="Eve\r\nBcc: all@example.org is late",
                             body="late")
    # A row written past the outbox with a header that cannot be written: failed at once, with the reason.
    with db.transaction() as s:
        poison = OutboundMail(kind="reply", recipient="bob@example.org\r\nBcc: all@example.org", subject="x",
                              body_text="x", headers={}, attachments=[], status="pending", attempts=0,
                              created_at=utcnow())
        s.add(poison)
        s.flush()
        poison_id = poison.id
    assert outbound.deliver(db, clean, world.settings) == "sent"
    late = BytesParser(policy=policy.default).parsebytes(world.sink.mails[-1][1])
    assert late["Bcc"] is None and str(late["Subject"]) == "Eve Bcc: all@example.org is late"
    assert outbound.deliver(db, poison_id, world.settings) == "failed"
    assert poison_id not in outbound.due_ids(db, 0)  # never retried
    env = {"PBEM_DATABASE_URL": db.url, "PBEM_DATA_DIR": str(settings.data_dir), "PBEM_SECRET_KEY": "x"}
    listed = CliRunner().invoke(main, ["mail", "failed"], env=env)
    assert listed.exit_code == 0 and f"{poison_id}\t" in listed.output and "could not be built" in listed.output


# --------------------------------------------------------------------------------------
# 10. Exactly-once under concurrency


def answers_to(db, message_id: str) -> int:
    with db.sessions() as s:
        rows = s.scalars(select(OutboundMail.headers).where(OutboundMail.kind == "reply")).all()
    return sum(1 for hints in rows if hints.get("in_reply_to") == message_id)


def test_19_10_a_slow_first_delivery_and_a_copy_that_takes_it_over_answer_once(world, db, monkeypatch):
    """The race of bench/soak.py: a copy took over a message whose first processing was only slow
    (longer than PROCESSING_WAIT), and both answered. Now only the holder of the claim answers."""
    game_id, by_seat, turn = begin(world, db)
    monkeypatch.setattr(inbound, "PROCESSING_WAIT", timedelta(seconds=0.3))
    real_submit, calls = games.submit, []
    first_reading, copy_done = threading.Event(), threading.Event()

    def slow_first(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:  # the first delivery is slow: it plays only once the copy has taken the message over
            first_reading.set()
            copy_done.wait(30)
            return real_submit(*args, **kwargs)
        try:
            return real_submit(*args, **kwargs)
        finally:
            copy_done.set()

    monkeypatch.setattr(turns.games, "submit", slow_first)
    raw = compose(by_seat[0], str(turn["Reply-To"]), "take 2", message_id="<twice@example.org>")
    first = threading.Thread(target=world.send, args=(by_seat[0], str(turn["Reply-To"]), raw))
    first.start()
    assert first_reading.wait(30)
    world.send(by_seat[0], str(turn["Reply-To"]), raw)
    first.join()
    assert [m["notation"] for m in games.history(db, game_id)] == ["take 2"]
    assert answers_to(db, "<twice@example.org>") == 1


def test_19_10_copies_that_find_a_dead_processing_take_it_over_once(pg_db, settings, monkeypatch):
    """On PostgreSQL, where deliveries run side by side (SQLite serialises every writing transaction)."""
    db, world = pg_db, MailWorld(pg_db, settings)
    try:
        copies_take_over_once(world, db, settings, monkeypatch)
    finally:
        world.close()


def copies_take_over_once(world, db, settings, monkeypatch):
    """A /new (no idempotency key of its own) whose processing died: taken over by one copy only."""
    ann = "ann@example.org"
    verified_user(db, ann)
    to = command_address(db, world.settings, ann)
    raw = compose(ann, to, "/new counters players=2", message_id="<dead@example.org>")
    with db.transaction() as s:  # a first delivery that died half-way a while ago
        old = utcnow() - inbound.PROCESSING_WAIT - timedelta(seconds=1)
        s.add(InboundMail(message_id="<dead@example.org>", sender=ann, raw=raw, outcome="processing",
                          received_at=old, claim="dead", claimed_at=old))
    # The worst interleaving: every copy has found the processing dead before any takes it over
    # (the takeover's UPDATE is the only `update(` the door builds while it runs).
    copies = 4
    together = threading.Barrier(copies, timeout=20)
    real_update = inbound.update

    def update_together(*args, **kwargs):
        together.wait()
        return real_update(*args, **kwargs)

    monkeypatch.setattr(inbound, "update", update_together)
    # Three copies through the SMTP listener, one through `pbem mail ingest`, at the same time.
    env = {"PBEM_DATABASE_URL": db.url, "PBEM_DATA_DIR": str(settings.data_dir),
           "PBEM_SECRET_KEY": settings.secret_key, "PBEM_MAIL_DOMAIN": settings.mail_domain, "PBEM_SMTP_URL": "outbox:"}
    threads = [threading.Thread(target=world.send, args=(ann, to, raw)) for _ in range(copies - 1)]
    for thread in threads:
        thread.start()
    ingested = CliRunner().invoke(main, ["mail", "ingest"], input=raw, env=env)
    for thread in threads:
        thread.join()
    assert ingested.exit_code == 0 and ingested.output.split(":")[0] in ("done", "duplicate"), ingested.output
    assert len(games.list_games(db)) == 1  # one table, not one per copy
    assert answers_to(db, "<dead@example.org>") == 1
    with db.sessions() as s:
        row = s.scalars(select(InboundMail).where(InboundMail.message_id == "<dead@example.org>")).one()
        assert row.outcome == "done"


# --------------------------------------------------------------------------------------
# 11. Users for malformed addresses; raw mail kept forever


def test_19_11_no_user_for_a_malformed_address_and_raw_mail_is_kept_for_a_time(world, db, settings):
    plain = f"pbem@{world.settings.mail_domain}"
    for sender in ("not an address", "a@b", "x@@example.org", "<>", "bob@exa_mple.org", "Bob <bob@example>"):
        raw = compose("placeholder@example.org", plain, "/games").replace(b"placeholder@example.org", sender.encode())
        with pytest.raises(smtplib.SMTPDataError) as refused:  # refused for good (issue 31, item 2), and kept
            world.send("probe@example.org", plain, raw)
        assert refused.value.smtp_code == 554
    with db.sessions() as s:
        assert s.scalar(select(func.count()).select_from(User)) == 0
        outcomes = set(s.scalars(select(InboundMail.outcome)))
    assert outcomes == {"malformed"}
    assert world.flush() == {}
    # Raw mail is kept PBEM_INBOUND_KEEP_DAYS, then deleted (the outcome row stays).
    with db.transaction() as s:
        s.execute(update(InboundMail).where(InboundMail.id == 1).values(
            received_at=utcnow() - timedelta(days=settings.inbound_keep_days, hours=1)))
    assert inbound.forget_raw(db, timedelta(days=settings.inbound_keep_days)) == 1
    with db.sessions() as s:
        rows = {row.id: row for row in s.scalars(select(InboundMail))}
        assert rows[1].raw is None and rows[1].outcome == "malformed"
        assert all(row.raw for key, row in rows.items() if key != 1)


# --------------------------------------------------------------------------------------
# Issue 24: the language, chosen by mail like the other settings (a command key, never a turn key)


def test_24_language_by_mail_needs_the_command_key_and_names_the_languages(world, db):
    game_id, by_seat, turn = begin(world, db)
    alice = by_seat[0]
    assert send(world, alice, str(turn["Reply-To"]), "/language de").outcome != "done"  # a turn key changes no setting
    assert user(db, alice).language == "en"
    command = command_address(db, world.settings, alice)
    assert send(world, alice, command, "/language DE").outcome == "done"
    assert user(db, alice).language == "de"
    refused = send(world, alice, command, "/language es")
    assert refused.outcome == "failed" and user(db, alice).language == "de"
    answer = text_of([m for m in world.flush()[alice] if str(m["Subject"]).startswith("Re:")][-1])
    # Alice's language is German now, so the refusal is written in German (the mail step of issue 24).
    assert "'es' ist keine Sprache von pbem" in answer and "de (Deutsch)" in answer and "fr (Français)" in answer
