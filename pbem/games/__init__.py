"""The games domain: the service that changes games, reading them, the move log, archives and replay.

- `service`: create, join, leave, start, submit, resign: the one place that changes a game,
  announcing what happened through `pbem.events`;
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
    NotYourTurnError,
    StalePositionError,
)
from pbem.games.reading import (
    LAST_MOVES, game_summary, history, last_moves, list_games, seat_view, seat_view_at, view, view_at,
)
from pbem.games.service import (
    TIMEOUT_POLICIES,
    OrdersResult,
    SubmitResult,
    add_orders,
    cancel_orders,
    create_game,
    free_colours,
    join_game,
    leave_game,
    load_game,
    load_state,
    palette,
    resign,
    resignation_result,
    rules_of,
    seats_of,
    orders_of,
    start_game,
    submit,
)

__all__ = [
    "GameError", "GameStateError", "IllegalMoveError", "NotAllowedError", "NotFoundError", "NotYourTurnError",
    "StalePositionError", "LAST_MOVES", "game_summary", "history", "last_moves", "list_games", "seat_view",
    "seat_view_at", "view", "view_at", "TIMEOUT_POLICIES", "SubmitResult", "create_game", "free_colours",
    "join_game", "leave_game", "load_game", "load_state", "palette", "resign", "resignation_result", "rules_of", "seats_of", "start_game",
    "submit", "OrdersResult", "add_orders", "cancel_orders", "orders_of",
]
