"""Moves: submitting a decision, resigning, and the moves nobody has to be asked for.

The one write path of a move (`append`): a `moves` row with its chain hash, a `snapshots`
row, the game row's new state, and the end of the game when the rules say so. A submission
is one transaction that locks the game row (SELECT ... FOR UPDATE on PostgreSQL; every
SQLite transaction begins IMMEDIATE) and checks it as a move is checked (`locked_turn`);
after it, the seats that need no asking play (`play_automatic`: a resigned seat's first
legal move, a seat's standing orders), and the listeners hear what happened (`announce`),
writing their part in the same transaction. Queuing standing orders is `orders`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

import engine
from engine.core import IllegalMove, Move, canonical_json, rank_by, sha256_hex
from pbem import events, reasons
from pbem.db import Database
from pbem.games import log
from pbem.games.errors import (
    GameError, GameStateError, IllegalMoveError, NotAllowedError, NotYourTurnError, StalePositionError,
)
from pbem.games.loading import NO_SEAT, keep_state, load_game, load_state, orders_by_seat, rules_of, seats_of
from pbem.i18n import N_
from pbem.models import Game, GameStatus, MoveRecord, Seat, SeatOrders, Snapshot, utcnow

# A game in the wrong state for what was asked: one whole sentence per status, so that no status
# word is glued into a sentence of another language.
NO_MOVES = {
    "open": N_("Game %(game)d is open; no moves can be made."),
    "finished": N_("Game %(game)d is finished; no moves can be made."),
    "abandoned": N_("Game %(game)d is abandoned; no moves can be made."),
}
NOT_RESIGNABLE = {
    "open": N_("Game %(game)d is open; only a running game can be resigned."),
    "finished": N_("Game %(game)d is finished; only a running game can be resigned."),
    "abandoned": N_("Game %(game)d is abandoned; only a running game can be resigned."),
}
STALE = N_("Stale position: this was sent for move %(sent)d, but game %(game)d is at move %(move)d now.")


@dataclass
class SubmitResult:
    """What a submission did: the move applied (or found applied before, for a repeated key)."""

    game_id: int
    seq: int
    notation: str
    duplicate: bool = False
    finished: bool = False
    to_move: int | None = None
    auto_moves: list[str] = field(default_factory=list)  # played after it: resigned seats' and standing orders'


def submit(db: Database, game_id: int, move: str | Move, *, user_id: int | None = None, seat: int | None = None,
           source: str = "web", key: str | None = None, expected_version: int | None = None) -> SubmitResult:
    """Apply one decision for a seat (named directly or through its user), in one transaction.

    `expected_version` is the number of moves the sender saw; if the game has moved on the
    submission is refused as a stale position. `key` makes a submission idempotent: the same
    key again returns the move it applied the first time and changes nothing.

    A key applied before makes the submission fail: refused (the position has moved on), or
    stopped by the log's unique (game, key) index when the same move is legal again. Only then
    is the key looked up, in a new transaction (on PostgreSQL a statement that waited for the
    lock sees the other tables as they were when it began). So a key is never applied twice,
    and a new submission costs no lookup.
    """
    try:
        with db.transaction() as s:
            return _move(s, game_id, move, user_id, seat, source, key, expected_version)
    except (GameError, IntegrityError):
        done = _applied(db, game_id, key) if key is not None else None
        if done is None:
            raise
        return done


def _applied(db: Database, game_id: int, key: str) -> SubmitResult | None:
    """The move applied under `key`, as a duplicate's result, or None."""
    with db.sessions() as s:
        done = s.execute(select(MoveRecord.seq, MoveRecord.notation)
                         .where(MoveRecord.game_id == game_id, MoveRecord.idempotency_key == key)).first()
        if done is None:
            return None
        status, to_move = s.execute(select(Game.status, Game.to_move).where(Game.id == game_id)).one()
        return SubmitResult(game_id, done.seq, done.notation, duplicate=True,
                            finished=status == GameStatus.FINISHED.value, to_move=to_move)


def _move(s: Session, game_id: int, move: str | Move, user_id: int | None, seat: int | None, source: str,
          key: str | None, expected_version: int | None) -> SubmitResult:
    events.require_listeners()
    game, seats, seat = locked_turn(s, game_id, user_id, seat, expected_version)
    rules = rules_of(game)
    state = load_state(game)
    try:
        parsed = rules.parse(state, move) if isinstance(move, str) else move
        new_state = rules.apply(state, parsed)
        notation = rules.notation(state, parsed)
    except IllegalMove as error:
        raise IllegalMoveError(str(error), cause=error) from None
    mover = game.to_move
    orders = orders_by_seat(s, game)
    append(s, game, seats, rules, seat, parsed.to_json(), notation, new_state, source, key, orders)
    auto, new_state = play_automatic(s, game, rules, new_state, seats, orders)
    announce(s, game, seats, rules, mover, new_state)
    return SubmitResult(game.id, game.version - len(auto), notation, finished=game.status == GameStatus.FINISHED.value,
                        to_move=game.to_move, auto_moves=auto)


def locked_turn(s: Session, game_id: int, user_id: int | None, seat: int | None,
                expected_version: int | None) -> tuple[Game, list[Seat], int]:
    """The locked game, its seats and the seat acting, checked as a move is: running, the user's
    own seat, the position the sender saw, and that seat's turn."""
    game = load_game(s, game_id, lock=True)
    if game.status != GameStatus.RUNNING.value:
        raise GameStateError(NO_MOVES[game.status], game=game.id)
    seats = seats_of(s, game)
    if user_id is not None:
        mine = [x.number for x in seats if x.user_id == user_id]
        if not mine:
            raise NotAllowedError(NO_SEAT, game=game.id)
        if seat is not None and seat != mine[0]:
            raise NotAllowedError(N_("You can only move for your own seat."))
        seat = mine[0]
    if seat is None:
        raise GameError(N_("Say which seat the move is for."))
    if expected_version is not None and expected_version != game.version:
        raise StalePositionError(STALE, sent=expected_version + 1, game=game.id, move=game.version + 1)
    if game.to_move != seat:
        raise NotYourTurnError(N_("It is not your turn in game %(game)d: %(name)s is to move."), game=game.id,
                               name=seats[game.to_move].display_name)
    return game, seats, seat


def announce(s: Session, game: Game, seats: list[Seat], rules: engine.Rules, mover: int | None, state: Any) -> None:
    """Tell the listeners (pbem.events) that moves were applied, or that they ended the game."""
    if game.status == GameStatus.FINISHED.value:
        events.game_finished.send(s, game=game, seats=seats, rules=rules, state=state)
    else:
        events.move_applied.send(s, game=game, seats=seats, rules=rules, mover=mover, state=state)


def append(s: Session, game: Game, seats: list[Seat], rules: engine.Rules, seat: int, move_json: Any,
           notation: str, new_state: Any, source: str, key: str | None, orders: dict[int, SeatOrders]) -> None:
    """Append one record to the log and make its state the game's state (same transaction);
    `orders` (`loading.orders_by_seat`) loses the orders of a seat whose turn ends."""
    seq = game.version + 1
    state_json = canonical_json(rules.state_to_json(new_state))
    state_hash = sha256_hex(state_json)
    at = utcnow()
    chain = log.chain_hash(game.chain_head, seq, seat, move_json, notation, source, log.format_time(at), state_hash)
    s.add(MoveRecord(game_id=game.id, seq=seq, seat=seat, move=canonical_json(move_json), notation=notation,
                     source=source, idempotency_key=key, state_hash=state_hash, chain_hash=chain, created_at=at))
    s.add(Snapshot(game_id=game.id, seq=seq, state=state_json, state_hash=state_hash))
    previous_to_move = game.to_move
    game.state = state_json
    game.version = seq
    game.chain_head = chain
    keep_state(game, new_state)
    game.to_move = rules.to_move(new_state)
    if game.to_move != previous_to_move:
        unused = orders.pop(previous_to_move, None)
        if unused is not None:  # its turn is over: orders it did not use are dropped
            s.delete(unused)
        events.turn_started.send(s, game=game, seats=seats)
    if game.to_move is None and game.status == GameStatus.RUNNING.value:
        _finish(game, rules.result(new_state).to_json())


def _finish(game: Game, result: dict) -> None:
    game.status = GameStatus.FINISHED.value
    game.result = result
    game.finished_at = utcnow()
    game.to_move = None
    game.deadline = None


def play_automatic(s: Session, game: Game, rules: engine.Rules, state: Any, seats: list[Seat],
                   orders: dict[int, SeatOrders]) -> tuple[list[str], Any]:
    """The moves nobody has to be asked for, until a player must decide: a resigned seat plays its
    first legal move (logged as 'auto'), and a seat whose standing orders decide its decision plays
    that (logged as 'order'; an order with no legal choice leaves the decision to the player)."""
    resigned = {seat.number for seat in seats if seat.resigned}
    played = []
    while game.status == GameStatus.RUNNING.value:
        seat = game.to_move
        if seat in resigned:
            move, source = rules.legal_moves(state)[0], "auto"
        else:
            row = orders.get(seat)
            found = rules.queued_move(state, seat, [rules.order_from_json(o) for o in row.orders]) if row else None
            if found is None:
                break
            move, left = found
            row.orders, row.updated_at, source = [rules.order_to_json(o) for o in left], utcnow(), "order"
        notation = rules.notation(state, move)
        state = rules.apply(state, move)
        append(s, game, seats, rules, seat, move.to_json(), notation, state, source, None, orders)
        played.append(notation)
    return played, state


def resign(db: Database, game_id: int, user_id: int, source: str = "web", expected_version: int | None = None) -> None:
    """Leave a running game for good: with fewer than two players left it ends at once.

    `expected_version`, as for `submit`: a resignation sent for a position the game has left is
    refused as stale (a turn key, docs/security.md, is dead once the turn is played)."""
    with db.transaction() as s:
        events.require_listeners()
        game = load_game(s, game_id, lock=True)
        if game.status != GameStatus.RUNNING.value:
            raise GameStateError(NOT_RESIGNABLE[game.status], game=game.id)
        if expected_version is not None and expected_version != game.version:
            raise StalePositionError(STALE, sent=expected_version + 1, game=game.id, move=game.version + 1)
        seats = seats_of(s, game)
        seat = next((x for x in seats if x.user_id == user_id), None)
        if seat is None:
            raise NotAllowedError(NO_SEAT, game=game.id)
        if seat.resigned:
            raise GameError(N_("You have already resigned from game %(game)d."), game=game.id)
        seat.resigned = True
        rules = rules_of(game)
        state = load_state(game)
        to_move = game.to_move
        orders = orders_by_seat(s, game)
        append(s, game, seats, rules, seat.number, [log.RESIGN, []], "resign", state, source, None, orders)
        game.to_move = to_move  # a resignation is logged as a record, but it is nobody's move
        active = [x.number for x in seats if not x.resigned]
        if len(active) < 2:
            _finish(game, resignation_result(rules, state, seats))
        else:
            _, state = play_automatic(s, game, rules, state, seats, orders)
        announce(s, game, seats, rules, seat.number, state)


def resignation_result(rules: engine.Rules, state: Any, seats: list[Seat]) -> dict:
    """Players still in rank by score; everyone who resigned shares the last place."""
    scores = rules.scores(state)
    active = [seat.number for seat in seats if not seat.resigned]
    ranks = [0] * len(seats)
    active_ranks = rank_by([(scores[n],) for n in active])
    for n, rank in zip(active, active_ranks):
        ranks[n] = rank
    for seat in seats:
        if seat.resigned:
            ranks[seat.number] = len(active) + 1
    names = ", ".join(seat.display_name for seat in seats if seat.resigned)
    return {"scores": list(scores), "ranks": ranks, "reason": reasons.RESIGNED % {"names": names}, "details": {}}
