"""The one door for incoming mail: store it, decide whether to read it, act, answer.

`receive(db, raw)` is called by the SMTP/LMTP listener, the IMAP poller and `pbem mail
ingest`. Every message is stored raw with its outcome (InboundMail); a Message-ID seen
before is not processed again. Auto-replies, bounces and list mail are never answered;
bounces of our notifications are counted against the address. A reply through a seat's
token may move (checked against the token's move number and the seat's address); other
commands need a confirmed address. Game changes go through pbem.games only, each line
with the Message-ID as its idempotency key; the answer is an outbox row written in the
transaction that records the outcome. The answer lists what was done, what failed and
why, and what was ignored, and never quotes the original back.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from datetime import timedelta
from email.message import Message
from email.utils import parseaddr

from sqlalchemy import bindparam, func, insert, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from pbem import accounts, config, games, tokens
from pbem.db import Database
from pbem.mail import addresses, commands, loops, text
from pbem.models import Game, InboundMail, OutboundMail, Seat, User, utcnow
from pbem.notify import outbox, texts

HEAD_BYTES = 64 * 1024  # of an over-size message only this much is kept
ECHO_CHARS = 100  # a command line is echoed at most this long in the answer
PROCESSING_WAIT = timedelta(seconds=60)  # a message 'processing' longer than this died half-way
PROCESSING_POLL_S = 0.05  # how often a second copy looks whether the first one is done

# Statements of every message, in Core: the ORM's unit of work has nothing to track here.
_STORE = insert(InboundMail.__table__).returning(InboundMail.id)
_RECORD_OUTCOME = (update(InboundMail.__table__).where(InboundMail.__table__.c.id == bindparam("inbound_id"))
                   .values(outcome=bindparam("outcome"), detail=bindparam("detail"), game_id=bindparam("game_id")))
_STORED = select(InboundMail.id, InboundMail.outcome, InboundMail.received_at).where(
    InboundMail.message_id == bindparam("message_id"))
_PLAYER_COLUMNS = (User.id, User.email, User.email_verified, User.from_check)
_SEAT_OF_TOKEN = (select(Seat.token_nonce, *_PLAYER_COLUMNS).join(User, User.id == Seat.user_id)
                  .where(Seat.game_id == bindparam("game_id"), Seat.number == bindparam("seat")))
_USER_OF_SENDER = select(*_PLAYER_COLUMNS).where(User.email == bindparam("email"))
_GAME_TITLE = select(Game.title).where(Game.id == bindparam("game_id"))
_VERIFY_EMAIL = update(User.__table__).where(User.__table__.c.id == bindparam("user_id")).values(
    email_verified=True)


@dataclass(frozen=True)
class _Player:
    """The user a message acts for, as read with the message (what the lines need of a User)."""

    id: int
    email: str
    email_verified: bool
    from_check: bool

    @classmethod
    def of(cls, row) -> _Player:
        return cls(row.id, row.email, bool(row.email_verified), bool(row.from_check))


@dataclass(frozen=True)
class _Sender:
    """Who sent a message, looked up in the transaction that stores it.

    `token` is the seat token of the reply address, if any; `seat_found` whether that seat
    exists with a user, `nonce` its nonce; `player` that seat's user, or (no token) the user
    of the From address, if known."""

    token: tokens.ReplyToken | None
    seat_found: bool = False
    nonce: str | None = None
    player: _Player | None = None


def _look_up(c: Connection, sender: str, token: tokens.ReplyToken | None) -> _Sender:
    if token is not None:
        row = c.execute(_SEAT_OF_TOKEN, {"game_id": token.game_id, "seat": token.seat}).first()
        if row is None:
            return _Sender(token)
        return _Sender(token, True, row.token_nonce, _Player.of(row))
    row = c.execute(_USER_OF_SENDER, {"email": sender}).first()
    return _Sender(None, player=_Player.of(row) if row is not None else None)


@dataclass
class Received:
    """What became of one message."""

    outcome: str
    detail: str = ""
    inbound_id: int | None = None
    message_id: str | None = None
    game_id: int | None = None
    done: list[str] = field(default_factory=list)
    failed: tuple[str, str] | None = None
    ignored: list[str] = field(default_factory=list)
    answer_id: int | None = None


@dataclass
class _Answer:
    """The answer being put together while the lines are read."""

    sections: list[list[str]] = field(default_factory=list)
    game_id: int | None = None
    reply_seat: int | None = None
    reply_seq: int | None = None
    board_seq: int | None = None
    board_viewer: int | None = None
    user_id: int | None = None  # the user answered, when known


# --------------------------------------------------------------------------------------
# Reading the envelope and headers


def _message_id(message: Message | None, raw: bytes) -> str:
    value = str(message.get("Message-ID") or "").strip() if message is not None else ""
    if value:
        return value[:998]
    return f"<{hashlib.sha256(raw).hexdigest()}@no-message-id>"


def _sender(message: Message | None) -> str:
    try:
        return parseaddr(str(message.get("From") or ""))[1].strip().lower() if message is not None else ""
    except Exception:  # a mangled From header leaves no one to answer
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
        return tokens.find_addresses(values)
    except Exception:
        return []


def _key(message_id: str, line: int) -> str:
    base = message_id if len(message_id) <= 200 else hashlib.sha256(message_id.encode()).hexdigest()
    return f"mail:{base}#{line}"


def _echo(line: str) -> str:
    return line if len(line) <= ECHO_CHARS else line[:ECHO_CHARS - 3] + "..."


# --------------------------------------------------------------------------------------
# Storing and finishing


def _store(db: Database, message_id: str, raw: bytes, sender: str, recipient: str | None,
           count_for: str | None, limit: int, token: tokens.ReplyToken | None = None
           ) -> tuple[int | None, str, _Sender | None]:
    """Store the message (once); returns its row id (None for a duplicate), the rate verdict and,
    for a person's mail (`count_for`), who sent it (`_look_up`, read in the same transaction).

    A copy that arrives while another delivery of the same message is being processed (an
    MTA retrying, the same mail by SMTP and IMAP) waits for that one to finish and is then a
    duplicate: processed side by side, both would answer. A row still 'processing' after
    PROCESSING_WAIT is a processing that died half-way: it is taken up again.
    """
    while True:
        try:  # the common case first: a new message, one insert
            with db.engine.begin() as c:
                inbound_id = c.execute(_STORE, {
                    "message_id": message_id, "sender": sender[:320] or None,
                    "recipient": (recipient or "")[:320] or None, "raw": raw, "outcome": "processing",
                    "received_at": utcnow()}).first()[0]
                verdict = addresses.count_message(c, count_for, limit) if count_for else "ok"
                who = _look_up(c, count_for, token) if count_for else None
                return inbound_id, verdict, who
        except IntegrityError:  # stored before, or by a concurrent delivery this instant
            pass
        with db.engine.connect() as c:
            old = c.execute(_STORED, {"message_id": message_id}).first()
            if old is not None:
                if old.outcome != "processing":
                    return None, "ok", None
                if utcnow() - old.received_at >= PROCESSING_WAIT:
                    # Died half-way (the sender retries): take it up again; the idempotency keys keep moves single.
                    return old.id, "ok", _look_up(c, count_for, token) if count_for else None
        _wait_for_the_other_delivery()


def _wait_for_the_other_delivery() -> None:
    time.sleep(PROCESSING_POLL_S)


def _finish(db: Database, settings, inbound_id: int, result: Received, to: str | None, subject: str | None,
            answer: _Answer | None, in_reply_to: str | None, kind: str = "reply") -> Received:
    """Record the outcome and write the answer in one transaction."""
    with db.transaction() as s:
        s.execute(_RECORD_OUTCOME, {"inbound_id": inbound_id, "outcome": result.outcome,
                                    "detail": result.detail[:4000] if result.detail else None,
                                    "game_id": result.game_id})
        if answer is not None and to:
            body = "\n\n".join("\n".join(section) for section in answer.sections if section) + "\n"
            board_viewer = answer.board_viewer if answer.board_seq is not None else None
            subject = _answer_subject(subject)
            if answer.game_id is not None and f"[pbem #{answer.game_id} " not in subject:
                title = _game_title(s, answer.game_id)
                if title:
                    subject = f"[pbem #{answer.game_id} {title}] {subject}"
            result.answer_id = outbox.queue(
                s, kind=kind, recipient=to, user_id=answer.user_id, game_id=answer.game_id,
                seq=answer.board_seq, subject=subject, body=body, reply_seat=answer.reply_seat,
                reply_seq=answer.reply_seq, in_reply_to=in_reply_to, board_viewer=board_viewer)
    result.inbound_id = inbound_id
    return result


def _game_title(s, game_id: int) -> str | None:
    name = s.scalar(_GAME_TITLE, {"game_id": game_id})
    return _title(name) if name is not None else None


def _title(name: str) -> str:
    import engine

    try:
        return engine.get(name).title
    except engine.UnknownGameError:
        return name


def _answer_subject(subject: str | None) -> str:
    subject = " ".join((subject or "").split())[:200]
    if not subject:
        return "Re: your mail to pbem"
    return subject if subject.lower().startswith("re:") else f"Re: {subject}"


# --------------------------------------------------------------------------------------
# The door


def receive(db: Database, raw: bytes, settings=None, *, envelope_to: list[str] | None = None,
            envelope_from: str | None = None) -> Received:
    """Take one message (raw bytes as received) and act on it; returns what became of it."""
    settings = settings or config.load()
    too_large = len(raw) > settings.mail_max_bytes
    message, malformed = None, None
    if too_large:
        message = text.parse_headers(raw[:HEAD_BYTES])
        stored_raw = raw[:HEAD_BYTES]
    else:
        stored_raw = raw
        try:
            message = text.parse(raw)
        except text.MalformedMailError as error:
            malformed = str(error)
            message = text.parse_headers(raw[:HEAD_BYTES])
    message_id = _message_id(message, raw)
    sender = _sender(message)
    recipients = _recipients(message, envelope_to)
    ours = [a for a in recipients if tokens.is_ours(a, settings.mail_domain)]
    try:
        kind = loops.classify(message, envelope_from)
    except Exception:  # headers too broken to judge: treat as automatic, never answer it
        kind = "auto_reply"
    human = kind is None and bool(sender)
    token = next((t for t in (tokens.decode_reply(a, settings.mail_domain) for a in ours) if t), None)
    inbound_id, verdict, who = _store(db, message_id, stored_raw, sender, ours[0] if ours else None,
                                      sender if human else None, settings.mail_rate_per_hour, token)
    if inbound_id is None:
        return Received("duplicate", "This Message-ID was received before.", message_id=message_id)
    subject = text.header_text(message, "Subject")

    def finish(result: Received, answer: _Answer | None = None, kind: str = "reply") -> Received:
        result.message_id = message_id
        return _finish(db, settings, inbound_id, result, sender if human else None, subject, answer,
                       message_id, kind)

    if kind == "bounce":
        return finish(_record_bounce(db, settings, message, ours))
    if kind is not None:
        return finish(Received(kind, "Automatic mail; not answered."))
    if not sender:
        return finish(Received("malformed", "The message has no From address."))
    if verdict == "quiet":
        return finish(Received("rate_limited", "Over the rate limit; notice already sent."))
    if verdict == "notice":
        return finish(Received("rate_limited", "Over the rate limit; one notice sent."), _Answer([[
            f"You sent more than {settings.mail_rate_per_hour} mails within an hour. Mails from you are "
            "not read for the rest of the hour, and this is the only notice you get. Nothing in your "
            "games was changed by the mails that were not read."]]))
    if too_large:
        return finish(Received("too_large", f"{len(raw)} bytes; the limit is {settings.mail_max_bytes}."),
                      _Answer([[f"Your mail was {len(raw) / 1e6:.1f} MB; the limit is "
                                f"{settings.mail_max_bytes / 1e6:.0f} MB. It was not read; send the "
                                "commands as plain text without attachments."]]))
    if malformed:
        return finish(Received("malformed", malformed), _Answer([[f"Your mail was not read: {malformed}"]]))
    body = text.reply_text(message)
    if body is None:
        return finish(Received("no_text", "No text part."), _Answer([[
            "Your mail has no text part, so there was nothing to read. Write the commands or your "
            "move as text in the mail itself."]]))
    lines = commands.lines_of(subject, body)
    if token is not None:
        return finish(*_reply(db, settings, who, sender, lines, message_id))
    result, answer = _commands(db, settings, who, sender, lines, message_id)
    return finish(result, answer, "verify" if result.outcome == "unverified" else "reply")


# --------------------------------------------------------------------------------------
# Bounces


def _record_bounce(db: Database, settings, message: Message, ours: list[str]) -> Received:
    hard = loops.is_hard(message)
    outbox_ids = [i for i in (tokens.decode_bounce(settings.secret_key, a, settings.mail_domain) for a in ours)
                  if i is not None]
    with db.transaction() as s:
        targets: set[str] = set()
        for outbox_id in outbox_ids:
            row = s.get(OutboundMail, outbox_id)
            if row is not None:
                targets.add(row.recipient)
        if not targets:
            temporary, permanent = loops.bounced_addresses(message)
            hard = bool(permanent) or (hard and not temporary)
            known = set(s.scalars(select(User.email).where(User.email.in_(temporary | permanent))))
            targets = known
        stopped = [address for address in sorted(targets)
                   if addresses.record_bounce(s, address, hard, text.header_text(message, "Subject"))]
    detail = f"{'hard' if hard else 'soft'} bounce for {', '.join(sorted(targets)) or 'no known address'}"
    if stopped:
        detail += f"; notifications stopped for {', '.join(stopped)}"
    return Received("bounce", detail)


# --------------------------------------------------------------------------------------
# Replies through a seat token


def _reply(db: Database, settings, who: _Sender, sender: str, lines: list[str],
           message_id: str) -> tuple[Received, _Answer | None]:
    token = who.token
    valid = who.seat_found and tokens.verify(settings.secret_key, token, who.nonce)
    user = who.player
    if not valid:
        return Received("bad_token", "The reply address does not carry a valid token."), _Answer([[
            "This reply address is not valid (it was changed, or the seat's addresses were renewed), "
            "so nothing was done. Reply to your latest turn notification, or send /help."]])
    if user.from_check and sender != user.email:
        return (Received("forged_from", f"From {sender}, but seat {token.seat} of game {token.game_id} "
                                        "belongs to another address.", game_id=token.game_id),
                _Answer([[f"Moves for this seat are accepted only from the address it was sent to. "
                          "Nothing was done. (Players who write from several addresses can turn this "
                          "check off with /fromcheck off, sent from their registered address.)"]]))
    if not user.email_verified and sender == user.email:
        with db.engine.begin() as c:  # a token reply from the seat's own address proves the address works
            c.execute(_VERIFY_EMAIL, {"user_id": user.id})
    return _run(db, settings, lines, user, token, message_id)


# --------------------------------------------------------------------------------------
# Commands without a token


def _commands(db: Database, settings, who: _Sender, sender: str, lines: list[str], message_id: str
              ) -> tuple[Received, _Answer | None]:
    user = who.player
    if user is None or not user.email_verified:
        return _unverified(db, sender, lines)
    return _run(db, settings, lines, user, None, message_id)


def _unverified(db: Database, sender: str, lines: list[str]) -> tuple[Received, _Answer | None]:
    confirm = next((line for line in lines if line.lower().startswith("/confirm")), None)
    with db.transaction() as s:
        user = accounts.get_or_create_user(s, sender)
        if confirm is not None:
            words = confirm.split()
            if len(words) == 2 and addresses.check_code(s, sender, words[1]):
                user.email_verified = True
                return Received("confirmed", "Address confirmed."), _Answer([[
                    f"Your address {sender} is confirmed. Send your commands again; /help lists them."]],
                    user_id=user.id)
        code = addresses.new_code(s, sender)
        user_id = user.id
    if code is None:
        return Received("unverified", "Unconfirmed address; a code was sent within the hour."), None
    return Received("unverified", "Unconfirmed address; confirmation code sent."), _Answer([[
        f"To play by mail from {sender}, confirm this address first: reply with the line",
        "",
        f"  /confirm {code}",
        "",
        "Nothing else in your mail was read. If you did not write to us, ignore this mail."]], user_id=user_id)


# --------------------------------------------------------------------------------------
# Running the lines


def _run(db: Database, settings, lines: list[str], user: _Player, token: tokens.ReplyToken | None,
         message_id: str) -> tuple[Received, _Answer]:
    reply_game = token.game_id if token else None
    expected = token.seq if token else None
    result = Received("done", game_id=reply_game)
    answer = _Answer(game_id=reply_game, user_id=user.id)
    extra: list[list[str]] = []
    moved_in: int | None = None
    last: games.SubmitResult | None = None
    for index, line in enumerate(lines):
        if index >= commands.MAX_LINES or result.failed:
            result.ignored.append(_echo(line))
            continue
        try:
            command = commands.parse(line, reply_game)
            if command.name == "resign" and token is None:
                raise commands.CommandError("Resign by replying to a turn notification of that game (its "
                                            "reply address carries your seat's key).")
            if command.name in ("play", "move"):
                if token is None:
                    raise commands.CommandError(
                        "Moves are accepted only in replies to your turn notification (its reply address "
                        "carries your seat's key).")
                notation = " ".join(command.args)
                try:
                    done = games.submit(db, command.game_id, notation, user_id=user.id, source="email",
                                        key=_key(message_id, index), expected_version=expected)
                except games.StalePositionError:
                    if moved_in is None:
                        return _stale(db, user, token, line, lines[index + 1:])
                    raise
                expected = None if done.duplicate else done.seq + len(done.auto_moves)
                last = done
                moved_in = command.game_id
                note = f" (then automatically: {', '.join(done.auto_moves)})" if done.auto_moves else ""
                result.done.append(f"{_echo(line)}  -> move {done.seq}: {done.notation}{note}")
            else:
                text_lines = _command(db, settings, command, user, answer)
                result.done.append(_echo(line))
                if text_lines:
                    extra.append(text_lines)
        except (commands.CommandError, games.GameError) as error:
            result.failed = (_echo(line), str(error))
    if moved_in is not None:
        if last is not None and last.to_move is not None and last.to_move == token.seat:
            _after_moves(db, moved_in, user, answer, extra)
        else:
            answer.game_id = moved_in
            extra.append([f"Game {moved_in} is over." if last is not None and last.finished else
                          f"Game {moved_in} goes on; the next player has been sent the board."])
    result.outcome = ("failed" if not result.done else "partial") if result.failed else (
        "done" if result.done else "empty")
    if result.outcome == "empty":
        result.detail = "No commands found."
        answer.sections.append(["Your mail had no command or move in it (quoted text and signatures are "
                                "not read). Send /help for the list of commands."])
        return result, answer
    result.detail = f"{len(result.done)} done, {1 if result.failed else 0} failed, {len(result.ignored)} ignored"
    answer.sections.append(_results(result))
    answer.sections += extra
    if token is not None and moved_in is None and result.failed:
        try:
            _position(games.view(db, token.game_id, user.id), answer, user)
        except games.GameError:
            pass
    if result.game_id is None:
        result.game_id = answer.game_id
    return result, answer


def _results(result: Received) -> list[str]:
    lines = ["The results of your mail:"]
    if result.done:
        lines += ["", "Done:"] + [f"  {x}" for x in result.done]
    if result.failed:
        lines += ["", "Failed (reading stopped here):", f"  {result.failed[0]}", f"    {result.failed[1]}"]
    if result.ignored:
        lines += ["", "Ignored (not read):"] + [f"  {x}" for x in result.ignored]
    return lines


def _stale(db: Database, user: _Player, token: tokens.ReplyToken, line: str, rest: list[str]
           ) -> tuple[Received, _Answer]:
    data = games.view(db, token.game_id, user.id)
    answer = _Answer(game_id=token.game_id, user_id=user.id)
    answer.sections.append([f"This turn has already been played: your reply was for move {token.seq + 1}, and "
                            f"game {token.game_id} is at move {data['version'] + 1} now. Nothing was done.",
                            "", "Not read:"] + [f"  {_echo(x)}" for x in [line] + rest])
    _position(data, answer, user)
    return (Received("stale", f"Reply for move {token.seq + 1}; the game is at move {data['version'] + 1}.",
                     game_id=token.game_id, ignored=[_echo(x) for x in [line] + rest]), answer)


def _position(data: dict, answer: _Answer, user: _Player) -> None:
    """Add the current position; when it is the user's turn, their legal moves and a fresh reply token."""
    answer.game_id = data["id"]
    if data.get("legal_moves"):
        answer.sections.append([f"It is your turn in game {data['id']}, move {data['version'] + 1}."]
                               + [""] + texts.turn_block(data))
        answer.reply_seat, answer.reply_seq = data["my_seat"], data["version"]
    answer.sections.append(texts.position_lines(data) + ["", f"Game page: {texts.game_link(data['id'])}"])
    if data.get("my_seat") is not None:
        answer.board_seq, answer.board_viewer = data["version"], data["my_seat"]


def _after_moves(db: Database, game_id: int, user: _Player, answer: _Answer, extra: list[list[str]]) -> None:
    """After moves: if the turn is still the sender's (a turn of several decisions), the next decision."""
    data = games.view(db, game_id, user.id)
    answer.game_id = game_id
    if data.get("legal_moves"):
        section = ([f"It is still your turn in game {game_id}, move {data['version'] + 1}."] + [""]
                   + texts.turn_block(data))
        extra.append(section)
        answer.reply_seat, answer.reply_seq = data["my_seat"], data["version"]
        answer.board_seq, answer.board_viewer = data["version"], data["my_seat"]
    elif data["status"] == "running":
        to_move = next((x["name"] for x in data["seats"] if x["seat"] == data["to_move"]), "?")
        extra.append([f"Game {game_id} goes on: {to_move} is to move."])


def _command(db: Database, settings, command: commands.Command, user: _Player, answer: _Answer) -> list[str]:
    """Run one command other than a move; returns the lines it adds to the answer."""
    name = command.name
    if name == "help":
        import engine

        titles = ", ".join(n for n in engine.names() if n != "counters") or "none yet"
        return commands.HELP.format(titles=titles).split("\n")
    if name == "new":
        title, players, options, colour, hours = commands.parse_new(command.args)
        game_id = games.create_game(db, title, user.id, players, options, colour=colour, turn_hours=hours)
        answer.game_id = game_id
        free = games.view(db, game_id)["free_colours"]
        mine = f", in {colour.strip().lower()}" if colour and colour.strip().lower() != "any" else ""
        return [f"Game {game_id} ({title}) is open with {players} seats and you in the first one{mine}. "
                f"Others join by mailing {tokens.plain_address(settings.mail_domain)} the line:",
                "", f"  /join {game_id}", "",
                f"or /join {game_id} COLOUR for one of the free colours: {', '.join(free)}.",
                f"Start it before it is full with /start {game_id}."]
    if name == "join":
        joined = games.join_game(db, command.game_id, user.id, commands.parse_join(command.args))
        answer.game_id = command.game_id
        if joined["started"]:
            return [f"You joined game {command.game_id} as {joined['colour']}. The table is full and the game "
                    "has started; the first player gets a turn mail."]
        colour = (f"in {joined['colour']}" if joined["colour"]
                  else "with no colour asked for: you get one of those left")
        return [f"You joined game {command.game_id} {colour}. The game starts when the table is full; "
                "the seat order is drawn then."]
    if name == "start":
        games.start_game(db, command.game_id, user.id)
        answer.game_id = command.game_id
        return [f"Game {command.game_id} has started; the first player gets a turn mail."]
    if name in ("board", "moves"):
        data = games.view(db, command.game_id, user.id)
        if name == "moves" and not data.get("legal_moves"):
            raise games.NotYourTurnError(f"It is not your turn in game {command.game_id}, so you have no "
                                         "moves to make.")
        _position(data, answer, user)
        return []
    if name == "resign":
        games.resign(db, command.game_id, user.id, source="email")
        return [f"You resigned from game {command.game_id}."]
    if name == "games":
        return _games_list(db, user)
    if name == "notify":
        with db.transaction() as s:
            s.get(User, user.id).notify = command.args[0].lower()
        return [f"You now get mail: {_NOTIFY_TEXT[command.args[0].lower()]}."]
    if name == "fromcheck":
        on = command.args[0].lower() == "on"
        with db.transaction() as s:
            s.get(User, user.id).from_check = on
        return ["Moves are now accepted only from " + (f"{user.email}." if on else
                                                          "any address that holds your reply key.")]
    if name == "confirm":
        return ["Your address is already confirmed."]
    raise commands.CommandError(f"/{name} cannot be used here.")


_NOTIFY_TEXT = {"every": "after every move", "turn": "when it is your turn", "digest": "once a day",
                "none": "never (the web page still shows your games)"}


def _games_list(db: Database, user: _Player) -> list[str]:
    with db.sessions() as s:
        rows = s.execute(select(Game, Seat).join(Seat, Seat.game_id == Game.id)
                         .where(Seat.user_id == user.id).order_by(Game.id)).all()
        if not rows:
            return ["You have no games. Open one with /new GAME or join one with /join GAME-ID."]
        lines = ["Your games:"]
        for game, seat in rows:
            turn = " - your turn" if game.status == "running" and game.to_move == seat.number else ""
            lines.append(f"  #{game.id} {game.title}: {game.status}, {game.version} moves{turn}")
        return lines
