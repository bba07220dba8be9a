"""The game service: the one place that changes a game.

Create, join, leave, start, submit, resign. Every change is one ordinary `Session`
transaction that locks the game row (SELECT ... FOR UPDATE on PostgreSQL; every SQLite
transaction begins IMMEDIATE), applies the rules, appends to the move log, and announces
what happened (`pbem.events`): the listeners (mails, the turn's clock, the pictures)
write their part in the same transaction. This module knows nobody who listens.
Errors a player should read are `GameError`s with a one-sentence message, marked for the
catalogues (`N_`) and translated where it is shown (`error.text(language)`); anything else is
a bug or an outage.
"""

from __future__ import annotations

import json
import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import bindparam, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, joinedload

import engine
from engine.core import (
    COLOURS_OPTION, IllegalMove, Move, OptionError, OrderError, Rng, canonical_json, derive_seed, rank_by, sha256_hex,
)
from pbem import events, reasons
from pbem.db import Database
from pbem.games import log
from pbem.games.errors import (
    GameError, GameStateError, IllegalMoveError, NotAllowedError, NotFoundError, NotYourTurnError,
    StalePositionError,
)
from pbem.i18n import N_
from pbem.models import Game, GameStatus, MoveRecord, Seat, SeatOrders, Snapshot, User, utcnow

TIMEOUT_POLICIES = ("wait", "skip", "random", "resign")
MAX_OPEN_TABLES = 10  # tables one player has opened that have not started: each is a row in every lobby
# A game in the wrong state for what was asked: one whole sentence per status, so that no status
# word is glued into a sentence of another language.
NOT_JOINABLE = {
    "running": N_("Game %(game)d is running; only open games can be joined."),
    "finished": N_("Game %(game)d is finished; only open games can be joined."),
    "abandoned": N_("Game %(game)d is abandoned; only open games can be joined."),
}
NOT_STARTABLE = {
    "running": N_("Game %(game)d is running; only an open game can be started."),
    "finished": N_("Game %(game)d is finished; only an open game can be started."),
    "abandoned": N_("Game %(game)d is abandoned; only an open game can be started."),
}
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
NO_SEAT = N_("You have no seat in game %(game)d.")


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


@dataclass
class OrdersResult:
    """What adding standing orders did: the seat's queue now, and the moves its orders made at once."""

    game_id: int
    queued: list[str]
    played: list[str] = field(default_factory=list)
    version: int = 0  # the game's move count afterwards
    to_move: int | None = None
    duplicate: bool = False


# --------------------------------------------------------------------------------------
# Helpers


def rules_of(game: Game) -> engine.Rules:
    return engine.get(game.title)


def palette(rules: engine.Rules) -> tuple[str, ...]:
    """The players' colours in the default seat order (seat i's colour when nobody chooses one)."""
    return tuple(rules.colours)[: rules.max_players]


def free_colours(rules: engine.Rules, seats: list[Seat]) -> list[str]:
    """The colours of a title that no seat at an open table has asked for, in the title's order."""
    taken = {seat.colour for seat in seats}
    return [colour for colour in rules.colours if colour not in taken]


# The statements of every move, built once (a statement is immutable and takes parameters): building
# them cost about as much CPU as running them (bench/service.py).
_GAME = select(Game).where(Game.id == bindparam("game_id"))
_GAME_LOCKED = _GAME.with_for_update()
_SEATS = (select(Seat).options(joinedload(Seat.user)).where(Seat.game_id == bindparam("game_id"))
          .order_by(Seat.number))
_ORDERS = select(SeatOrders).where(SeatOrders.game_id == bindparam("game_id"))


def load_game(s: Session, game_id: int, lock: bool = False) -> Game:
    """The game row (locked for the rest of the transaction with `lock`); NotFoundError if there is none."""
    game = s.scalars(_GAME_LOCKED if lock else _GAME, {"game_id": game_id}).first()
    if game is None:
        raise NotFoundError(N_("There is no game %(game)d."), game=game_id)
    return game


def seats_of(s: Session, game: Game) -> list[Seat]:
    """The seats of a game in play order, with their users loaded in the same query."""
    return list(s.scalars(_SEATS, {"game_id": game.id}))


def _seat_of(s: Session, game: Game, user_id: int) -> Seat:
    seat = s.scalars(select(Seat).where(Seat.game_id == game.id, Seat.user_id == user_id)).first()
    if seat is None:
        raise NotAllowedError(NO_SEAT, game=game.id)
    return seat


class _StateCache:
    """Decoded states of recently played games, keyed by what determines them.

    The chain head is a hash over the seed's commitment and the whole log up to that move,
    each move's state hash included; with the title, engine version, player count and options
    it names exactly one state, in any database (tests keep several in one process), and
    states are immutable values: a hit is always the state the row holds. It saves decoding
    the state on every move and page (the largest part of a move's CPU without it).
    """

    def __init__(self, size: int = 512):
        self.size = size
        self.items: OrderedDict = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: tuple) -> Any:
        with self.lock:
            state = self.items.get(key)
            if state is not None:
                self.items.move_to_end(key)
            return state

    def put(self, key: tuple, state: Any) -> None:
        with self.lock:
            self.items[key] = state
            self.items.move_to_end(key)
            while len(self.items) > self.size:
                self.items.popitem(last=False)


_STATES = _StateCache()


def _state_key(game: Game) -> tuple:
    return (game.title, game.engine_version, game.players, canonical_json(game.options or {}), game.chain_head)


def load_state(game: Game) -> Any:
    """The game's current state (from the cache, else decoded from the row)."""
    key = _state_key(game)
    state = _STATES.get(key)
    if state is None:
        state = rules_of(game).state_from_json(json.loads(game.state))
        _STATES.put(key, state)
    return state


# --------------------------------------------------------------------------------------
# Before the start


def create_game(db: Database, title: str, creator_id: int, players: int, options: dict | None = None, *,
                turn_hours: int | None = None, timeout_policy: str = "wait", colour: str | None = None) -> int:
    """Open a new table for `players` seats with the creator in the first one; returns the game id."""
    try:
        rules = engine.get(title)
    except engine.UnknownGameError as error:
        raise GameError(N_("There is no game called %(name)s; the games are: %(games)s."), name=repr(error.args[0]),
                        games=", ".join(engine.names())) from None
    if options and COLOURS_OPTION in options:
        raise GameError(N_("Every player chooses a colour when taking a seat (colour=...); %(option)s is not an "
                           "option to set."), option=repr(COLOURS_OPTION))
    try:
        rules.check_players(players)
        options = rules.check_options(options)
    except OptionError as error:
        raise GameError(str(error), cause=error) from None
    if timeout_policy not in TIMEOUT_POLICIES:
        raise GameError(N_("The timeout policy is one of %(policies)s, not %(policy)s."),
                        policies=", ".join(TIMEOUT_POLICIES), policy=repr(timeout_policy))
    if turn_hours is not None and not 1 <= turn_hours <= 24 * 60:
        raise GameError(N_("The time per turn is between 1 hour and 60 days."))
    with db.transaction() as s:
        user = s.scalars(select(User).where(User.id == creator_id).with_for_update()).first()
        if user is None:
            raise NotFoundError(N_("There is no user %(user)d."), user=creator_id)
        opened = s.scalar(select(func.count()).select_from(Game).join(Seat, Seat.game_id == Game.id).where(
            Game.created_by == user.id, Game.status == GameStatus.OPEN.value, Seat.user_id == user.id))
        if opened >= MAX_OPEN_TABLES:
            raise NotAllowedError(N_("You have %(opened)d open tables waiting for players already; start, fill or "
                                     "leave one before opening another (at most %(most)d)."), opened=opened,
                                  most=MAX_OPEN_TABLES)
        game = Game(title=rules.name, engine_version=rules.version, options=options, players=players,
                    status=GameStatus.OPEN.value, turn_hours=turn_hours, timeout_policy=timeout_policy,
                    created_by=user.id)
        s.add(game)
        s.flush()
        _add_seat(s, game, user, rules, colour, [])
        return game.id


def _add_seat(s: Session, game: Game, user: User, rules: engine.Rules, colour: str | None, seats: list[Seat]) -> Seat:
    """A new seat at an open table; `colour` is the colour asked for (None or "any": whichever is left)."""
    if colour is not None:
        colour = str(colour).strip().lower()
        if colour in ("", "any"):
            colour = None
    if colour is not None:
        free = free_colours(rules, seats)
        if colour not in rules.colours:
            raise GameError(N_("%(title)s has no colour %(colour)s; the free colours are %(free)s."),
                            title=rules.title, colour=repr(colour[:20]), free=", ".join(free))
        if colour not in free:
            raise GameError(N_("%(colour)s is taken at game %(game)d; the free colours are %(free)s."),
                            colour=colour.capitalize(), game=game.id, free=", ".join(free))
    seat = Seat(game_id=game.id, number=len(seats), user_id=user.id, display_name=user.display_name,
                colour=colour, token_nonce=secrets.token_hex(8))
    s.add(seat)
    s.flush()
    return seat


def join_game(db: Database, game_id: int, user_id: int, colour: str | None = None, *,
              seed: int | None = None) -> dict:
    """Take a free seat, asking for a colour or not; the game starts by itself when the last seat is taken.

    `seed` is the game's secret seed when this seat fills the table (tests and benches replay a
    game; None, as every door passes: a fresh one)."""
    with db.transaction() as s:
        game = load_game(s, game_id, lock=True)
        if game.status != GameStatus.OPEN.value:
            raise GameStateError(NOT_JOINABLE[game.status], game=game.id)
        seats = seats_of(s, game)
        if any(seat.user_id == user_id for seat in seats):
            raise GameError(N_("You already have a seat in game %(game)d."), game=game.id)
        if len(seats) >= game.players:
            raise GameStateError(N_("Game %(game)d is full."), game=game.id)
        user = s.get(User, user_id)
        if user is None:
            raise NotFoundError(N_("There is no user %(user)d."), user=user_id)
        seat = _add_seat(s, game, user, rules_of(game), colour, seats)
        started = False
        if len(seats) + 1 == game.players:
            _start(s, game, seed)
            started = True
        return {"seat": seat.number, "colour": seat.colour, "started": started}


def leave_game(db: Database, game_id: int, user_id: int) -> None:
    """Give up a seat (and the colour it asked for) before the start; a table left empty is abandoned."""
    with db.transaction() as s:
        game = load_game(s, game_id, lock=True)
        if game.status != GameStatus.OPEN.value:
            raise GameStateError(N_("Game %(game)d has started; resign instead of leaving."), game=game.id)
        seat = _seat_of(s, game, user_id)
        s.delete(seat)
        s.flush()
        rest = seats_of(s, game)
        for number, other in enumerate(rest):
            other.number = number
        if not rest:
            game.status = GameStatus.ABANDONED.value


def start_game(db: Database, game_id: int, user_id: int | None, seed: int | None = None) -> None:
    """Start a table with at least the minimum of players; only its creator may start it early."""
    with db.transaction() as s:
        game = load_game(s, game_id, lock=True)
        if game.status != GameStatus.OPEN.value:
            raise GameStateError(NOT_STARTABLE[game.status], game=game.id)
        if user_id is not None:
            _seat_of(s, game, user_id)  # a creator who left the table has no say in it any more
            if game.created_by != user_id:
                raise NotAllowedError(N_("Only the player who opened game %(game)d can start it before it is full."),
                                      game=game.id)
        _start(s, game, seed)


def _start(s: Session, game: Game, seed: int | None) -> None:
    events.require_listeners()
    rules = rules_of(game)
    seats = seats_of(s, game)
    if len(seats) < rules.min_players:
        raise GameStateError(N_("%(title)s needs at least %(minimum)d players; game %(game)d has %(seated)d."),
                             title=rules.title, minimum=rules.min_players, game=game.id, seated=len(seats))
    seed = log.new_seed() if seed is None else seed
    text = log.seed_hex(seed)
    # Seat order is drawn from the seed, so it too can be checked once the seed is revealed.
    order = list(range(len(seats)))
    Rng(derive_seed(seed, "seats")).shuffle(order)
    for seat in seats:
        seat.number = -1 - seat.number  # out of the way of the unique (game, number) constraint
    s.flush()
    # Everyone who asked for a colour has it; the others get the colours nobody asked for, in the
    # title's order, by the seat order just drawn (so the seed decides that too).
    left = free_colours(rules, seats)
    colours = []
    for new_number, old_index in enumerate(order):
        seat = seats[old_index]
        seat.number = new_number
        seat.colour = seat.colour or left.pop(0)
        colours.append(seat.colour)
    s.flush()
    seats.sort(key=lambda seat: seat.number)
    game.players = len(seats)
    if tuple(colours) != tuple(rules.colours[:len(seats)]):
        # The engine names and draws each seat in its colour (notation, views, pictures, mails).
        game.options = {**game.options, COLOURS_OPTION: colours}
    state = rules.setup(len(seats), game.options, seed)
    state_json = canonical_json(rules.state_to_json(state))
    game.seed = text
    game.commitment = log.commitment_of(text)
    game.chain_head = log.genesis(game.commitment)
    game.state = state_json
    game.version = 0
    game.to_move = rules.to_move(state)
    game.status = GameStatus.RUNNING.value
    game.started_at = utcnow()
    s.add(Snapshot(game_id=game.id, seq=0, state=state_json, state_hash=sha256_hex(state_json)))
    s.flush()
    events.turn_started.send(s, game=game, seats=seats)
    events.game_started.send(s, game=game, seats=seats, rules=rules, state=state)


# --------------------------------------------------------------------------------------
# Moves


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
    game, seats, seat = _locked_turn(s, game_id, user_id, seat, expected_version)
    rules = rules_of(game)
    state = load_state(game)
    try:
        parsed = rules.parse(state, move) if isinstance(move, str) else move
        new_state = rules.apply(state, parsed)
        notation = rules.notation(state, parsed)
    except IllegalMove as error:
        raise IllegalMoveError(str(error), cause=error) from None
    mover = game.to_move
    orders = _orders_by_seat(s, game)
    _append(s, game, seats, rules, seat, parsed.to_json(), notation, new_state, source, key, orders)
    auto, new_state = _play_automatic(s, game, rules, new_state, seats, orders)
    _announce(s, game, seats, rules, mover, new_state)
    return SubmitResult(game.id, game.version - len(auto), notation, finished=game.status == GameStatus.FINISHED.value,
                        to_move=game.to_move, auto_moves=auto)


def _announce(s: Session, game: Game, seats: list[Seat], rules: engine.Rules, mover: int | None, state: Any) -> None:
    """Tell the listeners (pbem.events) that moves were applied, or that they ended the game."""
    if game.status == GameStatus.FINISHED.value:
        events.game_finished.send(s, game=game, seats=seats, rules=rules, state=state)
    else:
        events.move_applied.send(s, game=game, seats=seats, rules=rules, mover=mover, state=state)


def _orders_by_seat(s: Session, game: Game) -> dict[int, SeatOrders]:
    """The game's standing orders by seat, read once before a change writes anything: the change
    then reads nothing more, so its writes go out in one flush (one UPDATE of the game row)."""
    return {row.seat: row for row in s.scalars(_ORDERS, {"game_id": game.id})}


def _append(s: Session, game: Game, seats: list[Seat], rules: engine.Rules, seat: int, move_json: Any,
            notation: str, new_state: Any, source: str, key: str | None, orders: dict[int, SeatOrders]) -> None:
    """Append one record to the log and make its state the game's state (same transaction);
    `orders` (`_orders_by_seat`) loses the orders of a seat whose turn ends."""
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
    _STATES.put(_state_key(game), new_state)
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


def _play_automatic(s: Session, game: Game, rules: engine.Rules, state: Any, seats: list[Seat],
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
        _append(s, game, seats, rules, seat, move.to_json(), notation, state, source, None, orders)
        played.append(notation)
    return played, state


# --------------------------------------------------------------------------------------
# Standing orders


def add_orders(db: Database, game_id: int, texts: list[str], *, user_id: int | None = None, seat: int | None = None,
               key: str | None = None, expected_version: int | None = None) -> OrdersResult:
    """Queue standing orders for the seat's decisions after chance in its turn, and play what they decide now.

    Each text is checked by the engine when it arrives (`rules.parse_order`): one that can never
    apply is refused with the reason (IllegalMoveError), and nothing of the call is queued. The
    same `key` twice queues once. Orders are private to their seat (`orders_of`).
    """
    with db.transaction() as s:
        events.require_listeners()
        game, seats, seat = _locked_turn(s, game_id, user_id, seat, expected_version)
        orders_now = _orders_by_seat(s, game)
        row = orders_now.get(seat)
        rules = rules_of(game)
        if row is not None and key is not None and row.last_key == key:
            return OrdersResult(game.id, [rules.order_notation(rules.order_from_json(o)) for o in row.orders],
                                version=game.version, to_move=game.to_move, duplicate=True)
        state = load_state(game)
        try:
            orders = [rules.parse_order(state, seat, text) for text in texts]
        except OrderError as error:
            raise IllegalMoveError(str(error), cause=error) from None
        if row is None:
            row = orders_now[seat] = SeatOrders(game_id=game.id, seat=seat, orders=[])
            s.add(row)
        row.orders = [*row.orders, *[rules.order_to_json(o) for o in orders]]
        row.last_key, row.updated_at = key, utcnow()
        s.flush()  # stored, so that a turn the orders end at once can delete the row
        version = game.version
        played, state = _play_automatic(s, game, rules, state, seats, orders_now)
        if played:
            _announce(s, game, seats, rules, seat, state)
        left = orders_now.get(seat)
        queued = [rules.order_notation(rules.order_from_json(o)) for o in left.orders] if left else []
        return OrdersResult(game.id, queued, played, version=game.version if played else version,
                            to_move=game.to_move)


def orders_of(db: Database, game_id: int, user_id: int) -> list[str]:
    """The standing orders the user's seat has queued in a game (only they may see them)."""
    with db.sessions() as s:
        game = load_game(s, game_id)
        seat = _seat_of(s, game, user_id)
        row = s.get(SeatOrders, (game.id, seat.number))
        rules = rules_of(game)
        return [rules.order_notation(rules.order_from_json(o)) for o in row.orders] if row else []


def cancel_orders(db: Database, game_id: int, user_id: int) -> int:
    """Drop the user's standing orders in a game; returns how many there were."""
    with db.transaction() as s:
        game = load_game(s, game_id, lock=True)
        seat = _seat_of(s, game, user_id)
        row = s.get(SeatOrders, (game.id, seat.number))
        if row is None:
            return 0
        count = len(row.orders)
        s.delete(row)
        return count


def _locked_turn(s: Session, game_id: int, user_id: int | None, seat: int | None,
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
        orders = _orders_by_seat(s, game)
        _append(s, game, seats, rules, seat.number, [log.RESIGN, []], "resign", state, source, None, orders)
        game.to_move = to_move  # a resignation is logged as a record, but it is nobody's move
        active = [x.number for x in seats if not x.resigned]
        if len(active) < 2:
            _finish(game, resignation_result(rules, state, seats))
        else:
            _, state = _play_automatic(s, game, rules, state, seats, orders)
        _announce(s, game, seats, rules, seat.number, state)


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
