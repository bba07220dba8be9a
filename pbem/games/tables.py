"""Tables: opening a game, taking and leaving its seats, and starting it.

A table is open until it starts: seats are taken (each may ask for a colour) and left, and
the last seat taken, or its creator, starts it; the start draws the seed, the seat order and
the colours nobody asked for, and sets the game up. Each change is one transaction that locks
the game row, as a move does (`moves`). The open tables a player may join are listed here
(`open_tables_query`, `open_tables`: the web lobby and the mail's /list show the same ones); the
other lists of games are `reading.list_games`.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Callable

from sqlalchemy import Select, exists, func, select
from sqlalchemy.orm import Session

import engine
from engine.core import COLOURS_OPTION, OptionError, Rng, canonical_json, derive_seed, sha256_hex
from pbem import events
from pbem.db import Database
from pbem.games import log
from pbem.games.errors import GameError, GameStateError, NotAllowedError, NotFoundError
from pbem.games.loading import load_game, rules_of, seat_of, seats_of
from pbem.i18n import N_
from pbem.models import Game, GameStatus, Seat, Snapshot, User, utcnow

TIMEOUT_POLICIES = ("wait", "skip", "random", "resign")
# The time a move may take at a new table when its opener says nothing else, at every door that opens
# one (the web's create form fills it in; /new by mail takes it): a table nobody times may wait forever.
DEFAULT_TURN_HOURS = 72
# What a table allows of its talk (Game.press, pbem.talk): messages to anyone (the table or some players), to the
# whole table only, or none, as the Diplomacy judges' press settings.
PRESS_MODES = ("full", "public", "none")
MAX_OPEN_TABLES = 10  # tables one player has opened that have not started: each is a row in every lobby
# What else may keep a player from a seat, by name: each check is given the session, the table (locked; not yet
# in the database, `id` None, when it is its opener's seat being checked) and the user, and raises a GameError
# saying why. pbem.players adds the table's minimum reliability (`add_seat_check`, from pbem.wiring), which
# pbem.games may not import.
SeatCheck = Callable[[Session, Game, User], None]
_SEAT_CHECKS: dict[str, SeatCheck] = {}
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


def palette(rules: engine.Rules) -> tuple[str, ...]:
    """The players' colours in the default seat order (seat i's colour when nobody chooses one)."""
    return tuple(rules.colours)[: rules.max_players]


def free_colours(rules: engine.Rules, seats: list[Seat]) -> list[str]:
    """The colours of a title that no seat at an open table has asked for, in the title's order."""
    taken = {seat.colour for seat in seats}
    return [colour for colour in rules.colours if colour not in taken]


@dataclass(frozen=True)
class OpenTable:
    """An open table with a free seat, as a list shows it: who sits there, who opened it, how fast it goes."""

    id: int
    title: str
    players: int  # seats at the table
    seats: tuple[tuple[str, str | None], ...]  # (display name, colour asked for or None), in join order
    free_colours: tuple[str, ...]
    opened_by: str | None  # the display name of the player who opened it
    turn_hours: int | None
    timeout_policy: str
    options: dict


def add_seat_check(name: str, check: SeatCheck) -> None:
    """Make `check` decide, with the others, who may take a seat (the same name again replaces it)."""
    _SEAT_CHECKS[name] = check


def _check_seat(s: Session, game: Game, user: User) -> None:
    for check in _SEAT_CHECKS.values():
        check(s, game, user)


def open_tables_query(title: str | None = None, user_id: int | None = None) -> Select:
    """The open tables with a free seat, newest first: of one title (None: all), and without those where
    `user_id` has a seat (they are that player's own games). The web lobby pages it; `open_tables` lists it."""
    seated = select(func.count(Seat.id)).where(Seat.game_id == Game.id).scalar_subquery()
    query = select(Game).where(Game.status == GameStatus.OPEN.value, seated < Game.players)
    if title is not None:
        query = query.where(Game.title == title)
    if user_id is not None:
        query = query.where(~exists().where(Seat.game_id == Game.id, Seat.user_id == user_id))
    return query.order_by(Game.id.desc())


def open_tables(db: Database, user_id: int | None = None, title: str | None = None,
                per_title: int = 20) -> list[tuple[str, list[OpenTable], int]]:
    """The tables of `open_tables_query` by title, in the registry's order: for each title with one, up to
    `per_title` of them (newest first) and how many there are in all. A few queries, whatever their number."""
    chosen = open_tables_query(title, user_id).order_by(None).subquery()
    with db.sessions() as s:
        counted = dict(s.execute(select(chosen.c.title, func.count()).group_by(chosen.c.title)).all())
        found: dict[str, list[Game]] = {}
        for name in engine.names():
            if counted.get(name):
                found[name] = list(s.scalars(open_tables_query(name, user_id).limit(per_title)))
        ids = [game.id for listed in found.values() for game in listed]
        seats: dict[int, list[Seat]] = {}
        if ids:
            for seat in s.scalars(select(Seat).where(Seat.game_id.in_(ids)).order_by(Seat.game_id, Seat.number)):
                seats.setdefault(seat.game_id, []).append(seat)
        creators = {game.created_by for listed in found.values() for game in listed} - {None}
        names = dict(s.execute(select(User.id, User.display_name).where(User.id.in_(creators))).all()) \
            if creators else {}
        out = []
        for name, listed in found.items():
            rules = engine.get(name)
            out.append((name, [OpenTable(game.id, game.title, game.players,
                                         tuple((x.display_name, x.colour) for x in seats.get(game.id, [])),
                                         tuple(free_colours(rules, seats.get(game.id, []))),
                                         names.get(game.created_by), game.turn_hours, game.timeout_policy,
                                         dict(game.options or {}))
                               for game in listed], counted[name]))
        return out


def create_game(db: Database, title: str, creator_id: int, players: int, options: dict | None = None, *,
                turn_hours: int | None = None, timeout_policy: str = "wait", colour: str | None = None,
                press: str = "full", press_spectators: bool = False, press_after_end: bool = True,
                press_late_blocked: bool = False, rated: bool = False, min_reliability: int | None = None) -> int:
    """Open a new table for `players` seats with the creator in the first one; returns the game id.

    `press` and the `press_*` flags are what the table allows of its talk (pbem.talk): messages to
    anyone, to the whole table only or none; spectators reading the public ones; talk after the end;
    a player past the deadline of their turn kept from talking until they move. `rated`: the game's
    result changes its players' ratings when it finishes (pbem.players.ratings). `min_reliability`: the
    least reliability (whole percent) a player needs to take a seat, the opener's own seat too
    (pbem.players.reliability); None or 0: anybody."""
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
    if press not in PRESS_MODES:
        raise GameError(N_("The table talk is one of %(modes)s, not %(press)s."), modes=", ".join(PRESS_MODES),
                        press=repr(press))
    if min_reliability is not None and (isinstance(min_reliability, bool) or not isinstance(min_reliability, int)
                                        or not 0 <= min_reliability <= 100):
        raise GameError(N_("The minimum reliability is a whole percentage from 1 to 100 (0 or none: anybody), not "
                           "%(value)s."), value=repr(min_reliability)[:20])
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
                    created_by=user.id, press=press, press_spectators=bool(press_spectators),
                    press_after_end=bool(press_after_end), press_late_blocked=bool(press_late_blocked),
                    rated=bool(rated), min_reliability=min_reliability or None)
        _check_seat(s, game, user)
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
        _check_seat(s, game, user)
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
        seat = seat_of(s, game, user_id)
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
            seat_of(s, game, user_id)  # a creator who left the table has no say in it any more
            if game.created_by != user_id:
                raise NotAllowedError(N_("Only the player who opened game %(game)d can start it before it is full."),
                                      game=game.id)
        _start(s, game, seed)


def _start(s: Session, game: Game, seed: int | None, *, drawn: bool = True) -> None:
    """Set the game up and start it; `drawn`: the seat order is drawn from the seed (else it is the join order)."""
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
    if drawn:
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


def start_again(s: Session, like: Game, players: list[tuple[User, str | None]], creator_id: int,
                seed: int | None = None) -> Game:
    """A new game with the settings of the finished game `like` (title, options, turn hours, timeout policy,
    days that count, talk, rated, minimum reliability) and these players, in this seat order, each in the
    colour given: opened and started at once, in the caller's transaction (a rematch: pbem.players.rematch).

    The seat order is the caller's, not drawn; everything else is a table's start (`_start`): a new seed,
    the turn's clock and mails. The rules are today's version; the options are checked by them again."""
    rules = engine.get(like.title)
    try:
        rules.check_players(len(players))
        options = rules.check_options({k: v for k, v in (like.options or {}).items() if k != COLOURS_OPTION})
    except OptionError as error:
        raise GameError(str(error), cause=error) from None
    game = Game(title=rules.name, engine_version=rules.version, options=options, players=len(players),
                status=GameStatus.OPEN.value, turn_hours=like.turn_hours, timeout_policy=like.timeout_policy,
                weekdays=like.weekdays, resign_after=like.resign_after, created_by=creator_id, press=like.press,
                press_spectators=like.press_spectators, press_after_end=like.press_after_end,
                press_late_blocked=like.press_late_blocked, rated=like.rated, min_reliability=like.min_reliability)
    s.add(game)
    s.flush()
    seats: list[Seat] = []
    for user, colour in players:
        seats.append(_add_seat(s, game, user, rules, colour, seats))
    _start(s, game, seed, drawn=False)
    return game
