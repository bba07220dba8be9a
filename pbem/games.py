"""The game service: the one place that changes a game.

Create, join, leave, start, submit, resign; views for a seat or a spectator; history and
replay. Every change runs in one transaction that locks the game row (SELECT ... FOR
UPDATE on PostgreSQL, BEGIN IMMEDIATE on SQLite), appends to the move log and writes the
outbox rows for whoever must act next. Errors a player should read are `GameError`s with
a one-sentence message; anything else is a bug or an outage.
"""

from __future__ import annotations

import json
import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Text, bindparam, func, insert, select, type_coerce, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, joinedload

import engine
from engine.core import (
    COLOURS_OPTION, IllegalMove, Move, OptionError, Rng, canonical_json, derive_seed, rank_by, sha256_hex,
)
from pbem import deadlines, jobs, log, notify
from pbem.db import Database, Plain
from pbem.models import Game, GameStatus, MoveRecord, Seat, Snapshot, User, utcnow

LAST_MOVES = 8  # moves shown with a view (game page, turn mails)
TIMEOUT_POLICIES = ("wait", "skip", "random", "resign")


class GameError(Exception):
    """Something a player asked for that cannot be done; the message says why, in one sentence."""

    code = "error"


class NotFoundError(GameError):
    code = "not_found"


class NotAllowedError(GameError):
    code = "not_allowed"


class GameStateError(GameError):
    code = "game_state"


class NotYourTurnError(GameError):
    code = "not_your_turn"


class StalePositionError(GameError):
    code = "stale_position"


class IllegalMoveError(GameError):
    code = "illegal_move"


@dataclass
class SubmitResult:
    """What a submission did: the move applied (or found applied before, for a repeated key)."""

    game_id: int
    seq: int
    notation: str
    duplicate: bool = False
    finished: bool = False
    to_move: int | None = None
    auto_moves: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------------------
# Helpers


def palette(rules: engine.Rules) -> tuple[str, ...]:
    """The players' colours in the default seat order (seat i's colour when nobody chooses one)."""
    return tuple(rules.colours)[: rules.max_players]


def free_colours(rules: engine.Rules, seats: list[Seat]) -> list[str]:
    """The colours of a title that no seat at an open table has asked for, in the title's order."""
    taken = {seat.colour for seat in seats}
    return [colour for colour in rules.colours if colour not in taken]


def _rules(game: Game) -> engine.Rules:
    return engine.get(game.title)


def _load_game(s: Session, game_id: int, lock: bool = False) -> Game:
    query = select(Game).where(Game.id == game_id)
    if lock:
        query = query.with_for_update()
    game = s.scalars(query).first()
    if game is None:
        raise NotFoundError(f"There is no game {game_id}.")
    return game


_GAMES, _SEATS, _USERS = Game.__table__, Seat.__table__, User.__table__
# The columns a move reads (and only those: the secret seed, the state, which the state cache
# almost always holds, and the times nothing in a move looks at stay in the database). A move's
# code that reads another attribute of a Loaded row fails loudly (Loaded.__getattr__).
_GAME_NAMES = ["id", "title", "engine_version", "options", "players", "status", "version", "to_move",
               "chain_head", "turn_hours", "weekdays", "deadline"]
_SEAT_NAMES = ["number", "user_id", "display_name", "resigned"]
_USER_NAMES = ["id", "email", "notify", "timezone"]
# A move's one read: the game row, locked, with its seats and their users. The state column is
# left out: the state cache almost always holds the state already. Built once, so compiled once.
_FOR_MOVE = (
    select(*[_GAMES.c[name] if name != "options" else type_coerce(_GAMES.c.options, Text) for name in _GAME_NAMES],
           *[_SEATS.c[name] for name in _SEAT_NAMES], *[_USERS.c[name] for name in _USER_NAMES])
    .select_from(_GAMES.outerjoin(_SEATS, _SEATS.c.game_id == _GAMES.c.id)
                 .outerjoin(_USERS, _USERS.c.id == _SEATS.c.user_id))
    .where(_GAMES.c.id == bindparam("game_id")).order_by(_SEATS.c.number)
    .with_for_update(of=_GAMES))
_BY_KEY = select(MoveRecord.seq, MoveRecord.notation).where(
    MoveRecord.game_id == bindparam("game_id"), MoveRecord.idempotency_key == bindparam("key"))
_STATE_OF = select(_GAMES.c.state).where(_GAMES.c.id == bindparam("game_id"))
_INSERT_MOVE = insert(MoveRecord.__table__)
_UPDATE_GAME = update(_GAMES).where(_GAMES.c.id == bindparam("game_id"))
_INSERT_SNAPSHOT = insert(Snapshot.__table__)


class Loaded:
    """A row read with Core, under its ORM model's attribute names (a game, a seat, a user).

    A move reads its game this way, because building ORM objects cost more than the rest of the
    move; what the move sets on the game is recorded in `_changed`, and written back with one
    UPDATE of those columns (`_write_game`). The code of a move reads and sets the same
    attributes on an ORM object (resignations, timeouts) or on one of these.
    """

    def __init__(self, names: list[str], values) -> None:
        self.__dict__.update(zip(names, values))
        self.__dict__["_changed"] = {}

    def __setattr__(self, name: str, value: Any) -> None:
        self.__dict__[name] = value
        self._changed[name] = value

    def __getattr__(self, name: str) -> Any:  # only for names neither read nor set
        raise AttributeError(f"{name!r} is not read for a move (pbem.games._GAME_NAMES and the like)")


def _load_for_move(s: Session, game_id: int) -> tuple[Loaded, list[Loaded]]:
    """The game (locked) and its seats in play order with their users: one statement."""
    rows = s.connection().execute(_FOR_MOVE, {"game_id": game_id}).all()
    if not rows:
        raise NotFoundError(f"There is no game {game_id}.")
    games_end = len(_GAME_NAMES)
    seats_start, users_start = games_end, games_end + len(_SEAT_NAMES)
    game = Loaded(_GAME_NAMES, rows[0][:games_end])
    if isinstance(game.options, str):  # read as text (SQLite), so decoded once, not once per seat
        game.__dict__["options"] = json.loads(game.options)
    seats = []
    for row in rows:
        if row[seats_start] is None:  # a table without seats (outer join)
            continue
        seat = Loaded(_SEAT_NAMES, row[seats_start:users_start])
        user = row[users_start:]
        seat.__dict__["user"] = Loaded(_USER_NAMES, user) if user[0] is not None else None
        seats.append(seat)
    game.__dict__["seats"] = seats
    return game, seats


def _seats(s: Session, game: Game) -> list[Seat]:
    """The seats of a game in play order, with their users loaded in the same query."""
    query = select(Seat).options(joinedload(Seat.user)).where(Seat.game_id == game.id).order_by(Seat.number)
    return list(s.scalars(query))


def _seat_of(s: Session, game: Game, user_id: int) -> Seat:
    seat = s.scalars(select(Seat).where(Seat.game_id == game.id, Seat.user_id == user_id)).first()
    if seat is None:
        raise NotAllowedError(f"You have no seat in game {game.id}.")
    return seat


class _StateCache:
    """Decoded states of recently played games, keyed by what determines them.

    The chain head is a hash over the seed's commitment and the whole log up to that move,
    each move's state hash included; with the title, engine version, player count and options
    it names exactly one state, in any database (tests keep several in one process), and
    states are immutable values: a hit is always the state the row holds. A miss reads and
    decodes the state column, which the game row leaves unloaded until then.
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


def _state_key(game: Game | Loaded) -> tuple:
    options = game.__dict__.get("_options_json")  # a move's game: its options written out once
    if options is None:
        options = canonical_json(game.options or {})
        if isinstance(game, Loaded):
            game.__dict__["_options_json"] = options
    return (game.title, game.engine_version, game.players, options, game.chain_head)


def load_state(game: Game | Loaded, s: Session | None = None) -> Any:
    """The game's current state: from the cache, else decoded from the row (a game read for a
    move, whose state column was left out, reads it now through `s`)."""
    key = _state_key(game)
    state = _STATES.get(key)
    if state is None:
        text = game.state if isinstance(game, Game) else s.connection().execute(
            _STATE_OF, {"game_id": game.id}).scalar_one()
        state = _rules(game).state_from_json(json.loads(text))
        _STATES.put(key, state)
    return state


def _deadline(s: Session, game: Game | Loaded):
    # The new turn's clock: weekdays, time zones and absences are pbem.deadlines' business.
    return deadlines.turn_deadline(game, s)


# --------------------------------------------------------------------------------------
# Users (the few the service needs; accounts and passwords are the web's)


def get_or_create_user(s: Session, email: str, display_name: str | None = None) -> User:
    address = email.strip().lower()
    user = s.scalars(select(User).where(User.email == address)).first()
    if user is None:
        user = User(email=address, display_name=(display_name or address.split("@")[0])[:80])
        s.add(user)
        s.flush()
    return user


def ensure_user(db: Database, email: str, display_name: str | None = None) -> int:
    with db.transaction() as s:
        return get_or_create_user(s, email, display_name).id


# --------------------------------------------------------------------------------------
# Before the start


def create_game(db: Database, title: str, creator_id: int, players: int, options: dict | None = None, *,
                turn_hours: int | None = None, timeout_policy: str = "wait", colour: str | None = None) -> int:
    """Open a new table for `players` seats with the creator in the first one; returns the game id."""
    try:
        rules = engine.get(title)
    except engine.UnknownGameError as error:
        raise GameError(str(error)) from None
    if options and COLOURS_OPTION in options:
        raise GameError(f"Every player chooses a colour when taking a seat (colour=...); "
                        f"{COLOURS_OPTION!r} is not an option to set.")
    try:
        rules.check_players(players)
        options = rules.check_options(options)
    except OptionError as error:
        raise GameError(str(error)) from None
    if timeout_policy not in TIMEOUT_POLICIES:
        raise GameError(f"The timeout policy is one of {', '.join(TIMEOUT_POLICIES)}, not {timeout_policy!r}.")
    if turn_hours is not None and not 1 <= turn_hours <= 24 * 60:
        raise GameError("The time per turn is between 1 hour and 60 days.")
    with db.transaction() as s:
        user = s.get(User, creator_id)
        if user is None:
            raise NotFoundError(f"There is no user {creator_id}.")
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
            raise GameError(f"{rules.title} has no colour {colour[:20]!r}; the free colours are {', '.join(free)}.")
        if colour not in free:
            raise GameError(f"{colour.capitalize()} is taken at game {game.id}; the free colours are "
                            f"{', '.join(free)}.")
    seat = Seat(game_id=game.id, number=len(seats), user_id=user.id, display_name=user.display_name,
                colour=colour, token_nonce=secrets.token_hex(8))
    s.add(seat)
    s.flush()
    return seat


def join_game(db: Database, game_id: int, user_id: int, colour: str | None = None) -> dict:
    """Take a free seat, asking for a colour or not; the game starts by itself when the last seat is taken."""
    with db.transaction() as s:
        game = _load_game(s, game_id, lock=True)
        if game.status != GameStatus.OPEN.value:
            raise GameStateError(f"Game {game.id} is {game.status}; only open games can be joined.")
        seats = _seats(s, game)
        if any(seat.user_id == user_id for seat in seats):
            raise GameError(f"You already have a seat in game {game.id}.")
        if len(seats) >= game.players:
            raise GameStateError(f"Game {game.id} is full.")
        user = s.get(User, user_id)
        if user is None:
            raise NotFoundError(f"There is no user {user_id}.")
        seat = _add_seat(s, game, user, _rules(game), colour, seats)
        started = False
        if len(seats) + 1 == game.players:
            _start(s, game, None)
            started = True
        return {"seat": seat.number, "colour": seat.colour, "started": started}


def leave_game(db: Database, game_id: int, user_id: int) -> None:
    """Give up a seat (and the colour it asked for) before the start; a table left empty is abandoned."""
    with db.transaction() as s:
        game = _load_game(s, game_id, lock=True)
        if game.status != GameStatus.OPEN.value:
            raise GameStateError(f"Game {game.id} has started; resign instead of leaving.")
        seat = _seat_of(s, game, user_id)
        s.delete(seat)
        s.flush()
        rest = _seats(s, game)
        for number, other in enumerate(rest):
            other.number = number
        if not rest:
            game.status = GameStatus.ABANDONED.value


def start_game(db: Database, game_id: int, user_id: int | None, seed: int | None = None) -> None:
    """Start a table with at least the minimum of players; only its creator may start it early."""
    with db.transaction() as s:
        game = _load_game(s, game_id, lock=True)
        if game.status != GameStatus.OPEN.value:
            raise GameStateError(f"Game {game.id} is {game.status}; only an open game can be started.")
        if user_id is not None and game.created_by != user_id:
            _seat_of(s, game, user_id)
            raise NotAllowedError(f"Only the player who opened game {game.id} can start it before it is full.")
        _start(s, game, seed)


def _start(s: Session, game: Game, seed: int | None) -> None:
    rules = _rules(game)
    seats = _seats(s, game)
    if len(seats) < rules.min_players:
        raise GameStateError(f"{rules.title} needs at least {rules.min_players} players; "
                             f"game {game.id} has {len(seats)}.")
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
    game.deadline = _deadline(s, game)
    s.add(Snapshot(game_id=game.id, seq=0, state=state_json, state_hash=sha256_hex(state_json)))
    s.flush()
    notify.game_started(s, game, sorted(seats, key=lambda seat: seat.number), rules, state)
    jobs.after_commit(s, jobs.GAME_CHANGED, game.id, game.version)


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
    is the key looked up, after the lock, in a fresh read (on PostgreSQL a statement that waited
    for the lock sees the other tables as they were when it began). So a key is never applied
    twice, and a new submission costs no lookup.
    """
    try:
        return _submit(db, game_id, move, user_id, seat, source, key, expected_version)
    except (GameError, IntegrityError):
        done = _applied(db, game_id, key) if key is not None else None
        if done is None:
            raise
        return done


def _applied(db: Database, game_id: int, key: str) -> SubmitResult | None:
    """The move applied under `key`, as a duplicate's result, or None."""
    with db.sessions() as s:
        done = s.execute(_BY_KEY, {"game_id": game_id, "key": key}).first()
        if done is None:
            return None
        status, to_move = s.execute(select(Game.status, Game.to_move).where(Game.id == game_id)).one()
        return SubmitResult(game_id, done.seq, done.notation, duplicate=True,
                            finished=status == GameStatus.FINISHED.value, to_move=to_move)


def _submit(db: Database, game_id: int, move: str | Move, user_id: int | None, seat: int | None, source: str,
            key: str | None, expected_version: int | None) -> SubmitResult:
    # A plain transaction (pbem.db.Plain), not an ORM session: the move's statements are few and
    # fixed, and the session's work around them cost more than the database did.
    return db.run_plain(lambda s: _move(s, game_id, move, user_id, seat, source, key, expected_version))


def _move(s: Plain, game_id: int, move: str | Move, user_id: int | None, seat: int | None, source: str,
          key: str | None, expected_version: int | None) -> SubmitResult:
    game, seats = _load_for_move(s, game_id)
    if game.status != GameStatus.RUNNING.value:
        raise GameStateError(f"Game {game.id} is {game.status}; no moves can be made.")
    if user_id is not None:
        mine = [x.number for x in seats if x.user_id == user_id]
        if not mine:
            raise NotAllowedError(f"You have no seat in game {game.id}.")
        if seat is not None and seat != mine[0]:
            raise NotAllowedError("You can only move for your own seat.")
        seat = mine[0]
    if seat is None:
        raise GameError("Say which seat the move is for.")
    if expected_version is not None and expected_version != game.version:
        raise StalePositionError(
            f"Stale position: this was sent for move {expected_version + 1}, but game {game.id} "
            f"is at move {game.version + 1} now.")
    if game.to_move != seat:
        raise NotYourTurnError(f"It is not your turn in game {game.id}: "
                               f"{seats[game.to_move].display_name} is to move.")
    rules = _rules(game)
    state = load_state(game, s)
    try:
        parsed = rules.parse(state, move) if isinstance(move, str) else move
        new_state = rules.apply(state, parsed)
        notation = rules.notation(state, parsed)
    except IllegalMove as error:
        raise IllegalMoveError(str(error)) from None
    mover = game.to_move
    _append(s, game, rules, seat, parsed.to_json(), notation, new_state, source, key)
    auto, new_state = _play_resigned_seats(s, game, rules, new_state, seats)
    notify.after_move(s, game, seats, rules, mover, new_state)
    jobs.after_commit(s, jobs.GAME_CHANGED, game.id, game.version)
    _write_game(s, game)
    return SubmitResult(game.id, game.version - len(auto), notation, finished=game.status == "finished",
                        to_move=game.to_move, auto_moves=auto)


def _write_game(s: Session, game: Loaded) -> None:
    """Write the columns a move changed on its game with one plain UPDATE (the game is the last
    thing a move changes)."""
    if game._changed:
        s.connection().execute(_UPDATE_GAME, {**game._changed, "game_id": game.id})
        game._changed.clear()


def _append(s: Session, game: Game, rules: engine.Rules, seat: int, move_json: Any, notation: str,
            new_state: Any, source: str, key: str | None) -> None:
    """Append one record to the log and make its state the game's state (same transaction)."""
    seq = game.version + 1
    state_json = canonical_json(rules.state_to_json(new_state))
    state_hash = sha256_hex(state_json)
    at = utcnow()
    chain = log.chain_hash(game.chain_head, seq, seat, move_json, notation, source, log.format_time(at), state_hash)
    # Plain inserts: the log is append-only, the ORM's unit of work has nothing to track here.
    connection = s.connection()
    connection.execute(_INSERT_MOVE, {
        "game_id": game.id, "seq": seq, "seat": seat, "move": canonical_json(move_json), "notation": notation,
        "source": source, "idempotency_key": key, "state_hash": state_hash, "chain_hash": chain, "created_at": at})
    connection.execute(_INSERT_SNAPSHOT, {"game_id": game.id, "seq": seq, "state": state_json,
                                          "state_hash": state_hash})
    if isinstance(connection, Plain):
        connection.send()  # the log's rows go to the database now, while the move's mails are made
    previous_to_move = game.to_move
    game.state = state_json
    game.version = seq
    game.chain_head = chain
    _STATES.put(_state_key(game), new_state)
    game.to_move = rules.to_move(new_state)
    if game.to_move != previous_to_move:
        game.deadline = _deadline(s, game)
    if game.to_move is None and game.status == GameStatus.RUNNING.value:
        result = rules.result(new_state)
        _finish(game, result.to_json())


def _finish(game: Game, result: dict) -> None:
    game.status = GameStatus.FINISHED.value
    game.result = result
    game.finished_at = utcnow()
    game.to_move = None
    game.deadline = None


def _play_resigned_seats(s: Session, game: Game, rules: engine.Rules, state: Any,
                         seats: list[Seat]) -> tuple[list[str], Any]:
    """A resigned seat in a game that goes on plays the first legal move, logged as 'auto'."""
    resigned = {seat.number for seat in seats if seat.resigned}
    played = []
    while game.status == GameStatus.RUNNING.value and game.to_move in resigned:
        move = rules.legal_moves(state)[0]
        notation = rules.notation(state, move)
        state = rules.apply(state, move)
        _append(s, game, rules, game.to_move, move.to_json(), notation, state, "auto", None)
        played.append(notation)
    return played, state


def resign(db: Database, game_id: int, user_id: int, source: str = "web") -> None:
    """Leave a running game for good: with fewer than two players left it ends at once."""
    with db.transaction() as s:
        game = _load_game(s, game_id, lock=True)
        if game.status != GameStatus.RUNNING.value:
            raise GameStateError(f"Game {game.id} is {game.status}; only a running game can be resigned.")
        seat = _seat_of(s, game, user_id)
        if seat.resigned:
            raise GameError(f"You have already resigned from game {game.id}.")
        seat.resigned = True
        rules = _rules(game)
        state = load_state(game)
        _append_resignation(s, game, rules, seat.number, state, source)
        seats = _seats(s, game)
        active = [x.number for x in seats if not x.resigned]
        if len(active) < 2:
            _finish(game, resignation_result(rules, state, seats))
        else:
            _, state = _play_resigned_seats(s, game, rules, state, seats)
        notify.after_move(s, game, seats, rules, seat.number, state)
        jobs.after_commit(s, jobs.GAME_CHANGED, game.id, game.version)


def _append_resignation(s: Session, game: Game, rules: engine.Rules, seat: int, state: Any, source: str) -> None:
    to_move = game.to_move
    _append(s, game, rules, seat, [log.RESIGN, []], "resign", state, source, None)
    game.to_move = to_move


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
    return {"scores": list(scores), "ranks": ranks, "reason": f"Resigned: {names}.", "details": {}}


# --------------------------------------------------------------------------------------
# Reading


def game_summary(s: Session, game: Game, seats: list[Seat] | None = None) -> dict:
    """The public facts of a game: seats and their colours, status, whose turn, deadline, commitment (seed once over).

    A seat's colour is the one it asked for while the table is open (None: any), and its
    colour in the game from the start on; `free_colours` are those a new player may ask for.
    """
    seats = _seats(s, game) if seats is None else seats
    finished = game.status in (GameStatus.FINISHED.value, GameStatus.ABANDONED.value)
    is_open = game.status == GameStatus.OPEN.value
    return {
        "id": game.id,
        "title": game.title,
        "engine_version": game.engine_version,
        "options": game.options,
        "players": game.players,
        "status": game.status,
        "version": game.version,
        "to_move": game.to_move,
        "deadline": log.format_time(game.deadline) if game.deadline else None,
        "commitment": game.commitment,
        "seed": game.seed if finished else None,
        "result": game.result,
        "seats": [{"seat": x.number, "name": x.display_name, "colour": x.colour, "resigned": x.resigned}
                  for x in seats],
        "free_colours": free_colours(_rules(game), seats) if is_open else [],
    }


def view(db: Database, game_id: int, user_id: int | None = None, *, full_history: bool = False) -> dict:
    """The game as one user (or a spectator) may see it now, with their legal moves when it is their turn.

    With `full_history` the whole move log comes along as "history" (the game page shows it),
    read in the same session.
    """
    with db.sessions() as s:
        game = _load_game(s, game_id)
        seats = _seats(s, game)
        data = game_summary(s, game, seats)
        if full_history:
            data["history"] = []
        if game.state is None:
            data["board"] = None
            data["legal_moves"] = []
            return data
        mine = [x.number for x in seats if user_id is not None and x.user_id == user_id]
        seat = mine[0] if mine else None
        rules = _rules(game)
        state = load_state(game)
        data["my_seat"] = seat
        data["board"] = rules.view(state, seat)
        data["legal_moves"] = ([rules.notation(state, m) for m in rules.legal_moves(state)]
                               if seat is not None and game.to_move == seat and game.status == "running" else [])
        if full_history:
            data["history"] = _history(s, game, seats)
            data["last_moves"] = data["history"][-LAST_MOVES:]
        else:
            data["last_moves"] = _history(s, game, seats, last=LAST_MOVES)
        return data


def _history(s: Session, game: Game, seats: list[Seat] | None = None, last: int | None = None,
             upto: int | None = None) -> list[dict]:
    """The move log in order, up to move `upto` (default: all): all of it, or only the `last` moves
    (read from the end, not all loaded)."""
    names = {x.number: x.display_name for x in (_seats(s, game) if seats is None else seats)}
    query = select(MoveRecord).where(MoveRecord.game_id == game.id)
    if upto is not None:
        query = query.where(MoveRecord.seq <= upto)
    if last is None:
        rows = list(s.scalars(query.order_by(MoveRecord.seq)))
    else:
        rows = list(reversed(s.scalars(query.order_by(MoveRecord.seq.desc()).limit(last)).all()))
    return [{"seq": r.seq, "seat": r.seat, "player": names.get(r.seat), "notation": r.notation,
             "source": r.source, "at": log.format_time(r.created_at)} for r in rows]


def history(db: Database, game_id: int) -> list[dict]:
    with db.sessions() as s:
        return _history(s, _load_game(s, game_id))


def view_at(db: Database, game_id: int, seq: int, seat: int | None = None) -> dict:
    """The view after move `seq` from the stored snapshot (no replay from the start).

    While a game runs, only the spectator's view is public; a seat's view of the past is
    given only once the game is over.
    """
    with db.sessions() as s:
        game = _load_game(s, game_id)
        if game.state is None:
            raise GameStateError(f"Game {game.id} has not started.")
        if not 0 <= seq <= game.version:
            raise GameError(f"Game {game.id} has moves 0 to {game.version}; there is no move {seq}.")
        if seat is not None and game.status == GameStatus.RUNNING.value:
            raise NotAllowedError("While the game runs, the replay shows only what a spectator sees.")
        snapshot = s.get(Snapshot, (game.id, seq))
        rules = _rules(game)
        state = rules.state_from_json(json.loads(snapshot.state))
        record = None
        if seq:
            record = s.scalars(select(MoveRecord).where(MoveRecord.game_id == game.id, MoveRecord.seq == seq)).one()
        return {"game_id": game.id, "seq": seq, "of": game.version,
                "move": ({"seat": record.seat, "notation": record.notation} if record else None),
                "board": rules.view(state, seat)}


def list_games(db: Database, status: str | None = None) -> list[dict]:
    with db.sessions() as s:
        query = select(Game).order_by(Game.id)
        if status:
            query = query.where(Game.status == status)
        out = []
        for game in s.scalars(query):
            seated = s.scalar(select(func.count()).select_from(Seat).where(Seat.game_id == game.id))
            out.append({"id": game.id, "title": game.title, "status": game.status, "players": game.players,
                        "seated": seated, "version": game.version})
        return out

