"""Mail about a player's account and tables: through the command key, by confirming a request, or without a key.

- Through the **command key** (from the user's own address) every command but moves is run:
  `/new`, `/join`, `/start`, `/notify`, `/fromcheck`, `/newkeys`, and the read-only ones.
- **Without a key**, from a confirmed address, read-only commands (`/games`, `/board`, `/moves`,
  `/help`) are answered, but a mail that asks for a change is not run: the answer asks to
  confirm it by replying, its Reply-To a request key for that stored mail (`ask`), and the
  reply runs it once (`run_request`). A forged From thus only sends the real owner a mail.
- From an address **without a confirmed account**, only a confirmation code is sent (at most
  one an hour); `/confirm CODE` makes the account. No user is made before that.

Every answer goes to the registered address (pbem.mail.outcome), in the user's language; to a
sender without an account, in the language their mail declares (Content-Language), else English,
and the account `/confirm` makes gets that language. Reading stops at the first line that is no
"/" command (prose), quietly, and at the first failure, with the reason. Moves are not taken
here: they need the turn key (pbem.mail.turns).
"""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import bindparam, select, update

from pbem import accounts, games, i18n, tokens
from pbem.db import Database
from pbem.i18n import N_
from pbem.mail import addresses, answers, commands, text
from pbem.mail.outcome import Answer, Player, Received, Sender
from pbem.models import Game, InboundMail, Seat, User, utcnow
from pbem.notify import texts

REQUEST_MAX_AGE = timedelta(days=3)  # a request key works this long (the raw mail is kept longer)
TO_CONFIRM, CONFIRMED = "to_confirm", "confirmed_by_reply"  # the outcomes of a stored request
NOTIFY_TEXT = {"every": N_("after every move"), "turn": N_("when it is your turn"), "digest": N_("once a day"),
               "none": N_("never (the web page still shows your games)")}
STATUS_TEXT = {"open": N_("open"), "running": N_("running"), "finished": N_("finished"),
               "abandoned": N_("abandoned")}

_INBOUND = InboundMail.__table__
_TAKE_REQUEST = (update(_INBOUND).where(_INBOUND.c.id == bindparam("inbound_id"), _INBOUND.c.outcome == TO_CONFIRM)
                 .values(outcome=CONFIRMED))


# --------------------------------------------------------------------------------------
# The doors of this module


def run_command_key(db: Database, settings, who: Sender, lines: list[str]) -> tuple[Received, Answer]:
    """A mail to a valid command key."""
    if not who.from_owner:
        return _foreign(who, "command")
    if not who.player.email_verified:  # the key reached this address and came back from it: it works
        with db.transaction() as s:
            s.get(User, who.player.id).email_verified = True
    return _run(db, settings, who.player, lines)


def run_keyless(db: Database, settings, who: Sender, lines: list[str], inbound_id: int,
                language: str = i18n.DEFAULT) -> tuple[Received, Answer | None]:
    """A mail to the plain address (or to a key that is not valid) from `who.address`; `language`
    is the one the mail declares, for a sender without a confirmed account."""
    user = who.player
    if user is None or not user.email_verified:
        return unverified(db, who.address, lines, user.language if user is not None else language)
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
        return _foreign(who, "request")
    with db.engine.begin() as c:
        row = c.execute(select(_INBOUND.c.sender, _INBOUND.c.raw, _INBOUND.c.received_at, _INBOUND.c.outcome)
                        .where(_INBOUND.c.id == key.inbound_id)).first()
        usable = (row is not None and row.outcome == TO_CONFIRM and row.sender == user.email
                  and row.raw is not None and utcnow() - row.received_at < REQUEST_MAX_AGE)
        taken = usable and c.execute(_TAKE_REQUEST, {"inbound_id": key.inbound_id}).rowcount == 1
    _ = i18n.texts(user.language).gettext
    if not taken:
        return Received("request_gone", f"Request {key.inbound_id} was done before, or expired."), Answer(
            user.email, [[_("That request was done before, or it expired (a request can be confirmed once, within "
                            "%(days)d days). Nothing was done now. Send the commands to your command address (at "
                            "the foot of this mail).", days=REQUEST_MAX_AGE.days)]],
            user_id=user.id, language=user.language)
    message = text.parse(row.raw)
    lines = commands.lines_of(text.header_text(message, "Subject"), text.reply_text(message) or "")
    result, answer = _run(db, settings, user, lines)
    answer.sections.insert(0, [_("You confirmed your mail of %(time)s: it was read now.",
                                 time=texts.when(row.received_at, user.language, "%Y-%m-%d %H:%M UTC"))])
    return result, answer


# --------------------------------------------------------------------------------------
# Refusals and requests


def _foreign(who: Sender, door: str) -> tuple[Received, Answer]:
    """A mail to the user's command key (`door` "command") or request key ("request") from another address."""
    user = who.player
    _ = i18n.texts(user.language).gettext
    if door == "command":
        refused = _("A mail from %(address)s came to your command address and was refused: it takes mail from "
                    "your own address (%(own)s) only. Nothing was done.", address=who.address, own=user.email)
    else:
        refused = _("A mail from %(address)s came to the confirmation address of a request of yours and was "
                    "refused: it takes mail from your own address (%(own)s) only. Nothing was done.",
                    address=who.address, own=user.email)
    what = "your command address" if door == "command" else "the confirmation address of a request of yours"
    return (Received("forged_from", f"From {who.address}, to {what} of {user.email}."),
            Answer(user.email, [[refused, "",
                                 _("If you did not write it, someone has seen that address: /newkeys, sent to "
                                   "your command address, makes new ones and stops the old.")]],
                   user_id=user.id, language=user.language))


def _ask(user: Player, changes: list[str], inbound_id: int) -> tuple[Received, Answer]:
    _ = i18n.texts(user.language).gettext
    names = ", ".join(f"/{name}" for name in changes)
    answer = Answer(user.email, [[
        _("Your mail asks for %(commands)s: commands that change your account or your tables. A mail without a "
          "key can come from anyone, so nothing was done yet.", commands=names), "",
        _("Reply to this mail to do it, within %(days)d days (what you write in the reply is not read: the reply "
          "only confirms). If you did not write to us, ignore this mail and nothing happens.",
          days=REQUEST_MAX_AGE.days), "",
        _("Commands sent to your command address (at the foot of this mail), from your own address, are done "
          "at once.")]], user_id=user.id, request=inbound_id, subject="ask", language=user.language)
    return Received(TO_CONFIRM, f"{names} without a key: confirmation asked."), answer


def unverified(db: Database, sender: str, lines: list[str], language: str = i18n.DEFAULT
               ) -> tuple[Received, Answer | None]:
    """A mail from an address without a confirmed account: a confirmation code, or `/confirm CODE`.

    `language` is the one the answer speaks (the mail's own, or an unconfirmed user's); the
    account `/confirm` makes gets it.
    """
    _ = i18n.texts(language).gettext
    confirm = next((line for line in lines if line.lower().startswith("/confirm")), None)
    with db.transaction() as s:
        if confirm is not None:
            words = confirm.split()
            if len(words) == 2 and addresses.check_code(s, sender, words[1]):
                user = accounts.get_or_create_user(s, sender)
                user.email_verified = True
                user.language = i18n.normalize(language) or i18n.DEFAULT
                return Received("confirmed", "Address confirmed."), Answer(sender, [[
                    _("Your address %(address)s is confirmed.", address=sender), "",
                    _("Your command address is at the foot of this mail, and replying to this mail sends to it: "
                      "write your commands there, one per line, from this address (/help lists them).")]],
                    user_id=user.id, subject="confirmed", language=user.language)
        code = addresses.new_code(s, sender)
    if code is None:
        return Received("unverified", "Unconfirmed address; a code was sent within the hour."), None
    return Received("unverified", "Unconfirmed address; confirmation code sent."), Answer(sender, [[
        _("To play by mail from %(address)s, confirm this address first: reply with the line", address=sender),
        "",
        f"  /confirm {code}",
        "",
        _("Nothing else in your mail was read. If you did not write to us, ignore this mail.")]],
        subject="code", language=language)


# --------------------------------------------------------------------------------------
# Running the commands


def _commands_of(lines: list[str], language: str = i18n.DEFAULT
                 ) -> tuple[list[tuple[str, commands.Command]], tuple[str, str] | None, int]:
    """The commands to run, the first line that is a command written wrongly (with the reason, in
    `language`), and how many lines are not read: those after a failure, and from the first line
    that is prose on."""
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
            failed = (answers.echo(line), error.text(language))
    return parsed, failed, not_read


def _run(db: Database, settings, user: Player, lines: list[str]) -> tuple[Received, Answer]:
    """Run the commands of a mail with the user's authority; the answer goes to their address.

    It speaks the user's language; after a `/language` line, the new one (the lines before it
    were written already).
    """
    parsed, written_wrongly, not_read = _commands_of(lines, user.language)
    result = Received("done", not_read=not_read)
    answer = Answer(user.email, user_id=user.id, language=user.language)
    extra: list[list[str]] = []
    for index, (line, command) in enumerate(parsed):
        try:
            extra += _command(db, settings, command, user, answer)
        except (commands.CommandError, games.GameError) as error:
            result.failed = (answers.echo(line), error.text(answer.language))
            # Not read: the commands after this one, and the line written wrongly after them.
            result.not_read += len(parsed) - index - 1 + (1 if written_wrongly else 0)
            if command.name in ("move", "resign"):
                extra += (answers.games_to_move(db, settings, user.id, answer.language)
                          or [answers.no_games_to_move(answer.language)])
            break
        result.done.append(answers.echo(line))
    else:
        result.failed = written_wrongly
    result.game_id = answer.game_id
    if result.failed:
        result.outcome = "partial" if result.done else "failed"
    elif not result.done:
        result.outcome, result.detail = "empty", "No commands found."
        answer.sections.append(answers.nothing_found(result.not_read, answer.language))
        answer.sections += (answers.games_to_move(db, settings, user.id, answer.language)
                            or [answers.no_games_to_move(answer.language)])
        answer.sections.append(answers.subject_form(answer.language))
        return result, answer
    result.detail = f"{len(result.done)} done, {1 if result.failed else 0} failed, {result.not_read} not read"
    # The results first, then what the commands said, then the positions they asked for.
    answer.sections[:0] = [answers.results(result, answer.language)] + extra
    return result, answer


def _command(db: Database, settings, command: commands.Command, user: Player, answer: Answer) -> list[list[str]]:
    """Run one command; returns the sections it adds to the answer (the position goes into `answer`)."""
    name = command.name
    _ = i18n.texts(answer.language).gettext
    if name == "help":
        return [answers.help_lines(answer.language)]
    if name in ("move", "resign"):
        raise commands.CommandError(N_("/%(name)s is taken only in a reply to your turn mail of that game (its "
                                       "reply address is the key of your seat for that turn). Your games where it "
                                       "is your turn are listed below, each with that address."), name=name)
    if name == "new":
        return [_new(db, settings, command, user, answer)]
    if name == "join":
        joined = games.join_game(db, command.game_id, user.id, commands.parse_join(command.args))
        answer.game_id = command.game_id
        if joined["started"]:
            return [[_("You joined game %(game)d as %(colour)s. The table is full and the game has started; the "
                       "first player gets a turn mail.", game=command.game_id, colour=joined["colour"])]]
        if joined["colour"]:
            return [[_("You joined game %(game)d in %(colour)s. The game starts when the table is full; the seat "
                       "order is drawn then.", game=command.game_id, colour=joined["colour"])]]
        return [[_("You joined game %(game)d with no colour asked for: you get one of those left. The game starts "
                   "when the table is full; the seat order is drawn then.", game=command.game_id)]]
    if name == "start":
        games.start_game(db, command.game_id, user.id)
        answer.game_id = command.game_id
        return [[_("Game %(game)d has started; the first player gets a turn mail.", game=command.game_id)]]
    if name in ("board", "moves"):
        data = games.view(db, command.game_id, user.id, language=user.language)
        if name == "moves" and not data.get("legal_moves"):
            raise commands.CommandError(N_("It is not your turn in game %(game)d, so you have no moves to make."),
                                        game=command.game_id)
        answers.position(db, settings, data, answer, turn_key=False)
        return []
    if name == "orders":
        queued = games.orders_of(db, command.game_id, user.id)
        if not queued:
            return [[_("You have no standing orders in game %(game)d.", game=command.game_id)]]
        return [[_("Your standing orders in game %(game)d:", game=command.game_id)]
                + ["  " + _("queued: %(order)s", order=order) for order in queued]]
    if name == "cancel":
        dropped = games.cancel_orders(db, command.game_id, user.id)
        return [[_("Your standing orders in game %(game)d are dropped (%(count)d).", game=command.game_id,
                   count=dropped)]]
    if name == "games":
        return [_games_list(db, user, answer.language)]
    if name == "notify":
        return [_notify(db, user, command.args[0].lower(), answer.language)]
    if name == "fromcheck":
        on = command.args[0].lower() == "on"
        with db.transaction() as s:
            s.get(User, user.id).from_check = on
        if on:
            return [[_("Moves are now taken only from %(address)s.", address=user.email)]]
        return [[_("Moves are now taken only from any address that holds the reply address of your turn.")]]
    if name == "language":
        code = command.args[0]
        try:
            with db.transaction() as s:
                language = accounts.set_language(s, s.get(User, user.id), code)
        except accounts.AccountError:
            raise commands.CommandError(
                N_("%(code)s is not a language of pbem; there are %(languages)s."), code=repr(code),
                languages=", ".join(f"{c} ({i18n.NAMES[c]})" for c in i18n.LANGUAGES)) from None
        answer.language = language  # the rest of the answer, and the mails from now on, speak it
        return [[i18n.texts(language).gettext("Your language is now %(name)s (%(code)s): the web pages and the "
                                              "mails speak it.", name=i18n.NAMES[language], code=language)]]
    if name == "newkeys":
        _new_keys(db, user)
        return [[_("New keys are made: your earlier command address and the reply addresses of your seats no "
                   "longer work. Your new command address is at the foot of this mail.")]] + answers.games_to_move(
                    db, settings, user.id, answer.language)
    if name == "confirm":
        return [[_("Your address is already confirmed.")]]
    raise commands.CommandError(N_("/%(name)s cannot be used here."), name=name)


def _new(db: Database, settings, command: commands.Command, user: Player, answer: Answer) -> list[str]:
    _ = i18n.texts(answer.language).gettext
    title, players, options, colour, hours = commands.parse_new(command.args)
    game_id = games.create_game(db, title, user.id, players, options, colour=colour, turn_hours=hours)
    answer.game_id = game_id
    free = games.view(db, game_id)["free_colours"]
    if colour and colour.strip().lower() != "any":
        opened = _("Game %(game)d (%(title)s) is open with %(players)d seats and you in the first one, in "
                   "%(colour)s. Others join by sending the line", game=game_id, title=title, players=players,
                   colour=colour.strip().lower())
    else:
        opened = _("Game %(game)d (%(title)s) is open with %(players)d seats and you in the first one. Others join "
                   "by sending the line", game=game_id, title=title, players=players)
    return [opened, "", f"  /join {game_id}", "",
            _("to their command address (or to %(address)s, then confirming by reply), or /join %(game)d COLOUR "
              "for one of the free colours: %(colours)s.", address=tokens.plain_address(settings.mail_domain),
              game=game_id, colours=", ".join(free)),
            _("Start it before it is full with /start %(game)d.", game=game_id)]


def _notify(db: Database, user: Player, choice: str, language: str) -> list[str]:
    _ = i18n.texts(language).gettext
    with db.transaction() as s:
        if choice == "resume":
            addresses.resume(s, user.email)
            return [_("Mail to %(address)s is on again: the notifications that bounces had stopped are sent again "
                      "(if they bounce three more times, they stop again).", address=user.email)]
        s.get(User, user.id).notify = choice
    return [_("You now get mail: %(when)s.", when=_(NOTIFY_TEXT[choice]))]


def _new_keys(db: Database, user: Player) -> None:
    """A new nonce for the user and each of their seats: every key made before stops working."""
    with db.transaction() as s:
        s.get(User, user.id).mail_nonce = tokens.new_nonce()
        for seat in s.scalars(select(Seat).where(Seat.user_id == user.id)):
            seat.token_nonce = tokens.new_nonce()


def _games_list(db: Database, user: Player, language: str) -> list[str]:
    t = i18n.texts(language)
    with db.sessions() as s:
        rows = s.execute(select(Game, Seat).join(Seat, Seat.game_id == Game.id)
                         .where(Seat.user_id == user.id).order_by(Game.id)).all()
        if not rows:
            return [t.gettext("You have no games. Open one with /new GAME or join one with /join GAME-ID.")]
        lines = [t.gettext("Your games:")]
        for game, seat in rows:
            status = t.gettext(STATUS_TEXT[game.status]) if game.status in STATUS_TEXT else game.status
            if game.status == "running" and game.to_move == seat.number:
                line = t.ngettext("#%(game)d %(title)s: %(status)s, %(num)d move - your turn",
                                  "#%(game)d %(title)s: %(status)s, %(num)d moves - your turn", game.version,
                                  game=game.id, title=game.title, status=status)
            else:
                line = t.ngettext("#%(game)d %(title)s: %(status)s, %(num)d move",
                                  "#%(game)d %(title)s: %(status)s, %(num)d moves", game.version,
                                  game=game.id, title=game.title, status=status)
            lines.append(f"  {line}")
        return lines
