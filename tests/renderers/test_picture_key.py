"""renderers.picture_key: views with the same key give the same picture, so a service draws a board
once for every seat that sees it as a spectator does (issue 22)."""

from __future__ import annotations

import random

import pytest

import engine
import renderers

TITLES = [t for t in ("tongiaki", "discovery", "tapaono") if t in engine.names()]


def positions(title: str, players: int, options: dict, games: int = 2, every: int = 17):
    rules = engine.get(title)
    for game in range(games):
        state = rules.setup(players, rules.check_options(options), 100 + game)
        chooser = random.Random(game)
        step = 0
        while rules.to_move(state) is not None:
            if step % every == 0:
                yield state
            state = rules.apply(state, chooser.choice(rules.legal_moves(state)))
            step += 1
        yield state


@pytest.mark.parametrize("title", TITLES)
def test_the_same_key_draws_the_same_picture(title):
    rules = engine.get(title)
    players = 2 if title == "tapaono" else 3
    shared = 0
    for state in positions(title, players, {}):
        spectator = rules.view(state, None)
        for seat in range(players):
            view = rules.view(state, seat)
            if renderers.picture_key(title, view) == renderers.picture_key(title, spectator):
                assert renderers.render(title, view) == renderers.render(title, spectator)
                shared += 1
    assert shared > 0  # the seats of these games see the spectator's board: one drawing serves them


def test_a_seat_with_hidden_tiles_has_a_picture_of_its_own():
    """Discovery's double-tile variant: a seat's own hidden tiles are drawn, so its key differs."""
    rules = engine.get("discovery")
    differing = 0
    for state in positions("discovery", 3, {"double": True}, games=1, every=7):
        spectator_key = renderers.picture_key("discovery", rules.view(state, None))
        for seat in range(3):
            view = rules.view(state, seat)
            if view.get("hand"):
                assert renderers.picture_key("discovery", view) != spectator_key
                differing += 1
    assert differing > 0
