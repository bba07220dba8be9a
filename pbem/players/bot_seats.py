"""Bot seats: the worker plays a bot's decisions as ordinary moves, within a budget per game and per site
(issue 37, item 2).

A seat a bot plays has no user and a level (`Seat.bot_level`; seated at a table's creation by
`games.tables.add_bots`). When a change to a game leaves a bot's seat to move (`events.game_started`,
`events.move_applied`), the listener here writes the game's `BotTurn` row in that transaction and
posts one job, `PLAY_BOT (game id, version)`, after the commit. The job (`play`) asks `bots` for the
seat's decision (the bot sees the seat's view only: the state goes to `rules.resample_hidden`, never
to the bot's choice) and submits it through `games.submit` with source "bot", the position it was
asked for (`expected_version`: a stale job does nothing) and a key per (game, version) (a job
delivered twice moves once). The move is logged, chained, archived and replayed like any other.

The budget, so that one game of bots cannot fill the queue:
- per game: at most one bot job queued, since a game has one `BotTurn` row and its job is posted
  only when the row is written for a new position; the next decision's job is posted by the
  commit of the move before it;
- per site: at most `SITE_BUDGET` bot jobs posted and not done (rows with `posted_at`, less than
  `LOST_AFTER_S` old). A bot turn that finds the budget full waits (`posted_at` None); the
  sweep (`due`) posts the waiting ones, oldest first, as places free up, and posts again a job
  that was lost (posted and not done after the sweep's own delay, `PBEM_SWEEP_AFTER_S`, as it
  does for mails: a post that failed while the broker was away, a killed worker; `LOST_AFTER_S`
  when no delay is given).
Two games committing at the same moment may each see the last free place, so the budget can be
passed by the number of such commits at once; the sweep then posts nothing until it is back under.

A bot's seat gets no notices: pbem.notify tells only seats with a user. This module writes no mail.

Abandoned seats (issue 37 item 3): at a table that declared a policy (`Game.replace_after`), a seat whose
player misses that many deadlines in a row (`events.player_late`, counted from the deadlines' "missed"
events since the seat last moved by itself) is handed to a bot of the table's level and offered to a
replacement (`games.tables.hand_to_bot`; `leave_game` does the same when the player leaves). `open_seats`
lists the seats offered; `games.tables.take_seat` gives one to a replacement. The volunteers for the title hear of
an offered seat by mail (pbem.notify.seat_offers, listening to the same `events.seat_changed`: this package
may not import pbem.notify; `pbem.players.volunteers` picks whom).
"""

from __future__ import annotations

import hashlib
import logging
from datetime import timedelta
from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

import bots
from pbem import events, games, jobs
from pbem.db import Database
from pbem.games import tables
from pbem.games.loading import load_state, rules_of, seats_of
from pbem.models import BotTurn, Game, GameEvent, GameStatus, MoveRecord, MoveSource, Seat, utcnow

log = logging.getLogger(__name__)

PLAY_BOT = "pbem.play_bot"  # (game_id, version): the bot to move in that position decides and moves
SITE_BUDGET = 8  # bot jobs posted and not done, over the whole site
LOST_AFTER_S = 120.0  # a bot job posted this long ago and not done is posted again by the sweep


def bot_to_move(game: Game, seats: list[Seat]) -> Seat | None:
    """The bot's seat that is to move in a running game, or None (a person's turn, or the game is over)."""
    if game.status != GameStatus.RUNNING.value or game.to_move is None:
        return None
    seat = next((x for x in seats if x.number == game.to_move), None)
    return seat if seat is not None and seat.bot_level is not None and not seat.resigned else None


def schedule(s: Session, game: Game, seats: list[Seat]) -> bool:
    """Write the game's bot turn for its position (or drop it when no bot is to move) and post its job
    after the commit if the site's budget has a place; True when a job was posted."""
    turn = s.get(BotTurn, game.id)
    if bot_to_move(game, seats) is None:
        if turn is not None:
            s.delete(turn)
        return False
    if turn is not None and turn.version == game.version:
        return False  # already waiting or posted for this position
    if turn is None:
        turn = BotTurn(game_id=game.id, version=game.version)
        s.add(turn)
    turn.version, turn.posted_at = game.version, None
    posted = s.scalar(select(func.count()).select_from(BotTurn).where(
        BotTurn.game_id != game.id, BotTurn.posted_at.is_not(None),
        BotTurn.posted_at >= utcnow() - timedelta(seconds=LOST_AFTER_S)))
    if posted >= SITE_BUDGET:
        return False  # the sweep posts it when a place is free
    turn.posted_at = utcnow()
    jobs.after_commit(s, PLAY_BOT, game.id, game.version)
    return True


def _on_change(s: Session, *, game: Game, seats: list[Seat], **_facts: Any) -> None:
    schedule(s, game, seats)


def _on_player_late(s: Session, *, game: Game, seat: Seat, **_facts: Any) -> None:
    """A player missed a deadline: at a table with a policy for abandoned seats, the seat goes to a bot once
    they have missed `Game.replace_after` in a row."""
    if game.replace_after is None or seat.user_id is None or seat.resigned:
        return
    if missed_in_a_row(s, game, seat.number) >= game.replace_after:
        tables.hand_to_bot(s, game, seats_of(s, game), seat, "missed")


def missed_in_a_row(s: Session, game: Game, seat: int) -> int:
    """Deadlines this seat's player has missed since it last moved by itself (a timeout's, a resigned seat's or a
    bot's move is not its own) or took the seat (a replacement does not inherit the misses before it)."""
    own = s.scalar(select(func.max(MoveRecord.seq)).where(
        MoveRecord.game_id == game.id, MoveRecord.seat == seat,
        MoveRecord.source.not_in((MoveSource.TIMEOUT.value, MoveSource.AUTO.value, MoveSource.BOT.value))))
    taken = s.scalar(select(func.max(GameEvent.id)).where(GameEvent.game_id == game.id, GameEvent.seat == seat,
                                                          GameEvent.kind == tables.SEAT_EVENT))
    return s.scalar(select(func.count()).select_from(GameEvent).where(
        GameEvent.game_id == game.id, GameEvent.seat == seat, GameEvent.kind == "missed",
        GameEvent.seq >= (own or 0), GameEvent.id > (taken or 0))) or 0


def open_seats(db: Database, title: str | None = None) -> list[tuple[int, str, int, str]]:
    """The seats offered to a replacement in running games, oldest offer first: (game id, title, seat number,
    the bot's display name that plays it meanwhile)."""
    query = (select(Game.id, Game.title, Seat.number, Seat.display_name).join(Seat, Seat.game_id == Game.id)
             .where(Game.status == GameStatus.RUNNING.value, Seat.open_since.is_not(None)))
    if title is not None:
        query = query.where(Game.title == title)
    with db.sessions() as s:
        return [tuple(row) for row in s.execute(query.order_by(Seat.open_since, Game.id))]


def connect() -> None:
    """Listen to the game service: a game that starts or moves on, or a seat that changes hands, may leave a
    bot to move; one that ends drops its bot turn; a player late may lose the seat to a bot
    (pbem.wiring.connect calls this once per process)."""
    for signal in (events.game_started, events.move_applied, events.game_finished, events.seat_changed):
        signal.connect(_on_change)
    events.player_late.connect(_on_player_late)


def bot_seed(game: Game, version: int) -> int:
    """The seed of a bot's decision: from the game's public commitment and the position, so the same
    decision is made again for the same position, and nothing secret (the game's seed) steers it."""
    digest = hashlib.sha256(f"bot:{game.commitment}:{version}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def play(db: Database, game_id: int, version: int) -> str:
    """The bot's decision in `game_id` at `version`, submitted as a move with source "bot"; returns
    "moved", "duplicate" (moved by an earlier delivery) or "stale" (the game is elsewhere: nothing done)."""
    with db.sessions() as s:
        turn = s.get(BotTurn, game_id)
        game = s.get(Game, game_id)
        if turn is None or turn.version != version or game is None or game.version != version:
            return "stale"
        seat = bot_to_move(game, seats_of(s, game))
        if seat is None:
            return "stale"
        rules, state, number = rules_of(game), load_state(game), seat.number
        level, seed = bots.level(seat.bot_level), bot_seed(game, version)
    decision = bots.choose(rules, state, level, seed)
    if not _still_waiting(db, game_id, version, number):
        return "stale"  # a replacement took the seat while the bot thought (issue 37 item 3)
    try:
        done = games.submit(db, game_id, decision.move, seat=number, source=MoveSource.BOT.value,
                            key=f"bot:{game_id}:{version}", expected_version=version)
    except (games.StalePositionError, games.NotYourTurnError, games.GameStateError):
        return "stale"
    log.info("bot %s of game %d moved %s at move %d (%d playouts, %.3f s%s)", level.name, game_id, done.notation,
             done.seq, decision.playouts, decision.seconds, ", time cap" if decision.capped else "")
    return "duplicate" if done.duplicate else "moved"


def _still_waiting(db: Database, game_id: int, version: int, number: int) -> bool:
    """Whether the game still waits for the bot of seat `number` at `version` (read again after a decision,
    which may take the level's seconds: the seat may have been taken meanwhile)."""
    with db.sessions() as s:
        turn = s.get(BotTurn, game_id)
        seat = s.scalar(select(Seat).where(Seat.game_id == game_id, Seat.number == number))
        return turn is not None and turn.version == version and seat is not None and seat.bot_level is not None


def due(db: Database, lost_after_s: float = LOST_AFTER_S) -> list[tuple[int, int]]:
    """The bot turns to post now (the sweep posts them): those waiting for a place in the site's budget and
    those whose job was lost (posted `lost_after_s` ago and not done), oldest first, as many as the budget
    has places; each is marked posted. A job posted again that was only slow moves once (its key)."""
    now = utcnow()
    lost = now - timedelta(seconds=lost_after_s)
    with db.transaction() as s:
        posted = s.scalar(select(func.count()).select_from(BotTurn).where(BotTurn.posted_at >= lost))
        places = SITE_BUDGET - posted
        if places <= 0:
            return []
        waiting = list(s.scalars(select(BotTurn).where(or_(BotTurn.posted_at.is_(None), BotTurn.posted_at < lost))
                                 .order_by(BotTurn.created_at, BotTurn.game_id).limit(places)))
        for turn in waiting:
            turn.posted_at = now
        return [(turn.game_id, turn.version) for turn in waiting]


def queued(db: Database) -> int:
    """Bot jobs posted and not done, over the site (what `SITE_BUDGET` bounds)."""
    lost = utcnow() - timedelta(seconds=LOST_AFTER_S)
    with db.sessions() as s:
        return s.scalar(select(func.count()).select_from(BotTurn).where(BotTurn.posted_at >= lost))
