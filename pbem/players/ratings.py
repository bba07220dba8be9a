"""Ratings per player and title: openskill's Plackett-Luce model, changed once by each finished rated game.

A user has one rating per title (`models.Rating`): mu (the skill the games so far point to) and
sigma (how uncertain that is), both openskill's, starting at 25 and 25/3. Lists sort by the
ordinal, mu - 3 sigma, which is low until enough games make the rating certain; a rating is shown
with its uncertainty as "mu ± 2 sigma" (`shown`).

The rules (docs/web.md, "Ratings"):

- Only a game the table marked rated at creation (`Game.rated`) is rated, in the transaction that
  finishes it (the game service's `events.game_finished`). A game changes ratings once: its
  `models.RatingUpdate` row (unique per game) keeps each player's values before and after, and a
  game found there is not rated again.
- The places are the result's (`game.result["ranks"]`); equal places are a tie, which openskill
  takes as such (`ranks=`).
- A seat that resigned, by its own choice or by the timeout policy (`resign`), lost: it is ranked
  after every seat still in, whatever its score, and the seats that resigned share that last place.
- Seats without a user (imported games' seats) are left out; with fewer than two rated players
  left the game changes nothing. Imported games are not rated.
- A game abandoned is not rated: it never finishes (status `abandoned`), so nothing here hears of it.
  Bots and replacements (issue 37): a table with bot seats, or one that declares it hands an abandoned
  seat to a bot and a replacement (`Game.replace_after`), cannot be made rated (refused at creation at
  every door), so no rated game is ever finished by anyone but the players who sat down to it: the
  simplest rule that leaves nobody's rating to a bot's play or to a part of a game.
- Against rating farms, games among the same set of players at the same title count less after
  `SAME_PLAYERS_GAMES` (N = 3) within `SAME_PLAYERS_DAYS` (30) days before the game finished: the
  k-th such game (this one included), for k > N, has the weight w = 1/(k - N + 1), so the 4th counts
  half, the 5th a third. A game of weight w moves each player's mu and sigma w of the way from
  where they were to where openskill's update puts them. (Not openskill's `weights=`: those share
  a team's result among its players, normalised within the team, and a weight below 1 makes a
  loss count more, not less.)

`rebuild` forgets every rating and rates again every finished rated game, in the order they
finished (`finished_at`, then the game's id), through the same function as the transaction that
finishes a game, so it gives the same numbers to the last digit. Two games sharing a player that
finish at the same moment on PostgreSQL are rated in the order their transactions commit, which
may differ from the order of `finished_at`; a rebuild rates them in the latter.

It does not show anything (pbem.web reads `of_user` and `top`) and does not send anything.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from openskill.models import PlackettLuce
from sqlalchemy import delete, func, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

import engine
from pbem.db import Database
from pbem.models import Game, GameStatus, Rating, RatingUpdate, Seat, User

MODEL = PlackettLuce()  # openskill's defaults: mu 25, sigma 25/3, beta 25/6, tau 25/300
SAME_PLAYERS_GAMES = 3  # N: games among the same players in the period that count fully
SAME_PLAYERS_DAYS = 30  # the period
TOP = 50  # the ratings a title's list shows


def ordinal(mu: float, sigma: float) -> float:
    """The number a list sorts by: mu - 3 sigma (openskill's ordinal), low while a rating is uncertain."""
    return mu - 3 * sigma


def shown(mu: float, sigma: float) -> str:
    """A rating with its uncertainty, as pages show it: "mu ± 2 sigma", one decimal each."""
    return f"{mu:.1f} ± {2 * sigma:.1f}"


def weight(earlier: int) -> float:
    """The weight of a game after `earlier` rated games among the same players in the period."""
    k = earlier + 1
    return 1.0 if k <= SAME_PLAYERS_GAMES else 1.0 / (k - SAME_PLAYERS_GAMES + 1)


def places(game: Game, seats: list[Seat]) -> dict[int, int]:
    """Each rated player's place (user id -> rank, 1 is best, equal ranks tie), in seat order: the result's
    ranks, with every resigned seat after every seat still in; seats without a user are left out."""
    ranks = list(game.result["ranks"])
    resigned = {seat.number for seat in seats if seat.resigned}
    last = max((rank for number, rank in enumerate(ranks) if number not in resigned), default=0) + 1
    return {seat.user_id: last if seat.number in resigned else ranks[seat.number]
            for seat in sorted(seats, key=lambda seat: seat.number) if seat.user_id is not None}


def on_game_finished(s: Session, *, game: Game, seats: list[Seat], rules: engine.Rules, state: Any) -> None:
    """The game service's end of a game: rate it when the table is rated (same transaction)."""
    rate(s, game, seats)


def rate(s: Session, game: Game, seats: list[Seat]) -> RatingUpdate | None:
    """Change the ratings of a finished rated game's players, once; the update written, or None when the
    game is not rated (not marked rated, imported, not finished, fewer than two rated players, rated before)."""
    if not game.rated or game.imported or game.status != GameStatus.FINISHED.value or not game.result:
        return None
    if s.scalar(select(RatingUpdate.id).where(RatingUpdate.game_id == game.id)) is not None:
        return None
    ranked = places(game, seats)
    if len(ranked) < 2:
        return None
    users = list(ranked)  # in seat order, as openskill is given them
    rows = _locked(s, sorted(users), game.title, game.finished_at)
    players = ",".join(str(user) for user in sorted(users))
    earlier = s.scalar(select(func.count()).select_from(RatingUpdate).where(
        RatingUpdate.title == game.title, RatingUpdate.players == players,
        RatingUpdate.finished_at > game.finished_at - timedelta(days=SAME_PLAYERS_DAYS),
        RatingUpdate.finished_at <= game.finished_at))
    w = weight(earlier)
    teams = [[MODEL.rating(mu=rows[user].mu, sigma=rows[user].sigma)] for user in users]
    new = MODEL.rate(teams, ranks=[ranked[user] for user in users])
    changes = {}
    for user, [rated] in zip(users, new):
        row = rows[user]
        mu, sigma = _weighed(row.mu, rated.mu, w), _weighed(row.sigma, rated.sigma, w)
        changes[str(user)] = {"rank": ranked[user], "before": [row.mu, row.sigma], "after": [mu, sigma]}
        row.mu, row.sigma, row.ordinal = mu, sigma, ordinal(mu, sigma)
        row.games += 1
        row.updated_at = game.finished_at
    update = RatingUpdate(game_id=game.id, title=game.title, players=players, finished_at=game.finished_at,
                          weight=w, changes=changes)
    s.add(update)
    s.flush()
    return update


def _weighed(before: float, after: float, w: float) -> float:
    """`w` of the way from `before` to `after` (openskill's value itself at full weight)."""
    return after if w == 1.0 else before + w * (after - before)


def _locked(s: Session, users: list[int], title: str, at: datetime) -> dict[int, Rating]:
    """The players' rating rows at `title`, made at openskill's start where missing, locked (in user order,
    so two games sharing players wait for each other and never deadlock)."""
    start = MODEL.rating()
    dialect = postgresql if s.get_bind().dialect.name == "postgresql" else sqlite
    for user in users:
        s.execute(dialect.insert(Rating).values(
            user_id=user, title=title, mu=start.mu, sigma=start.sigma, ordinal=ordinal(start.mu, start.sigma),
            games=0, updated_at=at).on_conflict_do_nothing(index_elements=["user_id", "title"]))
    found = s.scalars(select(Rating).where(Rating.user_id.in_(users), Rating.title == title)
                      .order_by(Rating.user_id).with_for_update().execution_options(populate_existing=True))
    return {row.user_id: row for row in found}


def rebuild(db: Database) -> int:
    """Forget every rating and rate every finished rated game again, in the order they finished, in one
    transaction; returns the number of games that changed ratings."""
    with db.transaction() as s:
        s.execute(delete(RatingUpdate))
        s.execute(delete(Rating))
        finished = s.scalars(select(Game).where(Game.rated.is_(True), Game.imported.is_(False),
                                                Game.status == GameStatus.FINISHED.value)
                             .order_by(Game.finished_at, Game.id))
        rated = 0
        for game in finished.all():
            seats = list(s.scalars(select(Seat).where(Seat.game_id == game.id).order_by(Seat.number)))
            rated += rate(s, game, seats) is not None
        return rated


def of_user(db: Database, user_id: int) -> list[dict]:
    """A user's ratings, one per title they were rated at, the best ordinal first."""
    with db.sessions() as s:
        rows = s.scalars(select(Rating).where(Rating.user_id == user_id, Rating.games > 0)
                         .order_by(Rating.ordinal.desc(), Rating.title))
        return [_entry(row) for row in rows]


def top(db: Database, title: str, limit: int = TOP) -> list[dict]:
    """The best `limit` ratings at a title by ordinal, with the players' display names."""
    with db.sessions() as s:
        rows = s.execute(select(Rating, User.display_name).join(User, User.id == Rating.user_id)
                         .where(Rating.title == title, Rating.games > 0)
                         .order_by(Rating.ordinal.desc(), Rating.user_id).limit(limit))
        return [{"name": name, **_entry(row)} for row, name in rows]


def _entry(row: Rating) -> dict:
    return {"title": row.title, "mu": row.mu, "sigma": row.sigma, "ordinal": row.ordinal, "games": row.games,
            "shown": shown(row.mu, row.sigma), "updated_at": row.updated_at}
