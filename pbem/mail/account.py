"""Mail about a player's account and tables: through the command key, by confirming a request, or without a key.

- Through the **command key** (from the user's own address) every command but moves is run:
  `/new`, `/join`, `/start`, `/notify`, `/fromcheck`, `/newkeys`, and the read-only ones.
- **Without a key**, from a confirmed address, read-only commands (`/games`, `/board`, `/moves`,
  `/help`) are answered, but a mail that asks for a change is not run: the answer asks to
  confirm it by replying, its Reply-To a request key for that stored mail (`ask`), and the
  reply runs it once (`run_request`). A forged From thus only sends the real owner a mail.
- From an address **without a confirmed account**, only a confirmation code is sent (at most
  one an hour); `/confirm CODE` makes the account. No user is made before that.

Every answer goes to the registered address (pbem.mail.outcome), in the user's language. A sender
without an account has no language yet: they are answered in the language their mail declares
(Content-Language), else the one its words are in (pbem.mail.stopwords), else English. The
account `/confirm` makes gets the language of that mail (its header or its words), else that of
the sender's first mail still kept, else English; a `/language xx` line beside `/confirm` sets
it. Its name is the display name of the From of the `/confirm` mail (the one that proves the
address), made valid, else the address's local part, with a number after it when another
player has it or one like it (pbem.accounts.names). The confirmation code's mail and the
welcome say, in each of the four languages, how to choose one (LANGUAGE_LINES); the welcome
says which name the player has, why, and how `/name` changes it. Reading stops at the first
line that is no "/" command (prose), quietly, and at the first failure, with the reason. Moves
are not taken here: they need the turn key (pbem.mail.turns).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from email.header import decode_header, make_header
from email.message import Message
from email.utils import parseaddr

from sqlalchemy import bindparam, select, update

from pbem import accounts, games, i18n
from pbem.accounts import names
from pbem.db import Database
from pbem.i18n import N_
from pbem.mail import addresses, answers, commands, mime, stopwords
from pbem.mail.outcome import Answer, Player, Received, Sender
from pbem.models import InboundMail, User, utcnow
from pbem.notify import wording

REQUEST_MAX_AGE = timedelta(days=3)  # a request key works this long (the raw mail is kept longer)
TO_CONFIRM, CONFIRMED = "to_confirm", "confirmed_by_reply"  # the outcomes of a stored request

# How to choose a language, each line in its own language: in the confirmation code's mail (the line goes
# beside /confirm) and in the welcome (its Reply-To is the command address).
LANGUAGE_LINES = {
    "en": "English: write /language en on a line of your reply",
    "nl": "Nederlands: schrijf /language nl op een regel van je antwoord",
    "de": "Deutsch: schreib /language de in eine Zeile deiner Antwort",
    "fr": "Français : écrivez /language fr sur une ligne de votre réponse",
}

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
        return unverified(db, who.address, lines, user.language if user is not None else language, inbound_id)
    parsed, _written_wrongly, _not_read = _commands_of(lines)
    changes = [name for name in commands.names()
               if any(command.name == name and commands.spec(name).changes for _line, command in parsed)]
    if changes:
        return _ask(user, changes, inbound_id)
    return _run(db, settings, user, lines)


def run_request(db: Database, settings, who: Sender) -> tuple[Received, Answer]:
    """A reply to a request key: run the stored mail it names, once, as if it came to the command key."""
    key, user = who.key, who.player
    if not who.from_owner:
        return _foreign(who, "request")
    with db.transaction() as c:
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
    message = mime.parse(row.raw)
    lines = commands.lines_of(mime.header_text(message, "Subject"), mime.reply_text(message) or "")
    result, answer = _run(db, settings, user, lines)
    answer.sections.insert(0, [_("You confirmed your mail of %(time)s: it was read now.",
                                 time=wording.when(row.received_at, user.language, "%Y-%m-%d %H:%M UTC"))])
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
    asked = ", ".join(f"/{name}" for name in changes)
    answer = Answer(user.email, [[
        _("Your mail asks for %(commands)s: commands that change your account or your tables. A mail without a "
          "key can come from anyone, so nothing was done yet.", commands=asked), "",
        _("Reply to this mail to do it, within %(days)d days (what you write in the reply is not read: the reply "
          "only confirms). If you did not write to us, ignore this mail and nothing happens.",
          days=REQUEST_MAX_AGE.days), "",
        _("Commands sent to your command address (at the foot of this mail), from your own address, are done "
          "at once.")]], user_id=user.id, request=inbound_id, subject="ask", language=user.language)
    return Received(TO_CONFIRM, f"{asked} without a key: confirmation asked."), answer


def unverified(db: Database, sender: str, lines: list[str], language: str = i18n.DEFAULT,
               inbound_id: int | None = None) -> tuple[Received, Answer | None]:
    """A mail from an address without a confirmed account: a confirmation code, or `/confirm CODE`.

    The answer speaks the language the mail (stored as `inbound_id`) declares or is written in,
    else `language` (an unconfirmed user's, or English); the account `/confirm` makes gets it (or
    that of the sender's first mail, or the one a `/language` line beside it names), and the
    name of the mail's From (pbem.accounts.names.propose).
    """
    message = _stored_message(db, inbound_id)
    said = _declared(message) or stopwords.guess(lines)
    language = said or language
    confirm = next((line for line in lines if line.lower().startswith("/confirm")), None)
    with db.transaction() as s:
        if confirm is not None:
            words = confirm.split()
            if len(words) == 2 and addresses.check_code(s, sender, words[1]):
                if said is None:
                    language = _first_mail_language(s, sender, inbound_id) or language
                return _welcome(s, sender, lines, _from_name(message), language)
        code = addresses.new_code(s, sender)
        if code is not None:  # the name the account would get now (the From may be a stranger's: quoted as data)
            user = s.scalars(select(User).where(User.email == sender)).first()
            name = accounts.quoted_name(user.display_name if user is not None
                                        else names.propose(s, _from_name(message), sender.split("@")[0]))
    if code is None:
        return Received("unverified", "Unconfirmed address; a code was sent within the hour."), None
    _ = i18n.texts(language).gettext
    return Received("unverified", "Unconfirmed address; confirmation code sent."), Answer(sender, [[
        _("To play by mail from %(address)s, confirm this address first: reply with the line", address=sender),
        "",
        f"  /confirm {code}",
        "",
        _("Nothing else in your mail was read. If you did not write to us, ignore this mail.")],
        [_("Once you have confirmed it, the other players see you as \"%(name)s\" (the name your mail came "
           "with, or your address's); /name NEW NAME changes it.", name=name)],
        _language_lines()], subject="code", language=language)


def _welcome(s, sender: str, lines: list[str], proposal: str | None, language: str) -> tuple[Received, Answer]:
    """The account of a confirmed address, with its name and language, and the answer that welcomes it."""
    existing = s.scalars(select(User.id).where(User.email == sender)).first()
    user = accounts.get_or_create_user(s, sender, proposal)
    user.email_verified = True
    user.language = i18n.normalize(language) or i18n.DEFAULT
    chosen = next((line for line in lines if commands.first_word(line) == "/language"), None)
    refused = None
    if chosen is not None:
        try:
            accounts.set_language(s, user, " ".join(chosen.split()[1:2]))
        except accounts.AccountError as error:
            refused = error
    _ = i18n.texts(user.language).gettext
    named = names.cleaned(proposal)
    if existing is not None or proposal is None:
        said = _("The other players see you as \"%(name)s\".", name=user.display_name)
    elif named is None:
        said = _("The name your mail came with cannot be a name here, so the other players see you as "
                 "\"%(name)s\".", name=user.display_name)
    elif named != user.display_name:
        said = _("The name your mail came with, \"%(proposal)s\", is another player's or looks like one, so the "
                 "other players see you as \"%(name)s\".", proposal=named, name=user.display_name)
    else:
        said = _("The other players see you as \"%(name)s\", the name your mail came with.", name=user.display_name)
    sections = [[_("Your address %(address)s is confirmed.", address=sender), "",
                 _("Your command address is at the foot of this mail, and replying to this mail sends to it: "
                   "write your commands there, one per line, from this address (/help lists them).")],
                [said, _("To change it, send /name NEW NAME to your command address (%(least)d to %(most)d "
                         "letters, digits, spaces and - _ . ').", least=names.MIN_NAME, most=names.MAX_NAME)]]
    if refused is not None:
        sections.append([refused.text(user.language)])
    sections.append(_language_lines())
    return Received("confirmed", "Address confirmed."), Answer(sender, sections, user_id=user.id,
                                                                subject="confirmed", language=user.language)


def _language_lines() -> list[str]:
    return [LANGUAGE_LINES[code] for code in i18n.LANGUAGES]


# --------------------------------------------------------------------------------------
# What a first mail says of its sender


def _stored_message(db: Database, inbound_id: int | None) -> Message | None:
    """The stored mail `inbound_id` (None if its raw bytes are gone or cannot be read)."""
    if inbound_id is None:
        return None
    with db.sessions() as s:
        raw = s.scalar(select(_INBOUND.c.raw).where(_INBOUND.c.id == inbound_id))
    return _parsed(raw)


def _parsed(raw: bytes | None) -> Message | None:
    try:
        return mime.parse(raw) if raw else None
    except mime.MalformedMailError:
        return None


def _declared(message: Message | None) -> str | None:
    """The language the mail's Content-Language header names, if pbem speaks it."""
    value = mime.header_text(message, "Content-Language") if message is not None else ""
    return next((code for code in map(i18n.normalize, value.split(",")) if code), None)


def _from_name(message: Message | None) -> str | None:
    """The display name of the mail's From ("Anna Schmidt" of `"Anna Schmidt" <anna@example.org>`), if it has one."""
    name = parseaddr(str(message.get("From") or ""))[0] if message is not None else ""
    try:
        name = str(make_header(decode_header(name)))
    except (LookupError, UnicodeError, ValueError):
        pass
    return " ".join(name.split()) or None


def _first_mail_language(s, sender: str, inbound_id: int | None) -> str | None:
    """The language of the sender's first mail still kept (before `inbound_id`): its header's, or its words'."""
    query = select(_INBOUND.c.raw).where(_INBOUND.c.sender == sender, _INBOUND.c.raw.is_not(None))
    if inbound_id is not None:
        query = query.where(_INBOUND.c.id < inbound_id)
    message = _parsed(s.scalar(query.order_by(_INBOUND.c.id).limit(1)))
    if message is None:
        return None
    try:
        body = mime.reply_text(message) or ""
    except mime.MalformedMailError:
        body = ""
    return _declared(message) or stopwords.guess(commands.lines_of(mime.header_text(message, "Subject"), body))


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


@dataclass
class Context:
    """Where an ACCOUNT-door command runs (pbem.mail.commands.Spec): the user it acts for, with their
    authority, and the answer being written; what the commands say goes into `sections`."""

    db: Database
    settings: object
    user: Player
    answer: Answer
    sections: list[list[str]] = field(default_factory=list)
    door = commands.ACCOUNT

    @property
    def language(self) -> str:
        return self.answer.language

    def gettext(self, message: str, **values) -> str:
        return i18n.texts(self.language).gettext(message, **values)

    def ngettext(self, singular: str, plural: str, num: int, **values) -> str:
        return i18n.texts(self.language).ngettext(singular, plural, num, **values)

    def say(self, *lines: str) -> None:
        self.sections.append(list(lines))


def _run(db: Database, settings, user: Player, lines: list[str]) -> tuple[Received, Answer]:
    """Run the commands of a mail with the user's authority; the answer goes to their address.

    It speaks the user's language; after a `/language` line, the new one (the lines before it
    were written already).
    """
    parsed, written_wrongly, not_read = _commands_of(lines, user.language)
    result = Received("done", not_read=not_read)
    answer = Answer(user.email, user_id=user.id, language=user.language)
    context = Context(db, settings, user, answer)
    for index, (line, command) in enumerate(parsed):
        try:
            spec = commands.spec(command.name)
            if commands.ACCOUNT not in spec.doors:
                raise commands.TurnOnlyError(
                    N_("/%(name)s is taken only in a reply to your turn mail of that game (its reply address is the "
                       "key of your seat for that turn). Your games where it is your turn are listed below, each with "
                       "that address."), name=command.name)
            spec.run(context, command)
        except (commands.CommandError, games.GameError) as error:
            result.failed = (answers.echo(line), error.text(answer.language))
            # Not read: the commands after this one, and the line written wrongly after them.
            result.not_read += len(parsed) - index - 1 + (1 if written_wrongly else 0)
            if isinstance(error, commands.TurnOnlyError):
                context.sections += (answers.games_to_move(db, settings, user.id, answer.language)
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
    answer.sections[:0] = [answers.results(result, answer.language)] + context.sections
    return result, answer
