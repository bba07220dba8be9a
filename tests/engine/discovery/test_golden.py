"""Golden games: seed, options and moves (as players write them) rebuild the recorded end.

If a change of the rules or of the tile data makes these fail on purpose, bump
`DiscoveryRules.version` and record the games anew.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.engine.discovery.helpers import RULES

GOLDEN = sorted((Path(__file__).parent / "golden").glob("*.json"))


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_golden_game_replays_to_the_recorded_result(path):
    data = json.loads(path.read_text())
    options = RULES.check_options(data["options"])
    state = RULES.setup(data["players"], options, data["seed"])
    for text in data["moves"]:
        state = RULES.apply(state, RULES.parse(state, text))
    result = RULES.result(state)
    assert list(result.scores) == data["scores"] and list(result.ranks) == data["ranks"]
    assert RULES.state_hash(state) == data["state_hash"]


def test_there_are_golden_games():
    assert len(GOLDEN) >= 2
