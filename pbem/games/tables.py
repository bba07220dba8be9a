"""Tables: opening a game, taking and leaving its seats, and starting it.

A table is open until it starts: seats are taken (each may ask for a colour) and left, and
the last seat taken, or its creator, starts it; the start draws the seed, the seat order and
the colours nobody asked for, and sets the game up. Each change is one transaction that locks
the game row, as a move does (`moves`). The open tables a player may join are listed here
(`open_tables_query`, `open_tables`: the web lobby and the mail's /list show the same ones); the
other lists of games are `reading.list_games`.

Bots (issue 37) sit at a table from its opening (`add_bots`: seats with a level and no user); a running
game's seat whose player missed deadlines or left goes to a bot and is offered to a replacement
(`hand_to_bot`, `take_seat`; `SeatHolder` rows keep who held it when). Playing the bots' turns is
pbem.players.bot_seats's work, which hears of these changes through `events.seat_changed`.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Callable

from sqlalchemy import Select, exists, func, select
from sqlalchemy.orm import Session

import bots
import engine
from engine.core import COLOURS_OPTION, OptionError, Rng, canonical_json, derive_seed, sha256_hex
from pbem import events
from pbem.db import Database
from pbem.games import log
from pbem.games.errors import GameError, GameStateError, NotAllowedError, NotFoundError
from pbem.games.loading import load_game, rules_of, seat_of, seats_of
from pbem.i18n import N_
from pbem.models import Game, GameEvent, GameStatus, Seat, SeatHolder, Snapshot, User, utcnow

TIMEOUT_POLICIES = ("wait", "skip", "random", "resign")
# The time a move may take at a new table when its opener says nothing else, at every door that opens
# one (the web's create form fills it in; /new by mail takes it): a table nobody times may wait forever.
DEFAULT_TURN_HOURS = 72
# What a table allows of its talk (Game.press, pbem.talk): messages to anyone (the table or some players), to the
# whole table only, or none, as the Diplomacy judges' press settings.
PRESS_MODES = ("full", "public", "none")
DEFAULT_BOT_LEVEL = "easy"  # a newcomer's first game against bots: the level a "play against bots" form offers first
SEAT_EVENT = "seat"  # the GameEvent kind of a seat changing hands (issue 37 item 3)
MAX_REPLACE_AFTER = 10  # missed deadlines in a row before a seat is offered to a replacement, at most
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
                press_late_blocked: bool = False, rated: bool = False, min_reliability: int | None = None,
                bot_seats: int = 0, bot_level: str | None = None, replace_after: int | None = None) -> int:
    """Open a new table for `players` seats with the creator in the first one; returns the game id.

    `bot_seats` of the other seats are a bot's of `bot_level` (issue 37: "play with bots"; `add_bots`);
    a table they fill starts at once. A game with bots is never rated: `rated` with bots is refused.
    `replace_after`: the table's policy for abandoned seats (issue 37 item 3, `hand_to_bot`): after that many
    missed deadlines in a row, or when its player leaves, a seat is offered to a replacement and a bot of
    `bot_level` plays it meanwhile; None: no such policy.

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
    level = check_bots(bot_seats, bot_level, players, rated)
    if replace_after is not None and (isinstance(replace_after, bool) or not isinstance(replace_after, int)
                                      or not 1 <= replace_after <= MAX_REPLACE_AFTER):
        raise GameError(N_("A seat is offered to a replacement after 1 to %(most)d missed deadlines, not %(value)s."),
                        most=MAX_REPLACE_AFTER, value=repr(replace_after)[:20])
    if replace_after is not None:
        if rated:
            raise GameError(N_("A game with bots is not rated; choose bots or a rated game, not both."))
        level = level or _bot_level(bot_level)
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
                    rated=bool(rated), min_reliability=min_reliability or None, replace_after=replace_after,
                    bot_level=level.name if level is not None else None)
        _check_seat(s, game, user)
        s.add(game)
        s.flush()
        seats = [_add_seat(s, game, user, rules, colour, [])]
        if bot_seats:
            add_bots(s, game, rules, seats, bot_seats, level)
        return game.id


def check_bots(count: int, level_name: str | None, players: int, rated: bool) -> bots.Level | None:
    """The level of a new table's bots, checked with their number: at least one seat left to the opener,
    and no rating (a game against bots says nothing of a player's strength). None: no bots."""
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise GameError(N_("The number of bots is a whole number, not %(value)s."), value=repr(count)[:20])
    if not count:
        return None
    if count >= players:
        raise GameError(N_("A table of %(players)d seats has at most %(most)d bots: one seat is yours."),
                        players=players, most=players - 1)
    if rated:
        raise GameError(N_("A game with bots is not rated; choose bots or a rated game, not both."))
    return _bot_level(level_name)


def _bot_level(level_name: str | None) -> bots.Level:
    """The bots' level of that name (None: the default), or GameError naming the levels."""
    try:
        return bots.level(level_name or DEFAULT_BOT_LEVEL)
    except bots.UnknownLevelError:
        raise GameError(N_("There is no bot level %(level)s; the levels are: %(levels)s."),
                        level=repr(str(level_name)[:20]), levels=", ".join(bots.LEVELS)) from None


def add_bots(s: Session, game: Game, rules: engine.Rules, seats: list[Seat], count: int, level: bots.Level) -> None:
    """Seat `count` bots of `level` at an open table (no user, the level's name in their display name); the
    table starts when they fill it. The worker plays their turns (pbem.players.bot_seats)."""
    for _ in range(count):
        seat = Seat(game_id=game.id, number=len(seats), user_id=None, bot_level=level.name,
                    display_name=bot_name(len([x for x in seats if x.bot_level]) + 1, level.name),
                    token_nonce=secrets.token_hex(8))
        s.add(seat)
        s.flush()
        seats.append(seat)
    if len(seats) == game.players:
        _start(s, game, None)


def hand_to_bot(s: Session, game: Game, seats: list[Seat], seat: Seat, reason: str) -> None:
    """A running game's seat, whose player missed deadlines ("missed") or left ("left"), goes to a bot of the
    table's level and is offered to a replacement (issue 37 item 3); `SeatHolder` rows keep who held it from
    which move. The player's account keeps nothing of the seat: no turn, no reply token, no notices."""
    level = game.bot_level or DEFAULT_BOT_LEVEL
    _hold(s, game, seat, reason, None, level, bot_name(sum(1 for x in seats if x.bot_level) + 1, level))
    seat.open_since = utcnow()
    s.flush()
    events.seat_changed.send(s, game=game, seats=seats, seat=seat, reason=reason)


def take_seat(db: Database, game_id: int, seat_number: int, user_id: int) -> None:
    """A replacement takes a seat offered in a running game: the position, the colour and the turn are theirs
    from now on; the previous player's private notes are not (pbem.talk keeps notes per user)."""
    with db.transaction() as s:
        game = load_game(s, game_id, lock=True)
        seats = seats_of(s, game)
        seat = next((x for x in seats if x.number == seat_number), None)
        if game.status != GameStatus.RUNNING.value or seat is None or seat.open_since is None:
            raise GameStateError(N_("Seat %(seat)d of game %(game)d is not offered to a replacement."),
                                 seat=seat_number + 1, game=game_id)
        if any(x.user_id == user_id for x in seats):
            raise GameError(N_("You already have a seat in game %(game)d."), game=game.id)
        user = s.get(User, user_id)
        if user is None:
            raise NotFoundError(N_("There is no user %(user)d."), user=user_id)
        _check_seat(s, game, user)
        _hold(s, game, seat, "replaced", user.id, None, user.display_name)
        seat.open_since = None
        s.flush()
        events.seat_changed.send(s, game=game, seats=seats, seat=seat, reason="replaced")


def _hold(s: Session, game: Game, seat: Seat, reason: str, user_id: int | None, level: str | None,
          name: str) -> None:
    """Give `seat` a new holder from the next move on, in the record too (its first holder is written the first
    time it changes hands); a new reply token, so that mail to the previous holder's address moves nothing."""
    if s.scalar(select(func.count()).select_from(SeatHolder).where(SeatHolder.game_id == game.id,
                                                                   SeatHolder.seat == seat.number)) == 0:
        s.add(SeatHolder(game_id=game.id, seat=seat.number, from_seq=1, user_id=seat.user_id,
                         bot_level=seat.bot_level, display_name=seat.display_name, reason="first"))
    s.add(SeatHolder(game_id=game.id, seat=seat.number, from_seq=game.version + 1, user_id=user_id, bot_level=level,
                     display_name=name, reason=reason))
    s.add(GameEvent(game_id=game.id, seq=game.version, seat=seat.number, kind=SEAT_EVENT,
                    detail={"reason": reason, "to": name}))  # the game's events, where missed deadlines count from
    seat.user_id, seat.bot_level, seat.display_name = user_id, level, name
    seat.token_nonce = secrets.token_hex(8)


def bot_name(number: int, level: str) -> str:
    """A bot seat's display name, the same in every language as a player's name is: "Bot 1 (easy)"."""
    return f"Bot {number} ({level})"


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
    """Give up a seat (and the colour it asked for) before the start; a table left empty is abandoned.

    In a running game whose table declared a policy for abandoned seats (`Game.replace_after`), the seat is
    handed to a bot and offered to a replacement (`hand_to_bot`); without one, a player resigns instead."""
    with db.transaction() as s:
        game = load_game(s, game_id, lock=True)
        if game.status == GameStatus.RUNNING.value and game.replace_after is not None:
            seat = seat_of(s, game, user_id)
            hand_to_bot(s, game, seats_of(s, game), seat, "left")
            return
        if game.status != GameStatus.OPEN.value:
            raise GameStateError(N_("Game %(game)d has started; resign instead of leaving."), game=game.id)
        seat = seat_of(s, game, user_id)
        s.delete(seat)
        s.flush()
        rest = seats_of(s, game)
        for number, other in enumerate(rest):
            other.number = number
        if not any(other.user_id is not None for other in rest):  # nobody left but bots (issue 37)
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
