"""Information-set Monte Carlo tree search: the one way every bot decides (issue 37, item 1).

The search is single-observer ISMCTS (Cowling, Powley and Whitehouse, "Information Set Monte
Carlo Tree Search", 2012): one tree over the decisions of every seat, grown by playouts that
each start from a fresh determinisation, `rules.resample_hidden(state, seat, seed_i)`, a state
the deciding seat cannot tell apart from the real one. The real state is handed to
`resample_hidden` and to nothing else, so what the seat cannot see (the pile's order, the others'
hands, the seed of the dice) cannot steer the choice: two states the seat cannot tell apart give
the same determinisations (the engines re-draw the hidden things from what the seat sees and the
seed alone) and so the same move for the same seed (tests/bots/test_hidden.py).

A playout descends the tree by UCB1 over the moves that are legal in its determinisation (a
move's "availability" counts the visits in which it could have been chosen), adds one node,
plays on at random for a few turns (`Level.turns`) and scores the position it reaches
(`bots.scoring`): a finished game by its ranks, an unfinished one by who leads. Every seat's
reward is kept, and each node is chosen by the reward of the seat that moves there, so in a game
of three each opponent plays for itself.

Every random choice comes from `random.Random(seed)`: a decision is a function of the seat's
view, the level and the seed, unless the level's time cap cuts the search short (a safety bound
for the service; tests and the strength bench count playouts).

This module knows no title: it uses only the engine contract (`to_move`, `legal_moves`, `apply`,
`result`, `resample_hidden`) and `bots.scoring`. It does no I/O and keeps nothing between decisions.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass
from typing import Any, Callable

from engine.core import Move, Rules

from bots.levels import Level
from bots.scoring import Scorer, scorer_for


# A playout's turn ends after at most this many decisions, if the seat to move has not changed by then
# (Tapaono's longest rounds have about 120, random play ends most far sooner).
DECISIONS_PER_TURN = 60


class NoDecisionError(ValueError):
    """The bot was asked to move where nobody is to move (a finished game, a stopped preview)."""


@dataclass(frozen=True)
class Decision:
    """What a bot chose and what the choice cost.

    move       the legal move chosen
    playouts   playouts run (fewer than the level's when its time cap was reached)
    seconds    wall-clock time of the decision
    steps      engine decisions played inside the search (tree and playouts)
    capped     whether the time cap ended the search before its playouts were done
    """

    move: Move
    playouts: int
    seconds: float
    steps: int
    capped: bool


class _Node:
    """Statistics of one move in the tree: visits, availability, and each seat's summed reward."""

    __slots__ = ("children", "visits", "available", "totals")

    def __init__(self, players: int):
        self.children: dict[Move, _Node] = {}
        self.visits = 0
        self.available = 0
        self.totals = [0.0] * players


def choose(rules: Rules, state: Any, level: Level, seed: int, *,
           clock: Callable[[], float] = time.perf_counter) -> Decision:
    """The move `level`'s bot makes for the seat to move in `state`, with its randomness from `seed`.

    `state` goes to `rules.resample_hidden` only. Raises NoDecisionError when nobody is to move.
    """
    started = clock()
    seat = rules.to_move(state)
    if seat is None:
        raise NoDecisionError("nobody is to move in this position")
    chooser = random.Random(seed)
    scorer = scorer_for(rules)
    first = _determinise(rules, state, seat, chooser)
    legal = rules.legal_moves(first)  # the same as the real state's: legal moves are part of the seat's view
    if len(legal) == 1:
        return Decision(legal[0], 0, clock() - started, 0, False)
    root = _Node(len(rules.scores(first)))
    deadline = None if level.seconds is None else started + level.seconds
    budget = level.budget(len(legal))
    playouts = steps = 0
    capped = False
    determinised = first
    while playouts < budget:
        if deadline is not None and playouts and clock() >= deadline:
            capped = True
            break
        if playouts:
            determinised = _determinise(rules, state, seat, chooser)
        steps += _playout(rules, determinised, root, level, scorer, chooser)
        playouts += 1
    # The most visited move (the usual robust choice); ties go to the better mean, then to the
    # move the engine lists first.
    best = max(legal, key=lambda move: _standing(root.children.get(move), seat))
    return Decision(best, playouts, clock() - started, steps, capped)


def _standing(node: _Node | None, seat: int) -> tuple[int, float]:
    if node is None or not node.visits:
        return (0, 0.0)
    return (node.visits, node.totals[seat] / node.visits)


def _determinise(rules: Rules, state: Any, seat: int, chooser: random.Random) -> Any:
    """A state `seat` cannot tell from `state`, its hidden things re-drawn from a seed of the bot's."""
    return rules.resample_hidden(state, seat, chooser.getrandbits(64))


def _playout(rules: Rules, state: Any, root: _Node, level: Level, scorer: Scorer,
             chooser: random.Random) -> int:
    """One playout from a determinisation: select, expand one node, play on, score, back up.

    Returns the number of engine decisions it played.
    """
    path = [root]
    node = root
    steps = 0
    exploration = level.exploration
    while True:
        mover = rules.to_move(state)
        if mover is None:
            break
        legal = rules.legal_moves(state)
        children = node.children
        untried = [move for move in legal if move not in children]
        for move in legal:
            child = children.get(move)
            if child is not None:
                child.available += 1
        if untried:
            move = untried[chooser.randrange(len(untried))] if len(untried) > 1 else untried[0]
            child = children[move] = _Node(len(root.totals))
            child.available = 1
            state = rules.apply(state, move)
            steps += 1
            path.append(child)
            break
        best_move, best_value = legal[0], -math.inf
        for move in legal:
            child = children[move]
            value = child.totals[mover] / child.visits + exploration * math.sqrt(
                math.log(child.available) / child.visits)
            if value > best_value:
                best_move, best_value = move, value
        node = children[best_move]
        state = rules.apply(state, best_move)
        steps += 1
        path.append(node)
    state, played = _play_on(rules, state, level.turns, chooser)
    steps += played
    rewards = scorer.rewards(rules, state)
    for visited in path:
        visited.visits += 1
        totals = visited.totals
        for index, reward in enumerate(rewards):
            totals[index] += reward
    return steps


def _play_on(rules: Rules, state: Any, turns: int, chooser: random.Random) -> tuple[Any, int]:
    """Play on from `state` at random until `turns` turns have ended (a turn ends when the seat to
    move changes) or the game is over; returns the state and the decisions played.

    A cap on decisions keeps a playout bounded in a game whose turns can be long.
    """
    steps = 0
    mover = rules.to_move(state)
    limit = DECISIONS_PER_TURN * max(turns, 1)
    while mover is not None and turns > 0 and steps < limit:
        legal = rules.legal_moves(state)
        state = rules.apply(state, legal[chooser.randrange(len(legal))])
        steps += 1
        following = rules.to_move(state)
        if following != mover:
            turns -= 1
            mover = following
    return state, steps
