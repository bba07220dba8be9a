"""An SMTP sink on loopback (aiosmtpd) that keeps every mail it accepts, or hands each one on.

It stands where a site's mail server would be: PBEM_SMTP_URL points at it, and what the
service sends arrives here as raw bytes with its envelope recipients. It accepts everything
with aiosmtpd's standard limits (lines of at most 1000 bytes, CRLF-terminated); it does not
refuse, delay or relay.
"""

from __future__ import annotations

import email
import threading
from collections import Counter

from pbem.mail.listener import PortZeroController



class KernelPortController(PortZeroController):
    """The listener's port-0 controller on 127.0.0.1 by default: no free port is guessed first and then lost to
    another process."""

    def __init__(self, handler, **kwargs):
        kwargs.setdefault("hostname", "127.0.0.1")
        kwargs.setdefault("port", 0)
        super().__init__(handler, **kwargs)



class SmtpSink:
    """An SMTP server that keeps (recipients, raw bytes) of every mail in `mails`, or calls `deliver` with them.

    `start()` listens on a free loopback port; the object is also a plain aiosmtpd handler.
    """

    def __init__(self, deliver=None):
        self.deliver = deliver
        self.lock = threading.Lock()
        self.mails: list[tuple[list[str], bytes]] = []
        self.port: int | None = None
        self.controller: KernelPortController | None = None

    async def handle_DATA(self, server, session, envelope):
        raw = envelope.original_content or envelope.content
        if isinstance(raw, str):
            raw = raw.encode("utf-8", "surrogateescape")
        if self.deliver is not None:
            self.deliver(list(envelope.rcpt_tos), raw)
        else:
            with self.lock:
                self.mails.append((list(envelope.rcpt_tos), raw))
        return "250 OK"

    def start(self) -> None:
        self.controller = KernelPortController(self)
        self.controller.start()
        self.port = self.controller.port

    def stop(self) -> None:
        self.controller.stop()

    @property
    def url(self) -> str:
        return f"smtp://127.0.0.1:{self.port}"

    @property
    def messages(self) -> list[email.message.Message]:
        """The mails kept so far, parsed."""
        with self.lock:
            return [email.message_from_bytes(raw) for _, raw in self.mails]

    def ids(self) -> Counter:
        """How many times each Message-ID arrived."""
        return Counter(m["Message-ID"] for m in self.messages)
