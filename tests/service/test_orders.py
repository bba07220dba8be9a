"""Standing orders through the game service (issue 20): queued by their seat, checked when they
arrive, private until used, played as ordinary moves (source "order") when their decision comes,
dropped when the seat's turn ends. The engines' own tests check what each order means (P9, T13,
D9, ...); these check what the service does with them, on a real title."""

from __future__ import annotations

import json
import random

import pytest
from sqlalchemy import select

import engine
from pbem import accounts, games
from pbem.games import archive
from pbem.models import MoveRecord, SeatOrders

def tapaono_table(db):
    """A started two-player Tapaono game (it starts when the second player joins, with a fresh seed);
    returns (game id, user id by seat)."""
    users = [accounts.ensure_user(db, f"o{n}@example.org", f"O{n}") for n in range(2)]
    game_id = games.create_game(db, "tapaono", users[0], 2)
    games.join_game(db, game_id, users[1])
    by_seat = {x["seat"]: None for x in games.view(db, game_id)["seats"]}
    for user in users:
        by_seat[games.view(db, game_id, user)["my_seat"]] = user
    return game_id, [by_seat[0], by_seat[1]]


def play_until(db, game_id, by_seat, wanted, limit=400, chooser=None):
    """Random legal moves through the service until `wanted(state, seat)` holds for the seat to move."""
    chooser = chooser or random.Random(7)
    rules = engine.get("tapaono")
    for _ in range(limit):
        view = games.view(db, game_id)
        seat = view["to_move"]
        assert seat is not None, "the game ended before the position was reached"
        with db.sessions() as s:
            state = games.load_state(games.load_game(s, game_id))
        if wanted(state, seat):
            return state, seat
        moves = games.view(db, game_id, by_seat[seat])["legal_moves"]
        proposals = [m for m in moves if not m.startswith("propose")]
        games.submit(db, game_id, chooser.choice(proposals or moves), user_id=by_seat[seat])
    pytest.fail("the position was not reached")


def can_roll(state, seat) -> bool:
    rules = engine.get("tapaono")
    return any(m.kind == "roll" for m in rules.legal_moves(state))


def log_of(db, game_id) -> list[tuple[str, str]]:
    with db.sessions() as s:
        return [(r.source, r.notation) for r in s.scalars(
            select(MoveRecord).where(MoveRecord.game_id == game_id).order_by(MoveRecord.seq))]


def test_a_standing_order_plays_its_decision_when_it_comes_as_an_ordinary_move(db):
    game_id, by_seat = tapaono_table(db)
    _, seat = play_until(db, game_id, by_seat, can_roll)
    before = len(log_of(db, game_id))
    result = games.add_orders(db, game_id, ["roll all"], user_id=by_seat[seat], key="mail-1#3")
    assert result.played and result.played[0].startswith("roll ")  # a dice decision was due: rolled now
    made = log_of(db, game_id)[before:]
    assert made[0] == ("order", result.played[0])  # logged as an ordinary move, made by an order
    assert all(source in ("order", "auto") for source, _ in made)
    # The log replays from the seed exactly: moves made by orders need nothing but the engine.
    assert archive.verify_game(db, game_id) == []


def test_an_order_that_can_never_apply_is_refused_at_once_and_nothing_is_queued(db):
    game_id, by_seat = tapaono_table(db)
    _, seat = play_until(db, game_id, by_seat, can_roll)
    for text in ("take 2,0 1,0", "take 9,9", "fly to the moon"):
        with pytest.raises(games.IllegalMoveError) as refused:
            games.add_orders(db, game_id, ["roll all", text], user_id=by_seat[seat])
        assert str(refused.value).endswith(".") and len(str(refused.value)) < 200  # one sentence, for a player
    assert games.orders_of(db, game_id, by_seat[seat]) == []
    assert len(log_of(db, game_id)) == games.view(db, game_id)["version"]  # and nothing was played


def test_orders_are_seen_by_their_writer_only_and_die_with_the_turn(db):
    game_id, by_seat = tapaono_table(db)
    # A position where the seat can write an order for later in its round that does not apply now.
    rules = engine.get("tapaono")

    def later_take(state, seat):
        return can_roll(state, seat) and any(o.kind == "take" for o in rules.order_examples(state, seat))

    state, seat = play_until(db, game_id, by_seat, later_take)
    take = next(rules.order_notation(o) for o in rules.order_examples(state, seat) if o.kind == "take")
    result = games.add_orders(db, game_id, [take], user_id=by_seat[seat])
    assert result.played == [] and result.queued == [take]
    assert games.orders_of(db, game_id, by_seat[seat]) == [take]
    assert games.orders_of(db, game_id, by_seat[1 - seat]) == []  # the other player sees their own: none
    outsider = accounts.ensure_user(db, "outsider@example.org")
    with pytest.raises(games.NotAllowedError):
        games.orders_of(db, game_id, outsider)
    for who in (None, by_seat[1 - seat]):  # no view of anyone else shows them
        assert take not in json.dumps(games.view(db, game_id, who))
    # The writer's view offers order forms (the same text may be among them), but holds no queue.
    assert not {"orders", "queued"} & set(games.view(db, game_id, by_seat[seat]))
    # The seat ends its round without rolling: the order never came to apply, and is dropped.
    while games.view(db, game_id)["to_move"] == seat:
        moves = games.view(db, game_id, by_seat[seat])["legal_moves"]
        games.submit(db, game_id, "end" if "end" in moves else moves[0], user_id=by_seat[seat])
    assert games.orders_of(db, game_id, by_seat[seat]) == []
    with db.sessions() as s:
        assert s.scalars(select(SeatOrders).where(SeatOrders.game_id == game_id)).all() == []


def test_the_same_orders_sent_twice_are_queued_once(db):
    game_id, by_seat = tapaono_table(db)
    rules = engine.get("tapaono")
    state, seat = play_until(db, game_id, by_seat, lambda st, seat: can_roll(st, seat) and any(
        o.kind == "take" for o in rules.order_examples(st, seat)))
    take = next(rules.order_notation(o) for o in rules.order_examples(state, seat) if o.kind == "take")
    first = games.add_orders(db, game_id, [take], user_id=by_seat[seat], key="form-1")
    again = games.add_orders(db, game_id, [take], user_id=by_seat[seat], key="form-1")
    assert again.duplicate and not first.duplicate
    assert games.orders_of(db, game_id, by_seat[seat]) == [take]


def test_orders_only_in_ones_own_turn_and_seat(db):
    game_id, by_seat = tapaono_table(db)
    _, seat = play_until(db, game_id, by_seat, can_roll)
    with pytest.raises(games.NotYourTurnError):
        games.add_orders(db, game_id, ["roll all"], user_id=by_seat[1 - seat])
    with pytest.raises(games.StalePositionError):
        games.add_orders(db, game_id, ["roll all"], user_id=by_seat[seat], expected_version=0)
    assert games.cancel_orders(db, game_id, by_seat[seat]) == 0
