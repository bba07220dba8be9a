"""Playing by clicking the picture: every place a legal move names is a region, and clicking its places leads to it.

The game page offers, after clicks on some regions, the legal moves that name every clicked
region (`renderers.targets`); these tests walk every position of seeded real games and check
that each legal move is reached that way, and that only moves naming no place at all
(Tongiaki's settle, Discovery's pass, Tapaono's end, keep, accept ...) are left to buttons.
"""

from __future__ import annotations

import pytest

import engine
import renderers
from tests.renderers.games import GAMES, play, registered

CASES = [(title, *game) for title, games in GAMES.items() for game in games]
# First words of the moves that name no place on the board: the page offers them as buttons only.
PLACELESS = {"tongiaki": {"settle"}, "discovery": {"pass"},
             "tapaono": {"end", "keep", "use", "stop", "skip", "accept", "decline", "propose", "take"}}


@pytest.mark.parametrize("title,players,options,seed", CASES, ids=[f"{c[0]}-{c[3]}" for c in CASES])
def test_every_legal_move_is_reached_by_clicking_the_places_it_names(title, players, options, seed):
    assert registered(title)
    rules = engine.get(title)
    checked = placeless = 0
    for state, _ in play(title, players, options, seed):
        seat = rules.to_move(state)
        if seat is None:
            continue
        view = {**rules.view(state, seat), "player_names": [f"P{i}" for i in range(players)]}
        regions = {r["target"] for r in renderers.regions(title, view)}
        moves = [rules.notation(state, m) for m in rules.legal_moves(state)]
        named = {m: set(renderers.targets(title, view, m)) for m in moves}
        for move, places in named.items():
            if not places:
                assert move.split()[0] in PLACELESS[title], f"{move!r} names no place on the board"
                if title == "tapaono" and move.startswith("take"):
                    assert move == "take none"
                placeless += 1
                continue
            assert places <= regions, f"{move!r}: {sorted(places - regions)} are not on the picture"
            offered = [m for m in moves if places <= named[m]]
            assert move in offered  # the clicks on its places offer it, among moves naming the same places
            if title != "tapaono":  # a Tapaono piece and field can be named by a move and by a longer one
                assert all(len(named[m]) >= len(places) for m in offered)
            checked += 1
    assert checked > 0 and checked > placeless


def test_targets_are_the_places_moves_write():
    tongiaki = engine.get("tongiaki")
    state = tongiaki.setup(2, {}, 1)
    view = tongiaki.view(state, 0)
    assert renderers.targets("tongiaki", view, "place Tonga 3") == ["Tonga 3"]
    assert renderers.targets("tongiaki", view, "expand Tonga 1 3 from Tonga 2") == ["Tonga 1", "Tonga 3", "Tonga 2"]
    assert renderers.targets("tongiaki", view, "emigrate Tonga 2 NE") == ["Tonga 2 NE", "Tonga 2"]
    assert renderers.targets("tongiaki", view, "tile Tonga SE") == ["Tonga SE"]
    assert renderers.targets("tongiaki", view, "settle") == []
    discovery = engine.get("discovery").view(engine.get("discovery").setup(2, {}, 1), 0)
    assert renderers.targets("discovery", discovery, "place -1,2 90") == ["-1,2"]
    assert renderers.targets("discovery", discovery, "place #17 0,1 180") == ["0,1", "#17"]
    assert renderers.targets("discovery", discovery, "remove 0,0 E+W") == ["0,0 E+W"]
    assert renderers.targets("discovery", discovery, "deploy N+E") == ["N+E"]
    tapaono = engine.get("tapaono").view(engine.get("tapaono").setup(2, {}, 1), 0)
    assert renderers.targets("tapaono", tapaono, "move 2 -1,3") == ["piece 2", "-1,3"]
    assert renderers.targets("tapaono", tapaono, "play conquer-three 2,0 1,0 3,0 2,1") == ["2,0", "1,0", "3,0", "2,1"]
    assert renderers.targets("tapaono", tapaono, "end") == []


@pytest.mark.parametrize("title", sorted(GAMES))
def test_size_and_legend_match_the_picture(title):
    rules = engine.get(title)
    players, options, seed = GAMES[title][0]
    positions = play(title, players, options, seed)
    for state, _ in (positions[0], positions[len(positions) // 2], positions[-1]):
        view = {**rules.view(state, rules.to_move(state)), "player_names": ["Ada", "Bo", "Cy", "Di", "Ed"][:players]}
        assert renderers.size(title, view) == renderers.draw(title, view).size
        legend = renderers.legend(title, view)
        assert [p["seat"] for p in legend["players"]] == list(range(players))
        assert [p["colour"] for p in legend["players"]] == list(view["colours"])
        assert all(p["label"].startswith(name) for p, name in zip(legend["players"], ["Ada", "Bo", "Cy", "Di", "Ed"]))
        assert sum(p["to_move"] for p in legend["players"]) == (rules.to_move(state) is not None)
