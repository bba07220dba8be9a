"""Round trips by email: how many mails a game costs when players batch what they can write.

Usage: python bench/roundtrips.py [--game NAME] [--games N] [--players N]

Plays seeded games of every title, player count and option preset (`rules.option_presets()`:
the modes and variants) with players who behave like a sensible person at a mail client.
After each notification a player writes, in one mail, one decision per line:

- every decision they can make without seeing new information: they choose a legal move
  (seeded, at random) and go on to the next one as long as it is still their decision and
  nothing they could not know appeared in between (`reveals`: a tile, a card, a die);
- the decision whose outcome they must see (a roll, a step onto a star, a fleet that sails),
  which ends the mail.

Offers a person makes rarely (Tapaono's mode-change proposals) are made at most once a game;
random play would propose one about every second round.

A `Driver` carries each mail to the game: `EngineDriver` applies the lines with the engine
directly. A driver that sends each mail through the service's mail path
(`pbem.mail.inbound.receive`) needs only `state` and `send(seat, lines)`.

Prints `name: value unit` lines per configuration: decisions per game, mails per player per
game, round trips per player turn (mean, p50, p90; a turn is a run of decisions by the same
player, each mail is one round trip), and the days a game takes at one round trip per day
(every mail of the game, one after the other).
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine  # noqa: E402
from engine.core import derive_seed  # noqa: E402

RARE_KINDS = frozenset({"propose"})  # moves a person offers at most once a game
SAMPLES = 6  # re-draws of the hidden information per check (a miss needs all six to agree by chance)


# ---------------------------------------------------------------------------------------
# Drivers: how a mail reaches the game


class Driver(Protocol):
    """What the bench needs from the way mails reach a game."""

    state: Any      # the game's current engine state (the players compose from it)
    moves: int      # decisions applied so far

    def send(self, seat: int, lines: list[str]) -> None:
        """Deliver one mail of `seat`: its lines, one decision each, in order."""


class EngineDriver:
    """Applies each line with the engine directly, as the service's move path does."""

    def __init__(self, rules: engine.Rules, players: int, options: dict, seed: int):
        self.rules = rules
        self.state = rules.setup(players, options, seed)
        self.moves = 0

    def send(self, seat: int, lines: list[str]) -> None:
        rules = self.rules
        for line in lines:
            if rules.to_move(self.state) != seat:
                raise AssertionError(f"seat {seat} sent {line!r} out of turn")
            self.state = rules.apply(self.state, rules.parse(self.state, line))
            self.moves += 1


# ---------------------------------------------------------------------------------------
# The player


def reveals(rules: engine.Rules, state: Any, move: Any, seat: int, after: Any, salt: str) -> bool:
    """Whether making `move` shows `seat` something it could not know before (a draw, a die).

    The test of "new information": re-draw everything `seat` cannot see (the contract's
    `resample_hidden`), make the same move, and compare what `seat` sees afterwards. If any
    re-draw changes the view, the outcome depended on hidden information or chance.
    """
    seen = rules.view(after, seat)
    for k in range(SAMPLES):
        other = rules.resample_hidden(state, seat, derive_seed(k, salt))
        if rules.view(rules.apply(other, move), seat) != seen:
            return True
    return False


@dataclass
class Player:
    """Composes a seat's mails: everything it can decide without new information, at random."""

    rules: engine.Rules
    chooser: random.Random
    salt: str = ""                                 # makes the re-draws of each check differ
    rare_made: set = field(default_factory=set)   # kinds of rare offers already made in this game
    checks: int = 0

    def choose(self, state: Any) -> Any:
        legal = [m for m in self.rules.legal_moves(state) if m.kind not in self.rare_made]
        move = self.chooser.choice(legal)
        if move.kind in RARE_KINDS:
            self.rare_made.add(move.kind)
        return move

    def compose(self, state: Any, seat: int) -> list[str]:
        """The lines of one mail of `seat`, which is to move in `state`."""
        rules = self.rules
        lines = []
        while True:
            move = self.choose(state)
            lines.append(rules.notation(state, move))
            after = rules.apply(state, move)
            if rules.to_move(after) != seat:
                return lines
            self.checks += 1
            if reveals(rules, state, move, seat, after, f"{self.salt}/{self.checks}"):
                return lines
            state = after


# ---------------------------------------------------------------------------------------
# Games and figures


@dataclass
class Tally:
    """What one configuration's games cost by mail."""

    decisions: list = field(default_factory=list)     # per game
    mails: list = field(default_factory=list)         # per game and player
    days: list = field(default_factory=list)          # per game: every mail, one a day
    per_turn: list = field(default_factory=list)      # round trips of every player turn
    turns: list = field(default_factory=list)         # per game


def play_game(rules: engine.Rules, players: int, options: dict, index: int, tally: Tally,
              make_driver=EngineDriver) -> None:
    """One seeded game by mail; adds its figures to `tally`."""
    driver = make_driver(rules, players, options, derive_seed(index, "roundtrips"))
    player = Player(rules, random.Random(f"roundtrips/{index}"), salt=f"roundtrips/{index}")
    mails = [0] * players
    turn_seat, turn_mails, turns = None, 0, 0
    while (seat := rules.to_move(driver.state)) is not None:
        if seat != turn_seat:
            if turn_seat is not None:
                tally.per_turn.append(turn_mails)
            turn_seat, turn_mails, turns = seat, 0, turns + 1
        driver.send(seat, player.compose(driver.state, seat))
        mails[seat] += 1
        turn_mails += 1
    tally.per_turn.append(turn_mails)
    tally.turns.append(turns)
    tally.decisions.append(driver.moves)
    tally.mails.extend(mails)
    tally.days.append(sum(mails))


def percentile(values: list, share: float) -> float:
    """The nearest-rank percentile (p50, p90) of a list of numbers."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def label(preset: dict) -> str:
    """A short name for an option preset: the mode, the variants switched on, or 'default'."""
    if "mode" in preset:
        return preset["mode"]
    return "-".join(key for key, value in sorted(preset.items()) if value is True) or "default"


def configurations(names: list[str], players_only: int | None):
    for name in names:
        rules = engine.get(name)
        for players in range(rules.min_players, rules.max_players + 1):
            if players_only is None or players == players_only:
                for preset in rules.option_presets():
                    yield name, rules, players, preset


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", action="append", help="only this game (repeatable)")
    parser.add_argument("--games", type=int, default=50, help="seeded games per configuration")
    parser.add_argument("--players", type=int, help="only this player count")
    args = parser.parse_args()
    for name, rules, players, preset in configurations(args.game or engine.names(), args.players):
        tally = Tally()
        options = rules.check_options(preset)
        for index in range(args.games):
            play_game(rules, players, options, index, tally)
        key = f"{name}_{players}p_{label(preset)}"
        print(f"{key}_decisions_per_game: {statistics.mean(tally.decisions):.0f} decisions")
        print(f"{key}_turns_per_game: {statistics.mean(tally.turns):.0f} turns")
        print(f"{key}_mails_per_player: {statistics.mean(tally.mails):.1f} mails")
        print(f"{key}_roundtrips_per_turn_mean: {statistics.mean(tally.per_turn):.2f} roundtrips")
        print(f"{key}_roundtrips_per_turn_p50: {percentile(tally.per_turn, 0.5):.0f} roundtrips")
        print(f"{key}_roundtrips_per_turn_p90: {percentile(tally.per_turn, 0.9):.0f} roundtrips")
        print(f"{key}_days_per_game: {statistics.mean(tally.days):.0f} days")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
