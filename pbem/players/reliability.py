"""Reliability and pace per player: games finished or abandoned, deadlines missed, response times.

Everything is read from what the game service and the scheduler keep already (seats, the moves' log,
the games' event log); nothing is stored for it, so the figures are always those of the history as it
stands. Only games that started count (an open table left by everybody never began), and imported games
have no accounts at their seats, so they count for nobody.

The rules (docs/web.md, "Reliability and pace"):

- **Finished or abandoned.** A game counts for a player once it is over for them. They *finished* it
  when they were seated to its end without resigning, or when their own resignation ended it (a
  concession: no other player was left waiting, as a resignation in a two-player game). They
  *abandoned* it when the timeout policy resigned them (source "timeout": they missed the deadlines it
  allows in a row), when they resigned by themselves and the game went on without them (it counts at
  once, while the others still play), or when the game was abandoned after it began while waiting on
  them (no door does that today; the rule is here for when one does). A running game they are still
  in counts neither way yet. A seat the table handed to a bot or a replacement (issue 37: after missed
  deadlines, or their own leave) is a game they abandoned, with the turns they played in it before; a
  replacement's record starts at the move they took the seat. `finished_share` is finished / (finished +
  abandoned); None without any.
- **Turns.** A turn is each time the game passed to their seat: a run of moves of that seat in the log
  (resignation records left out), whoever played it, they or the timeout policy for them. The turns the
  server plays for a seat that left (source "auto") are not theirs. A turn with no move of theirs yet,
  the one in progress or the one they were resigned in, counts once a deadline was missed in it.
- **Missed deadlines.** Each "missed" event of their seat in the games' log (pbem.schedule.deadlines:
  one for each deadline that passed, so a turn under the "wait" policy may miss several).
  `missed_per_100_turns` is 100 * missed / turns; None without a turn.
- **Response time.** For each turn whose first move they made themselves (not a timeout's or the
  server's move): from the start of the turn (the move before it, or the start of the game when the
  turn is the game's first) to that first move, by the clock (absences and weekdays not counted out,
  as Rally the Troops shows it). `response_hours` are the quartiles in hours
  (`statistics.quantiles`, method "inclusive": the turns are all there is, not a sample); one turn gives
  its time three times; None without one.
- **The reliability figure** (`percent`, `figure`) is what a table's minimum is compared with: the
  share of games finished times the share of turns kept, (turns - missed) / turns (never below 0),
  as a whole percentage rounded down, so it is never shown higher than it is. A part without data
  counts as 1; a player with neither an ended game nor a turn has no figure (None) and may take a seat
  at any table: a newcomer is not kept out for having no history.
- **The minimum to join** (`Game.min_reliability`, chosen at creation): a player whose figure is below
  it is refused a seat, with both numbers (`check_seat`, registered with the game service by
  `pbem.players.connect`); the opener too, so nobody opens a table they could not join. Invited
  players join the same way and meet the same minimum.

It does not show anything (the player page and the API read `of_user`) and changes nothing.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from datetime import datetime
from fractions import Fraction
from itertools import groupby
from math import floor

from sqlalchemy import Row, func, select
from sqlalchemy.orm import Session

from engine.core import canonical_json
from pbem.games import NotAllowedError, log
from pbem.i18n import N_
from pbem.models import Game, GameEvent, GameStatus, MoveRecord, MoveSource, Seat, SeatHolder, User

STARTED = (GameStatus.RUNNING.value, GameStatus.FINISHED.value, GameStatus.ABANDONED.value)
NOT_RESPONSES = (MoveSource.TIMEOUT.value, MoveSource.AUTO.value)  # moves the server made for a seat
RESIGNATION = canonical_json([log.RESIGN, []])  # a resignation's record in the log (pbem.games.moves.resign)
HOUR = 3600.0


class BelowMinimumError(NotAllowedError):
    """A seat refused: the player's reliability is below the table's minimum."""

    code = "below_minimum_reliability"


@dataclass(frozen=True)
class _Move:
    seq: int
    seat: int
    source: str
    at: datetime
    resigned: bool


@dataclass
class _Tally:
    finished: int = 0
    abandoned: int = 0
    turns: int = 0
    missed: int = 0
    responses: list[float] = field(default_factory=list)  # hours


def of_user(s: Session, user_id: int) -> dict:
    """A user's reliability and pace over every game of theirs that started (the rules: module docstring):
    games_finished, games_abandoned, finished_share (0..1 or None), turns, missed, missed_per_100_turns
    (or None) and response_hours (the quartiles [q1, median, q3] of their response times, or None)."""
    tally = _Tally()
    seats = list(s.execute(select(Game.id, Game.status, Game.started_at, Game.to_move, Seat.number, Seat.resigned)
                           .join(Seat, Seat.game_id == Game.id)
                           .where(Seat.user_id == user_id, Game.status.in_(STARTED), Game.started_at.is_not(None))
                           .order_by(Game.id)))  # the columns only: a game's state may be large
    left = _handed_over(s, user_id)
    ids = sorted({seat.id for seat in seats} | {game_id for game_id, _, _, _, _ in left})
    moves = _moves(s, ids)
    missed = _missed(s, ids)
    taken = _taken_over(s, user_id)  # seats they took from a bot or another player: theirs from that move on
    for seat in seats:
        since = taken.get((seat.id, seat.number), 1)
        _count_game(tally, seat, [m for m in moves.get(seat.id, []) if m.seat != seat.number or m.seq >= since],
                    [seq for seq in missed.get((seat.id, seat.number), []) if seq >= since - 1])
    for game_id, started_at, number, since, until in left:  # seats they held until a bot or another player took them
        tally.abandoned += 1
        held = [m for m in moves.get(game_id, []) if since <= m.seq < until and m.source != MoveSource.BOT.value]
        _count_turns(tally, number, started_at, held, [seq for seq in missed.get((game_id, number), [])
                                                         if since - 1 <= seq < until])
    ended = tally.finished + tally.abandoned
    return {"games_finished": tally.finished, "games_abandoned": tally.abandoned,
            "finished_share": tally.finished / ended if ended else None,
            "turns": tally.turns, "missed": tally.missed,
            "missed_per_100_turns": 100 * tally.missed / tally.turns if tally.turns else None,
            "response_hours": _quartiles(tally.responses)}


def figure(figures: dict) -> int | None:
    """The reliability figure of `of_user`'s figures: whole percent of (finished share) x (share of turns
    kept), rounded down; None with neither an ended game nor a turn."""
    ended = figures["games_finished"] + figures["games_abandoned"]
    if not ended and not figures["turns"]:
        return None
    finished = Fraction(figures["games_finished"], ended) if ended else Fraction(1)
    turns = figures["turns"]
    kept = Fraction(max(0, turns - figures["missed"]), turns) if turns else Fraction(1)
    return floor(100 * finished * kept)


def percent(s: Session, user_id: int) -> int | None:
    """The user's reliability figure (`figure`), what a table's minimum is compared with."""
    return figure(of_user(s, user_id))


def check_seat(s: Session, game: Game, user: User) -> None:
    """Refuse a seat at a table whose minimum reliability the user is below (the game service's seat check)."""
    if not game.min_reliability:
        return
    figures = of_user(s, user.id)
    have = figure(figures)
    if have is None or have >= game.min_reliability:
        return
    ended = figures["games_finished"] + figures["games_abandoned"]
    details = dict(minimum=game.min_reliability, figure=have, finished=figures["games_finished"], ended=ended,
                   missed=figures["missed"], turns=figures["turns"])
    if game.id is None:
        raise BelowMinimumError(N_("You cannot open a table that asks for a reliability of at least %(minimum)d%%: "
                                   "yours is %(figure)d%% (games finished: %(finished)d of %(ended)d; turns: "
                                   "%(turns)d; deadlines missed: %(missed)d)."), **details)
    raise BelowMinimumError(N_("Game %(game)d asks for a reliability of at least %(minimum)d%%; yours is "
                               "%(figure)d%% (games finished: %(finished)d of %(ended)d; turns: %(turns)d; "
                               "deadlines missed: %(missed)d)."), game=game.id, **details)


def _moves(s: Session, ids: list[int]) -> dict[int, list[_Move]]:
    """The logs of the games, by game, oldest first: each record's seat, source, time and whether it is a
    resignation (the moves' text is not read)."""
    out: dict[int, list[_Move]] = {}
    if not ids:
        return out
    rows = s.execute(select(MoveRecord.game_id, MoveRecord.seq, MoveRecord.seat, MoveRecord.source,
                            MoveRecord.created_at, MoveRecord.move == RESIGNATION)
                     .where(MoveRecord.game_id.in_(ids)).order_by(MoveRecord.game_id, MoveRecord.seq))
    for game_id, seq, seat, source, at, resigned in rows:
        out.setdefault(game_id, []).append(_Move(seq, seat, source, at, bool(resigned)))
    return out


def _missed(s: Session, ids: list[int]) -> dict[tuple[int, int], list[int]]:
    """The moves (game.version) at which each seat of the games missed a deadline, by (game, seat)."""
    out: dict[tuple[int, int], list[int]] = {}
    if not ids:
        return out
    rows = s.execute(select(GameEvent.game_id, GameEvent.seat, GameEvent.seq)
                     .where(GameEvent.game_id.in_(ids), GameEvent.kind == "missed", GameEvent.seat.is_not(None)))
    for game_id, seat, seq in rows:
        out.setdefault((game_id, seat), []).append(seq)
    return out


def _count_game(tally: _Tally, seat: Row, moves: list[_Move], missed: list[int]) -> None:
    """Add one game's part to the tally: how it ended for the seat (a row of `of_user`'s: the game's id,
    status, started_at and to_move, the seat's number and resigned), its turns, misses and response times."""
    ended = _ending(seat, moves)
    if ended is not None:
        if ended:
            tally.finished += 1
        else:
            tally.abandoned += 1
    _count_turns(tally, seat.number, seat.started_at, moves, missed)


def _count_turns(tally: _Tally, number: int, started_at: datetime, moves: list[_Move], missed: list[int]) -> None:
    """Add the turns of seat `number` in these moves of one game to the tally, with its misses and response times."""
    played = [move for move in moves if not move.resigned]
    spans = []  # (version at the turn's start, last move of the turn) of each of the seat's turns in the log
    for turn in _turns(played, number):
        first, last = played[turn[0]], played[turn[-1]]
        if all(played[i].source == MoveSource.AUTO.value for i in turn):
            continue  # the server played it for a seat that had left
        tally.turns += 1
        spans.append((first.seq - 1, last.seq))
        if first.source not in NOT_RESPONSES:
            start = played[turn[0] - 1].at if turn[0] > 0 else started_at
            tally.responses.append((first.at - start).total_seconds() / HOUR)
    tally.missed += len(missed)
    # A miss outside every turn in the log lies in a turn with no move of theirs: in progress, or resigned in.
    tally.turns += len({seq for seq in missed if not any(a <= seq <= b for a, b in spans)})


def _handed_over(s: Session, user_id: int) -> list[tuple[int, datetime, int, int, int]]:
    """The seats the user held and left to a bot or another player (issue 37: after missed deadlines, or
    /leave), as (game, started_at, seat, first move theirs, first move of the next holder): an abandoned game
    for them, with the turns they played in it. A seat they hold again now is counted with their seats."""
    mine = list(s.execute(select(SeatHolder.game_id, SeatHolder.seat, SeatHolder.from_seq, Game.started_at)
                          .join(Game, Game.id == SeatHolder.game_id).where(SeatHolder.user_id == user_id)))
    out = []
    for game_id, number, since, started_at in mine:
        until = s.scalar(select(func.min(SeatHolder.from_seq)).where(
            SeatHolder.game_id == game_id, SeatHolder.seat == number, SeatHolder.from_seq > since))
        holder = s.scalar(select(Seat.user_id).where(Seat.game_id == game_id, Seat.number == number))
        if until is not None and holder != user_id:
            out.append((game_id, started_at, number, since, until))
    return out


def _taken_over(s: Session, user_id: int) -> dict[tuple[int, int], int]:
    """The first move theirs of each seat the user holds now after someone else held it, by (game, seat)."""
    rows = s.execute(select(SeatHolder.game_id, SeatHolder.seat, func.max(SeatHolder.from_seq))
                     .where(SeatHolder.user_id == user_id).group_by(SeatHolder.game_id, SeatHolder.seat))
    return {(game_id, seat): since for game_id, seat, since in rows}


def _turns(played: list[_Move], number: int) -> list[list[int]]:
    """The seat's turns in the log: for each run of its moves, their indexes in `played`."""
    out = []
    for seat, run in groupby(range(len(played)), key=lambda i: played[i].seat):
        if seat == number:
            out.append(list(run))
    return out


def _ending(seat: Row, moves: list[_Move]) -> bool | None:
    """True when the game is finished for the seat, False when abandoned, None when it does not count (yet)."""
    if seat.resigned:
        resignation = next((m for m in reversed(moves) if m.resigned and m.seat == seat.number), None)
        if resignation is None or resignation.source == MoveSource.TIMEOUT.value:
            return False
        return seat.status == GameStatus.FINISHED.value and resignation is moves[-1]  # a concession ended it
    if seat.status == GameStatus.FINISHED.value:
        return True
    if seat.status == GameStatus.ABANDONED.value:
        return False if seat.to_move == seat.number else None
    return None


def _quartiles(hours: list[float]) -> list[float] | None:
    if not hours:
        return None
    if len(hours) == 1:
        return hours * 3
    return statistics.quantiles(hours, n=4, method="inclusive")
