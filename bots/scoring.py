"""How a bot scores the position a playout reaches (issue 37, item 1).

A finished game scores by its result: each seat in first place gets 1 shared with the seats tied
with it (1/k for k of them), the others 0, which is what a bot plays for. An unfinished one (a
playout stops after a few turns) scores each seat by its lead over the best other seat, squashed
into (0, 1) as a guess at its chance to win: 1 / (1 + exp(-lead / spread)). The lead is measured
in `rules.scores` (the points each seat has now) unless the title's module says better, and the
spread narrows as the end comes nearer, if the title's module says how near it is.

A title may bring its own `Scorer` in `bots/titles/<name>.py` (as `SCORER`): a better measure of
an unfinished position (Discovery's followers on the board, Tapaono's rings around the stars), how
much of the game is left (Tongiaki's pile) and the scale of a lead. It sees only what the
engine contract gives (`scores`, a view), and the state it looks at is
a playout's own, drawn by `resample_hidden`. Without one the defaults below hold.
"""

from __future__ import annotations

import importlib
import math
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from engine.core import Rules


def _scores(rules: Rules, state: Any) -> tuple[Sequence[float], float]:
    return rules.scores(state), 1.0


@dataclass(frozen=True)
class Scorer:
    """A title's way of judging a position.

    standing            each seat's points in an unfinished position (larger is better) and the share
                        of the game still to come (1 at the start, near 0 at the end), in one look at
                        the position; by default `rules.scores` and 1 (the end is not foreseen)
    scale               the lead in points that makes a win about three times as likely as not, with
                        the whole game still to come
    """

    standing: Callable[[Rules, Any], tuple[Sequence[float], float]] = _scores
    scale: float = 3.0

    def rewards(self, rules: Rules, state: Any) -> list[float]:
        """Each seat's reward for the position a playout reached, in [0, 1]."""
        result = rules.result(state)
        if result is not None:
            first = result.ranks.count(1)
            return [1.0 / first if rank == 1 else 0.0 for rank in result.ranks]
        points, to_come = self.standing(rules, state)
        # A lead says more the less of the game is left to overturn it (its spread shrinks as the
        # square root of what is to come): the leader gains by ending the game sooner, the others
        # by drawing it out.
        spread = self.scale * math.sqrt(max(to_come, 0.05))
        rewards = []
        for seat, mine in enumerate(points):
            best_other = max(p for other, p in enumerate(points) if other != seat)
            rewards.append(1.0 / (1.0 + math.exp(-(mine - best_other) / spread)))
        return rewards


DEFAULT = Scorer()


def scorer_for(rules: Rules) -> Scorer:
    """The title's own scorer (`bots.titles.<name>.SCORER`), else the default."""
    module_name = f"{__package__}.titles.{rules.name}"
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name != module_name:
            raise
        return DEFAULT
    return getattr(module, "SCORER", DEFAULT)
