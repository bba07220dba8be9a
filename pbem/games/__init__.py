"""The games domain: the service that changes games, reading them, the move log, archives and replay.

- `tables`, `moves`, `orders`: the one place that changes a game (open, join, leave, start;
  submit, resign and the moves nobody is asked for; standing orders), announcing what happened
  through `pbem.events`; `loading`: the rows and the state they start from;
- `reading`: what a seat or a spectator may see, now or after any move, and the lists;
- `log`: seeds, commitments, chain hashes and the replay that checks them;
- `archive`: export, import and `verify`, built on that replay.

This package imports no other domain package: mails, deadlines and pictures listen to its
announcements. The names below are its public face (`from pbem import games; games.submit(...)`).
"""

from pbem.games.errors import (
    GameError,
    GameStateError,
    IllegalMoveError,
    NotAllowedError,
    NotFoundError,
    NotNeededError,
    NotYourTurnError,
    StalePositionError,
)
from pbem.games.loading import load_game, load_state, rules_of, seats_of
from pbem.games.moves import SubmitResult, resign, resignation_result, submit
from pbem.games.orders import OrdersResult, add_orders, cancel_orders, orders_of
from pbem.games.reading import (
    LAST_MOVES, game_summary, history, last_moves, latest_story, list_games, seat_view, seat_view_at, view, view_at,
)
from pbem.games.tables import TIMEOUT_POLICIES, create_game, free_colours, join_game, leave_game, palette, start_game

__all__ = [
    "GameError", "GameStateError", "IllegalMoveError", "NotAllowedError", "NotFoundError", "NotNeededError",
    "NotYourTurnError", "StalePositionError",
    "load_game", "load_state", "rules_of", "seats_of",
    "SubmitResult", "resign", "resignation_result", "submit",
    "OrdersResult", "add_orders", "cancel_orders", "orders_of",
    "LAST_MOVES", "game_summary", "history", "last_moves", "latest_story", "list_games", "seat_view", "seat_view_at",
    "view", "view_at",
    "TIMEOUT_POLICIES", "create_game", "free_colours", "join_game", "leave_game", "palette", "start_game",
]
