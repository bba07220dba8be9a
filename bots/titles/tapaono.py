"""Tapaono for the bots: in a mode with a star goal, the way to a star counts, not only the stars.

`rules.scores` in Normal (and Free with a goal) is the stars surrounded, which change a few times a
game, so a playout of a turn or two mostly sees no difference. A position is judged instead by the
markers on the board and, around every counting star, how far each seat is from surrounding it:
the fields it holds in the star's ring, worth more the fuller the ring, and little when the other
seat has a marker there too (it must be freed first). Modes without a star goal keep the markers
on the board, which is what they rank by.
"""

from __future__ import annotations

from bots.scoring import Scorer

# The worth of k of a star's six fields held by one seat alone (k = 0..6): convex, since the last
# fields of a ring decide it; a surrounded star is worth the whole ring.
RING = (0.0, 0.5, 1.5, 3.0, 5.0, 8.0, 12.0)
SHARED = 0.5  # each field of a ring the other seat also holds a marker in
MARKER = 0.25  # each marker on the board
NEIGHBOURS = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))


def standing(rules, state) -> tuple[list[float], float]:
    """Markers and the rings around the counting stars (or the markers alone); the end is not foreseen."""
    view = rules.view(state, None)
    if not view["goal"]:
        return [float(score) for score in view["scores"]], 1.0
    owner = {(q, r): seat for q, r, seat in view["fields"]}
    points = [MARKER * markers for markers in view["markers_on_board"]]
    for star in view["stars"]:
        if not star["counts"]:
            continue
        held = [0, 0]
        for dq, dr in NEIGHBOURS:
            seat = owner.get((star["q"] + dq, star["r"] + dr))
            if seat is not None:
                held[seat] += 1
        for seat in (0, 1):
            points[seat] += RING[held[seat]] if not held[1 - seat] else SHARED * held[seat]
    return points, 1.0


SCORER = Scorer(standing=standing, scale=4.0)
