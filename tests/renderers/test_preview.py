"""The picture of a move's preview that stopped before a draw or a roll (issue 31, item 4).

Such a position has nobody to move; its picture must not call the game over, and must say in
its header what comes only with the move itself, in the viewer's language.
"""

from __future__ import annotations

import pytest

import engine
import renderers
from engine.core import STOPPED_BEFORE
from tests.renderers.games import GAMES, play

# What the header says first, by what the preview stopped before (Tongiaki: a fleet waiting or not).
SAYS = {
    ("discovery", "draw"): "Preview: after this move the turn ends; the next tile is drawn only when the move is "
                           "played.",
    ("tongiaki", "draw", True): "Preview: the fleet [",
    ("tongiaki", "draw", False): "Preview: a tile is drawn for ",
    ("tapaono", "draw"): "Preview: a command card is drawn only when the move is played.",
    ("tapaono", "roll"): "Preview: the die for piece ",
}


def stopped_views(title: str) -> dict:
    """One stopped preview's view (for the seat to move) of each kind met in the title's test games."""
    rules = engine.get(title)
    found = {}
    for players, options, seed in GAMES[title]:
        for state, _ in play(title, players, options, seed)[::3]:
            seat = rules.to_move(state)
            if seat is None:
                continue
            for move in rules.legal_moves(state):
                preview = rules.preview(state, move)
                if preview.stopped:
                    view = rules.view(preview.state, seat)
                    kind = (title, preview.chance) + ((bool(view[STOPPED_BEFORE]["ships"]),)
                                                      if title == "tongiaki" else ())
                    found.setdefault(kind, view)
    return found


@pytest.mark.parametrize("title", sorted(GAMES))
def test_31_4_a_stopped_preview_is_drawn_and_says_the_rest_comes_with_the_move(title):
    found = stopped_views(title)
    assert set(found) == {kind for kind in SAYS if kind[0] == title}, "a kind of stop was not met"
    for kind, view in found.items():
        png = renderers.render(title, view)
        assert png.startswith(b"\x89PNG")
        legend = renderers.legend(title, view)
        assert legend["lines"][0].startswith(SAYS[kind]), legend["lines"]
        assert "game over" not in legend["title"] and "The game is over." not in legend["lines"]
        assert not any(row["to_move"] for row in legend["players"])


class Upper:
    """A stand-in language whose every sentence is the English in capitals: what a catalogue would give."""

    def gettext(self, message, **values):
        return (message % values if values else message).upper()

    def ngettext(self, singular, plural, num, **values):
        return self.gettext(singular if num == 1 else plural, num=num, **values)


@pytest.mark.parametrize("title", sorted(GAMES))
def test_31_4_the_preview_words_follow_the_viewers_language(title):
    for kind, view in stopped_views(title).items():
        assert renderers.legend(title, view, texts=Upper())["lines"][0].startswith(SAYS[kind].upper())
