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
import threading
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import make_msgid

from aiosmtpd.controller import Controller
from sqlalchemy import select

from pbem.mail import listener, outbound
from pbem.notify import texts
from pbem.models import OutboundMail


class Sink:
    """An SMTP server that keeps what it is given."""

    def __init__(self):
        self.lock = threading.Lock()
        self.mails: list[tuple[list[str], bytes]] = []

    async def handle_DATA(self, server, session, envelope):
        with self.lock:
            self.mails.append((list(envelope.rcpt_tos), envelope.original_content or envelope.content))
        return "250 OK"


class SinkController(Controller):
    def _trigger_server(self):
        if self.port == 0:
            self.port = self.server.sockets[0].getsockname()[1]
        super()._trigger_server()


class MailWorld:
    def __init__(self, db, settings):
        self.sink = Sink()
        self.sink_controller = SinkController(self.sink, hostname="127.0.0.1", port=0)
        self.sink_controller.start()
        # Bots answer at machine speed: the per-sender rate limit is for people (tested on its own).
        self.settings = dataclasses.replace(settings, smtp_url=f"smtp://127.0.0.1:{self.sink_controller.port}",
                                            mail_rate_per_hour=1_000_000)
        self.db = db
        self.listener = listener.start(db, self.settings, "127.0.0.1", 0)
        self.seen = 0

    def close(self):
        self.listener.stop()
        self.sink_controller.stop()

    def send(self, sender: str, recipient: str, raw: bytes) -> None:
        with smtplib.SMTP("127.0.0.1", self.listener.port, timeout=30) as client:
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


def text_of(message) -> str:
    return message.get_body(("plain",)).get_content().replace("\r\n", "\n")


def legal_moves(message) -> list[str]:
    """The moves a mail lists under 'Your legal moves', as a player would copy them."""
    lines = text_of(message).splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith(texts.LEGAL_HEADER)), None)
    if start is None:
        return []
    moves = []
    for line in lines[start + 1:]:
        if not line.strip():
            break
        item = line.strip()
        if item.endswith("moves):") or item.startswith("..."):
            continue
        moves.append(item)
    return moves


@dataclasses.dataclass
class Player:
    address: str
    rng: random.Random
    inbox: list = dataclasses.field(default_factory=list)

    def reply(self, world: MailWorld, message, body: str) -> None:
        """Answer a mail as a mail client does: Re: subject, threading headers, the original quoted."""
        answer = EmailMessage()
        answer["From"] = self.address
        answer["To"] = str(message["Reply-To"])
        answer["Subject"] = "Re: " + str(message["Subject"])
        answer["Message-ID"] = make_msgid(domain="players.example.org")
        answer["In-Reply-To"] = str(message["Message-ID"])
        answer["References"] = f"{message['References'] or ''} {message['Message-ID']}".strip()
        quoted = "\n".join("> " + line for line in text_of(message).splitlines())
        answer.set_content(f"{body}\n\nOn {message['Date']}, pbem <{message['Reply-To']}> wrote:\n{quoted}\n")
        world.send(self.address, str(message["Reply-To"]), answer.as_bytes(policy=policy.SMTP))

    def write(self, world: MailWorld, body: str, subject: str = "pbem") -> None:
        message = EmailMessage()
        message["From"] = self.address
        message["To"] = f"pbem@{world.settings.mail_domain}"
        message["Subject"] = subject
        message["Message-ID"] = make_msgid(domain="players.example.org")
        message.set_content(body + "\n")
        world.send(self.address, message["To"], message.as_bytes(policy=policy.SMTP))

    def to_play(self):
        """The newest mail that asks this player for a move, if it is newer than any answer since."""
        for message in reversed(self.inbox):
            if legal_moves(message):
                return message
        return None
