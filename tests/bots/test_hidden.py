"""A bot never reads what its seat cannot see (issue 37, item 1): the contract test, for every title.

Two states that differ only in what the seat to move cannot see (the state and
`resample_hidden(state, seat, s)`: another pile order, other hidden hands, another seed for the
dice) must get the same move from a bot with the same seed. That holds because the search hands
the real state to `resample_hidden` only and the engines re-draw the hidden things from what the
seat sees and the seed alone, which the first test checks. The last test shows that the contract
test would catch a bot that peeks: one that plays its playouts from the real state chooses
differently in some of the same pairs.
"""

from __future__ import annotations

import pytest

import bots
import engine
from engine.core import derive_seed

from tests.bots.positions import configurations, label, positions

CONFIGURATIONS = configurations()
LEVEL = bots.Level("test", playouts=16, turns=1, seconds=None)  # playouts only: no clock in a test


def pairs(name, players, preset, count=6):
    """(state, a state its seat to move cannot tell from it but which differs) for positions of the title."""
    rules = engine.get(name)
    found = []
    for index, state in enumerate(positions(name, players, preset, count, salt="hidden")):
        seat = rules.to_move(state)
        other = rules.resample_hidden(state, seat, derive_seed(index, "other"))
        if rules.state_hash(other) != rules.state_hash(state):  # something hidden is left to differ
            found.append((state, other))
    return found


@pytest.mark.parametrize("configuration", CONFIGURATIONS, ids=label)
def test_37_1_resampling_depends_only_on_what_the_seat_sees(configuration):
    """What a bot's playouts start from is the same for two states its seat cannot tell apart."""
    name, players, preset = configuration
    rules = engine.get(name)
    checked = 0
    for state, other in pairs(name, players, preset):
        seat = rules.to_move(state)
        assert rules.view(other, seat) == rules.view(state, seat)
        for seed in (1, 2**63 + 5):
            assert (rules.state_hash(rules.resample_hidden(state, seat, seed))
                    == rules.state_hash(rules.resample_hidden(other, seat, seed)))
        checked += 1
    assert checked, f"no position of {label(configuration)} has anything hidden"


@pytest.mark.parametrize("name", engine.names())
def test_37_1_a_bot_chooses_the_same_move_whatever_its_seat_cannot_see(name):
    """The contract test of issue 37: the same seed, two states that differ only in what the seat
    cannot see, the same choice; for every title, each option preset, at its fewest players."""
    rules = engine.get(name)
    checked = 0
    for preset in rules.option_presets():
        for index, (state, other) in enumerate(pairs(name, rules.min_players, preset, count=4)):
            seed = derive_seed(index, "bot")
            assert bots.choose(rules, state, LEVEL, seed).move == bots.choose(rules, other, LEVEL, seed).move, (
                f"{name} {preset}: the choice depends on what seat {rules.to_move(state)} cannot see")
            checked += 1
    assert checked >= 4


class Peeking:
    """The rules of a title as a cheating bot would use them: its 'resampling' returns the real state."""

    def __init__(self, rules):
        self.rules = rules

    def __getattr__(self, attribute):
        return getattr(self.rules, attribute)

    def resample_hidden(self, state, seat, seed):
        return state


@pytest.mark.parametrize("name", engine.names())
def test_37_1_the_contract_test_catches_a_bot_that_peeks(name):
    """A bot that plays its playouts from the real state (sees the pile, the hands, the dice to come)
    chooses differently in at least one of the pairs the contract test uses: the test can fail."""
    rules = engine.get(name)
    peeking = Peeking(rules)
    differ = 0
    for preset in rules.option_presets():
        for index, (state, other) in enumerate(pairs(name, rules.min_players, preset, count=4)):
            seed = derive_seed(index, "bot")
            differ += bots.choose(peeking, state, LEVEL, seed).move != bots.choose(peeking, other, LEVEL, seed).move
    assert differ > 0
