"""Fixtures of the mail tests: settings with a known secret, players, mails in and out."""

from __future__ import annotations

import dataclasses
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import make_msgid

import pytest
from sqlalchemy import select

from pbem import accounts, mailkeys
from pbem import config, games
from pbem.mail import inbound, outbound
from pbem.models import OutboundMail, Seat, User

DOMAIN = "pbem.test"
SEED = 20261122


@pytest.fixture
def settings(tmp_path):
    return config.load({"PBEM_DATA_DIR": str(tmp_path / "data"), "PBEM_SECRET_KEY": "test-secret-key",
                        "PBEM_MAIL_DOMAIN": DOMAIN, "PBEM_SMTP_URL": "outbox:",
                        "PBEM_BASE_URL": "https://pbem.example"})


def with_rate(settings, per_hour: int):
    return dataclasses.replace(settings, mail_rate_per_hour=per_hour)


def verified_user(db, email: str, name: str | None = None, **fields) -> int:
    with db.transaction() as s:
        user = accounts.get_or_create_user(s, email, name)
        user.email_verified = True
        for key, value in fields.items():
            setattr(user, key, value)
        return user.id


def command_address(db, settings, email: str) -> str:
    """The user's command address (the key for commands about their account and tables)."""
    with db.sessions() as s:
        user = s.scalars(select(User).where(User.email == email)).one()
        return mailkeys.encode_command(settings.secret_key, settings.mail_domain, user.id, user.mail_nonce)


def counters_game(db, emails=("alice@example.org", "bob@example.org"), options=None, seed=SEED):
    """A running counters game with a known seed; returns (game id, {seat number: email})."""
    ids = [verified_user(db, e) for e in emails]
    game_id = games.create_game(db, "counters", ids[0], 4, options or {})
    for uid in ids[1:]:
        games.join_game(db, game_id, uid)
    games.start_game(db, game_id, ids[0], seed=seed)
    with db.sessions() as s:
        seats = s.scalars(select(Seat).where(Seat.game_id == game_id)).all()
        return game_id, {seat.number: s.get(User, seat.user_id).email for seat in seats}


def deliver_all(db, settings) -> list:
    """Send every pending outbox row (to the outbox folder) and return the parsed mails, oldest first."""
    with db.sessions() as s:
        ids = list(s.scalars(select(OutboundMail.id).where(OutboundMail.status == "pending")
                             .order_by(OutboundMail.id)))
    mails = []
    for outbox_id in ids:
        assert outbound.deliver(db, outbox_id, settings) == "sent"
        raw = (settings.data_dir / "outbox" / f"{outbox_id:08d}.eml").read_bytes()
        mails.append(BytesParser(policy=policy.default).parsebytes(raw))
    return mails


def mail_text(message) -> str:
    return message.get_body(("plain",)).get_content().replace("\r\n", "\n")


def reply_to(message) -> str:
    return str(message["Reply-To"])


def compose(sender: str, to: str, body: str, subject: str = "Re: your turn", headers: dict | None = None,
            message_id: str | None = None) -> bytes:
    message = EmailMessage()
    message["From"] = sender
    message["To"] = to
    message["Subject"] = subject
    message["Message-ID"] = message_id or make_msgid(domain="example.org")
    for key, value in (headers or {}).items():
        message[key] = value
    message.set_content(body)
    return message.as_bytes(policy=policy.SMTP)


def receive(db, settings, raw: bytes, **kwargs) -> inbound.Received:
    return inbound.receive(db, raw, settings, **kwargs)
