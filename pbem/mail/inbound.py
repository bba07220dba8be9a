"""The one door for incoming mail: store it, decide whether to read it, act, answer.

`receive(db, raw)` is called by the SMTP/LMTP listener, the IMAP poller and `pbem mail
ingest`. Every message is stored raw with its outcome (InboundMail; the raw bytes are
deleted after PBEM_INBOUND_KEEP_DAYS by `forget_raw`). Auto-replies, bounces, list mail
and mail that failed DMARC are never answered; a bounce counts only when it came back to
the signed bounce address of the mail that bounced.

What a mail may do depends on the key of the address it was sent to (docs/security.md):
a turn key acts on one seat's one turn (pbem.mail.turns), a command key on the user's
account and tables, a request key confirms one stored mail, and without a key a mail from
a confirmed address gets read-only answers or a request to confirm (pbem.mail.account).
Every answer goes to the registered address of the user the mail acts for, whoever wrote
it, in that user's language; to an address without an account only a confirmation code is
sent, in the language the mail declares (its Content-Language header), else the language of
its words (pbem.mail.stopwords), else English. A reply to a talk key (a message of the table
talk) goes to that conversation (pbem.mail.conversation). Mails
are counted per address answered (or per sender, when nobody is answered),
PBEM_MAIL_RATE_PER_HOUR.

Exactly once: the Message-ID is stored first (a unique index) with a random claim. A copy
that arrives while the first is processed waits for it and is then a duplicate; a message
still 'processing' after PROCESSING_WAIT is taken over by one copy only (a compare-and-set
on the claim), and the outcome and the answer are written only by the holder of the claim,
in one transaction. Moves carry the Message-ID and line as their idempotency key.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import time
import traceback
from dataclasses import dataclass
from datetime import timedelta
from email.message import Message
from email.utils import parseaddr

from babel.numbers import format_decimal
from sqlalchemy import bindparam, insert, select, update
from sqlalchemy.orm import Session
from sqlalchemy.exc import IntegrityError

from pbem import accounts, config, i18n, mailkeys
from pbem.db import Database, unavailable
from pbem.i18n import N_
from pbem.mail import account, addresses, answers, budgets, commands, conversation, loops, mime, turns
from pbem.mail.outcome import Answer, Player, Received, Sender
from pbem.models import Game, InboundMail, OutboundMail, Seat, User, utcnow
from pbem.notify import outbox, wording

__all__ = ["Received", "forget_raw", "receive", "unread_rows"]

log = logging.getLogger("pbem.mail.inbound")

HEAD_BYTES = 64 * 1024  # of an over-size message only this much is kept
PROCESSING_WAIT = timedelta(seconds=60)  # a message 'processing' longer than this died half-way
PROCESSING_POLL_S = 0.05  # how often a second copy looks whether the first one is done

# Statements of every message, in Core (run through a Session): the ORM's unit of work has nothing to track here.
_INBOUND = InboundMail.__table__
_STORE = insert(_INBOUND).returning(_INBOUND.c.id)
_RECORD_OUTCOME = (update(_INBOUND).where(_INBOUND.c.id == bindparam("inbound_id"),
                                          _INBOUND.c.outcome == "processing", _INBOUND.c.claim == bindparam("held"))
                   .values(outcome=bindparam("outcome"), detail=bindparam("detail"), game_id=bindparam("game_id"),
                           claim=None))
_STORED = select(_INBOUND.c.id, _INBOUND.c.outcome, _INBOUND.c.claim, _INBOUND.c.claimed_at,
                 _INBOUND.c.received_at).where(_INBOUND.c.message_id == bindparam("message_id"))
_PLAYER_COLUMNS = (User.id, User.email, User.email_verified, User.from_check, User.language)
_SEAT_OF_KEY = (select(Seat.token_nonce, Game.version, *_PLAYER_COLUMNS).join(User, User.id == Seat.user_id)
                .join(Game, Game.id == Seat.game_id)
                .where(Seat.game_id == bindparam("game_id"), Seat.number == bindparam("seat")))
_USER_BY_ID = select(User.mail_nonce, *_PLAYER_COLUMNS).where(User.id == bindparam("user_id"))
_USER_OF_SENDER = select(*_PLAYER_COLUMNS).where(User.email == bindparam("email"))
_GAME_TITLE = select(Game.title).where(Game.id == bindparam("game_id"))


@dataclass(frozen=True)
class _Stored:
    """A message stored (or taken over) by this delivery: its row, our claim, the rate verdict, its sender."""

    inbound_id: int
    claim: str
    verdict: str
    who: Sender | None


# --------------------------------------------------------------------------------------
# Reading the envelope and headers


def _message_id(message: Message | None, raw: bytes) -> str:
    # A folded or forged Message-ID may hold line breaks: cleaned here, where it enters.
    value = outbox.header_text(str(message.get("Message-ID") or ""), 998) if message is not None else ""
    return value or f"<{hashlib.sha256(raw).hexdigest()}@no-message-id>"


def _sender(message: Message | None) -> str:
    """The From address, or '' when there is none or it is no valid address (nobody to answer or make)."""
    try:
        address = parseaddr(str(message.get("From") or ""))[1] if message is not None else ""
        return accounts.normalize_email(address)
    except Exception:  # noqa: BLE001 - the parser's RecursionError on nested comments as much as a bad address
        return ""


def _recipients(message: Message | None, envelope_to: list[str] | None) -> list[str]:
    if envelope_to:
        return [a.strip().strip("<>").lower() for a in envelope_to]
    if message is None:
        return []
    values = []
    for header in ("Delivered-To", "X-Original-To", "Envelope-To", "To", "Cc"):
        values += [str(v) for v in message.get_all(header) or []]
    try:
        return mailkeys.find_addresses(values)
    except Exception:  # noqa: BLE001 - a mangled header leaves no recipient to read
        return []


def _declared_language(message: Message | None) -> str:
    """The language a mail declares (Content-Language, RFC 3282: "de-DE", "nl, en") if pbem speaks it,
    else English: what a sender without an account is answered in."""
    value = mime.header_text(message, "Content-Language") if message is not None else ""
    return next((code for code in map(i18n.normalize, value.split(",")) if code), i18n.DEFAULT)


def _kind(message: Message, envelope_from: str | None) -> str | None:
    """'bounce', 'auto_reply', 'list' or 'dmarc_fail' for mail that is never answered; None otherwise."""
    kind = loops.classify(message, envelope_from)
    if kind is None and loops.dmarc_failed(message):
        return "dmarc_fail"
    return kind


# --------------------------------------------------------------------------------------
# Storing and finishing


def _look_up(c: Session, settings, sender: str, key: mailkeys.Key | None) -> Sender:
    """Who sent the message and whether its key is valid, read in the transaction that stores it."""
    secret = settings.secret_key
    if isinstance(key, mailkeys.ReplyToken):
        row = c.execute(_SEAT_OF_KEY, {"game_id": key.game_id, "seat": key.seat}).first()
        if row is not None and mailkeys.verify(secret, key, row.token_nonce):
            return Sender(sender, key, True, Player.of(row), row.version)
    elif isinstance(key, (mailkeys.CommandKey, mailkeys.RequestKey, mailkeys.TalkKey)):
        row = c.execute(_USER_BY_ID, {"user_id": key.user_id}).first()
        check = {mailkeys.CommandKey: mailkeys.verify_command, mailkeys.RequestKey: mailkeys.verify_request,
                 mailkeys.TalkKey: mailkeys.verify_talk}[type(key)]
        if row is not None and check(secret, key, row.mail_nonce):
            return Sender(sender, key, True, Player.of(row))
    row = c.execute(_USER_OF_SENDER, {"email": sender}).first()
    return Sender(sender, key, False, Player.of(row) if row is not None else None)


def _store(db: Database, settings, envelope: _Envelope, raw: bytes) -> _Stored | None:
    """Store the message (once) and claim it; None for a duplicate.

    For a person's mail (`human`) it also reads who sent it and counts it against the address
    that is answered (or the sender), in the same transaction. A copy that arrives while
    another delivery of the same message is being processed (an MTA retrying, the same mail
    by SMTP and IMAP) waits for that one to finish and is then a duplicate: processed side by
    side, both would answer. A row still 'processing' after PROCESSING_WAIT is a processing
    that died half-way: one copy takes it over, by replacing the claim it read.
    """
    message_id, sender, key = envelope.message_id, envelope.sender, envelope.key
    recipient = envelope.ours[0] if envelope.ours else None
    human = envelope.kind is None and bool(sender)
    claim = secrets.token_hex(16)
    while True:
        now = utcnow()
        try:  # the common case first: a new message, one insert
            with db.transaction() as c:
                inbound_id = c.execute(_STORE, {
                    "message_id": message_id, "sender": sender[:320] or None,
                    "recipient": (recipient or "")[:320] or None, "raw": raw, "outcome": "processing",
                    "received_at": now, "claim": claim, "claimed_at": now}).first()[0]
                who = _look_up(c, settings, sender, key) if human else None
                verdict = budgets.count(c, who.player.id if who.key_valid else None, sender, settings) \
                    if human else "ok"
                return _Stored(inbound_id, claim, verdict, who)
        except IntegrityError:  # stored before, or by a concurrent delivery this instant
            pass
        with db.transaction() as c:
            old = c.execute(_STORED, {"message_id": message_id}).first()
            if old is not None:
                if old.outcome != "processing":
                    return None
                if now - (old.claimed_at or old.received_at) >= PROCESSING_WAIT:
                    held = _INBOUND.c.claim.is_(None) if old.claim is None else _INBOUND.c.claim == old.claim
                    taken = c.execute(update(_INBOUND).where(_INBOUND.c.id == old.id,
                                                             _INBOUND.c.outcome == "processing", held)
                                      .values(claim=claim, claimed_at=now)).rowcount
                    if taken == 1:  # ours now; the idempotency keys keep its moves single
                        return _Stored(old.id, claim, "ok", _look_up(c, settings, sender, key) if human else None)
        _wait_for_the_other_delivery()


def _wait_for_the_other_delivery() -> None:
    time.sleep(PROCESSING_POLL_S)


class _LostClaimError(Exception):
    """Another delivery took the message over and finished it: this one must not answer."""


def _finish(db: Database, stored: _Stored, result: Received, answer: Answer | None, in_reply_to: str,
            kind: str = "reply") -> Received:
    """Record the outcome and write the answer in one transaction, if the claim is still ours."""
    try:
        with db.transaction() as s:
            recorded = s.execute(_RECORD_OUTCOME, {
                "inbound_id": stored.inbound_id, "held": stored.claim, "outcome": result.outcome,
                "detail": result.detail[:4000] if result.detail else None, "game_id": result.game_id})
            if recorded.rowcount != 1:
                raise _LostClaimError()
            if answer is not None and answer.to and _unproven_answer(stored.who, answer):
                go, dropped = budgets.may_answer(s, answer.to)
                if not go:
                    result.detail = (f"{result.detail} Its answer was dropped: the answers of unproven mails to a "
                                     f"registered address go out once every {budgets.ANSWER_PERIOD}.").strip()
                    answer = None
                elif dropped:
                    answer.sections.insert(0, [i18n.texts(answer.language).ngettext(
                        "%(num)d more mail with your address as its sender was not answered since the last "
                        "answer. A mail without a key proves nothing of who wrote it, so its answers to you go out "
                        "at most once every %(minutes)d minutes; mails to your command address (at the foot of "
                        "this mail) are answered every time.",
                        "%(num)d more mails with your address as their sender were not answered since the last "
                        "answer. A mail without a key proves nothing of who wrote it, so its answers to you go out "
                        "at most once every %(minutes)d minutes; mails to your command address (at the foot of "
                        "this mail) are answered every time.",
                        dropped, minutes=budgets.ANSWER_PERIOD.seconds // 60)])
            if answer is not None and answer.to:
                result.answer_id = outbox.queue(
                    s, kind=kind, recipient=answer.to, user_id=answer.user_id, game_id=answer.game_id,
                    seq=answer.board_seq, subject=_answer_subject(s, answer), body=_body(answer),
                    reply_seat=answer.reply_seat, reply_seq=answer.reply_seq, in_reply_to=in_reply_to,
                    board_viewer=answer.board_viewer if answer.board_seq is not None else None,
                    request=answer.request, language=answer.language)
    except _LostClaimError:
        return Received("duplicate", "Another delivery of this message finished it first.",
                        inbound_id=stored.inbound_id, message_id=result.message_id)
    result.inbound_id = stored.inbound_id
    return result


def _unproven_answer(who: Sender | None, answer: Answer) -> bool:
    """Whether the answer goes to a registered address because of a mail that no valid key proves."""
    return who is not None and not who.key_valid and who.player is not None and answer.to == who.player.email


def _body(answer: Answer) -> str:
    return "\n\n".join("\n".join(section) for section in answer.sections if section) + "\n"


def _answer_subject(s, answer: Answer) -> str:
    """'Re: ' and our own subject, in the answer's language, never the incoming one (so an answer
    repeats nothing a stranger wrote); about a game, the game's one subject (its thread's, issue 33)."""
    name = s.scalar(_GAME_TITLE, {"game_id": answer.game_id}) if answer.game_id is not None else None
    if name is not None and answer.subject is None:
        return "Re: " + wording.thread_subject(answer.game_id, answers.title_of(name), answer.language)
    if answer.subject is not None:
        what = wording.subject(answer.subject, answer.language)
    elif answer.reply_seat is not None:
        what = wording.subject("turn", answer.language, move=answer.reply_seq + 1)
    else:
        what = wording.subject("answer", answer.language)
    if name is None:
        return f"Re: [pbem] {what}"
    return f"Re: [pbem #{answer.game_id} {answers.title_of(name)}] {what}"


# --------------------------------------------------------------------------------------
# The door


@dataclass(frozen=True)
class _Envelope:
    """What the door reads of a message before storing it: reading it never raises, whatever the
    input; a message that cannot be read carries its reason (`malformed`)."""

    message: Message | None
    too_large: bool
    malformed: mime.MalformedMailError | None
    message_id: str
    sender: str
    ours: list[str]
    kind: str | None
    key: mailkeys.Key | None


def _read(raw: bytes, settings, envelope_to: list[str] | None, envelope_from: str | None) -> _Envelope:
    too_large = len(raw) > settings.mail_max_bytes
    malformed = None
    try:
        if too_large:
            message = mime.parse_headers(raw[:HEAD_BYTES])
        else:
            try:
                message = mime.parse(raw)
            except mime.MalformedMailError as error:
                malformed, message = error, mime.parse_headers(raw[:HEAD_BYTES])
        recipients = _recipients(message, envelope_to)
        ours = [a for a in recipients if mailkeys.is_ours(a, settings.mail_domain)]
        return _Envelope(message, too_large, malformed, _message_id(message, raw), _sender(message), ours,
                         _kind(message, envelope_from),
                         next((k for k in (mailkeys.decode(a, settings.mail_domain) for a in ours) if k), None))
    except Exception as error:  # noqa: BLE001 - whatever breaks a reader, the mail cannot be read: never retried
        return _unreadable(raw, too_large, error)


def _unreadable(raw: bytes, too_large: bool, error: BaseException) -> _Envelope:
    """A message none of whose parts can be trusted: known by the hash of its bytes, from nobody."""
    reason = mime.MalformedMailError(N_("The message could not be read as mail (%(error)s)."),
                                     error=type(error).__name__)
    return _Envelope(None, too_large, reason, _message_id(None, raw), "", [], None, None)


def receive(db: Database, raw: bytes, settings=None, *, envelope_to: list[str] | None = None,
            envelope_from: str | None = None, refusals_by_mail: bool = True) -> Received:
    """Take one message (raw bytes as received) and act on it; returns what became of it.

    It raises only when the database cannot be reached (`pbem.db.unavailable`): then nothing
    was recorded and the door says "try again later". Every other failure is recorded with
    the message (`malformed`: it cannot be read; `error`: reading it broke something of ours)
    and the mail is never retried (docs/security.md, "What is temporary"). With
    `refusals_by_mail=False` (the SMTP door, which refuses such a mail with a 5xx of its own), a
    mail that is too large or cannot be read is not also answered by mail.
    """
    settings = settings or config.load()
    envelope = _read(raw, settings, envelope_to, envelope_from)
    stored_raw = raw[:HEAD_BYTES] if envelope.too_large else raw
    try:
        stored = _store(db, settings, envelope, stored_raw)
    except Exception as error:
        if unavailable(error):
            raise
        # A value of this message that the database refuses (a NUL in PostgreSQL's text): stored by its hash alone.
        envelope = _unreadable(raw, envelope.too_large, error)
        stored = _store(db, settings, envelope, stored_raw)
    if stored is None:
        return Received("duplicate", "This Message-ID was received before.", message_id=envelope.message_id)
    try:
        return _act(db, settings, envelope, stored, len(raw), refusals_by_mail)
    except Exception as error:
        if unavailable(error):
            raise
        log.error("inbound mail %d failed (%s); pbem mail unread lists it", stored.inbound_id, type(error).__name__)
        detail = "".join(traceback.format_exception(error))[-4000:]
        return _finish(db, stored, Received("error", detail, message_id=envelope.message_id), None,
                       envelope.message_id)


def _act(db: Database, settings, envelope: _Envelope, stored: _Stored, size: int, refusals_by_mail: bool) -> Received:
    """Everything after storing: refuse, or read the lines and run them; then record and answer."""
    who, message, message_id, key = stored.who, envelope.message, envelope.message_id, envelope.key

    def finish(result: Received, answer: Answer | None = None, answer_kind: str = "reply") -> Received:
        result.message_id = message_id
        return _finish(db, stored, result, answer, message_id, answer_kind)

    reader = who.player.language if who is not None and who.player is not None else i18n.DEFAULT

    def refusal(result: Received, message: str, **values) -> Received:
        """A mail not read: the registered address is told why, in its user's language; a sender without
        an account is not told."""
        to = who.answer_to if who is not None else None
        if to is None:
            return finish(result)
        return finish(result, Answer(to, [[i18n.texts(reader).gettext(message, **values)]], user_id=who.player.id,
                                     language=reader))

    if envelope.kind == "bounce":
        return finish(_record_bounce(db, settings, message, envelope.ours))
    if envelope.kind == "dmarc_fail":
        return finish(Received("dmarc_fail", "The receiving MTA found that the From failed DMARC; not answered."))
    if envelope.kind is not None:
        return finish(Received(envelope.kind, "Automatic mail; not answered."))
    if envelope.malformed and not envelope.sender:
        return finish(Received("malformed", str(envelope.malformed)))
    if not envelope.sender:
        return finish(Received("malformed", "The message has no valid From address; not answered."))
    if stored.verdict == "quiet":
        return finish(Received("rate_limited", "Over the rate limit; notice already sent."))
    if stored.verdict == "notice":
        return refusal(Received("rate_limited", "Over the rate limit; one notice sent."),
                       N_("More than %(count)d mails for you came within an hour. Mails for you are not read for "
                          "the rest of the hour, and this is the only notice you get. Nothing in your games was "
                          "changed by the mails that were not read."), count=settings.mail_rate_per_hour)
    if envelope.too_large:
        result = Received("too_large", f"{size} bytes; the limit is {settings.mail_max_bytes}.")
        if not refusals_by_mail:
            return finish(result)
        return refusal(result, N_("Your mail was %(size)s MB; the limit is %(limit)s MB. It was not read; send the "
                                  "commands as plain text without attachments."),
                       size=format_decimal(size / 1e6, "0.0", locale=reader),
                       limit=format_decimal(settings.mail_max_bytes / 1e6, "0", locale=reader))
    if envelope.malformed:
        result = Received("malformed", str(envelope.malformed))
        if not refusals_by_mail:
            return finish(result)
        return refusal(result, N_("Your mail was not read: %(reason)s"), reason=envelope.malformed.text(reader))
    try:
        body = mime.reply_text(message)
    except mime.MalformedMailError as error:
        return refusal(Received("malformed", str(error)), N_("Your mail was not read: %(reason)s"),
                       reason=error.text(reader))
    if body is None:
        return refusal(Received("no_text", "No text part."),
                       N_("Your mail has no text part, so there was nothing to read. Write the commands or your "
                          "move as text in the mail itself."))
    subject = mime.header_text(message, "Subject")
    if isinstance(key, mailkeys.ReplyToken) and who.key_valid:
        # A reply to a turn mail may end with a message to the table, under a line "--- message ---".
        orders, said = conversation.split_message(body)
        result, answer = turns.run(db, settings, who, commands.lines_of(subject, orders),
                                   commands.subject_move(subject), message_id)
        if said is not None and result.outcome != "forged_from":
            conversation.post_with_turn(db, who, said, answer)
        return finish(result, answer)
    lines = commands.lines_of(subject, body)
    if isinstance(key, mailkeys.CommandKey) and who.key_valid:
        return finish(*account.run_command_key(db, settings, who, lines))
    if isinstance(key, mailkeys.RequestKey) and who.key_valid:
        return finish(*account.run_request(db, settings, who))
    if isinstance(key, mailkeys.TalkKey) and who.key_valid:
        return finish(*conversation.run_talk_reply(db, settings, who, body))
    if key is not None:
        return refusal(Received("bad_token", "The address does not carry a valid key."),
                       N_("The address you wrote to is not valid (it was changed, or your addresses were renewed "
                          "with /newkeys), so nothing was done. Reply to your latest mail from pbem, or send /help "
                          "to your command address (at the foot of this mail)."))
    result, answer = account.run_keyless(db, settings, who, lines, stored.inbound_id, _declared_language(message))
    return finish(result, answer, "verify" if result.outcome == "unverified" else "reply")


# --------------------------------------------------------------------------------------
# Bounces and old mail


def _record_bounce(db: Database, settings, message: Message, ours: list[str]) -> Received:
    """Count a bounce against the recipient of the mail its signed bounce address names, once per mail.

    Only a hard bounce (the mailbox is not there: loops.bounce_kind) counts toward stopping the
    address's notifications; a refusal for another reason (a policy, a spam filter) is recorded
    with the address as a soft one, and reported in the log for the operator."""
    outbox_ids = [i for i in (mailkeys.decode_bounce(settings.secret_key, a, settings.mail_domain) for a in ours)
                  if i is not None]
    if not outbox_ids:
        return Received("bounce", "No signed bounce address: counted for nobody.")
    status = loops.bounce_status(message)
    kind = loops.bounce_kind(status)
    hard = kind == "hard"
    detail = f"{status or 'no status'}: {mime.header_text(message, 'Subject')}"
    notes = []
    with db.transaction() as s:
        for outbox_id in outbox_ids:
            row = s.scalars(select(OutboundMail).where(OutboundMail.id == outbox_id).with_for_update()).first()
            if row is None:
                continue
            recipient = row.recipient
            if hard and row.bounced_at is not None:
                notes.append(f"hard bounce of mail {outbox_id} to {recipient}, counted before")
                continue
            if hard:
                row.bounced_at = utcnow()
            if kind == "refused":
                log.warning("mail %d was refused by the receiving side (%s), not for its address: not counted as "
                            "a hard bounce", outbox_id, status or "no status")
            stopped = addresses.record_bounce(s, recipient, hard, detail)
            notes.append(f"{kind} bounce ({status or 'no status'}) of mail {outbox_id} to {recipient}"
                         + ("; notifications stopped" if stopped else ""))
    return Received("bounce", "; ".join(notes) or "The bounce names no mail of ours.")


UNREAD = ("malformed", "too_large", "error")  # the outcomes of mails that were not read, or broke something of ours


def unread_rows(db: Database, limit: int = 100) -> list:
    """The newest inbound mails that were not read (UNREAD), for the operator (`pbem mail unread`)."""
    return db.read(select(_INBOUND.c.id, _INBOUND.c.received_at, _INBOUND.c.outcome, _INBOUND.c.sender,
                          _INBOUND.c.detail).where(_INBOUND.c.outcome.in_(UNREAD)).order_by(_INBOUND.c.id.desc())
                   .limit(limit))


def forget_raw(db: Database, older_than: timedelta) -> int:
    """Delete the raw bytes of inbound mail received more than `older_than` ago (the outcome row stays);
    returns how many."""
    with db.transaction() as s:
        return s.execute(update(_INBOUND).where(_INBOUND.c.received_at < utcnow() - older_than,
                                                _INBOUND.c.raw.is_not(None)).values(raw=None)).rowcount
