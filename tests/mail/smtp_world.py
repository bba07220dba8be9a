"""Games by email only, over real SMTP on loopback: our listener in, a capturing SMTP server out.

`MailWorld` starts pbem's listener and an SMTP sink that PBEM_SMTP_URL points at; `flush`
plays the worker (outbound.deliver for every pending row, through SMTP to the sink) and
returns the mails each player received. `Player` is a bot that answers like a mail client:
it replies to the newest mail that lists its legal moves, with one move taken from that
list, the original quoted below.
"""

from __future__ import annotations

import dataclasses
import random
import smtplib
from email import policy
from email.parser import BytesParser

from sqlalchemy import select

from pbem.mail import listener, outbound
from pbem.models import OutboundMail
from tests.support.mail import client_mail, listed_moves, text_of
from tests.support.smtp import KernelPortController, SmtpSink

Sink = SmtpSink  # the name tests/mail/test_outbound.py knows it by
SinkController = KernelPortController
PLAYERS_DOMAIN = "players.example.org"  # the players' Message-IDs
__all__ = ["MailWorld", "Player", "Sink", "SinkController", "legal_moves", "text_of"]


class MailWorld:
    def __init__(self, db, settings, rate_per_hour: int = 1_000_000):
        self.sink = SmtpSink()
        self.sink.start()
        # Bots answer at machine speed: the per-address rate limit is for people (tested on its own).
        self.settings = dataclasses.replace(settings, smtp_url=self.sink.url, mail_rate_per_hour=rate_per_hour)
        self.db = db
        self.listener = listener.start(db, self.settings, "127.0.0.1", 0)
        self.seen = 0

    def close(self):
        self.listener.stop()
        self.sink.stop()

    def send(self, sender: str, recipient: str, raw: bytes) -> None:
        with smtplib.SMTP("127.0.0.1", self.listener.port, timeout=60) as client:
            client.sendmail(sender, [recipient], raw)

    def flush(self) -> dict[str, list]:
        """Send the outbox (as the worker would) and return the new mails by recipient."""
        with self.db.sessions() as s:
            ids = list(s.scalars(select(OutboundMail.id).where(OutboundMail.status == "pending")
                                 .order_by(OutboundMail.id)))
        for outbox_id in ids:
            status = outbound.deliver(self.db, outbox_id, self.settings)
            if status != "sent":
                with self.db.sessions() as s:
                    row = s.get(OutboundMail, outbox_id)
                    raise AssertionError((outbox_id, status, row.recipient, row.last_error))
        with self.sink.lock:
            new, self.seen = self.sink.mails[self.seen:], len(self.sink.mails)
        out: dict[str, list] = {}
        for rcpts, raw in new:
            message = BytesParser(policy=policy.default).parsebytes(raw)
            for rcpt in rcpts:
                out.setdefault(rcpt, []).append(message)
        return out


def legal_moves(message) -> list[str]:
    """The moves a mail lists under 'Your legal moves', as a player would copy them."""
    return listed_moves(text_of(message))


@dataclasses.dataclass
class Player:
    address: str
    rng: random.Random
    inbox: list = dataclasses.field(default_factory=list)
    command: str | None = None  # the command address, once the welcome mail gave it

    def reply(self, world: MailWorld, message, body: str) -> None:
        """Answer a mail as a mail client does: Re: subject, threading headers, the original quoted."""
        to = str(message["Reply-To"])
        _, raw = client_mail(self.address, to, "Re: " + str(message["Subject"]), body, PLAYERS_DOMAIN,
                             reply_to=message)
        world.send(self.address, to, raw)

    def write(self, world: MailWorld, body: str, subject: str = "pbem") -> None:
        """A new mail: to the command address once it is known, else to the plain address."""
        to = self.command or f"pbem@{world.settings.mail_domain}"
        _, raw = client_mail(self.address, to, subject, body, PLAYERS_DOMAIN)
        world.send(self.address, to, raw)

    def to_play(self):
        """The newest mail that asks this player for a move, if it is newer than any answer since."""
        for message in reversed(self.inbox):
            if legal_moves(message):
                return message
        return None
