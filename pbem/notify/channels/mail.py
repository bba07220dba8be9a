"""The mail channel: a notice becomes an outbox row in the transaction of the change; a sender sends it.

Which notices go by mail is the reader's mail setting (`User.notify`, `MAIL_SETTINGS`): every (a
mail after each move too), turn (the default: the turn, the result, reminders and lateness),
digest (no turn mail: one digest a day instead, pbem.notify.digest), none. A vacation bank left at
1 or 0 days (kind "vacation") is account news: it goes to every setting but none, as a mail of its
own outside the game's thread. A game mail about the board (turn, move, result) is a row that names
the game, the move and the seat, in its reader's language; its text is written when the row is
first sent (`view_text`): what that seat saw right after the move, so no seed of a running game,
deck or other hand reaches a mail, and a mail sent late still says what the seat saw at its move.
The reminder, a player late and a vacation bank low are written now.

The mails about the board and the deadline (turn, move, result, reminder, late) have the game's
one subject (`wording.thread_subject`: "[pbem #12 Tongiaki] game 12" in the reader's language), so
that they stay in one thread; what each is about goes in its text and in the hints `move` and
`turn` (the headers X-Pbem-Move and X-Pbem-Turn, pbem.mail.compose): the number of the move the
mail is about, as its first line and its picture name it (the move the game waits for; in the
result, the last move), and the name of the player to move.

Sending is the sender's (`Sender`: `pbem.mail.outbound`, which speaks SMTP or writes the local
outbox folder, as Warehouse's IEmailSender has an SMTP and a development implementation): it
claims a row, adds what only the moment of sending knows (the keys, the picture), sends it once
and marks it. `pbem.wiring` gives it to this channel, since pbem.notify may not import pbem.mail.
Every outbox row is delivered this way, the answers to mailed commands too (pbem.notify.outbox).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from sqlalchemy.orm import Session

from pbem import games, i18n, jobs
from pbem.config import Settings
from pbem.db import Database
from pbem.models import Game, OutboundMail
from pbem.notify import outbox, wording
from pbem.notify.channels import Notice

SWEEP_BATCH = 500  # rows the sweep posts again at most per run
# The notices each mail setting (User.notify) takes by mail.
MAIL_SETTINGS = {
    "turn": ("every", "turn"),
    "move": ("every",),
    "result": ("every", "turn", "digest"),
    "reminder": ("every", "turn", "digest"),
    "late": ("every", "turn", "digest"),
    "message": ("every", "turn"),  # and to digest readers when it names them (Notice.mentioned)
    "vacation": ("every", "turn", "digest"),  # account news: to everyone but "none"
}
VIEW_KINDS = ("turn", "move", "result")  # mails whose text is the seat's view, written when first sent


class Sender(Protocol):
    """What sends the outbox's rows (pbem.mail.outbound)."""

    def deliver(self, db: Database, outbox_id: int, settings: Settings | None = None) -> str:
        """Send one row, once; TransientDeliveryError (its TransientMailError) to be tried again."""

    def due_ids(self, db: Database, older_than_s: float = 0, limit: int = 1000) -> list[int]:
        """The rows still to send that are older than `older_than_s` (or whose sender died)."""


class MailChannel:
    """News by mail: one outbox row per notice, the job `pbem.send_mail` per row."""

    name = "mail"
    task = jobs.SEND_MAIL

    def __init__(self, sender: Sender):
        self.sender = sender

    def take(self, s: Session, notice: Notice) -> None:
        user, game = notice.user, notice.game
        if user.notify not in MAIL_SETTINGS[notice.kind] and not (notice.mentioned and user.notify == "digest"):
            return
        language = user.language
        subject = wording.thread_subject(game.id, notice.title, language)
        # The move the mail is about (its first line names it), for its headers, and whose turn it is now.
        moment = {"move": game.version if notice.kind == "result" else game.version + 1,
                  "turn": _to_move(game)}
        if notice.kind in VIEW_KINDS:
            reply = notice.seat.number if notice.kind == "turn" else None
            outbox.queue(s, kind=notice.kind, recipient=user.email, user_id=user.id, game_id=game.id,
                         seq=game.version, subject=subject, body=None,
                         reply_seat=reply, reply_seq=game.version if reply is not None else None,
                         board_viewer=notice.seat.number, language=language, **moment)
        elif notice.kind == "reminder":
            deadline = wording.when(game.deadline, language)
            outbox.queue(s, kind="reminder", recipient=user.email, user_id=user.id, game_id=game.id,
                         seq=game.version, subject=subject,
                         body=wording.render("reminder.txt", language, game=game.id, move=game.version + 1,
                                           deadline=deadline, policy=notice.policy),
                         reply_seat=notice.seat.number, reply_seq=game.version, language=language, **moment)
        elif notice.kind == "message":
            message, names = notice.message, {seat.number: seat.display_name for seat in game.seats}
            author = names.get(message.seat, "?")
            others = [names.get(number, "?") for number in message.to_seats or () if number != notice.seat.number]
            outbox.queue(s, kind="message", recipient=user.email, user_id=user.id, game_id=game.id,
                         seq=game.version, language=language, subject=subject, talk_message=message.id,
                         from_name=author,
                         body=wording.render("message.txt", language, name=author, game=game.id, title=notice.title,
                                             private=message.to_seats is not None, others=others,
                                             move=message.seq, text=message.body))
        elif notice.kind == "vacation":
            _queue_vacation(s, notice)
        elif notice.kind == "late":
            name = notice.late.display_name
            outbox.queue(s, kind="late", recipient=user.email, user_id=user.id, game_id=game.id,
                         seq=game.version, language=language, subject=subject, **moment,
                         body=wording.render("late.txt", language, name=name, game=game.id, move=game.version + 1,
                                           policy=notice.policy,
                                           deadline=wording.when(game.deadline, language) if game.deadline else None))

    def deliver(self, db: Database, settings: Settings, outbox_id: int) -> str:
        return self.sender.deliver(db, outbox_id, settings)

    def due(self, db: Database, settings: Settings) -> Iterable[tuple]:
        return [(outbox_id,) for outbox_id in self.sender.due_ids(db, settings.sweep_after_s, limit=SWEEP_BATCH)]


def _queue_vacation(s: Session, notice: Notice) -> None:
    """The mail that a deadline spent a vacation day and `notice.left` are left: account news, outside the
    game's thread (no game on the row), with where to declare an absence instead."""
    user, language = notice.user, notice.user.language
    subject = "[pbem] " + i18n.texts(language).ngettext("%(num)d vacation day left", "%(num)d vacation days left",
                                                        notice.left)
    outbox.queue(s, kind="vacation", recipient=user.email, user_id=user.id, subject=subject, language=language,
                 body=wording.render("vacation.txt", language, game=notice.game.id, title=notice.title,
                                     left=notice.left, settings=f"{outbox.BASE_URL}/settings"))


def _to_move(game: Game) -> str | None:
    """The name of the player the game waits for, or None (nobody: chance, or the game is over): from the
    game's seats, read once per change (the relationship keeps them), not once per notice."""
    if game.to_move is None:
        return None
    return next((seat.display_name for seat in game.seats if seat.number == game.to_move), None)


def view_text(s: Session, row: OutboundMail) -> str:
    """The text of a game mail queued with the seat's view (turn, move, result): what the seat saw right
    after move `row.seq` (`games.seat_view_at`), in the row's language (templates `<kind>.txt`).

    It is written when the mail is sent, not inside the move's transaction: the move commits
    sooner (this text was a third of a move's CPU), and a mail sent late still tells the
    position of its move. pbem.mail.outbound stores it in the row before the first try."""
    game = games.load_game(s, row.game_id)
    rules = games.rules_of(game)
    language = (row.headers or {}).get("language") or i18n.DEFAULT
    viewer = next(a["board"]["viewer"] for a in row.attachments or [] if "board" in a)
    data = games.seat_view_at(s, game, games.seats_of(s, game), rules, row.seq, viewer, language)
    return wording.render(f"{row.kind}.txt", language, data=data, title=rules.title)
