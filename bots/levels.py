"""The bots' levels: how much thought each may spend on one decision (issue 37, item 1).

A level is a budget: playouts per decision (and per legal move: a choice between two moves needs
fewer than one between twenty), how far each playout looks past the tree, and a time cap. The playouts make a decision reproducible (the same seat's view, level and seed give the same
move); the time cap is the service's safety bound on a busy machine and only ever cuts a search
short. Strength and cost of each level, per title, are measured by `bench/bots.py`.

This module only describes budgets; `bots.search` spends them.
"""

from __future__ import annotations

from dataclasses import dataclass


class UnknownLevelError(KeyError):
    """A level name that no level has."""

    def __str__(self) -> str:
        return f"There is no bot level {self.args[0]!r}; the levels are: {', '.join(LEVELS)}."


@dataclass(frozen=True)
class Level:
    """A bot's budget for one decision.

    name         what players choose ("easy", "medium", "hard")
    playouts     determinised playouts per decision, at most
    per_move     at most this many playouts per legal move of the decision (None: no such bound)
    turns        turns a playout is played on at random past the tree before its position is scored
    seconds      time cap per decision (None: none; tests count playouts only)
    exploration  UCB1's constant: larger tries more moves, smaller trusts the best one sooner
    """

    name: str
    playouts: int
    turns: int
    seconds: float | None
    per_move: int | None = None
    exploration: float = 0.7

    def __post_init__(self) -> None:
        if (self.playouts < 1 or self.turns < 0 or (self.per_move is not None and self.per_move < 1)
                or (self.seconds is not None and self.seconds <= 0)):
            raise ValueError(f"a level needs at least one playout (per move too), no negative turns and a positive "
                             f"time cap: {self}")

    def budget(self, moves: int) -> int:
        """The playouts for a decision between `moves` legal moves."""
        return self.playouts if self.per_move is None else min(self.playouts, self.per_move * moves)


LEVELS: dict[str, Level] = {
    level.name: level
    for level in (
        Level("easy", playouts=12, per_move=2, turns=1, seconds=1.0),
        Level("medium", playouts=48, per_move=4, turns=1, seconds=3.0),
        Level("hard", playouts=192, per_move=12, turns=1, seconds=10.0),
    )
}


def level(name: str) -> Level:
    """The level of that name; raises UnknownLevelError."""
    try:
        return LEVELS[str(name).strip().lower()]
    except KeyError:
        raise UnknownLevelError(name) from None
