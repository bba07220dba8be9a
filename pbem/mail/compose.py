"""The message of an outbox row: MIME, threading headers, Reply-To, the footer, the board picture.

`build` turns a row (pbem.notify.outbox) into the real message at send time, because only
then is the picture rendered and the keys made with the nonces of that moment.

Threads (issue 33, item 10): the mails of one game to one address are one thread. Its root is a
Message-ID of its own per game and address (`thread_root_id`: the address enters it only through
an HMAC with the server's secret, so it names nobody and is never the same in two mailboxes), and
it is really sent: the first mail of the game that the sender takes for that address
(pbem.mail.outbound) goes out with it as its Message-ID. Every other mail of the game refers to
it, and to the mail sent to that address before it (the hint `parent`), in References; an answer
to a player's mail is In-Reply-To that mail. With the game's one subject (pbem.notify.wording.
thread_subject) Gmail, Outlook and Thunderbird show each game as one conversation. A mail to a user
shows their command address in its footer, and has it as Reply-To unless the mail carries a
turn key or a request key there. The footer and the picture's text speak the language the
row's text was written in (its `language` hint, pbem.notify.outbox). `build` raises ValueError
(or another error of the email package) for a row whose headers cannot be written; the caller
ends such a row as failed.
"""

from __future__ import annotations

import hashlib
import hmac
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
# The kinds of mail whose subject is the game's thread subject: one of them is the root of the thread.
# The others of a game (an invitation) refer to the root but never are it.
THREAD_KINDS = ("turn", "move", "result", "reminder", "late", "reply", "message")


def thread_root_id(game_id: int, recipient: str, secret: str, domain: str) -> str:
    """The Message-ID of the root of one game's thread in one mailbox: the first mail of that game sent to
    `recipient` carries it, every later one refers to it. The address is in it only as an HMAC."""
    mac = hmac.new(secret.encode(), f"thread.{game_id}.{recipient.strip().lower()}".encode(), hashlib.sha256)
    return f"<pbem.game.{game_id}.{mac.hexdigest()[:20]}@{domain}>"


def message_id_of(row: OutboundMail, domain: str) -> str:
    """A Message-ID that stays the same when a row is sent again after a failure."""
    return row.message_id or f"<pbem.out.{row.id}.{row.created_at:%Y%m%d%H%M%S}@{domain}>"


def build(row: OutboundMail, settings, reply_to: str | None, png: bytes | None,
          command_address: str | None = None) -> EmailMessage:
    """The message of one outbox row; `reply_to` is a turn or request key, `command_address` the
    recipient's command key (None for an address without an account)."""
    domain = settings.mail_domain
    message = EmailMessage()
    hints = row.headers or {}
    # A player's message comes from their name (as a list's mail does: "Ann (pbem)"), from our address.
    name = f"{hints['from_name']} ({SENDER_NAME})" if hints.get("from_name") else SENDER_NAME
    message["From"] = formataddr((name, mailkeys.plain_address(domain)))
    message["To"] = row.recipient
    message["Subject"] = row.subject
    message["Date"] = format_datetime(row.created_at.replace(tzinfo=timezone.utc))
    message_id = message_id_of(row, domain)
    message["Message-ID"] = message_id
    references = []
    if row.game_id is not None:
        root = thread_root_id(row.game_id, row.recipient, settings.secret_key, domain)
        if message_id != root:
            references.append(root)
            if hints.get("parent") and hints["parent"] != root:
                references.append(hints["parent"])
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
        message["X-Pbem-Kind"] = row.kind
    if hints.get("move") is not None:
        message["X-Pbem-Move"] = str(hints["move"])  # the move the game waits for (a result: the last move)
    if hints.get("turn"):
        message["X-Pbem-Turn"] = hints["turn"]  # the name of the player to move
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
