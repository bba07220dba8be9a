"""A player's page, as facts read from the database (issue 35 items 2 and 6): who may see it and what it says.

A page says who the player is (name, member since, language), their record (ratings per title:
`ratings.of_user`; reliability and pace: `reliability.of_user`) and their games: the running ones
where the others wait for them (since the turn began), the other running ones (who is to move,
since when), their open tables, and the finished and abandoned ones, newest first, with their
place and points and, for a rated game, how much it moved their rating.

Who may see it (`may_see`): everybody, unless the player hid it (`User.page_hidden`, on the
settings page); a hidden page is seen by its player and by those who sat with them at a game
that started (running, finished or abandoned; an open table does not count, or anybody could
join one to read the page). To everybody else a hidden page is no page: `page` answers None, as
for a user that does not exist, so the web and the API answer 404 for both and never tell that
the player is there.

The games a page lists are public already (the lobby and the API list every game, with its
seats and results), so listing them tells nothing a seat's view keeps back; the page never
says a player's address.

It renders nothing (pbem.web.players does) and changes nothing but the hide setting.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

import engine
from pbem.db import Database
from pbem.models import Game, GameStatus, RatingUpdate, Seat, User
from pbem.players import ratings, reliability

FINISHED_SHOWN = 30  # the finished games a page lists (the newest); it says how many there are in all
STARTED = (GameStatus.RUNNING.value, GameStatus.FINISHED.value, GameStatus.ABANDONED.value)
ENDED = (GameStatus.FINISHED.value, GameStatus.ABANDONED.value)
_NOT_IN_A_SLUG = re.compile(r"[^\w]+")


@dataclass(frozen=True)
class Sitter:
    """A name at a table: `user_id` None for a seat without an account (an imported game's)."""

    name: str
    user_id: int | None
    seat: int


@dataclass
class GameLine:
    """One game of a player's: what it is, who sits there, whose turn it is and since when, and how it went
    for the player (place, points, the change of their rating) once it is over."""

    id: int
    title: str
    title_name: str
    status: str
    version: int
    seat: int
    colour: str | None
    resigned: bool
    rated: bool
    players: list[Sitter]
    to_move: Sitter | None = None
    since: datetime | None = None
    finished_at: datetime | None = None
    place: int | None = None
    tied: bool = False
    points: float | None = None
    rating_change: float | None = None  # mu after - mu before, for a game that changed ratings


@dataclass
class Page:
    """Everything a player's page and `GET /api/v1/players/<id>` say."""

    id: int
    name: str
    slug: str
    member_since: datetime
    languages: list[str]
    hidden: bool
    ratings: list[dict]
    reliability: dict
    waiting: list[GameLine] = field(default_factory=list)  # running games where the others wait for them
    playing: list[GameLine] = field(default_factory=list)  # their other running games
    open: list[GameLine] = field(default_factory=list)  # open tables they sit at
    finished: list[GameLine] = field(default_factory=list)  # the newest FINISHED_SHOWN ended games
    finished_count: int = 0  # ended games in all


def slug(name: str) -> str:
    """The readable part of a player's address: the name in lower case, words joined by '-' ("Anna Berg" ->
    "anna-berg"); "player" for a name of no letters or digits. Only the id names the player."""
    return _NOT_IN_A_SLUG.sub("-", name.casefold()).strip("-_") or "player"


def may_see(s: Session, user: User, viewer_id: int | None) -> bool:
    """Whether `viewer_id` (None: a visitor) may see `user`'s page: always, unless it is hidden; then only the
    player and those who sat with them at a game that started."""
    if not user.page_hidden or viewer_id == user.id:
        return True
    if viewer_id is None:
        return False
    theirs = select(Seat.game_id).join(Game, Game.id == Seat.game_id).where(
        Seat.user_id == user.id, Game.status.in_(STARTED))
    shared = select(Seat.id).where(Seat.user_id == viewer_id, Seat.game_id.in_(theirs)).limit(1)
    return s.scalar(shared) is not None


def page(db: Database, user_id: int, viewer_id: int | None) -> Page | None:
    """The page of user `user_id` as `viewer_id` may see it; None when there is no such user or they may not
    (the same answer for both, so a hidden page's player is not told to be there)."""
    with db.sessions() as s:
        user = s.get(User, user_id)
        if user is None or not may_see(s, user, viewer_id):
            return None
        found = Page(id=user.id, name=user.display_name, slug=slug(user.display_name),
                     member_since=user.created_at, languages=[user.language], hidden=user.page_hidden,
                     ratings=[], reliability=_reliability(s, user.id))
        _sort_games(found, _games(s, user.id))
        found.finished_count = s.scalar(select(func.count()).select_from(Seat).join(Game, Game.id == Seat.game_id)
                                        .where(Seat.user_id == user.id, Game.status.in_(ENDED)))
    found.ratings = _ratings(db, user_id)  # its own session: not inside this one (SQLite's sessions take the lock)
    return found


def _ratings(db: Database, user_id: int) -> list[dict]:
    """The user's ratings per title (`ratings.of_user`), each with the title's name as the site shows it."""
    return [{**entry, "title_name": _title_name(entry["title"])} for entry in ratings.of_user(db, user_id)]


def _reliability(s: Session, user_id: int) -> dict:
    """The user's reliability and pace (`reliability.of_user`) with the figure tables compare with (`percent`)."""
    figures = reliability.of_user(s, user_id)
    return {**figures, "percent": reliability.figure(figures)}


def _title_name(name: str) -> str:
    try:
        return engine.get(name).title
    except engine.UnknownGameError:
        return name


def _games(s: Session, user_id: int) -> list[GameLine]:
    """The user's running games and open tables, and their newest FINISHED_SHOWN ended games: three reads."""
    live = list(s.execute(select(Game, Seat).join(Seat, Seat.game_id == Game.id).where(
        Seat.user_id == user_id, Game.status.in_((GameStatus.OPEN.value, GameStatus.RUNNING.value)))
        .order_by(Game.turn_started_at, Game.id)))
    ended = list(s.execute(select(Game, Seat).join(Seat, Seat.game_id == Game.id).where(
        Seat.user_id == user_id, Game.status.in_(ENDED))
        .order_by(Game.finished_at.desc().nulls_last(), Game.id.desc()).limit(FINISHED_SHOWN)))
    rows = live + ended
    ids = [game.id for game, _ in rows]
    tables: dict[int, list[Sitter]] = {}
    for seat in s.scalars(select(Seat).where(Seat.game_id.in_(ids)).order_by(Seat.game_id, Seat.number)):
        tables.setdefault(seat.game_id, []).append(Sitter(seat.display_name, seat.user_id, seat.number))
    changes = dict(s.execute(select(RatingUpdate.game_id, RatingUpdate.changes)
                             .where(RatingUpdate.game_id.in_([game.id for game, _ in ended]))).all())
    return [_line(game, seat, tables.get(game.id, []), changes.get(game.id, {}).get(str(user_id)))
            for game, seat in rows]


def _line(game: Game, seat: Seat, table: list[Sitter], change: dict | None) -> GameLine:
    """One game as the player's page lists it."""
    line = GameLine(game.id, game.title, _title_name(game.title), game.status, game.version, seat.number,
                    seat.colour, bool(seat.resigned), bool(game.rated), table)
    if game.status == GameStatus.RUNNING.value and game.to_move is not None:
        line.to_move = next((x for x in table if x.seat == game.to_move), None)
        line.since = game.turn_started_at
    if game.status in ENDED:
        line.finished_at = game.finished_at
        result = game.result or {}
        ranks, scores = result.get("ranks") or [], result.get("scores") or []
        if seat.number < len(ranks):
            line.place = ranks[seat.number]
            line.tied = ranks.count(line.place) > 1
        if seat.number < len(scores):
            line.points = scores[seat.number]
        if change:
            line.rating_change = change["after"][0] - change["before"][0]
    return line


def _sort_games(found: Page, lines: list[GameLine]) -> None:
    """Each game into its list: waiting for the player (their seat to move, still in), playing, open, ended."""
    for line in lines:
        if line.status == GameStatus.OPEN.value:
            found.open.append(line)
        elif line.status in ENDED:
            found.finished.append(line)
        elif line.to_move is not None and line.to_move.seat == line.seat and not line.resigned:
            found.waiting.append(line)
        else:
            found.playing.append(line)


def seat_users(db: Database, game_id: int) -> dict[int, int]:
    """Seat number -> user id of a game's seats that have a user (the pages link those names)."""
    rows = db.read(select(Seat.number, Seat.user_id).where(Seat.game_id == game_id, Seat.user_id.is_not(None)))
    return {number: user_id for number, user_id in rows}


def set_hidden(db: Database, user_id: int, hidden: bool) -> None:
    """Hide the user's page from those who never sat with them at a started game, or show it to all again."""
    with db.transaction() as s:
        s.execute(update(User).where(User.id == user_id).values(page_hidden=bool(hidden)))
