"""The mail to volunteers when a seat is offered to a replacement (issue 37 item 3).

A seat handed to a bot (`games.tables.hand_to_bot`: its player missed the table's number of deadlines in a row,
or left; `events.seat_changed` with reason "missed" or "left") is offered to a replacement: the lobby lists it,
and each volunteer for the game's title that `pbem.players.volunteers.to_tell` picks (not a player of that game,
once per seat, within a per-day cap) gets a mail in their language with the line `/take GAME-ID SEAT` to send
back (its Reply-To is their command address, as every mail to a user's account) and the game page's link. The
mail is queued in the offer's transaction: an offer rolled back mails nobody. It says nothing of the position
beyond what the game page shows anybody.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

import engine
from pbem import events, i18n
from pbem.models import Game, Seat, User
from pbem.notify import outbox, wording
from pbem.players import volunteers

OFFERED = ("missed", "left")  # the reasons a seat goes to a bot and is offered (games.tables.hand_to_bot)
KIND = "seat_offer"  # the outbox kind of these mails


def body(game: Game, seat: Seat, reason: str, user: User) -> tuple[str, str]:
    """The subject and text of the offer of `seat` to the volunteer `user`, in their language."""
    t = i18n.texts(user.language)
    title = engine.get(game.title).title
    values = {"game": game.id, "seat": seat.number + 1, "title": title, "level": game.bot_level or ""}
    why = (t.ngettext("Its player missed %(num)d deadline in a row.", "Its player missed %(num)d deadlines in a row.",
                      game.replace_after or 1) if reason == "missed" else t.gettext("Its player left the game."))
    text = "\n\n".join([
        t.gettext("Seat %(seat)d of game %(game)d (%(title)s) is free to take over.", **values) + " " + why + " " +
        t.gettext("A bot (%(level)s) plays it until someone takes it. You asked to be offered such seats.", **values),
        t.gettext("To take it by mail, reply to this mail with the line\n\n  /take %(game)d %(seat)d\n\nor open the "
                  "game page:\n\n  %(link)s", link=wording.game_link(game.id), **values),
        t.gettext("The position, the colour and the turn become yours; the previous player's private notes are not "
                  "handed over. Someone else may take the seat first."),
        t.gettext("You get at most %(num)d such mails a day. To stop them, clear the titles under \"Seats to take "
                  "over\" on your settings page: %(link)s", num=volunteers.DAILY_CAP,
                  link=f"{outbox.BASE_URL}/settings"),
    ])
    return wording.game_subject(game.id, title, t.gettext("a seat to take over")), text


def _on_seat_changed(s: Session, *, game: Game, seat: Seat, reason: str, **_facts: Any) -> None:
    """A seat just offered: a mail to each volunteer `volunteers.to_tell` picks."""
    if reason not in OFFERED or seat.open_since is None:
        return
    for user in volunteers.to_tell(s, game, seat):
        subject, text = body(game, seat, reason, user)
        outbox.queue(s, kind=KIND, recipient=user.email, subject=subject, body=text, user_id=user.id,
                     game_id=game.id, language=user.language)


def connect() -> None:
    """Listen to the seats that change hands (pbem.wiring.connect calls this once per process)."""
    events.seat_changed.connect(_on_seat_changed)
