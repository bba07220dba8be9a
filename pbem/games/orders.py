"""Standing orders: a seat's choices, written during its turn, for the decisions that come after chance.

The engine checks each order when it arrives (`rules.parse_order`: one that can never apply
in the rest of the turn is refused with the reason) and decides which order makes the move
now (`rules.queued_move`); the state never holds orders. Here they are kept per seat
(`seat_orders`, private to that seat, dropped when its turn ends: `moves.append`), and what
they decide is played at once as ordinary moves logged with the source "order"
(`moves.play_automatic`), so replay and `pbem verify` need nothing new.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.core import OrderError, OrderNotNeeded
from pbem import events
from pbem.db import Database
from pbem.games.errors import IllegalMoveError, NotNeededError
from pbem.games.loading import load_game, load_state, orders_by_seat, rules_of, seat_of
from pbem.games.moves import announce, locked_turn, play_automatic
from pbem.models import SeatOrders, utcnow


@dataclass
class OrdersResult:
    """What adding standing orders did: the seat's queue now, and the moves its orders made at once."""

    game_id: int
    queued: list[str]
    played: list[str] = field(default_factory=list)
    version: int = 0  # the game's move count afterwards
    to_move: int | None = None
    duplicate: bool = False


def add_orders(db: Database, game_id: int, texts: list[str], *, user_id: int | None = None, seat: int | None = None,
               key: str | None = None, expected_version: int | None = None) -> OrdersResult:
    """Queue standing orders for the seat's decisions after chance in its turn, and play what they decide now.

    Each text is checked by the engine when it arrives (`rules.parse_order`): one that can never
    apply is refused with the reason (IllegalMoveError), and nothing of the call is queued. The
    same `key` twice queues once. Orders are private to their seat (`orders_of`).
    """
    with db.transaction() as s:
        events.require_listeners()
        game, seats, seat = locked_turn(s, game_id, user_id, seat, expected_version)
        orders_now = orders_by_seat(s, game)
        row = orders_now.get(seat)
        rules = rules_of(game)
        if row is not None and key is not None and row.last_key == key:
            return OrdersResult(game.id, [rules.order_notation(rules.order_from_json(o)) for o in row.orders],
                                version=game.version, to_move=game.to_move, duplicate=True)
        state = load_state(game)
        try:
            orders = [rules.parse_order(state, seat, text) for text in texts]
        except OrderNotNeeded as error:  # the decision will not come: the game went past it (issue 33)
            raise NotNeededError(str(error), cause=error) from None
        except OrderError as error:
            raise IllegalMoveError(str(error), cause=error) from None
        if row is None:
            row = orders_now[seat] = SeatOrders(game_id=game.id, seat=seat, orders=[])
            s.add(row)
        row.orders = [*row.orders, *[rules.order_to_json(o) for o in orders]]
        row.last_key, row.updated_at = key, utcnow()
        s.flush()  # stored, so that a turn the orders end at once can delete the row
        version = game.version
        played, state = play_automatic(s, game, rules, state, seats, orders_now)
        if played:
            announce(s, game, seats, rules, seat, state)
        left = orders_now.get(seat)
        queued = [rules.order_notation(rules.order_from_json(o)) for o in left.orders] if left else []
        return OrdersResult(game.id, queued, played, version=game.version if played else version,
                            to_move=game.to_move)


def orders_of(db: Database, game_id: int, user_id: int) -> list[str]:
    """The standing orders the user's seat has queued in a game (only they may see them)."""
    with db.sessions() as s:
        game = load_game(s, game_id)
        seat = seat_of(s, game, user_id)
        row = s.get(SeatOrders, (game.id, seat.number))
        rules = rules_of(game)
        return [rules.order_notation(rules.order_from_json(o)) for o in row.orders] if row else []


def cancel_orders(db: Database, game_id: int, user_id: int) -> int:
    """Drop the user's standing orders in a game; returns how many there were."""
    with db.transaction() as s:
        game = load_game(s, game_id, lock=True)
        seat = seat_of(s, game, user_id)
        row = s.get(SeatOrders, (game.id, seat.number))
        if row is None:
            return 0
        count = len(row.orders)
        s.delete(row)
        return count
