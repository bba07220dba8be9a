"""Loading a game: the rows and the decoded state that every change and every reading starts from.

The game row (locked when a change asks for it), its seats with their users, the seats'
standing orders, the title's rules, and the current state, decoded once and kept by its
chain head. Nothing here changes a game: the changes are in `tables`, `moves` and `orders`.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session, joinedload

import engine
from engine.core import canonical_json
from pbem.games.errors import NotAllowedError, NotFoundError
from pbem.i18n import N_
from pbem.kept import Kept
from pbem.models import Game, Seat, SeatOrders

NO_SEAT = N_("You have no seat in game %(game)d.")

# The statements of every move, built once (a statement is immutable and takes parameters): built at each
# use, they cost every move about 15 % more CPU (docs/architecture.md, "Databases").
_GAME = select(Game).where(Game.id == bindparam("game_id"))
_GAME_LOCKED = _GAME.with_for_update()
_SEATS = (select(Seat).options(joinedload(Seat.user)).where(Seat.game_id == bindparam("game_id"))
          .order_by(Seat.number))
_ORDERS = select(SeatOrders).where(SeatOrders.game_id == bindparam("game_id"))


def rules_of(game: Game) -> engine.Rules:
    """The rules of the game's title, in the rules version the game was made with (issue 40)."""
    return engine.get(game.title).for_version(game.engine_version)


def load_game(s: Session, game_id: int, lock: bool = False) -> Game:
    """The game row (locked for the rest of the transaction with `lock`); NotFoundError if there is none."""
    game = s.scalars(_GAME_LOCKED if lock else _GAME, {"game_id": game_id}).first()
    if game is None:
        raise NotFoundError(N_("There is no game %(game)d."), game=game_id)
    return game


def seats_of(s: Session, game: Game) -> list[Seat]:
    """The seats of a game in play order, with their users loaded in the same query."""
    return list(s.scalars(_SEATS, {"game_id": game.id}))


def seat_of(s: Session, game: Game, user_id: int) -> Seat:
    """The user's seat in the game; NotAllowedError if they have none."""
    seat = s.scalars(select(Seat).where(Seat.game_id == game.id, Seat.user_id == user_id)).first()
    if seat is None:
        raise NotAllowedError(NO_SEAT, game=game.id)
    return seat


def orders_by_seat(s: Session, game: Game) -> dict[int, SeatOrders]:
    """The game's standing orders by seat, read once before a change writes anything: the change
    then reads nothing more, so its writes go out in one flush (one UPDATE of the game row)."""
    return {row.seat: row for row in s.scalars(_ORDERS, {"game_id": game.id})}


# Decoded states of recently played games, keyed by what determines them. The chain head is a hash over
# the seed's commitment and the whole log up to that move, each move's state hash included; with the
# title, engine version, player count and options it names exactly one state, in any database (tests keep
# several in one process), and states are immutable values: a hit is always the state the row holds. It
# saves decoding the state on every move and page: about 12 % of a move's CPU (docs/architecture.md, "Databases").
_STATES = Kept(512)


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


def keep_state(game: Game, state: Any) -> None:
    """Remember `state` as the one the game's row holds now (a move has just written it)."""
    _STATES.put(_state_key(game), state)
