"""The texts of the answers to inbound mail (docs/mail.md shows an example of each).

An answer says what was done, what failed with the reason and a form to copy, and of the
lines it did not read only how many there were: it never quotes the mail it answers, so
other people's quoted text and addresses stay out of it. The "nothing found" answer names
the games where the reader is to move, with their legal moves and a reply address each.
Every answer goes to a registered address (pbem.mail.outcome), so it may carry keys.

Every text is written in the reader's language (`language`, or the answer's own:
`Answer.language`), the reasons a move or a command is refused too (the engines' and the
service's: `error.text(language)`, docs/i18n.md); the board in words is English for now.
"""

from __future__ import annotations

from sqlalchemy import select

import engine
from pbem import games, i18n, mailkeys
from pbem.db import Database
from pbem.mail.outcome import Answer, Received
from pbem.models import Game, Seat
from pbem.notify import wording

ECHO_CHARS = 100  # a line that was run is shown at most this long
LISTED_MOVES = 12  # in a list of several games, the first legal moves of each


def echo(line: str) -> str:
    """A line that was run, shortened for the answer."""
    return line if len(line) <= ECHO_CHARS else line[:ECHO_CHARS - 3] + "..."


def title_of(name: str) -> str:
    try:
        return engine.get(name).title
    except engine.UnknownGameError:
        return name


def subject_form(language: str) -> list[str]:
    """How to write a command in a subject (the end of a "nothing found" answer)."""
    return i18n.texts(language).gettext(
        'A command in the subject needs its "/", as in the body: for example\n'
        '"Subject: /games", or after the subject of a reply:\n'
        '"Re: [pbem #12 Tongiaki] your turn (move 3) /board".').split("\n")


def results(result: Received, language: str) -> list[str]:
    """What was done, what was not needed and why (reading went on), what failed and why (reading
    stopped there), each move or command after it (not played), and how many lines were not read."""
    _ = i18n.texts(language).gettext
    lines = [_("The results of your mail:")]
    if result.done:
        lines += ["", _("Done:")] + [f"  {x}" for x in result.done]
    if result.not_needed:
        lines += ["", _("Not needed (reading went on):")]
        lines += ["  " + _("%(line)s  - not needed: %(reason)s", line=line, reason=reason)
                  for line, reason in result.not_needed]
    if result.failed:
        lines += ["", _("Failed (reading stopped here):"), f"  {result.failed[0]}", f"    {result.failed[1]}"]
    if result.not_played:
        lines += ["", _("Not played:")]
        lines += ["  " + _("%(line)s  - not played: it comes after the line that failed", line=line)
                  for line in result.not_played]
    if result.not_read:
        lines += ["", not_read(result.not_read, language)]
    return lines


def not_read(count: int, language: str) -> str:
    return i18n.texts(language).ngettext(
        "%(num)d line after that was not read (reading stops\n"
        "at a line that is no move or command, and after a failure).",
        "%(num)d lines after that were not read (reading stops\n"
        "at a line that is no move or command, and after a failure).", count)


def nothing_found(not_read_count: int, language: str) -> list[str]:
    """The opening of the answer to a mail in which no command was found."""
    t = i18n.texts(language)
    lines = t.gettext("Your mail had no move or command that could be read. Reading starts\n"
                      "at the first line you wrote and stops at the first line that is no\n"
                      "move or command (quoted text and signatures are never read), so put\n"
                      "the move or the command on the first line.").split("\n")
    if not_read_count:
        lines.append(t.gettext("Lines not read: %(count)d.", count=not_read_count))
    return lines


def turn_section(data: dict, language: str, address: str | None = None, limit: int | None = None) -> list[str]:
    """It is your turn in game N: the legal moves (the first `limit` of them and how to see all, or
    all of them), and where to send the move: `address`, or (None) the Reply-To of this mail."""
    t = i18n.texts(language)
    moves = data.get("legal_moves") or []
    head = [t.gettext("It is your turn in game %(game)d (%(title)s), move %(move)d.", game=data["id"],
                      title=title_of(data["title"]), move=data["version"] + 1)]
    if address is None:
        return head + [""] + wording.turn_block(data, language)
    head.append(t.gettext("Send your move to %(address)s", address=address))
    if limit is None or len(moves) <= limit:
        return head + ["", wording.legal_header(len(moves), language)] + wording.moves_block(moves, language)
    shown = [f"  {m}" for m in moves[:limit]]
    return head + ["", t.gettext("Your legal moves (the first %(limit)d of %(count)d):", limit=limit,
                                 count=len(moves))] + shown + [
        "  " + t.gettext("... and %(count)d more: send /moves to that address, or see %(link)s",
                         count=len(moves) - limit, link=wording.game_link(data["id"]))]


def position(db: Database, settings, data: dict, answer: Answer, turn_key: bool) -> None:
    """Add the game's position as the reader sees it and, when it is their turn, their legal moves:
    with `turn_key` this answer's Reply-To becomes their turn key, else the key is in the text."""
    language = answer.language
    answer.game_id = data["id"]
    if data.get("legal_moves"):
        if turn_key:
            answer.sections.append(turn_section(data, language))
            answer.reply_seat, answer.reply_seq = data["my_seat"], data["version"]
        else:
            address = turn_address(db, settings, data["id"], data["my_seat"], data["version"])
            answer.sections.append(turn_section(data, language, address))
    answer.sections.append(wording.position_lines(data, language) + [
        "", i18n.texts(language).gettext("Game page: %(link)s", link=wording.game_link(data["id"]))])
    if data.get("my_seat") is not None:
        answer.board_seq, answer.board_viewer = data["version"], data["my_seat"]


def turn_address(db: Database, settings, game_id: int, seat: int, seq: int) -> str | None:
    """The turn key of a seat for the turn after `seq` moves, made with the seat's nonce now."""
    with db.sessions() as s:
        nonce = s.scalar(select(Seat.token_nonce).where(Seat.game_id == game_id, Seat.number == seat))
    if nonce is None:
        return None
    return mailkeys.encode_reply(settings.secret_key, settings.mail_domain, game_id, seat, seq, nonce)


def games_to_move(db: Database, settings, user_id: int, language: str) -> list[list[str]]:
    """A section per game where the user is to move: its first legal moves and its turn key."""
    with db.sessions() as s:
        waiting = s.execute(select(Game.id, Seat.number, Game.version, Seat.token_nonce)
                            .join(Seat, Seat.game_id == Game.id)
                            .where(Seat.user_id == user_id, Game.status == "running", Game.to_move == Seat.number,
                                   Seat.resigned.is_(False))
                            .order_by(Game.id)).all()
    sections = []
    for game_id, seat, version, nonce in waiting:
        data = games.view(db, game_id, user_id, language=language)
        if not data.get("legal_moves") or data["version"] != version:
            continue  # moved on since the query: the next mail will say so
        address = mailkeys.encode_reply(settings.secret_key, settings.mail_domain, game_id, seat, version, nonce)
        sections.append(turn_section(data, language, address, LISTED_MOVES))
    return sections


def no_games_to_move(language: str) -> list[str]:
    return [i18n.texts(language).gettext(
        "It is not your turn in any game. /games lists your games; /help lists the commands.")]
