"""Players as people with a record: their ratings per title (`ratings`).

It listens to the game service (`pbem.events.game_finished`) and writes, in the transaction
that finishes a rated game, what that game did to its players' ratings. It decides nothing
about games and tells nobody anything: the pages and the API read what it keeps.
"""

from __future__ import annotations

from pbem import events
from pbem.players import ratings


def connect() -> None:
    """Listen to the game service (pbem.wiring.connect calls this once per process)."""
    events.game_finished.connect(ratings.on_game_finished)
