"""Volunteers for abandoned seats (issue 37 item 3): the players who asked to be offered, by mail, the seats handed
to a bot at games of some titles, and who of them hears of one offered seat.

The setting is a user's titles (`titles_of`, `set_titles`; the settings page). When a seat is offered
(`games.tables.hand_to_bot`: its player missed the table's number of deadlines, or left), `to_tell` picks the
volunteers for the game's title who get a mail of it (pbem.notify.seat_offers writes it): confirmed accounts
only, never a player of that game (one seated there now, or one who held a seat there before: the player who
left does not get their own seat offered), at most one mail per volunteer per seat (`SeatOfferMail`, one row per
user, game and seat), and at most `DAILY_CAP` such mails a volunteer in a day. It records the mails it picks in
the offer's transaction, so an offer that is rolled back tells nobody.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Iterable

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

import engine
from pbem.db import Database
from pbem.games import GameError
from pbem.i18n import N_
from pbem.models import Game, ReplacementVolunteer, Seat, SeatHolder, SeatOfferMail, User, utcnow

DAILY_CAP = 3  # seat offers mailed to one volunteer in 24 hours, at most
WINDOW = timedelta(days=1)


def titles_of(db: Database, user_id: int) -> list[str]:
    """The titles at which the user asked to be offered seats to take over, by name."""
    with db.sessions() as s:
        return sorted(s.scalars(select(ReplacementVolunteer.title).where(ReplacementVolunteer.user_id == user_id)))


def set_titles(db: Database, user_id: int, titles: Iterable[str]) -> list[str]:
    """Make the user's titles exactly `titles` (none: no offers by mail); a name that is no title of the site is
    refused with the titles there are, and nothing changes. Returns the titles now set."""
    chosen = sorted(set(titles))
    unknown = [name for name in chosen if name not in engine.names()]
    if unknown:
        raise GameError(N_("There is no game called %(name)s; the games are: %(games)s."),
                        name=repr(unknown[0][:40]), games=", ".join(engine.names()))
    with db.transaction() as s:
        s.execute(delete(ReplacementVolunteer).where(ReplacementVolunteer.user_id == user_id))
        s.add_all(ReplacementVolunteer(user_id=user_id, title=name) for name in chosen)
    return chosen


def to_tell(s: Session, game: Game, seat: Seat) -> list[User]:
    """The volunteers to mail of `seat` of `game`, just offered, each recorded as told (a `SeatOfferMail` row in
    this transaction): volunteers for the game's title with a confirmed address, not players of this game, not
    told of this seat before, and told of fewer than `DAILY_CAP` seats in the last day."""
    players = select(Seat.user_id).where(Seat.game_id == game.id, Seat.user_id.is_not(None)).union(
        select(SeatHolder.user_id).where(SeatHolder.game_id == game.id, SeatHolder.user_id.is_not(None)))
    told_of_seat = select(SeatOfferMail.user_id).where(SeatOfferMail.game_id == game.id,
                                                       SeatOfferMail.seat == seat.number)
    recent = (select(SeatOfferMail.user_id).where(SeatOfferMail.sent_at >= utcnow() - WINDOW)
              .group_by(SeatOfferMail.user_id).having(func.count() >= DAILY_CAP))
    users = list(s.scalars(
        select(User).join(ReplacementVolunteer, ReplacementVolunteer.user_id == User.id)
        .where(ReplacementVolunteer.title == game.title, User.email_verified.is_(True), User.id.not_in(players),
               User.id.not_in(told_of_seat), User.id.not_in(recent))
        .order_by(ReplacementVolunteer.created_at, User.id)))
    s.add_all(SeatOfferMail(user_id=user.id, game_id=game.id, seat=seat.number) for user in users)
    s.flush()
    return users
