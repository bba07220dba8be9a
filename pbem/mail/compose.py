"""Outbox rows and the mails made from them.

`queue` writes one OutboundMail row in the caller's transaction; `build` turns a row into
the real message at send time (threading headers, Reply-To token, the board picture),
because only then is the picture rendered and the server's secret and domain at hand.
A row's `headers` holds hints, not header lines: reply_seat/reply_seq (the seat token
to put in Reply-To), in_reply_to (the mail answered), auto (the Auto-Submitted value),
compose_seat (a game notification whose text is made at send time, see pbem.notify).
"""

from __future__ import annotations

import html
from email.message import EmailMessage
from email.utils import format_datetime, formataddr
from datetime import timezone
from urllib.parse import quote

from sqlalchemy import insert
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from pbem.mail import tokens
from pbem.models import OutboundMail, utcnow

BASE_URL = "{base_url}"  # replaced by settings.base_url when the mail is built
NOTIFICATION_KINDS = ("turn", "move", "result", "digest")
_INSERT = insert(OutboundMail.__table__)
SENDER_NAME = "pbem"


def queue(s: Session | Connection, *, kind: str, recipient: str, subject: str, body: str, user_id: int | None = None,
          game_id: int | None = None, seq: int | None = None, reply_seat: int | None = None,
          reply_seq: int | None = None, in_reply_to: str | None = None, board_viewer: int | None = None,
          compose_seat: int | None = None, want_id: bool = True) -> int | None:
    """Write one outbox row in the current transaction (an ORM session's or a plain connection's);
    returns its id (unless `want_id` is false: in a move's pbem.db.Plain transaction on
    PostgreSQL, asking for the id would wait for the insert instead of sending it with the commit).

    With `compose_seat` and an empty body, the text is made when the row is sent, from what
    that seat could see at move `seq` (pbem.notify.text)."""
    hints: dict = {"auto": "auto-generated" if kind in NOTIFICATION_KINDS else "auto-replied"}
    if compose_seat is not None:
        hints["compose_seat"] = compose_seat
    if reply_seat is not None:
        hints["reply_seat"] = reply_seat
        hints["reply_seq"] = reply_seq
    if in_reply_to:
        hints["in_reply_to"] = in_reply_to[:900]
    attachments = []
    if board_viewer is not None and game_id is not None and seq is not None:
        attachments.append({"board": {"game_id": game_id, "seq": seq, "viewer": board_viewer}})
    connection = s if isinstance(s, Connection) else s.connection()
    result = connection.execute(_INSERT, {
        "game_id": game_id, "user_id": user_id, "kind": kind, "recipient": recipient, "subject": subject[:400],
        "body_text": body, "seq": seq, "headers": hints, "attachments": attachments, "status": "pending",
        "attempts": 0, "created_at": utcnow()})
    return result.inserted_primary_key[0] if want_id else None


def game_thread_id(game_id: int, domain: str) -> str:
    """The Message-ID every mail of one game refers to, so mail clients show one thread."""
    return f"<pbem.game.{game_id}@{domain}>"


def message_id_of(row: OutboundMail, domain: str) -> str:
    """A Message-ID that stays the same when a row is sent again after a failure."""
    return row.message_id or f"<pbem.out.{row.id}.{row.created_at:%Y%m%d%H%M%S}@{domain}>"


def build(row: OutboundMail, settings, reply_to: str | None, png: bytes | None) -> EmailMessage:
    """The message of one outbox row."""
    domain = settings.mail_domain
    message = EmailMessage()
    message["From"] = formataddr((SENDER_NAME, tokens.plain_address(domain)))
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
    message["Reply-To"] = reply_to or tokens.plain_address(domain)
    message["Auto-Submitted"] = hints.get("auto", "auto-generated")
    if row.kind in NOTIFICATION_KINDS:
        unsubscribe = quote("/notify none")
        message["List-Unsubscribe"] = (f"<mailto:{tokens.plain_address(domain)}?subject={unsubscribe}>, "
                                       f"<{settings.base_url}/settings>")
    if row.game_id is not None:
        message["X-Pbem-Game"] = str(row.game_id)
    text = row.body_text.replace(BASE_URL, settings.base_url)
    message.set_content(text)
    if png:
        cid = f"board.{row.id}@{domain}"
        page = (f'<html><body><p><img src="cid:{cid}" alt="The board" style="max-width:100%"></p>'
                f'<pre style="font-family:monospace;white-space:pre-wrap">{html.escape(text)}</pre></body></html>')
        message.add_alternative(page, subtype="html")
        message.get_payload()[1].add_related(png, "image", "png", cid=f"<{cid}>", filename="board.png",
                                             disposition="inline")
    return message
