"""Positions for the bots' tests: seeded random games of every title, configuration and player count."""

from __future__ import annotations

import random

import engine
from engine.core import derive_seed


def configurations() -> list[tuple[str, int, dict]]:
    """(title, players, options) for every registered title (the suite's counters game too), each
    option preset (`rules.option_presets()`), with the fewest and the most players."""
    found = []
    for name in engine.names():
        rules = engine.get(name)
        for players in sorted({rules.min_players, rules.max_players}):
            for preset in rules.option_presets():
                found.append((name, players, preset))
    return found


def label(configuration) -> str:
    name, players, preset = configuration
    return f"{name}-{players}p-" + ("-".join(f"{k}={v}" for k, v in sorted(preset.items())) or "default")


def positions(name: str, players: int, options: dict, count: int, games: int = 2, salt: str = "bots"):
    """`count` positions of seeded random games where the seat to move has a choice, spread over
    the games (every game is played to its end, positions taken at random along the way)."""
    rules = engine.get(name)
    options = rules.check_options(options)
    found = []
    for game in range(games):
        chooser = random.Random(derive_seed(game, f"{salt}/{name}/{players}/{sorted(options.items())}"))
        state = rules.setup(players, options, derive_seed(game, f"{salt}/{name}"))
        seen = []
        while rules.to_move(state) is not None:
            legal = rules.legal_moves(state)
            if len(legal) > 1:
                seen.append(state)
            state = rules.apply(state, chooser.choice(legal))
        wanted = count // games + (1 if game < count % games else 0)
        found += [seen[i] for i in sorted(chooser.sample(range(len(seen)), min(wanted, len(seen))))]
    return found
