"""Players as people with a record: their ratings per title (`ratings`), their reliability and pace
(`reliability`), their pages (`pages`), and the rematches they offer one another (`rematch`).

It listens to the game service (`pbem.events.game_finished`) and writes, in the transaction
that finishes a rated game, what that game did to its players' ratings; and it tells the game
service who may not take a seat at a table that asks for a minimum reliability
(`games.tables.add_seat_check`). A rematch that all accepted starts its table through the game service
(`games.tables.start_again`); the mails about offers are written by the caller's `tell` (the /rematch
command's module), so this package writes no mail itself: the pages and the API read what it keeps.
"""

from __future__ import annotations

from pbem import events
from pbem.games import tables
from pbem.players import ratings, reliability


def connect() -> None:
    """Listen to the game service and check its seats (pbem.wiring.connect calls this once per process)."""
    events.game_finished.connect(ratings.on_game_finished)
    tables.add_seat_check("reliability", reliability.check_seat)
