"""The message of an outbox row: MIME, threading headers, Reply-To, the footer, the board picture.

`build` turns a row (pbem.notify.outbox) into the real message at send time, because only
then is the picture rendered and the keys made with the nonces of that moment. Every mail of
a game refers to one Message-ID, so mail clients show a game as one thread. A mail to a user
shows their command address in its footer, and has it as Reply-To unless the mail carries a
turn key or a request key there. The footer and the picture's text speak the language the
row's text was written in (its `language` hint, pbem.notify.outbox). `build` raises ValueError
(or another error of the email package) for a row whose headers cannot be written; the caller
ends such a row as failed.
"""

from __future__ import annotations

import html
from email.message import EmailMessage
from email.utils import format_datetime, formataddr
from datetime import timezone
from urllib.parse import quote

from pbem import i18n, mailkeys
from pbem.models import OutboundMail
from pbem.notify import wording
from pbem.notify.outbox import BASE_URL, NOTIFICATION_KINDS

SENDER_NAME = "pbem"


def game_thread_id(game_id: int, domain: str) -> str:
    """The Message-ID every mail of one game refers to, so mail clients show one thread."""
    return f"<pbem.game.{game_id}@{domain}>"


def message_id_of(row: OutboundMail, domain: str) -> str:
    """A Message-ID that stays the same when a row is sent again after a failure."""
    return row.message_id or f"<pbem.out.{row.id}.{row.created_at:%Y%m%d%H%M%S}@{domain}>"


def build(row: OutboundMail, settings, reply_to: str | None, png: bytes | None,
          command_address: str | None = None) -> EmailMessage:
    """The message of one outbox row; `reply_to` is a turn or request key, `command_address` the
    recipient's command key (None for an address without an account)."""
    domain = settings.mail_domain
    message = EmailMessage()
    message["From"] = formataddr((SENDER_NAME, mailkeys.plain_address(domain)))
    message["To"] = row.recipient
    message["Subject"] = row.subject
    message["Date"] = format_datetime(row.created_at.replace(tzinfo=timezone.utc))
    message["Message-ID"] = message_id_of(row, domain)
    hints = row.headers or {}
    references = []
    if row.game_id is not None:
        references.append(game_thread_id(row.game_id, domain))
    if hints.get("in_reply_to"):
        references.append(hints["in_reply_to"])
    if references:
        message["In-Reply-To"] = references[-1]
        message["References"] = " ".join(references)
    message["Reply-To"] = reply_to or command_address or mailkeys.plain_address(domain)
    message["Auto-Submitted"] = hints.get("auto", "auto-generated")
    if row.kind in NOTIFICATION_KINDS:
        unsubscribe = quote("/notify none")
        message["List-Unsubscribe"] = (f"<mailto:{command_address or mailkeys.plain_address(domain)}"
                                       f"?subject={unsubscribe}>, <{settings.base_url}/settings>")
    if row.game_id is not None:
        message["X-Pbem-Game"] = str(row.game_id)
    text = row.body_text.replace(BASE_URL, settings.base_url)
    if command_address:
        text = text.rstrip("\n") + "\n\n" + wording.command_footer(command_address, hints.get("language", i18n.DEFAULT))
    message.set_content(text)
    if png:
        cid = f"board.{row.id}@{domain}"
        alt = html.escape(i18n.texts(hints.get("language")).gettext("The board"), quote=True)
        page = (f'<html><body><p><img src="cid:{cid}" alt="{alt}" style="max-width:100%"></p>'
                f'<pre style="font-family:monospace;white-space:pre-wrap">{html.escape(text)}</pre></body></html>')
        message.add_alternative(page, subtype="html")
        message.get_payload()[1].add_related(png, "image", "png", cid=f"<{cid}>", filename="board.png",
                                             disposition="inline")
    return message
