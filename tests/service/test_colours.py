"""Colour choice at the table, on both databases: ask, refuse, free on leave, assign at the start."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import func, select

import engine
from engine.core import Rng, derive_seed
from pbem import games
from pbem.games import archive
from pbem.models import Game, Seat
from tests.service.test_games import SEED, users

TONGIAKI = engine.get("tongiaki").colours  # blue, green, orange, purple, red, yellow


def seats_of(db, game_id):
    with db.sessions() as s:
        return [(x.user_id, x.number, x.colour)
                for x in s.scalars(select(Seat).where(Seat.game_id == game_id).order_by(Seat.number))]


def summary(db, game_id):
    return games.view(db, game_id)


def test_ask_for_a_colour_at_create_and_join_and_see_it_at_the_table(db):
    a, b, c = users(db, 3)
    game_id = games.create_game(db, "tongiaki", a, 4, colour="Red")
    joined = games.join_game(db, game_id, b, colour="yellow")
    assert joined == {"seat": 1, "colour": "yellow", "started": False}
    games.join_game(db, game_id, c)  # no colour: any
    data = summary(db, game_id)
    assert [(x["name"], x["colour"]) for x in data["seats"]] == [("Player 0", "red"), ("Player 1", "yellow"),
                                                                  ("Player 2", None)]
    assert data["free_colours"] == ["blue", "green", "orange", "purple"]


def test_a_colour_asked_for_by_another_player_is_refused_with_the_free_colours(db):
    a, b = users(db, 2)
    game_id = games.create_game(db, "tongiaki", a, 3, colour="blue")
    before = seats_of(db, game_id)
    with pytest.raises(games.GameError) as error:
        games.join_game(db, game_id, b, colour="BLUE")
    assert str(error.value) == (f"Blue is taken at game {game_id}; the free colours are "
                                "green, orange, purple, red, yellow.")
    with pytest.raises(games.GameError, match="Tongiaki has no colour 'pink'; the free colours are green, "):
        games.join_game(db, game_id, b, colour="pink")
    assert seats_of(db, game_id) == before
    with pytest.raises(games.GameError, match="has no colour 'black'"):
        games.create_game(db, "tapaono", a, 2, colour="black")
    with pytest.raises(games.GameError, match="not an option to set"):
        games.create_game(db, "tongiaki", a, 2, {"colours": ["red", "blue"]})
    with db.sessions() as s:
        assert s.scalar(select(func.count()).select_from(Game)) == 1


def test_leaving_frees_the_colour(db):
    a, b, c = users(db, 3)
    game_id = games.create_game(db, "discovery", a, 3)
    games.join_game(db, game_id, b, colour="green")
    with pytest.raises(games.GameError, match="Green is taken"):
        games.join_game(db, game_id, c, colour="green")
    games.leave_game(db, game_id, b)
    assert "green" in summary(db, game_id)["free_colours"]
    assert games.join_game(db, game_id, c, colour="green")["colour"] == "green"


def _table(db, title, asked, seed=SEED):
    """A table of len(asked) players joined in order (asked[i]: player i's colour or None), started with seed."""
    ids = users(db, len(asked))
    game_id = games.create_game(db, title, ids[0], len(asked) + 1, colour=asked[0])
    for user, colour in zip(ids[1:], asked[1:]):
        games.join_game(db, game_id, user, colour=colour)
    games.start_game(db, game_id, ids[0], seed=seed)
    return game_id, ids


def test_at_the_start_askers_keep_their_colours_and_the_rest_follow_the_drawn_seat_order(db):
    game_id, ids = _table(db, "tongiaki", [None, "yellow", None, "blue"])
    order = list(range(4))
    Rng(derive_seed(SEED, "seats")).shuffle(order)   # seat k holds joiner order[k]
    left = iter(["green", "orange", "purple", "red"])  # the free colours in the title's order
    want = [{1: "yellow", 3: "blue"}.get(joiner) or next(left) for joiner in order]
    assert seats_of(db, game_id) == [(ids[joiner], k, want[k]) for k, joiner in enumerate(order)]
    data = summary(db, game_id)
    assert data["options"]["colours"] == want and data["free_colours"] == []
    # The engine plays with them: the view names them, the board picture's source too.
    assert data["board"]["colours"] == want
    assert [s["colour"] for s in data["board"]["seats"]] == want
    assert archive.verify_game(db, game_id) == []


def test_the_assignment_is_determined_by_the_seed(db):
    first, ids = _table(db, "discovery", [None, "purple", None])
    again, ids2 = _table(db, "discovery", [None, "purple", None])
    colours = {user: colour for user, _, colour in seats_of(db, first)}
    assert {user: colour for user, _, colour in seats_of(db, again)} == colours
    assert colours[ids[1]] == "purple"
    other, _ = _table(db, "discovery", [None, "purple", None], seed=SEED + 1)
    by_number = {number: colour for _, number, colour in seats_of(db, other)}
    assert sorted(by_number.values()) == ["blue", "purple", "red"]


def test_without_any_colour_asked_the_game_is_as_before(db):
    game_id, _ = _table(db, "tongiaki", [None, None, None])
    data = summary(db, game_id)
    assert "colours" not in data["options"]
    assert [x["colour"] for x in data["seats"]] == list(TONGIAKI[:3])


def test_chosen_colours_survive_export_import_and_verify(db):
    ids = users(db, 2)
    game_id = games.create_game(db, "counters", ids[0], 2, {"pile": 5}, colour="purple")
    games.join_game(db, game_id, ids[1], colour="orange")
    while games.view(db, game_id)["status"] == "running":
        data = games.view(db, game_id)
        mover = next(x for x in data["seats"] if x["seat"] == data["to_move"])
        user = ids[0] if mover["colour"] == "purple" else ids[1]
        games.submit(db, game_id, "take 1", user_id=user)
    raw = archive.export_bytes(db, game_id)
    exported = json.loads(raw)
    colours = exported["game"]["options"]["colours"]
    assert sorted(colours) == ["orange", "purple"]
    assert [x["colour"] for x in exported["seats"]] == colours
    new_id = archive.import_archive(db, raw)
    assert archive.verify_game(db, new_id) == []
    assert [colour for _, _, colour in seats_of(db, new_id)] == colours
    # A tampered colour list no longer replays: the state hashes name the colours.
    exported["game"]["options"]["colours"] = list(reversed(colours))
    with pytest.raises(archive.ArchiveError):
        archive.import_archive(db, json.dumps(exported).encode())
