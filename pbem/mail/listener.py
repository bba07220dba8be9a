"""The SMTP (or LMTP) front door: an aiosmtpd server on a local port.

Like Mailman's LMTP runner it stays thin: recipients that are not ours are refused at
RCPT time (550), messages over the size limit at DATA time (552, and at MAIL FROM when
the client announces SIZE), and everything else is handed to inbound.receive in a worker
thread. A mail that can never be read is stored with its reason and refused for good (554,
or 552 when it is too large), so the sending MTA does not try it again. Only when the
database is away is nothing stored: the client gets 451 and tries again later, so nothing
is lost. While one mail is read, the others are answered: reading a mail is bounded and
linear in its size (pbem.mail.mime, pbem.mail.quotes), and it runs in WORKERS threads
beside the event loop that talks SMTP.
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor
from functools import partial

from aiosmtpd.controller import Controller
from aiosmtpd.lmtp import LMTP
from aiosmtpd.smtp import SMTP

from pbem.db import Database, unavailable
from pbem.mail import inbound
from pbem import mailkeys

log = logging.getLogger("pbem.mail.listener")
WORKERS = 4
# Mails that can never be read are refused for good (stored with their reason, never retried).
REFUSED = {"malformed": "554 5.6.0", "too_large": "552 5.3.4"}


class Handler:
    """aiosmtpd hooks: refuse strangers early, store and process the rest."""

    def __init__(self, db: Database, settings, executor: ThreadPoolExecutor):
        self.db = db
        self.settings = settings
        self.executor = executor

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if not mailkeys.is_ours(address, self.settings.mail_domain):
            return "550 5.1.1 No such mailbox here"
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server, session, envelope):
        loop = asyncio.get_running_loop()
        raw = envelope.original_content or envelope.content
        if isinstance(raw, str):
            raw = raw.encode("utf-8", "surrogateescape")
        call = partial(inbound.receive, self.db, raw, self.settings, envelope_to=list(envelope.rcpt_tos),
                       envelope_from=envelope.mail_from, refusals_by_mail=False)
        try:
            result = await loop.run_in_executor(self.executor, call)
        except Exception as error:
            if unavailable(error):  # nothing was stored: the client keeps the message and tries again
                log.warning("inbound mail not stored, the database is away (%s)", type(error).__name__)
                return "451 4.3.0 Temporary failure, please try again later"
            log.error("inbound mail could not be stored (%s)", type(error).__name__)
            return "554 5.3.0 The message could not be stored"
        if result.outcome in REFUSED:
            return f"{REFUSED[result.outcome]} {_one_line(result.detail)}"
        return "250 2.0.0 Message accepted"


def _one_line(text: str) -> str:
    return " ".join(text.split())[:200]


class PortZeroController(Controller):
    """An aiosmtpd Controller that can bind port 0: the port the kernel gave is in `port` after start."""

    def _trigger_server(self):
        if self.port == 0:
            self.port = self.server.sockets[0].getsockname()[1]
        super()._trigger_server()


class MailController(PortZeroController):
    """The listener's controller: port 0 allowed, and LMTP if asked."""

    def __init__(self, handler: Handler, hostname: str, port: int, lmtp: bool = False, **kwargs):
        super().__init__(handler, hostname=hostname, port=port, **kwargs)
        self.lmtp = lmtp
        self.executor = handler.executor

    def factory(self):
        cls = LMTP if self.lmtp else SMTP
        return cls(self.handler, **self.SMTP_kwargs)

    def stop(self, no_assert: bool = False):
        super().stop(no_assert)
        self.executor.shutdown(wait=True)


def start(db: Database, settings, host: str = "127.0.0.1", port: int = 2525, lmtp: bool = False) -> MailController:
    """Start the listener in a background thread; `stop()` on the result ends it."""
    executor = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="pbem-mail")
    controller = MailController(Handler(db, settings, executor), host, port, lmtp=lmtp,
                                data_size_limit=settings.mail_max_bytes, enable_SMTPUTF8=True,
                                server_hostname=settings.mail_domain)
    controller.start()
    return controller
