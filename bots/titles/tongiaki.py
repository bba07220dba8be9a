"""Tongiaki for the bots: a lead counts for more the fewer tiles are left in the pile.

The game ends when the pile is empty, so a seat that leads gains by drawing tiles (new settlements,
fleets into the unknown) and one that trails by waiting; without this, bots that judge a playout
by the points alone let a game run on for a thousand decisions. The points are `scores` (the
islands each seat is present on).
"""

from __future__ import annotations

from bots.scoring import Scorer


def standing(rules, state) -> tuple[list[float], float]:
    """The points (`scores`) and the share of the tiles still in the pile."""
    view = rules.view(state, None)
    left, drawn = view["pile"]["size"], view["drawn"]["islands"] + view["drawn"]["water"]
    return [float(score) for score in view["scores"]], left / max(left + drawn, 1)


SCORER = Scorer(standing=standing, scale=3.0)
