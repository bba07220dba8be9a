"""Engine speed: random games per second, decisions per second, p99 of one legal_moves + apply.

Usage: python bench/engines.py [--game NAME] [--seconds S]
Prints `name: value unit` lines. Runs on one core (one process, no threads).

Goals (issues 3-5), on one core: Tongiaki at least 200 four-player games/s, p99 under 1 ms;
Discovery at least 100 three-player games/s, p99 under 2 ms; Tapaono Fast (no mode changes)
at least 50 games/s, p99 under 1 ms.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine  # noqa: E402
from engine.core import derive_seed  # noqa: E402

# What the issues ask to measure: game -> list of (players, options, label).
PLAN = {
    "tongiaki": [(2, {}, "2p"), (4, {}, "4p"), (6, {}, "6p")],
    "discovery": [(2, {}, "2p"), (3, {}, "3p"), (5, {}, "5p")],
    "tapaono": [(2, {"mode": "fast", "mode_change": False}, "fast")],  # games that stay in Fast mode
}


def measure(rules, players, options, seconds):
    options = rules.check_options(options)
    games = decisions = 0
    step_times = []
    start = time.perf_counter()
    clock = time.perf_counter
    while clock() - start < seconds or games == 0:
        chooser = random.Random(games)
        state = rules.setup(players, options, derive_seed(games, "bench"))
        while rules.to_move(state) is not None:
            t0 = clock()
            legal = rules.legal_moves(state)
            move = legal[chooser.randrange(len(legal))] if len(legal) > 1 else legal[0]
            state = rules.apply(state, move)
            step_times.append(clock() - t0)
            decisions += 1
        games += 1
    elapsed = clock() - start
    step_times.sort()
    p99 = step_times[min(len(step_times) - 1, int(len(step_times) * 0.99))]
    return games / elapsed, decisions / elapsed, p99 * 1000, decisions / games


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", action="append", help="only this game (repeatable)")
    parser.add_argument("--seconds", type=float, default=5.0, help="time per configuration")
    args = parser.parse_args()
    for name in args.game or [n for n in PLAN if n in engine.names()]:
        rules = engine.get(name)
        for players, options, label in PLAN.get(name, [(rules.min_players, {}, f"{rules.min_players}p")]):
            games, decisions, p99, per_game = measure(rules, players, options, args.seconds)
            print(f"{name}_{label}_games_per_s: {games:.1f} games/s")
            print(f"{name}_{label}_decisions_per_s: {decisions:.0f} decisions/s")
            print(f"{name}_{label}_decisions_per_game: {per_game:.1f} decisions")
            print(f"{name}_{label}_p99_legal_moves_plus_apply: {p99:.3f} ms")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
