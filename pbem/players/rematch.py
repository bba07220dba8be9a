"""Rematch (issue 35, item 5): the players of a finished game play it again, once every one of them agrees.

An offer belongs to a finished game. Any of its players may propose it, and proposing accepts it;
asking for a rematch while an offer is open accepts that offer (`accept`), so the page's button,
`/rematch` by mail and the API's POST are one action. When the last player accepts, in that same
transaction, the new game is opened and started through the table's own path
(`pbem.games.tables.start_again`): the same title, options, turn hours, timeout policy, days that
count, talk and rated flag, a new seed, and the seats moved round by one (seat 2 plays first, the
first player of the finished game plays last). Each player keeps their colour. A player's
`decline` ends the offer; so does its lapse, LAPSE after it was made.

Every change locks the finished game's row (as the game service does), so two last acceptances at
the same moment start one game: the second waits, then finds the offer started and changes
nothing. The schema backs this: one open offer per game and one new game per offer (unique
constraints, pbem.models.RematchOffer). An offer past its time is marked lapsed the first time it is
read or touched (`current`, `accept`, `decline`): a touch that meant to accept or decline it is
refused with the reason, so nobody finds themselves in a new offer they did not make.

Who is told is the door's business, in the transaction of the change: every change takes a
`tell(session, news)` (pbem.mail.commands.rematch.tell writes the mails), since this package may not
import pbem.notify. Nothing here renders a page or speaks mail.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Callable

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from pbem.db import Database
from pbem.games import GameStateError, NotAllowedError, load_game, seats_of
from pbem.games.tables import start_again
from pbem.i18n import N_
from pbem.models import Game, GameStatus, RematchAcceptance, RematchOffer, Seat, utcnow

LAPSE = timedelta(days=7)  # an offer lapses this long after it was made
MAX_OFFERS_PER_GAME = 3  # offers one finished game may have: each one mails every player
OPEN, STARTED, DECLINED, LAPSED = "open", "started", "declined", "lapsed"

NOT_OVER = {
    "open": N_("Game %(game)d has not started; a rematch is for a game that is over."),
    "running": N_("Game %(game)d is still being played; a rematch can be asked for once it is over."),
    "abandoned": N_("Game %(game)d was abandoned before it was played; there is nothing to play again."),
}
CLOSED = {
    DECLINED: N_("%(name)s declined the rematch of game %(game)d; nothing was done. Ask for a rematch again to "
                 "make a new offer."),
    LAPSED: N_("The rematch offer of game %(game)d lapsed on %(when)s (an offer lasts %(days)d days); nothing was "
               "done. Ask for a rematch again to make a new offer."),
}


@dataclass(frozen=True)
class Player:
    """One player of an offer, in the seat order of the new game."""

    user_id: int
    name: str
    colour: str | None
    accepted: bool


@dataclass(frozen=True)
class Offer:
    """A rematch offer as the doors show it (the page, the API, the mails)."""

    id: int
    game_id: int
    status: str  # open | started | declined | lapsed
    proposed_by: str
    created_at: datetime
    lapses_at: datetime
    closed_at: datetime | None
    declined_by: str | None
    new_game_id: int | None
    players: tuple[Player, ...]  # in the new game's seat order

    def accepted(self, user_id: int | None) -> bool:
        return any(p.user_id == user_id and p.accepted for p in self.players)

    @property
    def waiting(self) -> list[str]:
        """The names of the players who have not accepted yet."""
        return [p.name for p in self.players if not p.accepted]

    def to_json(self) -> dict:
        """The offer in the API's game JSON (times in UTC, ISO 8601)."""
        def at(moment):
            return moment.strftime("%Y-%m-%dT%H:%M:%SZ") if moment else None
        return {"id": self.id, "status": self.status, "proposed_by": self.proposed_by,
                "created_at": at(self.created_at), "lapses_at": at(self.lapses_at), "closed_at": at(self.closed_at),
                "declined_by": self.declined_by, "new_game_id": self.new_game_id,
                "players": [{"name": p.name, "colour": p.colour, "accepted": p.accepted} for p in self.players]}


@dataclass(frozen=True)
class News:
    """What a change did, for the door's `tell` (in its transaction): `offered` (a new offer: the others are
    asked), `started` (the last acceptance started `new_game`), `declined` (the offer ended)."""

    kind: str
    offer: Offer
    game: Game  # the finished game (locked)
    seats: list[Seat]  # its seats, with their users
    actor_id: int  # who proposed, accepted or declined
    new_game: Game | None = None


@dataclass(frozen=True)
class Outcome:
    """What `accept` or `decline` did: `proposed`, `accepted`, `started`, `declined`, or `already` (nothing:
    the player had accepted, or declined, before)."""

    kind: str
    offer: Offer


Tell = Callable[[Session, News], Any]


# --------------------------------------------------------------------------------------
# Reading


def _latest(s: Session, game_id: int) -> RematchOffer | None:
    return s.scalars(select(RematchOffer).where(RematchOffer.game_id == game_id)
                     .order_by(RematchOffer.id.desc()).limit(1)).first()


def rotated(seats: list[Seat]) -> list[Seat]:
    """The seats of the new game: the first player of the finished game moves to the end, the others up one."""
    ordered = sorted(seats, key=lambda seat: seat.number)
    return ordered[1:] + ordered[:1]


def _offer(s: Session, row: RematchOffer, seats: list[Seat]) -> Offer:
    accepted = set(s.scalars(select(RematchAcceptance.user_id).where(RematchAcceptance.offer_id == row.id)))
    names = {seat.user_id: seat.display_name for seat in seats}
    declined = row.declined_by
    return Offer(row.id, row.game_id, row.status, names.get(row.proposed_by, "?"), row.created_at, row.lapses_at,
                 row.closed_at, names.get(declined) if declined is not None else None, row.new_game_id,
                 tuple(Player(seat.user_id, seat.display_name, seat.colour, seat.user_id in accepted)
                       for seat in rotated(seats)))


def _past(row: RematchOffer | None, now: datetime) -> bool:
    """Whether an offer is open but past its time (to be marked lapsed)."""
    return row is not None and row.status == OPEN and now >= row.lapses_at


def _close(row: RematchOffer, status: str, at: datetime) -> None:
    row.status, row.open_for, row.closed_at = status, None, at


def current(db: Database, game_id: int) -> Offer | None:
    """The game's latest rematch offer (open or how it ended), or None; an offer found past its time is marked
    lapsed now (the lazy check: nothing else has to sweep them)."""
    with db.sessions() as s:
        row = _latest(s, game_id)
        if row is None:
            return None
        if not _past(row, utcnow()):
            return _offer(s, row, seats_of(s, s.get(Game, game_id)))
    with db.transaction() as s:
        game = load_game(s, game_id, lock=True)
        row = _latest(s, game_id)
        if _past(row, utcnow()):
            _close(row, LAPSED, row.lapses_at)
        return _offer(s, row, seats_of(s, game))


# --------------------------------------------------------------------------------------
# Changing


def _table(s: Session, game_id: int, user_id: int) -> tuple[Game, list[Seat]]:
    """The finished game, locked, and its seats; refused when it is not over, its seats have no accounts, or the
    user has no seat in it."""
    game = load_game(s, game_id, lock=True)
    if game.status != GameStatus.FINISHED.value:
        raise GameStateError(NOT_OVER[game.status], game=game.id)
    seats = seats_of(s, game)
    if not any(seat.user_id == user_id for seat in seats):
        raise NotAllowedError(N_("Only the players of game %(game)d can ask for its rematch."), game=game.id)
    if any(seat.user_id is None for seat in seats):
        raise GameStateError(N_("Game %(game)d was imported: its players have no accounts here to play it again."),
                             game=game.id)
    return game, seats


def _refusal(row: RematchOffer, seats: list[Seat]) -> GameStateError:
    """Why a closed offer cannot be accepted or declined (declined or lapsed; one that started is no refusal)."""
    if row.status == DECLINED:
        name = next((seat.display_name for seat in seats if seat.user_id == row.declined_by), "?")
        return GameStateError(CLOSED[DECLINED], name=name, game=row.game_id)
    return GameStateError(CLOSED[LAPSED], game=row.game_id, when=row.lapses_at.strftime("%Y-%m-%d %H:%M UTC"),
                          days=LAPSE.days)


def accept(db: Database, game_id: int, user_id: int, *, tell: Tell, offer_id: int | None = None,
           answering: bool = False) -> Outcome:
    """A player of a finished game asks for its rematch: accept the open offer, or propose one (accepted by its
    proposer) when none is open; the last acceptance starts the new game, with a fresh seed.

    `offer_id`: the offer the player saw (the page's Accept button): refused when that offer is no longer
    open; `answering`: the same for the game's latest offer (a reply to its mail). An open offer past its time
    is marked lapsed and the request refused with the reason (the next one proposes anew). A player who
    accepted before changes nothing (`already`)."""
    lapsed = None
    with db.transaction() as s:
        game, seats = _table(s, game_id, user_id)
        row, now = _latest(s, game_id), utcnow()
        if _past(row, now):
            _close(row, LAPSED, row.lapses_at)
            lapsed = _refusal(row, seats)
        else:
            if answering and row is not None:
                offer_id = row.id
            return _accept(s, game, seats, row, user_id, tell, offer_id, now)
    raise lapsed


def _accept(s: Session, game: Game, seats: list[Seat], row: RematchOffer | None, user_id: int, tell: Tell,
            offer_id: int | None, now: datetime) -> Outcome:
    if offer_id is not None and (row is None or row.id != offer_id):
        raise GameStateError(N_("That rematch offer of game %(game)d is no longer open; nothing was done."),
                             game=game.id)
    if row is not None and row.status == STARTED:
        return Outcome("already", _offer(s, row, seats))
    if row is not None and row.status != OPEN:
        if offer_id is not None:
            raise _refusal(row, seats)
        row = None  # declined or lapsed before: this request proposes a new offer
    if row is None:
        return _propose(s, game, seats, user_id, tell, now)
    if s.get(RematchAcceptance, (row.id, user_id)) is not None:
        return Outcome("already", _offer(s, row, seats))
    s.add(RematchAcceptance(offer_id=row.id, user_id=user_id, accepted_at=now))
    s.flush()
    return _maybe_start(s, game, seats, row, user_id, tell, "accepted")


def _propose(s: Session, game: Game, seats: list[Seat], user_id: int, tell: Tell, now: datetime) -> Outcome:
    made = s.scalar(select(func.count(RematchOffer.id)).where(RematchOffer.game_id == game.id))
    if made >= MAX_OFFERS_PER_GAME:
        raise NotAllowedError(N_("Game %(game)d has had %(most)d rematch offers already; open a new table instead."),
                              game=game.id, most=MAX_OFFERS_PER_GAME)
    row = RematchOffer(game_id=game.id, open_for=game.id, proposed_by=user_id, status=OPEN, created_at=now,
                       lapses_at=now + LAPSE)
    s.add(row)
    s.flush()
    s.add(RematchAcceptance(offer_id=row.id, user_id=user_id, accepted_at=now))
    s.flush()
    return _maybe_start(s, game, seats, row, user_id, tell, "proposed")


def _maybe_start(s: Session, game: Game, seats: list[Seat], row: RematchOffer, user_id: int, tell: Tell,
                 kind: str) -> Outcome:
    """Start the new game if everyone has accepted now; tell the table what happened."""
    accepted = set(s.scalars(select(RematchAcceptance.user_id).where(RematchAcceptance.offer_id == row.id)))
    if not all(seat.user_id in accepted for seat in seats):
        offer = _offer(s, row, seats)
        if kind == "proposed":
            tell(s, News("offered", offer, game, seats, user_id))
        return Outcome(kind, offer)
    new_game = start_again(s, game, [(seat.user, seat.colour) for seat in rotated(seats)], row.proposed_by)
    _close(row, STARTED, utcnow())
    row.new_game_id = new_game.id
    s.flush()
    offer = _offer(s, row, seats)
    tell(s, News("started", offer, game, seats, user_id, new_game))
    return Outcome("started", offer)


def decline(db: Database, game_id: int, user_id: int, *, tell: Tell, offer_id: int | None = None) -> Outcome:
    """A player declines the open rematch offer (even one they had accepted): it ends, and the others are told.
    Declining again what one declined changes nothing (`already`); there being no open offer is refused."""
    lapsed = None
    with db.transaction() as s:
        game, seats = _table(s, game_id, user_id)
        row, now = _latest(s, game_id), utcnow()
        if row is None or (offer_id is not None and row.id != offer_id):
            raise GameStateError(N_("There is no open rematch offer of game %(game)d to decline."), game=game.id)
        if _past(row, now):
            _close(row, LAPSED, row.lapses_at)
            lapsed = _refusal(row, seats)
        elif row.status == DECLINED and row.declined_by == user_id:
            return Outcome("already", _offer(s, row, seats))
        elif row.status == STARTED:
            raise GameStateError(N_("Every player accepted the rematch of game %(game)d: it is game %(new)d, "
                                    "already begun."), game=game.id, new=row.new_game_id)
        elif row.status != OPEN:
            raise _refusal(row, seats)
        else:
            _close(row, DECLINED, now)
            row.declined_by = user_id
            s.flush()
            offer = _offer(s, row, seats)
            tell(s, News("declined", offer, game, seats, user_id))
            return Outcome("declined", offer)
    raise lapsed

