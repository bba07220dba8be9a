"""Bot strength: win rate of each level against random play and against the level below (issue 37).

Usage: python bench/bots.py [--game NAME] [--players N] [--games N] [--levels easy,medium,hard]
                            [--matchup TESTED:OPPONENT] [--jobs N] [--no-time-cap]

For every configuration (title and player count; by default 2-player Tapaono and 3-player
Tongiaki and Discovery, with --players the given count for every --game) it plays, for every level,
`--games` seeded games against random play and as many against the level below: the level under
test sits at one seat (seat g mod players in game g, so every seat is tried as often) and its
opponent plays every other seat. Game g of a configuration has the same seed in every matchup.
Random play chooses uniformly among the legal moves. --matchup (repeatable) plays only the
matchups named, e.g. `--matchup hard:random`.

A game counts as a win for the tested level when its seat ranks first; a first place shared by k
seats counts 1/k (Tapaono's draws: one half). The 95 % interval is Wilson's score interval over
the games (a shared first place counts as its fraction of a win). With one tested seat against
n - 1 others, random play wins 1/n of the games.

Prints `name: value unit` lines per configuration and matchup: win rate with the low and high end
of its interval, decisions per game, and per level the mean time per decision (wall clock, as the
time cap counts it, and the CPU time of the process), decisions per second (one core, wall
clock), playouts per decision, and how often the time cap cut a search short (--no-time-cap:
playouts alone, reproducible to the move). Games run in --jobs processes (default 1): on a busy
machine the wall-clock figures grow, the CPU figures and the win rates stay (unless the cap bites).
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import multiprocessing
import random
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bots  # noqa: E402
import engine  # noqa: E402
from engine.core import derive_seed  # noqa: E402

# What issue 37 asks to measure at least: title -> player counts.
PLAN = {"tapaono": [2], "tongiaki": [3], "discovery": [3]}
RANDOM = "random"
Z95 = 1.959963984540054


def wilson(wins: float, games: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval for a proportion of `wins` in `games` (wins may be fractional)."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return max(0.0, centre - half), min(1.0, centre + half)


def matchups(levels: list[str]) -> list[tuple[str, str]]:
    """(tested, opponent) pairs: each level against random play and against the level below."""
    pairs = []
    for index, name in enumerate(levels):
        pairs.append((name, RANDOM))
        if index:
            pairs.append((name, levels[index - 1]))
    return pairs


@dataclasses.dataclass
class Cost:
    """Decisions a level made, their total wall-clock and CPU time, playouts, and how many the
    time cap cut short."""

    decisions: int = 0
    seconds: float = 0.0
    cpu: float = 0.0
    playouts: int = 0
    capped: int = 0

    def add(self, other: Cost) -> None:
        self.decisions += other.decisions
        self.seconds += other.seconds
        self.cpu += other.cpu
        self.playouts += other.playouts
        self.capped += other.capped


def play(job: tuple) -> tuple[float, dict[str, Cost], int]:
    """One seeded game of a matchup: the tested level's share of first place, each level's cost,
    and the number of decisions in the game."""
    name, players, options, tested, opponent, index, time_cap = job
    rules = engine.get(name)
    seed = derive_seed(index, f"bench-bots/{name}/{players}")
    test_seat = index % players
    sides = [tested if seat == test_seat else opponent for seat in range(players)]
    levels = {side: bots.level(side) for side in set(sides) if side != RANDOM}
    if not time_cap:
        levels = {side: dataclasses.replace(level, seconds=None) for side, level in levels.items()}
    chooser = random.Random(derive_seed(seed, "random-play"))
    costs: dict[str, Cost] = defaultdict(Cost)
    state = rules.setup(players, rules.check_options(options), seed)
    decisions = 0
    while (seat := rules.to_move(state)) is not None:
        side = sides[seat]
        if side == RANDOM:
            legal = rules.legal_moves(state)
            move = legal[chooser.randrange(len(legal))]
        else:
            cpu = time.process_time()
            decision = bots.choose(rules, state, levels[side], derive_seed(seed, f"bot/{seat}/{decisions}"))
            cpu = time.process_time() - cpu
            move = decision.move
            costs[side].add(Cost(1, decision.seconds, cpu, decision.playouts, int(decision.capped)))
        state = rules.apply(state, move)
        decisions += 1
    ranks = rules.result(state).ranks
    share = 1.0 / ranks.count(1) if ranks[test_seat] == 1 else 0.0
    return share, dict(costs), decisions


def run(name: str, players: int, pairs: list[tuple[str, str]], games: int, jobs: int, time_cap: bool) -> None:
    label = f"{name}_{players}p"
    costs: dict[str, Cost] = defaultdict(Cost)
    with multiprocessing.Pool(jobs) as pool:
        for tested, opponent in pairs:
            started = time.perf_counter()
            work = [(name, players, {}, tested, opponent, index, time_cap) for index in range(games)]
            wins = 0.0
            lengths = 0
            for share, game_costs, decisions in pool.imap(play, work, chunksize=1):
                wins += share
                lengths += decisions
                for side, cost in game_costs.items():
                    costs[side].add(cost)
            low, high = wilson(wins, games)
            key = f"{label}_{tested}_vs_{opponent}"
            print(f"{key}_win_rate: {100 * wins / games:.1f} %")
            print(f"{key}_win_rate_low95: {100 * low:.1f} %")
            print(f"{key}_win_rate_high95: {100 * high:.1f} %")
            print(f"{key}_games: {games} games")
            print(f"{key}_decisions_per_game: {lengths / games:.0f} decisions")
            print(f"{key}_wall_time: {time.perf_counter() - started:.0f} s")
            sys.stdout.flush()
    for level in bots.LEVELS:
        cost = costs.get(level)
        if cost and cost.decisions:
            print(f"{label}_{level}_time_per_decision: {1000 * cost.seconds / cost.decisions:.1f} ms")
            print(f"{label}_{level}_cpu_per_decision: {1000 * cost.cpu / cost.decisions:.1f} ms")
            print(f"{label}_{level}_decisions_per_s: {cost.decisions / cost.seconds:.1f} decisions/s")
            print(f"{label}_{level}_playouts_per_decision: {cost.playouts / cost.decisions:.1f} playouts")
            print(f"{label}_{level}_decisions: {cost.decisions} decisions")
            print(f"{label}_{level}_time_capped: {100 * cost.capped / cost.decisions:.2f} %")
    sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", action="append", help="only this title (repeatable)")
    parser.add_argument("--players", type=int, help="this player count for every title measured")
    parser.add_argument("--games", type=int, default=500, help="seeded games per configuration and matchup")
    parser.add_argument("--levels", default=",".join(bots.LEVELS), help="levels to measure, weakest first")
    parser.add_argument("--matchup", action="append", metavar="TESTED:OPPONENT",
                        help="only this matchup, e.g. hard:random (repeatable)")
    parser.add_argument("--jobs", type=int, default=1, help="processes that play games at once")
    parser.add_argument("--no-time-cap", action="store_true", help="playouts only: every decision reproducible")
    args = parser.parse_args()
    pairs = matchups([bots.level(name).name for name in args.levels.split(",")])
    if args.matchup:
        pairs = [tuple(side if side == RANDOM else bots.level(side).name for side in text.split(":", 1))
                 for text in args.matchup]
    for name in args.game or list(PLAN):
        counts = [args.players] if args.players else PLAN.get(name, [engine.get(name).min_players])
        for players in counts:
            run(name, players, pairs, args.games, args.jobs, not args.no_time_cap)


if __name__ == "__main__":
    main()
