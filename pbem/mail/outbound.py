"""Send one outbox row: through SMTP (PBEM_SMTP_URL) or into the local outbox folder.

This is the mail channel's sender (pbem.notify.channels.mail.Sender, given to it by
pbem.wiring): the worker's delivery task calls `deliver` for each `pbem.send_mail` job, and the
sweep posts again what `due_ids` finds.

`deliver` is idempotent and safe to call from several workers at once: it claims the row
in a short transaction (row lock; a row already sent is not sent again; a claim younger
than CLAIM_TIMEOUT belongs to another sender), sends with no transaction open, then marks
the row sent. A crash between sending and marking sends the mail again later (after
CLAIM_TIMEOUT) with the same Message-ID: a mail may come twice, it is never lost. The
Message-ID is chosen when a row is first claimed and kept with it: for the first mail of a game
that an address gets, the root of that game's thread (pbem.mail.compose.thread_root_id); the
claim locks the first row of the thread meanwhile, so that two senders never both take the root.
A row
whose mail cannot be built (a header that cannot be written) ends as `failed` with the
reason at once: it would fail the same way at every try (`failed_rows` lists them).

SMTP URLs: `smtp://host:port`, `smtps://`, `smtp+starttls://`, each with optional
`user:password@`; `outbox:` writes the message as `<data_dir>/outbox/<id>.eml` for the
web UI to show.
"""

from __future__ import annotations

import logging
import os
import smtplib
import ssl
import threading
from dataclasses import dataclass
from datetime import timedelta
from email.policy import SMTP as SMTP_POLICY
from pathlib import Path
from urllib.parse import unquote, urlsplit

from sqlalchemy import bindparam, select

from pbem import boards, config, mailkeys, notify
from pbem.db import Database
from pbem.mail import addresses, compose, loops
from pbem.models import Message, OutboundMail, Seat, User, utcnow
from pbem.notify.channels import TransientDeliveryError
from pbem.notify.outbox import NOTIFICATION_KINDS

log = logging.getLogger("pbem.mail.outbound")

CLAIM_TIMEOUT = timedelta(minutes=5)
SMTP_TIMEOUT = 30
MAX_ERROR = 2000


class TransientMailError(TransientDeliveryError):
    """Sending failed in a way worth retrying (connection refused, 4xx); the row stays pending."""


@dataclass(frozen=True)
class SmtpTarget:
    scheme: str  # outbox | smtp | smtps | smtp+starttls
    host: str = ""
    port: int = 0
    user: str | None = None
    password: str | None = None


def parse_smtp_url(url: str) -> SmtpTarget:
    """Read PBEM_SMTP_URL; raises ValueError for a scheme we do not speak."""
    if url.strip() in ("outbox:", "outbox"):
        return SmtpTarget("outbox")
    parts = urlsplit(url)
    defaults = {"smtp": 25, "smtps": 465, "smtp+starttls": 587}
    if parts.scheme not in defaults or not parts.hostname:
        raise ValueError(f"PBEM_SMTP_URL must be outbox:, smtp://, smtps:// or smtp+starttls://HOST[:PORT], "
                         f"not {url!r}")
    return SmtpTarget(parts.scheme, parts.hostname, parts.port or defaults[parts.scheme],
                      unquote(parts.username) if parts.username else None,
                      unquote(parts.password) if parts.password else None)


@dataclass(frozen=True)
class _Keys:
    """The keys a mail carries, made when it is sent (with the nonces of that moment)."""

    reply_to: str | None = None  # a turn key or a request key
    command: str | None = None  # the recipient's command address, when the recipient is a user


# The statements of every mail sent, built once (a statement is immutable and takes parameters):
# building one cost about as much CPU as running it.
_ROW_LOCKED = select(OutboundMail).where(OutboundMail.id == bindparam("outbox_id")).with_for_update()
_SEAT = select(Seat).where(Seat.game_id == bindparam("game_id"), Seat.number == bindparam("number"))
# A game's thread in one mailbox: its rows to one address (pbem.mail.compose).
_THREAD = (OutboundMail.game_id == bindparam("game_id")) & (OutboundMail.recipient == bindparam("recipient"))
_THREAD_FIRST = select(OutboundMail.id).where(_THREAD).order_by(OutboundMail.id).limit(1).with_for_update()
# The Message-IDs the thread's other rows went out (or are going out) with: a failed row never reached the mailbox.
_THREAD_SENT = select(OutboundMail.message_id).where(
    _THREAD, OutboundMail.id != bindparam("outbox_id"), OutboundMail.message_id.is_not(None),
    OutboundMail.status != "failed")
_THREAD_ROOT_TAKEN = _THREAD_SENT.where(OutboundMail.message_id == bindparam("root")).limit(1)
_THREAD_LAST = _THREAD_SENT.order_by(OutboundMail.picked_at.desc(), OutboundMail.id.desc()).limit(1)


def _keys(s, row: OutboundMail, settings) -> _Keys:
    secret, domain = settings.secret_key, settings.mail_domain
    hints = row.headers or {}
    user = s.get(User, row.user_id) if row.user_id is not None else None
    if user is not None and user.email != row.recipient:
        user = None  # keys go to the registered address only
    reply_to = None
    if hints.get("reply_seat") is not None and row.game_id is not None:
        seat = s.scalars(_SEAT, {"game_id": row.game_id, "number": hints["reply_seat"]}).first()
        if seat is not None and user is not None and seat.user_id == user.id:
            reply_to = mailkeys.encode_reply(secret, domain, row.game_id, seat.number, hints["reply_seq"],
                                           seat.token_nonce)
    elif hints.get("request") is not None and user is not None:
        reply_to = mailkeys.encode_request(secret, domain, hints["request"], user.id, user.mail_nonce)
    elif hints.get("talk_message") is not None and user is not None:
        reply_to = mailkeys.encode_talk(secret, domain, hints["talk_message"], user.id, user.mail_nonce)
    command = mailkeys.encode_command(secret, domain, user.id, user.mail_nonce) if user is not None else None
    return _Keys(reply_to, command)


def _claim(db: Database, outbox_id: int, settings) -> tuple[str, OutboundMail | None, _Keys | None]:
    """Lock the row and mark it as being sent by us; returns why not, or the row and its keys."""
    with db.transaction() as s:
        row = s.scalars(_ROW_LOCKED, {"outbox_id": outbox_id}).first()
        if row is None:
            return "missing", None, None
        if row.status == "sent":
            return "already sent", None, None
        if row.status in ("failed", "suppressed"):
            return row.status, None, None
        now = utcnow()
        if row.status == "sending" and row.claimed_at and now - row.claimed_at < CLAIM_TIMEOUT:
            return "in progress", None, None
        if row.kind in NOTIFICATION_KINDS and addresses.is_stopped(s, row.recipient):
            row.status = "suppressed"
            row.last_error = "Notifications to this address stopped after repeated hard bounces."
            return "suppressed", None, None
        talked = (row.headers or {}).get("talk_message")
        if talked is not None and s.scalar(select(Message.hidden_at).where(Message.id == talked)) is not None:
            row.status = "suppressed"  # an operator hid the message after it was queued: its text goes nowhere
            row.last_error = "The message was hidden by an operator before this mail was sent."
            return "suppressed", None, None
        if (row.headers or {}).get("view_text") and not row.body_text:
            row.body_text = notify.view_text(s, row)  # kept: a second try sends the same text
        keys = _keys(s, row, settings)
        row.status, row.claimed_at = "sending", now
        row.picked_at = row.picked_at or now
        row.attempts += 1
        if row.message_id is None:
            _take_place_in_thread(s, row, settings)
        row.message_id = compose.message_id_of(row, settings.mail_domain)
        s.flush()
        s.expunge(row)
        return "claimed", row, keys


def _take_place_in_thread(s, row: OutboundMail, settings) -> None:
    """Give a row of a game, claimed for the first time, its place in that game's thread to its address: the
    root's Message-ID if no other row has it, and the Message-ID of the mail sent there before (`parent`)."""
    if row.game_id is None:
        return
    where = {"game_id": row.game_id, "recipient": row.recipient, "outbox_id": row.id}
    s.scalars(_THREAD_FIRST, where).first()  # held until the claim commits: the thread's rows take places in turn
    root = compose.thread_root_id(row.game_id, row.recipient, settings.secret_key, settings.mail_domain)
    if row.kind in compose.THREAD_KINDS and s.scalar(_THREAD_ROOT_TAKEN, {**where, "root": root}) is None:
        row.message_id = root
    parent = s.scalar(_THREAD_LAST, where)
    if parent is not None:
        row.headers = {**(row.headers or {}), "parent": parent}


def _finish(db: Database, outbox_id: int, status: str, error: str | None, bounce: bool = False,
            drawn_at=None) -> None:
    with db.transaction() as s:
        row = s.scalars(_ROW_LOCKED, {"outbox_id": outbox_id}).one()
        row.status = status
        row.drawn_at = drawn_at or row.drawn_at
        row.last_error = error[:MAX_ERROR] if error else None
        row.claimed_at = None
        if status == "sent":
            row.sent_at = utcnow()
        if bounce:  # our own mail server refused the address: a hard bounce of this mail
            row.bounced_at = utcnow()
            addresses.record_bounce(s, row.recipient, hard=True, detail=error or "")


def _write_outbox(settings, row: OutboundMail, data: bytes) -> None:
    folder = Path(settings.data_dir) / "outbox"
    folder.mkdir(parents=True, exist_ok=True)
    final = folder / f"{row.id:08d}.eml"
    temporary = folder / f".{row.id:08d}.{os.getpid()}.tmp"
    temporary.write_bytes(data)
    os.replace(temporary, final)


# One SMTP connection kept per process and server, reused for the next mail: opening one for every
# mail (TCP, greeting, EHLO, TLS, login) cost a worker more than composing the mail (issue 22).
_KEPT: dict[tuple[int, SmtpTarget], smtplib.SMTP] = {}
_KEPT_LOCK = threading.Lock()
_ANSWERED = (smtplib.SMTPResponseException, smtplib.SMTPRecipientsRefused)  # refusals; smtplib sent RSET after


def _connect(target: SmtpTarget) -> smtplib.SMTP:
    if target.scheme == "smtps":
        client = smtplib.SMTP_SSL(target.host, target.port, timeout=SMTP_TIMEOUT,
                                  context=ssl.create_default_context())
    else:
        client = smtplib.SMTP(target.host, target.port, timeout=SMTP_TIMEOUT)
    try:
        if target.scheme == "smtp+starttls":
            client.starttls(context=ssl.create_default_context())
        if target.user:
            client.login(target.user, target.password or "")
    except BaseException:
        client.close()
        raise
    return client


def _smtp_send(target: SmtpTarget, sender: str, recipient: str, data: bytes) -> None:
    """Hand one mail to the SMTP server on this process's kept connection (made, or made again once
    when the server closed it while it was idle)."""
    key = (os.getpid(), target)  # a forked worker makes its own: a socket is not shared between processes
    with _KEPT_LOCK:
        client = _KEPT.pop(key, None)
        if client is not None:
            try:
                client.sendmail(sender, [recipient], data)
            except smtplib.SMTPServerDisconnected:
                client.close()
                client = None  # it went away while idle: once more on a new connection
            except _ANSWERED:  # the server's answer about this mail: the connection is fine
                _KEPT[key] = client
                raise
            except BaseException:
                client.close()
                raise
            else:
                _KEPT[key] = client
                return
        client = _connect(target)
        try:
            client.sendmail(sender, [recipient], data)
        except _ANSWERED:
            _KEPT[key] = client
            raise
        except BaseException:
            client.close()
            raise
        _KEPT[key] = client


def close_connections() -> None:
    """Say goodbye to the SMTP servers this process keeps a connection to (a worker that stops)."""
    with _KEPT_LOCK:
        kept = list(_KEPT.values())
        _KEPT.clear()
    for client in kept:
        try:
            client.quit()
        except (smtplib.SMTPException, OSError):
            client.close()


def deliver(db: Database, outbox_id: int, settings=None) -> str:
    """Send one outbox row; returns 'sent', 'already sent', 'in progress', 'suppressed', 'failed' or 'missing'.

    Raises TransientMailError when the SMTP server could not take it now (the row goes
    back to pending with the error recorded and the attempt counted); a permanent refusal
    (5xx) marks it failed and counts as a hard bounce of the address.
    """
    settings = settings or config.load()
    target = parse_smtp_url(settings.smtp_url)
    status, row, keys = _claim(db, outbox_id, settings)
    if status != "claimed":
        return status
    png = None
    board = next((a["board"] for a in row.attachments or [] if "board" in a), None)
    if board is not None:
        # The picture's words speak the language the mail is written in (the row's hint, pbem.notify.outbox).
        png = boards.png_for(db, board["game_id"], board["seq"], board["viewer"], (row.headers or {}).get("language"))
    drawn_at = utcnow()
    try:
        message = compose.build(row, settings, keys.reply_to, png, keys.command)
        data = message.as_bytes(policy=SMTP_POLICY)  # CRLF line ends
    except Exception as error:  # noqa: BLE001 - building has no I/O: whatever fails here fails at every try
        _finish(db, row.id, "failed", f"The mail could not be built: {type(error).__name__}: {error}")
        return "failed"
    try:
        if target.scheme == "outbox":
            _write_outbox(settings, row, data)
        else:
            sender = mailkeys.encode_bounce(settings.secret_key, settings.mail_domain, row.id)
            _smtp_send(target, sender, row.recipient, data)
    except smtplib.SMTPRecipientsRefused as error:
        code, text = next(iter(error.recipients.values()))
        return _failed(db, row.id, code, text)
    except smtplib.SMTPResponseException as error:
        return _failed(db, row.id, error.smtp_code, error.smtp_error)
    except (smtplib.SMTPException, OSError) as error:
        message = f"{type(error).__name__}: {error}"
        _finish(db, row.id, "pending", message)
        raise TransientMailError(message) from error
    _finish(db, row.id, "sent", None, drawn_at=drawn_at)
    return "sent"


def _failed(db: Database, outbox_id: int, code: int, text: bytes | str) -> str:
    """The relay refused the mail: for good (5xx: failed, listed by `pbem mail failed`; a hard bounce of
    the address only when the refusal says the mailbox is not there, loops.bounce_kind) or for now."""
    text = text.decode("utf-8", "replace") if isinstance(text, bytes) else str(text)
    message = f"SMTP {code}: {text}"
    if 500 <= code < 600:
        kind = loops.bounce_kind(loops.refusal_status(text))
        if kind != "hard":
            log.warning("mail %d was refused by the relay (SMTP %d, %s), not for its address: not counted as a "
                        "hard bounce", outbox_id, code, loops.refusal_status(text) or "no status")
        _finish(db, outbox_id, "failed", message, bounce=kind == "hard")
        return "failed"
    _finish(db, outbox_id, "pending", message)
    raise TransientMailError(message)


def due_ids(db: Database, older_than_s: float = 0, limit: int = 1000) -> list[int]:
    """Rows to send (again), oldest first: pending for at least `older_than_s` seconds, or claimed
    by a sender that died (its claim is older than CLAIM_TIMEOUT). The sweep posts these."""
    now = utcnow()
    query = (select(OutboundMail.id)
             .where(((OutboundMail.status == "pending")
                     & (OutboundMail.created_at <= now - timedelta(seconds=older_than_s)))
                    | ((OutboundMail.status == "sending") & (OutboundMail.claimed_at < now - CLAIM_TIMEOUT)))
             .order_by(OutboundMail.id).limit(limit))
    with db.sessions() as s:
        return list(s.scalars(query))


def failed_rows(db: Database, limit: int = 100) -> list[OutboundMail]:
    """The newest outbox rows that ended as failed, with their reasons (`pbem mail failed`)."""
    with db.sessions() as s:
        rows = list(s.scalars(select(OutboundMail).where(OutboundMail.status == "failed")
                              .order_by(OutboundMail.id.desc()).limit(limit)))
        s.expunge_all()
        return rows


def deliver_pending(db: Database, settings=None, limit: int = 1000) -> dict[str, int]:
    """Send every row still to send (the CLI's `pbem mail send`; the worker has its own sweep)."""
    counts: dict[str, int] = {}
    for outbox_id in due_ids(db, 0, limit):
        try:
            status = deliver(db, outbox_id, settings)
        except TransientMailError:
            status = "retry"
        counts[status] = counts.get(status, 0) + 1
    return counts
