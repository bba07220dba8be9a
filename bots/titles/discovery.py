"""Carcassonne: The Discovery for the bots: a follower on the board counts what it would score.

`rules.scores` holds only the points already scored; a follower still out scores its region at the
end (or when it is taken back), and the view says how much (`followers[].value`). A position is
judged by both, so a playout that ends before a region is finished still sees what it is worth.
"""

from __future__ import annotations

from bots.scoring import Scorer


def standing(rules, state) -> tuple[list[float], float]:
    """Points scored and what each follower on the board would score now; the end is not foreseen."""
    view = rules.view(state, None)
    points = [float(score) for score in view["scores"]]
    for follower in view["followers"]:
        points[follower["seat"]] += follower["value"]
    return points, 1.0


SCORER = Scorer(standing=standing, scale=4.0)
