"""outbound.deliver: one outbox row through real SMTP on loopback, or into the outbox folder."""

from __future__ import annotations

import dataclasses
import smtplib
import socket
from email import policy
from email.parser import BytesParser

import pytest
from sqlalchemy import select

import engine
from pbem import games
from pbem.mail import outbound
from pbem import mailkeys
from pbem.models import MailAddress, OutboundMail
from tests.mail.conftest import command_address, counters_game, verified_user
from tests.mail.smtp_world import Sink, SinkController
from tests.support.smtp import KernelPortController


@pytest.fixture
def sink():
    sink = Sink()
    controller = SinkController(sink, hostname="127.0.0.1", port=0)
    controller.start()
    sink.port = controller.port
    yield sink
    controller.stop()


class Refusing:
    """An SMTP server that refuses every recipient with the given code (and enhanced status and text)."""

    def __init__(self, code: int, text: str | None = None):
        self.code = code
        self.text = text or ("5.1.1 User unknown" if code >= 500 else "4.2.1 Mailbox busy, try later")

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        return f"{self.code} {self.text}"


def pending(db) -> list[OutboundMail]:
    with db.sessions() as s:
        return list(s.scalars(select(OutboundMail).order_by(OutboundMail.id)))


def smtp_settings(settings, port: int):
    return dataclasses.replace(settings, smtp_url=f"smtp://127.0.0.1:{port}")


def test_a_turn_mail_goes_out_over_smtp_once(db, settings, sink):
    game_id, by_seat = counters_game(db)
    row = pending(db)[0]
    target = smtp_settings(settings, sink.port)
    assert outbound.deliver(db, row.id, target) == "sent"
    assert outbound.deliver(db, row.id, target) == "already sent"
    assert len(sink.mails) == 1
    rcpts, raw = sink.mails[0]
    assert rcpts == [by_seat[0]]
    message = BytesParser(policy=policy.default).parsebytes(raw)
    assert str(message["Subject"]) == f"[pbem #{game_id} Counters] game {game_id}"
    assert (str(message["X-Pbem-Kind"]), str(message["X-Pbem-Move"])) == ("turn", "1")
    # The first mail of the game to this address is the root of its thread (issue 33, item 10).
    assert str(message["Message-ID"]).startswith(f"<pbem.game.{game_id}.") and message["References"] is None
    assert str(message["Auto-Submitted"]) == "auto-generated" and f"mailto:{command_address(db, settings, by_seat[0])}?" \
        in str(message["List-Unsubscribe"])
    token = mailkeys.decode_reply(str(message["Reply-To"]), "pbem.test")
    assert (token.game_id, token.seat, token.seq) == (game_id, 0, 0)
    body = message.get_body(("plain",)).get_content()
    assert f"https://pbem.example/games/{game_id}" in body and "{base_url}" not in body
    with db.sessions() as s:
        stored = s.get(OutboundMail, row.id)
        assert (stored.status, stored.attempts, stored.message_id) == ("sent", 1, str(message["Message-ID"]))


def test_the_embedded_outbox_writes_eml_files(db, settings):
    counters_game(db)
    row = pending(db)[0]
    assert outbound.deliver(db, row.id, settings) == "sent"
    path = settings.data_dir / "outbox" / f"{row.id:08d}.eml"
    assert b"X-Pbem-Move: 1" in path.read_bytes()


def test_a_server_that_is_down_is_a_transient_error_counted_on_the_row(db, settings):
    counters_game(db)
    row = pending(db)[0]
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(outbound.TransientMailError):
        outbound.deliver(db, row.id, smtp_settings(settings, port))
    with db.sessions() as s:
        stored = s.get(OutboundMail, row.id)
        assert (stored.status, stored.attempts) == ("pending", 1) and "Connection" in stored.last_error
    assert outbound.due_ids(db) == [row.id]


def test_4xx_is_retried_and_5xx_fails_and_counts_as_a_bounce(db, settings):

    counters_game(db)
    row = pending(db)[0]
    for code, expected in ((451, None), (550, "failed")):
        controller = KernelPortController(Refusing(code))
        controller.start()
        try:
            if expected is None:
                with pytest.raises(outbound.TransientMailError, match="451"):
                    outbound.deliver(db, row.id, smtp_settings(settings, controller.port))
            else:
                assert outbound.deliver(db, row.id, smtp_settings(settings, controller.port)) == expected
        finally:
            controller.stop()
    with db.sessions() as s:
        stored = s.get(OutboundMail, row.id)
        assert (stored.status, stored.attempts) == ("failed", 2) and "550" in stored.last_error
        assert s.get(MailAddress, stored.recipient).hard_bounces == 1


@pytest.mark.parametrize("text, hard", [
    ("5.7.1 Message rejected as spam by content filter", False), ("5.7.26 Unauthenticated email is not accepted", False),
    ("5.4.1 Recipient address rejected: Access denied", False), ("Rejected", False),
    ("5.1.1 <bob@example.org>: Recipient address rejected: User unknown", True),
    ("5.2.1 The email account that you tried to reach is disabled", True)])
def test_31_8_only_a_refusal_for_the_mailbox_counts_as_a_hard_bounce_of_the_relay(db, settings, text, hard):
    """Issue 31, item 8: a policy refusal (a spam filter that dislikes a player's name in the mail) ends that
    mail, listed for the operator, but never counts toward stopping the notifications to the address."""

    counters_game(db)
    row = pending(db)[0]
    controller = KernelPortController(Refusing(550, text))
    controller.start()
    try:
        assert outbound.deliver(db, row.id, smtp_settings(settings, controller.port)) == "failed"
    finally:
        controller.stop()
    assert [failed.id for failed in outbound.failed_rows(db)] == [row.id]
    with db.sessions() as s:
        address = s.get(MailAddress, s.get(OutboundMail, row.id).recipient)
        assert (address is not None and address.hard_bounces == 1) == hard


def test_smtp_urls_are_read():
    assert outbound.parse_smtp_url("outbox:").scheme == "outbox"
    target = outbound.parse_smtp_url("smtp+starttls://me%40x.org:p%3Ass@relay.example:2587")
    assert (target.scheme, target.host, target.port, target.user, target.password) == (
        "smtp+starttls", "relay.example", 2587, "me@x.org", "p:ss")
    assert outbound.parse_smtp_url("smtps://relay.example").port == 465
    with pytest.raises(ValueError):
        outbound.parse_smtp_url("http://relay.example")


def test_a_turn_mail_carries_the_board_picture_inline(db, settings):
    pytest.importorskip("pbem.boards")
    from pbem import boards

    titles = [t for t in ("tongiaki", "discovery", "tapaono") if t in engine.names() and boards.can_render(t)]
    assert titles == ["tongiaki", "discovery", "tapaono"], "every title has an engine and a renderer"
    ids = [verified_user(db, e) for e in ("pat@example.org", "quinn@example.org")]
    game_id = games.create_game(db, titles[0], ids[0], 2)
    games.join_game(db, game_id, ids[1])
    row = next(r for r in pending(db) if r.kind == "turn")
    assert outbound.deliver(db, row.id, settings) == "sent"
    message = BytesParser(policy=policy.default).parsebytes(
        (settings.data_dir / "outbox" / f"{row.id:08d}.eml").read_bytes())
    assert message.get_content_type() == "multipart/alternative"
    plain, related = message.get_payload()
    assert plain.get_content_type() == "text/plain" and related.get_content_type() == "multipart/related"
    html, picture = related.get_payload()
    assert picture.get_content_type() == "image/png" and picture.get_content()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f'cid:{str(picture["Content-ID"]).strip("<>")}' in html.get_content()


def test_imap_urls_are_read():
    from pbem.mail import imap

    target = imap.parse_imap_url("imaps://me%40example.org:s3cret@imap.example.org/Games")
    assert (target.host, target.port, target.tls, target.user, target.password, target.folder) == (
        "imap.example.org", 993, True, "me@example.org", "s3cret", "Games")
    assert imap.parse_imap_url("imap://me:pw@localhost").folder == "INBOX"
    with pytest.raises(ValueError):
        imap.parse_imap_url("pop3://me@localhost")
