"""Issue 36 item 1: a turn built on the game page, step by step with Undo, then confirmed as one submission.

The page builds the steps with the engine's preview (`GET /games/<id>/turn`: never past a draw or a
roll), and Confirm (`POST /games/<id>/turn`) plays them as mail plays the lines of one mail; a page
whose position the game has left is refused as a whole. Tapaono: a turn is moves, then `roll` or
`end`, then a proposal (which hands the turn to the other player) or `end`.

The browser test builds a Tapaono turn in Chromium at both sizes, with two undos, and confirms it.
"""

from __future__ import annotations

import json
import re

import pytest
from sqlalchemy import select

import engine
from pbem import games
from pbem.models import Game, MoveRecord
from tests.web.conftest import make_user
from tests.web.test_game_pages import move_count, move_form

TAPAONO = {"mode": "free", "markers": 3, "stars_to_win": 1}


def tapaono(db, players) -> tuple[int, object, object]:
    """A running two-player Tapaono game of Ana and Ben: (game id, the player to move, the rules)."""
    ana, ben, _ = players
    game_id = games.create_game(db, "tapaono", ana.id, 2, TAPAONO)
    games.join_game(db, game_id, ben.id, seed=5)
    mover = next(p for p in (ana, ben) if games.view(db, game_id, p.id)["legal_moves"])
    return game_id, mover, engine.get("tapaono")


def state_of(db, game_id):
    with db.sessions() as s:
        game = s.get(Game, game_id)
        return games.rules_of(game).state_from_json(json.loads(game.state))


def a_turn(rules, state) -> list[str]:
    """A whole turn of the seat to move with no chance in it: a move, then `end`, then a proposal."""
    seat, steps = rules.to_move(state), []
    while rules.to_move(state) == seat:
        legal = [rules.notation(state, m) for m in rules.legal_moves(state)]
        word = "move" if not steps else "end" if steps[-1].startswith("move") else "propose"
        steps.append(next(m for m in legal if m.startswith(word)))
        state = rules.preview(state, rules.parse(state, steps[-1])).state
    return steps


def confirm(client, game_id, steps, **override):
    text, fields = move_form(client, game_id)
    data = {"csrf_token": fields["csrf_token"], "expected_version": fields["expected_version"], "key": fields["key"],
            "step": steps}
    data.update(override)
    return client.post(f"/games/{game_id}/turn", data=data, headers={"Accept": "application/json"}), fields


def keys_of(db, game_id) -> list[tuple[str, str | None]]:
    with db.sessions() as s:
        return [(r.notation, r.idempotency_key) for r in
                s.scalars(select(MoveRecord).where(MoveRecord.game_id == game_id).order_by(MoveRecord.seq))]


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_36_1_steps_are_built_with_the_preview_and_stop_at_a_roll(db, players):
    """Each step is played by the engine's preview: the page's part shows the steps with Undo and Confirm,
    nothing is applied, and once a step reaches a roll no further step is taken."""
    game_id, mover, rules = tapaono(db, players)
    state = state_of(db, game_id)
    first = rules.notation(state, rules.legal_moves(state)[0])
    answer = mover.client.get(f"/games/{game_id}/turn?version=0&step={first}", headers={"Accept": "application/json"})
    assert answer.status_code == 200, answer.get_data(as_text=True)
    built = answer.get_json()
    assert built["steps"] == [first] and not built["stopped"] and not built["over"]
    assert 'id="turn-confirm"' in built["html"] and 'data-undo="0"' in built["html"]
    after = rules.preview(state, rules.parse(state, first)).state
    offered = json.loads(re.search(r'id="moves-data">(.*?)</script>', built["html"]).group(1))
    assert offered == [rules.notation(after, m) for m in rules.legal_moves(after)]  # the next step's choices
    assert built["picture"].startswith(f"/games/{game_id}/preview.png?move=")
    assert mover.client.get(built["picture"]).status_code == 200  # the board as the steps leave it
    assert move_count(db, game_id) == 0  # building plays nothing
    # A roll stops the turn being built: the die is rolled only when the turn is confirmed.
    steps = [first]
    while not any(m.startswith("roll") for m in offered):
        steps.append(offered[0])
        offered = mover.client.get(f"/games/{game_id}/turn", query_string={"version": 0, "step": steps},
                                   headers={"Accept": "application/json"}).get_json()
        offered = json.loads(re.search(r'id="moves-data">(.*?)</script>', offered["html"]).group(1))
    roll = next(m for m in offered if m.startswith("roll"))
    stopped = mover.client.get(f"/games/{game_id}/turn", query_string={"version": 0, "step": [*steps, roll]},
                               headers={"Accept": "application/json"}).get_json()
    assert stopped["stopped"] and 'id="turn-stopped"' in stopped["html"] and 'id="moves-data"' not in stopped["html"]
    more = mover.client.get(f"/games/{game_id}/turn", query_string={"version": 0, "step": [*steps, roll, "end"]},
                            headers={"Accept": "application/json"})
    assert more.status_code == 422 and "confirm it" in more.get_json()["message"]


@pytest.mark.parametrize("db", ["sqlite", "postgresql"], indirect=True)
def test_36_1_a_stale_multi_step_submission_applies_nothing(db, players):
    """A turn confirmed from a page whose position the game has left is refused as a whole: no step is
    applied, the reason names the move the game is at; a step the engine refuses refuses the whole too."""
    game_id, mover, rules = tapaono(db, players)
    steps = a_turn(rules, state_of(db, game_id))
    assert len(steps) >= 3
    text, fields = move_form(mover.client, game_id)
    games.submit(db, game_id, steps[0], user_id=mover.id, source="api")  # the game moves on (another door)
    answer = mover.client.post(f"/games/{game_id}/turn", headers={"Accept": "application/json"},
                               data={**fields, "step": steps})
    assert answer.status_code == 409 and answer.get_json()["ok"] is False
    assert "Stale position" in answer.get_json()["message"]
    assert [n for n, _ in keys_of(db, game_id)] == [steps[0]]  # nothing of the stale turn was applied
    # A fresh page, but its second step is not legal there: nothing is applied either.
    answer, _ = confirm(mover.client, game_id, [steps[1], "move 9 9,9"])
    assert answer.status_code == 422 and answer.get_json()["ok"] is False
    assert [n for n, _ in keys_of(db, game_id)] == [steps[0]]


@pytest.mark.parametrize("db", ["sqlite", "postgresql"], indirect=True)
def test_36_1_a_confirmed_turn_is_one_submission_applied_once(db, players):
    """Confirm plays every step in order under one key (one per step), and the same form twice plays them once."""
    game_id, mover, rules = tapaono(db, players)
    steps = a_turn(rules, state_of(db, game_id))
    answer, fields = confirm(mover.client, game_id, steps)
    assert answer.status_code == 200 and answer.get_json()["played"] == steps
    logged = keys_of(db, game_id)
    assert [n for n, _ in logged] == steps
    assert [k for _, k in logged] == [f"web:{mover.id}:{fields['key']}#{i}" for i in range(len(steps))]
    again = mover.client.post(f"/games/{game_id}/turn", headers={"Accept": "application/json"},
                              data={**fields, "step": steps})  # a double click on Confirm
    assert again.status_code == 200 and again.get_json()["played"] == steps
    assert keys_of(db, game_id) == logged
    assert games.view(db, game_id)["to_move"] != games.view(db, game_id, mover.id)["my_seat"]


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_36_1_without_the_script_the_one_move_form_still_plays(db, players):
    """The turn box is hidden on the page as served (the script shows it); the one-move form posts as before."""
    game_id, mover, rules = tapaono(db, players)
    text, fields = move_form(mover.client, game_id)
    assert re.search(r'<section class="turn-built" id="turn"[^>]* hidden>', text)
    state = state_of(db, game_id)
    move = rules.notation(state, rules.legal_moves(state)[0])
    answer = mover.client.post(f"/games/{game_id}/move", data={**fields, "move": move, "text": ""})
    assert answer.status_code == 303 and [n for n, _ in keys_of(db, game_id)] == [move]


# --- in the browser -------------------------------------------------------------------------------------------

pytest.importorskip("playwright")
from tests.web.test_browser import (  # noqa: E402 - the browser fixtures and helpers of the suite's browser tests
    DESKTOP, PHONE, browser, check_accessibility, log_in, new_page, server,
)

__all__ = ["browser", "server"]


def steps_shown(page) -> list[str]:
    return page.locator("#turn-steps .notation").all_inner_texts()


def add_step(page, move, count):
    """A step by clicking the move's button and the chooser it opens, then the turn box shows `count` steps."""
    page.locator(f'.move-button[value="{move}"]').click()
    page.locator("#chooser").locator(f'button:text-is("{move}")').click()
    page.wait_for_function(f"() => document.querySelectorAll('#turn-steps li').length === {count}")


def undo(page, index, count):
    page.locator(f'.turn-undo[data-undo="{index}"]').click()
    page.wait_for_function(f"() => document.querySelectorAll('#turn-steps li').length === {count}")


@pytest.mark.full  # a browser test: in make test-full, which CI runs too (issue 32 item 5)
@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_36_1_a_tapaono_turn_built_with_two_undos_is_confirmed_as_one_submission(size, server, browser, db):
    """Click a move, undo it, click another, `end`, undo that, `end` again, a proposal, Confirm: the log holds
    exactly the kept steps, under one submission's key, and the other player is to move."""
    ana_id, ben_id = make_user(db, "ana@example.org", "Ana"), make_user(db, "ben@example.org", "Ben")
    game_id = games.create_game(db, "tapaono", ana_id, 2, TAPAONO)
    games.join_game(db, game_id, ben_id, seed=5)
    mover = ana_id if games.view(db, game_id, ana_id)["legal_moves"] else ben_id
    rules = engine.get("tapaono")
    state = state_of(db, game_id)
    legal = [rules.notation(state, m) for m in rules.legal_moves(state)]
    page = new_page(browser, DESKTOP if size == "desktop" else PHONE)
    log_in(page, server, "ana@example.org" if mover == ana_id else "ben@example.org")
    page.goto(f"{server}/games/{game_id}")
    assert page.locator("#turn").is_hidden()
    add_step(page, legal[0], 1)
    assert "preview.png" in page.locator("#board-img").get_attribute("src")  # the board as the step leaves it
    undo(page, 0, 0)  # first undo: back to the position itself
    assert page.locator("#turn").is_hidden() and "preview.png" not in page.locator("#board-img").get_attribute("src")
    add_step(page, legal[1], 1)
    add_step(page, "end", 2)
    undo(page, 1, 1)  # second undo: the `end`
    add_step(page, "end", 2)
    after = rules.preview(rules.preview(state, rules.parse(state, legal[1])).state, rules.parse(
        rules.preview(state, rules.parse(state, legal[1])).state, "end")).state
    proposal = next(rules.notation(after, m) for m in rules.legal_moves(after)
                    if rules.notation(after, m).startswith("propose"))
    add_step(page, proposal, 3)
    assert steps_shown(page) == [legal[1], "end", proposal]
    assert page.locator("#turn-over").is_visible()  # the proposal hands the turn over: nothing more to add
    assert page.locator("#moves-data").count() == 0
    check_accessibility(page, f"a built turn, {size}")
    for target in page.locator("#turn button").all():
        box = target.bounding_box()
        assert box["width"] >= 24 and box["height"] >= 24
    assert move_count(db, game_id) == 0
    page.click("#turn-confirm")
    page.wait_for_selector('#status[data-version="3"]', state="attached")
    logged = keys_of(db, game_id)
    assert [n for n, _ in logged] == [legal[1], "end", proposal]
    assert len({k.rsplit("#", 1)[0] for _, k in logged}) == 1  # one submission
    assert {m["source"] for m in games.history(db, game_id)} == {"web"}
    assert page.locator("#flashes .flash").inner_text().startswith("You played")
    assert not page.script_errors, page.script_errors
    page.context.close()
