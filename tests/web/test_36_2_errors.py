"""Issue 36 item 2: a refusal where the eye is, in Chromium at 1280x800 and 390x844.

An illegal typed move is refused beside the field (in the viewport, right under it), announced
(role=alert, the field's aria-describedby), and the typed text stays for correction; a turn confirmed
from a page the game has left is refused beside Confirm, nothing of it applied, and the board is then
the position the refusal speaks of. The script's words are the page's (#ui-text), not English literals.
"""

from __future__ import annotations

import pytest

import engine
from pbem import games
from tests.web.conftest import make_user
from tests.web.test_36_1_build_turn import TAPAONO, a_turn, add_step, keys_of, state_of

pytest.importorskip("playwright")
from tests.web.test_browser import (  # noqa: E402 - the browser fixtures and helpers of the suite's browser tests
    DESKTOP, PHONE, browser, check_accessibility, log_in, new_page, server,
)

__all__ = ["browser", "server"]
SIZES = {"desktop": DESKTOP, "phone": PHONE}
NEXT_TO_PX = 48  # "beside the field": the message starts at most this far below the field's row


def tapaono_page(db, browser, server, size):
    """A running Tapaono game of Ana and Ben, and the page of the player to move: (game id, user id, page, rules)."""
    ana_id, ben_id = make_user(db, "ana@example.org", "Ana"), make_user(db, "ben@example.org", "Ben")
    game_id = games.create_game(db, "tapaono", ana_id, 2, TAPAONO)
    games.join_game(db, game_id, ben_id, seed=5)
    mover = ana_id if games.view(db, game_id, ana_id)["legal_moves"] else ben_id
    page = new_page(browser, SIZES[size])
    log_in(page, server, "ana@example.org" if mover == ana_id else "ben@example.org")
    page.goto(f"{server}/games/{game_id}")
    return game_id, mover, page, engine.get("tapaono")


def in_viewport(page, box) -> bool:
    view = page.viewport_size
    return box["y"] >= 0 and box["y"] + box["height"] <= view["height"] and box["x"] >= 0 and \
        box["x"] + box["width"] <= view["width"]


def ends_with_the_pages_words(page, text):
    """The refusal closes with the page's own "Nothing was changed." (#ui-text), as the reader's language has it."""
    said = page.evaluate("() => JSON.parse(document.getElementById('ui-text').textContent).nothing_changed")
    assert said and text.endswith(said), text


@pytest.mark.full  # a browser test: in make test-full, which CI runs too (issue 32 item 5)
@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_36_2_an_illegal_typed_move_is_refused_beside_the_field_and_the_text_stays(size, server, browser, db):
    game_id, mover, page, rules = tapaono_page(db, browser, server, size)
    typed = "move 9 0,0"
    field = page.locator("#move-text")
    field.scroll_into_view_if_needed()
    field.fill(typed)
    field.press("Enter")
    error = page.locator("#move-error")
    error.wait_for()
    assert error.get_attribute("role") == "alert"
    assert field.get_attribute("aria-describedby") == "move-error" and field.get_attribute("aria-invalid") == "true"
    assert field.input_value() == typed  # kept for correction
    at_field, at_error = field.bounding_box(), error.bounding_box()
    assert in_viewport(page, at_error) and in_viewport(page, at_field)
    assert 0 <= at_error["y"] - (at_field["y"] + at_field["height"]) <= NEXT_TO_PX, (at_field, at_error)
    assert abs(at_error["x"] - at_field["x"]) <= page.viewport_size["width"] / 2
    ends_with_the_pages_words(page, error.inner_text())
    assert page.locator("#move-error-box").inner_text() == ""  # not at the top of the page, far from the eye
    # The board is the position the refusal speaks of: the game's own, nothing applied.
    assert page.locator("#board-img").get_attribute("src").startswith(f"/games/{game_id}/board/0.png")
    assert keys_of(db, game_id) == []
    check_accessibility(page, f"a refused typed move, {size}")
    # Corrected, the same field takes it (its Play button this time), and the refusal goes away.
    state = state_of(db, game_id)
    good = rules.notation(state, rules.legal_moves(state)[0])
    field.fill(good)
    page.click("#play")
    page.wait_for_function("() => document.querySelectorAll('#turn-steps li').length === 1")
    assert page.locator("#move-error").count() == 0
    assert not page.script_errors, page.script_errors
    page.context.close()


@pytest.mark.full  # a browser test: in make test-full, which CI runs too (issue 32 item 5)
@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_36_2_a_stale_turn_is_refused_beside_confirm_and_the_board_is_brought_up_to_date(size, server, browser,
                                                                                          db):
    game_id, mover, page, rules = tapaono_page(db, browser, server, size)
    steps = a_turn(rules, state_of(db, game_id))
    add_step(page, steps[0], 1)
    add_step(page, steps[1], 2)
    games.submit(db, game_id, steps[0], user_id=mover, source="api")  # the game moves on through another door
    confirm = page.locator("#turn-confirm")
    confirm.scroll_into_view_if_needed()
    at_confirm = confirm.bounding_box()
    confirm.click()
    error = page.locator("#move-error")
    error.wait_for()
    assert "Stale position" in error.inner_text() and error.get_attribute("role") == "alert"
    ends_with_the_pages_words(page, error.inner_text())
    at_error = error.bounding_box()
    assert in_viewport(page, at_error)
    assert abs(at_error["y"] - at_confirm["y"]) <= page.viewport_size["height"] / 2  # where Confirm was
    assert page.locator("#turn").is_visible()
    # Nothing of the stale turn was applied, and the page shows the game as it is now (move 1 played).
    assert [n for n, _ in keys_of(db, game_id)] == [steps[0]]
    page.wait_for_selector('#status[data-version="1"]', state="attached")
    assert page.locator("#board-img").get_attribute("src").startswith(f"/games/{game_id}/board/1.png")
    check_accessibility(page, f"a refused stale turn, {size}")
    assert not page.script_errors, page.script_errors
    page.context.close()
