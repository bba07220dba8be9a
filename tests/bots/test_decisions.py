"""What a bot's decision is (issue 37, item 1): always legal, reproducible from its seed, bounded.

Random positions of every title, option preset and player count (the fewest and the most), and
whole games played by bots from the start to the end. Levels here count playouts only: the time
cap is tested with a clock the test turns by hand.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import bots
import engine
from engine.core import derive_seed

from tests.bots.positions import configurations, label, positions

ROOT = Path(__file__).resolve().parents[2]
SMALL = bots.Level("small", playouts=6, turns=1, seconds=None)


@pytest.mark.parametrize("configuration", configurations(), ids=label)
def test_37_1_a_bot_only_ever_chooses_a_legal_move(configuration):
    name, players, preset = configuration
    rules = engine.get(name)
    for index, state in enumerate(positions(name, players, preset, 6, salt="legal")):
        decision = bots.choose(rules, state, SMALL, derive_seed(index, "legal"))
        assert decision.move in rules.legal_moves(state)
        rules.apply(state, decision.move)  # and the engine takes it
        assert 1 <= decision.playouts <= SMALL.playouts and not decision.capped


@pytest.mark.parametrize("name", engine.names())
def test_37_1_bots_play_a_whole_game_to_its_end(name):
    """Bots at every seat finish a game (the fewest players, default options) within the title's bound."""
    rules = engine.get(name)
    state = rules.setup(rules.min_players, rules.check_options({}), derive_seed(1, "whole game"))
    tiny = bots.Level("tiny", playouts=3, turns=1, seconds=None)
    decisions = 0
    while rules.to_move(state) is not None:
        assert decisions < rules.max_decisions
        state = rules.apply(state, bots.choose(rules, state, tiny, decisions).move)
        decisions += 1
    assert rules.result(state) is not None


@pytest.mark.parametrize("name", engine.names())
def test_37_1_the_same_seed_gives_the_same_decision(name):
    rules = engine.get(name)
    for index, state in enumerate(positions(name, rules.min_players, {}, 4, salt="again")):
        first = bots.choose(rules, state, SMALL, index)
        again = bots.choose(rules, state, SMALL, index)
        assert (first.move, first.playouts, first.steps) == (again.move, again.playouts, again.steps)


DECIDE = """
import json, sys
import bots, engine
from tests.engine import toygame
from tests.bots.positions import positions
engine.register(toygame.TITLE)
level = bots.Level("small", playouts=12, turns=1, seconds=None)
out = {}
for name in engine.names():
    rules = engine.get(name)
    out[name] = [rules.notation(state, bots.choose(rules, state, level, index).move)
                 for index, state in enumerate(positions(name, rules.min_players, {}, 3, salt="processes"))]
print(json.dumps(out))
"""


def test_37_1_a_decision_is_the_same_in_every_process():
    """The worker that plays a bot's turn may be any process: string hashing differs between
    processes (PYTHONHASHSEED), the decisions do not."""
    answers = []
    for hash_seed in ("1", "2"):
        done = subprocess.run([sys.executable, "-c", DECIDE], cwd=ROOT, capture_output=True, text=True, check=True,
                              env={**os.environ, "PYTHONHASHSEED": hash_seed})
        answers.append(json.loads(done.stdout))
    assert answers[0] == answers[1]
    # Every title the site ships, and the suite's counters game (this process may hold other test titles).
    assert set(answers[0]) == {"tongiaki", "discovery", "tapaono", "counters"}
    assert all(len(moves) == 3 for moves in answers[0].values())


def test_37_1_the_time_cap_cuts_a_search_short():
    """A level's time cap ends the search (the service's safety bound): fewer playouts, still a legal move."""
    rules = engine.get("counters")
    state = positions("counters", 2, {}, 1, salt="clock")[0]
    ticks = iter(range(10**6))
    level = bots.Level("capped", playouts=1000, turns=1, seconds=5.0)
    decision = bots.choose(rules, state, level, 7, clock=lambda: float(next(ticks)))
    assert decision.capped and 1 <= decision.playouts < 10
    assert decision.move in rules.legal_moves(state)
    uncapped = bots.choose(rules, state, bots.Level("uncapped", playouts=50, turns=1, seconds=None), 7,
                           clock=lambda: float(next(ticks)))
    assert not uncapped.capped and uncapped.playouts == 50


def test_37_1_a_bot_is_not_asked_where_nobody_is_to_move():
    rules = engine.get("counters")
    state = rules.setup(2, rules.check_options({"pile": 5}), 3)
    while rules.to_move(state) is not None:
        state = rules.apply(state, rules.legal_moves(state)[0])
    with pytest.raises(bots.NoDecisionError):
        bots.choose(rules, state, SMALL, 1)


def test_37_1_levels_are_named_and_grow():
    names = list(bots.LEVELS)
    assert names == ["easy", "medium", "hard"]
    budgets = [bots.level(name).playouts for name in names]
    assert budgets == sorted(budgets) and len(set(budgets)) == 3
    assert all(bots.level(name).seconds for name in names)  # the service always has a time cap
    assert bots.level(" Hard ") is bots.LEVELS["hard"]
    with pytest.raises(bots.UnknownLevelError) as error:
        bots.level("grandmaster")
    assert "grandmaster" in str(error.value) and "easy, medium, hard" in str(error.value)
    with pytest.raises(ValueError):
        bots.Level("none", playouts=0, turns=1, seconds=None)
