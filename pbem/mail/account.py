"""Mail about a player's account and tables: through the command key, by confirming a request, or without a key.

- Through the **command key** (from the user's own address) every command but moves is run:
  `/new`, `/join`, `/start`, `/notify`, `/fromcheck`, `/newkeys`, and the read-only ones.
- **Without a key**, from a confirmed address, read-only commands (`/games`, `/board`, `/moves`,
  `/help`) are answered, but a mail that asks for a change is not run: the answer asks to
  confirm it by replying, its Reply-To a request key for that stored mail (`ask`), and the
  reply runs it once (`run_request`). A forged From thus only sends the real owner a mail.
- From an address **without a confirmed account**, only a confirmation code is sent (at most
  one an hour); `/confirm CODE` makes the account. No user is made before that.

Every answer goes to the registered address (pbem.mail.outcome). Reading stops at the first
line that is no "/" command (prose), quietly, and at the first failure, with the reason.
Moves are not taken here: they need the turn key (pbem.mail.turns).
"""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import bindparam, select, update

from pbem import accounts, games, i18n, tokens
from pbem.db import Database
from pbem.mail import addresses, answers, commands, text
from pbem.mail.outcome import Answer, Player, Received, Sender
from pbem.models import Game, InboundMail, Seat, User, utcnow

REQUEST_MAX_AGE = timedelta(days=3)  # a request key works this long (the raw mail is kept longer)
TO_CONFIRM, CONFIRMED = "to_confirm", "confirmed_by_reply"  # the outcomes of a stored request
NOTIFY_TEXT = {"every": "after every move", "turn": "when it is your turn", "digest": "once a day",
               "none": "never (the web page still shows your games)"}

_INBOUND = InboundMail.__table__
_TAKE_REQUEST = (update(_INBOUND).where(_INBOUND.c.id == bindparam("inbound_id"), _INBOUND.c.outcome == TO_CONFIRM)
                 .values(outcome=CONFIRMED))


# --------------------------------------------------------------------------------------
# The doors of this module


def run_command_key(db: Database, settings, who: Sender, lines: list[str]) -> tuple[Received, Answer]:
    """A mail to a valid command key."""
    if not who.from_owner:
        return _foreign(who, "your command address")
    if not who.player.email_verified:  # the key reached this address and came back from it: it works
        with db.transaction() as s:
            s.get(User, who.player.id).email_verified = True
    return _run(db, settings, who.player, lines)


def run_keyless(db: Database, settings, who: Sender, lines: list[str], inbound_id: int
                ) -> tuple[Received, Answer | None]:
    """A mail to the plain address (or to a key that is not valid) from `who.address`."""
    user = who.player
    if user is None or not user.email_verified:
        return unverified(db, who.address, lines)
    parsed, _written_wrongly, _not_read = _commands_of(lines)
    changes = sorted({command.name for _line, command in parsed if command.name in commands.ACCOUNT_CHANGES},
                     key=commands.NAMES.index)
    if changes:
        return _ask(user, changes, inbound_id)
    return _run(db, settings, user, lines)


def run_request(db: Database, settings, who: Sender) -> tuple[Received, Answer]:
    """A reply to a request key: run the stored mail it names, once, as if it came to the command key."""
    key, user = who.key, who.player
    if not who.from_owner:
        return _foreign(who, "the confirmation address of a request of yours")
    with db.engine.begin() as c:
        row = c.execute(select(_INBOUND.c.sender, _INBOUND.c.raw, _INBOUND.c.received_at, _INBOUND.c.outcome)
                        .where(_INBOUND.c.id == key.inbound_id)).first()
        usable = (row is not None and row.outcome == TO_CONFIRM and row.sender == user.email
                  and row.raw is not None and utcnow() - row.received_at < REQUEST_MAX_AGE)
        taken = usable and c.execute(_TAKE_REQUEST, {"inbound_id": key.inbound_id}).rowcount == 1
    if not taken:
        days = REQUEST_MAX_AGE.days
        return Received("request_gone", f"Request {key.inbound_id} was done before, or expired."), Answer(
            user.email, [[f"That request was done before, or it expired (a request can be confirmed once, "
                          f"within {days} days). Nothing was done now. Send the commands to your command "
                          "address (at the foot of this mail)."]], user_id=user.id)
    message = text.parse(row.raw)
    lines = commands.lines_of(text.header_text(message, "Subject"), text.reply_text(message) or "")
    result, answer = _run(db, settings, user, lines)
    answer.sections.insert(0, [f"You confirmed your mail of {row.received_at:%Y-%m-%d %H:%M} UTC: it was read now."])
    return result, answer


# --------------------------------------------------------------------------------------
# Refusals and requests


def _foreign(who: Sender, what: str) -> tuple[Received, Answer]:
    user = who.player
    return (Received("forged_from", f"From {who.address}, to {what} of {user.email}."),
            Answer(user.email, [[f"A mail from {who.address} came to {what} and was refused: it takes mail "
                                 f"from your own address ({user.email}) only. Nothing was done.", "",
                                 "If you did not write it, someone has seen that address: /newkeys, sent to "
                                 "your command address, makes new ones and stops the old."]], user_id=user.id))


def _ask(user: Player, changes: list[str], inbound_id: int) -> tuple[Received, Answer]:
    names = ", ".join(f"/{name}" for name in changes)
    answer = Answer(user.email, [[
        f"Your mail asks for {names}: commands that change your account or your tables. A mail without a "
        "key can come from anyone, so nothing was done yet.", "",
        f"Reply to this mail to do it, within {REQUEST_MAX_AGE.days} days (what you write in the reply is not "
        "read: the reply only confirms). If you did not write to us, ignore this mail and nothing happens.", "",
        "Commands sent to your command address (at the foot of this mail), from your own address, are done "
        "at once."]], user_id=user.id, request=inbound_id, subject="please confirm your commands")
    return Received(TO_CONFIRM, f"{names} without a key: confirmation asked."), answer


def unverified(db: Database, sender: str, lines: list[str]) -> tuple[Received, Answer | None]:
    """A mail from an address without a confirmed account: a confirmation code, or `/confirm CODE`."""
    confirm = next((line for line in lines if line.lower().startswith("/confirm")), None)
    with db.transaction() as s:
        if confirm is not None:
            words = confirm.split()
            if len(words) == 2 and addresses.check_code(s, sender, words[1]):
                user = accounts.get_or_create_user(s, sender)
                user.email_verified = True
                return Received("confirmed", "Address confirmed."), Answer(sender, [[
                    f"Your address {sender} is confirmed.", "",
                    "Your command address is at the foot of this mail, and replying to this mail sends to it: "
                    "write your commands there, one per line, from this address (/help lists them)."]],
                    user_id=user.id, subject="your address is confirmed")
        code = addresses.new_code(s, sender)
    if code is None:
        return Received("unverified", "Unconfirmed address; a code was sent within the hour."), None
    return Received("unverified", "Unconfirmed address; confirmation code sent."), Answer(sender, [[
        f"To play by mail from {sender}, confirm this address first: reply with the line",
        "",
        f"  /confirm {code}",
        "",
        "Nothing else in your mail was read. If you did not write to us, ignore this mail."]],
        subject="confirm your address")


# --------------------------------------------------------------------------------------
# Running the commands


def _commands_of(lines: list[str]) -> tuple[list[tuple[str, commands.Command]], tuple[str, str] | None, int]:
    """The commands to run, the first line that is a command written wrongly (with the reason), and
    how many lines are not read: those after a failure, and from the first line that is prose on."""
    parsed: list[tuple[str, commands.Command]] = []
    failed = None
    not_read = 0
    for index, line in enumerate(lines):
        if failed is not None or not_read or index >= commands.MAX_LINES or not line.startswith("/"):
            not_read += 1
            continue
        try:
            parsed.append((line, commands.parse(line, None)))
        except commands.CommandError as error:
            failed = (answers.echo(line), str(error))
    return parsed, failed, not_read


def _run(db: Database, settings, user: Player, lines: list[str]) -> tuple[Received, Answer]:
    """Run the commands of a mail with the user's authority; the answer goes to their address."""
    parsed, written_wrongly, not_read = _commands_of(lines)
    result = Received("done", not_read=not_read)
    answer = Answer(user.email, user_id=user.id)
    extra: list[list[str]] = []
    for index, (line, command) in enumerate(parsed):
        try:
            extra += _command(db, settings, command, user, answer)
        except (commands.CommandError, games.GameError) as error:
            result.failed = (answers.echo(line), str(error))
            # Not read: the commands after this one, and the line written wrongly after them.
            result.not_read += len(parsed) - index - 1 + (1 if written_wrongly else 0)
            if command.name in ("move", "resign"):
                extra += answers.games_to_move(db, settings, user.id) or [answers.no_games_to_move()]
            break
        result.done.append(answers.echo(line))
    else:
        result.failed = written_wrongly
    result.game_id = answer.game_id
    if result.failed:
        result.outcome = "partial" if result.done else "failed"
    elif not result.done:
        result.outcome, result.detail = "empty", "No commands found."
        answer.sections.append(answers.nothing_found(result.not_read))
        answer.sections += answers.games_to_move(db, settings, user.id) or [answers.no_games_to_move()]
        answer.sections.append(answers.SUBJECT_FORM)
        return result, answer
    result.detail = f"{len(result.done)} done, {1 if result.failed else 0} failed, {result.not_read} not read"
    # The results first, then what the commands said, then the positions they asked for.
    answer.sections[:0] = [answers.results(result)] + extra
    return result, answer


def _command(db: Database, settings, command: commands.Command, user: Player, answer: Answer) -> list[list[str]]:
    """Run one command; returns the sections it adds to the answer (the position goes into `answer`)."""
    name = command.name
    if name == "help":
        return [answers.help_lines()]
    if name in ("move", "resign"):
        raise commands.CommandError(f"/{name} is taken only in a reply to your turn mail of that game (its reply "
                                    "address is the key of your seat for that turn). Your games where it is your "
                                    "turn are listed below, each with that address.")
    if name == "new":
        return [_new(db, settings, command, user, answer)]
    if name == "join":
        joined = games.join_game(db, command.game_id, user.id, commands.parse_join(command.args))
        answer.game_id = command.game_id
        if joined["started"]:
            return [[f"You joined game {command.game_id} as {joined['colour']}. The table is full and the game "
                     "has started; the first player gets a turn mail."]]
        colour = (f"in {joined['colour']}" if joined["colour"]
                  else "with no colour asked for: you get one of those left")
        return [[f"You joined game {command.game_id} {colour}. The game starts when the table is full; "
                 "the seat order is drawn then."]]
    if name == "start":
        games.start_game(db, command.game_id, user.id)
        answer.game_id = command.game_id
        return [[f"Game {command.game_id} has started; the first player gets a turn mail."]]
    if name in ("board", "moves"):
        data = games.view(db, command.game_id, user.id)
        if name == "moves" and not data.get("legal_moves"):
            raise games.NotYourTurnError(f"It is not your turn in game {command.game_id}, so you have no "
                                         "moves to make.")
        answers.position(db, settings, data, answer, turn_key=False)
        return []
    if name == "orders":
        queued = games.orders_of(db, command.game_id, user.id)
        return [[f"Your standing orders in game {command.game_id}:"] + [f"  queued: {o}" for o in queued]
                if queued else [f"You have no standing orders in game {command.game_id}."]]
    if name == "cancel":
        dropped = games.cancel_orders(db, command.game_id, user.id)
        return [[f"Your standing orders in game {command.game_id} are dropped ({dropped})."]]
    if name == "games":
        return [_games_list(db, user)]
    if name == "notify":
        return [_notify(db, user, command.args[0].lower())]
    if name == "fromcheck":
        on = command.args[0].lower() == "on"
        with db.transaction() as s:
            s.get(User, user.id).from_check = on
        return [["Moves are now taken only from " + (f"{user.email}." if on else
                                                       "any address that holds the reply address of your turn.")]]
    if name == "language":
        try:
            with db.transaction() as s:
                language = accounts.set_language(s, s.get(User, user.id), command.args[0])
        except accounts.AccountError as error:
            raise commands.CommandError(str(error)) from None
        return [[f"Your language is now {i18n.NAMES[language]} ({language}): the web pages speak it; "
                 "the mails will once they are translated."]]
    if name == "newkeys":
        _new_keys(db, user)
        return [["New keys are made: your earlier command address and the reply addresses of your seats no "
                 "longer work. Your new command address is at the foot of this mail."]] + answers.games_to_move(
                    db, settings, user.id)
    if name == "confirm":
        return [["Your address is already confirmed."]]
    raise commands.CommandError(f"/{name} cannot be used here.")


def _new(db: Database, settings, command: commands.Command, user: Player, answer: Answer) -> list[str]:
    title, players, options, colour, hours = commands.parse_new(command.args)
    game_id = games.create_game(db, title, user.id, players, options, colour=colour, turn_hours=hours)
    answer.game_id = game_id
    free = games.view(db, game_id)["free_colours"]
    mine = f", in {colour.strip().lower()}" if colour and colour.strip().lower() != "any" else ""
    return [f"Game {game_id} ({title}) is open with {players} seats and you in the first one{mine}. "
            "Others join by sending the line", "", f"  /join {game_id}", "",
            f"to their command address (or to {tokens.plain_address(settings.mail_domain)}, then confirming by "
            f"reply), or /join {game_id} COLOUR for one of the free colours: {', '.join(free)}.",
            f"Start it before it is full with /start {game_id}."]


def _notify(db: Database, user: Player, choice: str) -> list[str]:
    with db.transaction() as s:
        if choice == "resume":
            addresses.resume(s, user.email)
            return [f"Mail to {user.email} is on again: the notifications that bounces had stopped are sent "
                    "again (if they bounce three more times, they stop again)."]
        s.get(User, user.id).notify = choice
    return [f"You now get mail: {NOTIFY_TEXT[choice]}."]


def _new_keys(db: Database, user: Player) -> None:
    """A new nonce for the user and each of their seats: every key made before stops working."""
    with db.transaction() as s:
        s.get(User, user.id).mail_nonce = tokens.new_nonce()
        for seat in s.scalars(select(Seat).where(Seat.user_id == user.id)):
            seat.token_nonce = tokens.new_nonce()


def _games_list(db: Database, user: Player) -> list[str]:
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
