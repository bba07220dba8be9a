"""Bots that play a seat to win, for every title (issue 37, item 1).

`bots.choose(rules, state, bots.level("hard"), seed)` returns the `Decision` of the seat to move:
a legal move, found by information-set Monte Carlo tree search (`bots.search`) within the level's
budget (`bots.levels`: playouts and a time cap per decision). A bot sees what its seat sees: the
real state goes only to `rules.resample_hidden`, and every playout starts from such a re-drawn
state. The same view, level and seed give the same move.

The package sits below the service and beside the renderers: it imports `engine` and the
standard library only, does no I/O and keeps nothing between decisions. Playing a bot's turn as
a move of the game (source "bot", budgets per game and site) is the service's work, not this one's.
"""

from __future__ import annotations

from bots.levels import LEVELS, Level, UnknownLevelError, level
from bots.search import Decision, NoDecisionError, choose

__all__ = ["LEVELS", "Decision", "Level", "NoDecisionError", "UnknownLevelError", "choose", "level"]
