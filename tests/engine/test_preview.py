"""Previews of moves (issue 31, item 4): a preview never crosses a draw or a roll.

A player may see the position a move leads to before playing it (`rules.preview`). Generic over
every registered game: at positions of seeded random games, for every legal move of the seat to
move, the preview of that move is the same whatever that seat cannot see (`resample_hidden`), so
it holds no fact the seat's own view of the position does not hold beyond the move's own
effect; a preview that needs no chance is exactly `apply`; one that stopped is a position
nobody moves from, whose view says what comes next. Then the case of the issue itself:
Discovery's placement that leaves only a pass, whose preview showed the next tile.
"""

from __future__ import annotations

import json
import os

import pytest

import engine
from engine.core import DRAW, REVEAL, ROLL, STOPPED_BEFORE, IllegalMove, Preview, canonical_json, derive_seed
from engine.discovery.position import build_position

from .test_contract import CONFIGS, _mutations, play_random

# Positions checked per configuration, evenly spread over one seeded random game: with the suite's
# default (PBEM_PLAYOUTS=2000) 20, while working (PBEM_PLAYOUTS=100) 8. Each costs a preview of every
# legal move and of the same move in RESAMPLES re-drawn positions.
PLAYOUTS = int(os.environ.get("PBEM_PLAYOUTS", "2000"))
POSITIONS = int(os.environ.get("PBEM_PREVIEW_POSITIONS", str(max(8, PLAYOUTS // 100))))
RESAMPLES = 2


def check_previews(rules, players, options, index) -> None:
    """The preview contract for every legal move at POSITIONS positions spread over one random game."""
    _, moves, seed = play_random(rules, players, options, index)
    picked = {round(i * (len(moves) - 1) / max(1, POSITIONS - 1)) for i in range(POSITIONS)}
    state = rules.setup(players, options, seed)
    for number, played in enumerate(moves):
        if number in picked:
            _check_position(rules, state, rules.legal_moves(state), seed, number)
        state = rules.apply(state, played)


def _check_position(rules, state, legal, seed, number):
    """At one position: every legal move's preview against the resampled positions', and what it is."""
    seat = rules.to_move(state)
    before = rules.state_hash(state)
    others = [rules.resample_hidden(state, seat, derive_seed(seed, f"preview-{number}-{k}"))
              for k in range(RESAMPLES)]
    for move in legal:
        preview = rules.preview(state, move)
        assert isinstance(preview, Preview) and preview.chance in (None, DRAW, ROLL, REVEAL)
        view = rules.view(preview.state, seat)
        # What the seat cannot see does not change the preview: not its picture, not where it stops.
        for other in others:
            again = rules.preview(other, move)
            assert again.chance == preview.chance, (
                f"the preview of {move} stops {'' if preview.stopped else 'not '}before chance, but not "
                f"when only what seat {seat} cannot see is re-drawn")
            assert rules.view(again.state, seat) == view, (
                f"the preview of {move} shows seat {seat} something it cannot see before the move")
        text = canonical_json(view)
        assert f"{seed:x}" not in text and str(seed) not in text, "a preview shows the seed"
        if not preview.stopped:  # no chance on the way: exactly what the move does
            assert rules.state_hash(preview.state) == rules.state_hash(rules.apply(state, move))
            assert STOPPED_BEFORE not in view
        else:  # stopped: a picture to look at, never a position to play from
            assert view[STOPPED_BEFORE]["chance"] == preview.chance
            assert rules.to_move(preview.state) is None and rules.legal_moves(preview.state) == []
            assert rules.result(preview.state) is None
            with pytest.raises(IllegalMove) as error:
                rules.apply(preview.state, legal[0])
            assert str(error.value).strip()
            json.dumps(view)
    for bad in _mutations(legal[0]):  # a preview refuses what apply refuses
        if bad not in legal:
            with pytest.raises(IllegalMove):
                rules.preview(state, bad)
    assert rules.state_hash(state) == before, "a preview changed the state it was given"


@pytest.mark.parametrize("name,players,preset", CONFIGS)
def test_31_4_a_preview_shows_only_what_the_player_to_move_may_see(name, players, preset):
    rules = engine.get(name)
    options = rules.check_options(preset)
    check_previews(rules, players, options, 300_000)


def test_31_4_every_title_stops_its_previews_before_its_draws_and_rolls():
    """The checks above must meet the stops they are about: each title's draws (and Tapaono's rolls)."""
    expected = {"tongiaki": {DRAW}, "discovery": {DRAW}, "tapaono": {DRAW, ROLL}}
    for name, chances in expected.items():
        rules = engine.get(name)
        seen: set = set()

        def stops(state, legal, seed):
            seen.update(rules.preview(state, move).chance for move in legal)
            return state

        play_random(rules, 2, rules.check_options({}), 300_000, stops)
        assert seen - {None} == chances, f"{name}: previews stopped before {sorted(seen - {None})}, not {chances}"


# ---------------------------------------------------------------------------------------
# The case of the issue: Discovery's placement that leaves only a pass


def _placement_that_leaves_only_a_pass():
    """Seat 1 holds tile 7 (all mountain); on -1,1 it joins the mountain where seat 0's brigand stands,
    and seat 1 has no follower out: the engine passes for it, the turn ends and tile 50 is drawn."""
    rules = engine.get("discovery")
    state = build_position(2, [(9, 0, 1, 270)], [(0, 0, 1, "N+E+W")], to_move=1, current=7, deck=(3, 50))
    return rules, state, rules.parse(state, "place -1,1 0")


def test_31_4_the_preview_of_a_placement_that_leaves_only_a_pass_does_not_show_the_next_tile():
    rules, state, place = _placement_that_leaves_only_a_pass()
    played = rules.apply(state, place)
    assert rules.view(played, 0)["drawn"]["tile"] == 50  # playing it draws tile 50: the preview must not show it
    preview = rules.preview(state, place)
    view = rules.view(preview.state, 1)
    assert preview.stopped and preview.chance == DRAW
    assert view[STOPPED_BEFORE] == {"chance": "draw"}
    assert view["drawn"] is None and view["to_move"] is None and view["legal_moves"] is None
    assert view["tiles_left"] == 2 and view["removed"] == []  # nothing drawn, nothing thrown out (D8)
    assert view["last_move"]["move"] == "place -1,1 0"
    assert view["events"] == [{"event": "auto", "seat": 1, "move": "pass"}]  # the engine's pass is shown
    assert [(t["x"], t["y"], t["tile"]) for t in view["board"]] == [(0, 0, 24), (0, 1, 9), (-1, 1, 7)]
    # Another pile gives the same preview: it holds nothing of the pile.
    for deck in ((50, 3), (12, 60)):
        other = build_position(2, [(9, 0, 1, 270)], [(0, 0, 1, "N+E+W")], to_move=1, current=7, deck=deck)
        assert rules.view(rules.preview(other, place).state, 1) == view
    # With the pile empty nothing is drawn: the preview goes on to the end of the game, as apply does.
    other = build_position(2, [(9, 0, 1, 270)], [(0, 0, 1, "N+E+W")], to_move=1, current=7, deck=())
    last = rules.preview(other, place)
    assert not last.stopped and rules.state_hash(last.state) == rules.state_hash(rules.apply(other, place))
    assert rules.view(last.state, 1)["phase"] == "over"


def test_31_4_a_placement_with_a_choice_after_it_previews_as_it_plays():
    rules, state, _ = _placement_that_leaves_only_a_pass()
    place = rules.parse(state, "place -1,0 0")  # far from the brigand: seat 1 may deploy, so nothing is drawn yet
    preview = rules.preview(state, place)
    assert not preview.stopped
    assert rules.state_hash(preview.state) == rules.state_hash(rules.apply(state, place))
    assert rules.to_move(preview.state) == 1 and "pass" in [rules.notation(preview.state, m)
                                                           for m in rules.legal_moves(preview.state)]
    # The turn goes on from the preview: the follow-up previews (and stops) from there.
    follow = rules.preview(preview.state, rules.parse(preview.state, "pass"))
    assert follow.stopped and rules.view(follow.state, 1)["drawn"] is None


def test_31_4_a_stopped_preview_keeps_through_json_and_apply_is_unchanged():
    rules, state, place = _placement_that_leaves_only_a_pass()
    stopped = rules.preview(state, place).state
    again = rules.state_from_json(json.loads(canonical_json(rules.state_to_json(stopped))))
    assert rules.view(again, 1) == rules.view(stopped, 1) and rules.to_move(again) is None
    assert "chance" not in rules.state_to_json(rules.apply(state, place))  # a game's states never hold it
    with pytest.raises(IllegalMove, match="preview"):
        rules.parse(stopped, "place 1,0 0")
