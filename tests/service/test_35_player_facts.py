"""Issue 35 items 2 (a player page) and 6 (who is waiting on whom): the facts of a page as pbem.players.pages
reads them from the database, and who may see a hidden page.

Games are the suite's counters game (`bonus` off: a seat's score is the counters it took, so the moves decide
the places; `take 3, take 3, take 1` from a pile of 7 is a tie for the first place among three).
"""

from __future__ import annotations

from datetime import datetime

import pytest
from sqlalchemy import select, update

from pbem import games
from pbem.models import Game, RatingUpdate, User
from pbem.players import pages, ratings, reliability
from tests.mail.conftest import verified_user
from tests.service.test_35_ratings import OPTIONS, TIE, finished_game, seated


def users(db, *names: str) -> list[int]:
    return [verified_user(db, f"{name}@example.org", name.title()) for name in names]


def running(db, ids: list[int], seed: int = 3) -> tuple[int, list[int]]:
    """A running counters game of these users; returns (game id, user ids by seat)."""
    game_id = games.create_game(db, "counters", ids[0], len(ids), OPTIONS)
    for user_id in ids[1:]:
        games.join_game(db, game_id, user_id, seed=seed)
    return game_id, seated(db, game_id)


def hide(db, user_id: int) -> None:
    pages.set_hidden(db, user_id, True)


def test_35_2_a_page_lists_games_in_play_open_and_finished_with_places_points_and_rating_changes(db):
    ana, ben, cy = users(db, "ana", "ben", "cy")
    tie, by_seat = finished_game(db, [ana, ben, cy], TIE)
    lost, _ = finished_game(db, [ana, ben], ["take 1", "take 3", "take 3"], rated=False)
    play, _ = running(db, [ana, cy])
    table = games.create_game(db, "counters", ana, 3, OPTIONS)

    page = pages.page(db, ana, None)
    assert page.name == "Ana" and page.slug == "ana" and page.languages == ["en"] and page.hidden is False
    with db.sessions() as s:
        assert page.member_since == s.get(User, ana).created_at
        change = s.scalar(select(RatingUpdate.changes).where(RatingUpdate.game_id == tie))[str(ana)]
        result = s.get(Game, tie).result
    assert [g.id for g in page.waiting + page.playing] == [play]
    assert [g.id for g in page.open] == [table] and page.open[0].players[0].name == "Ana"
    assert [g.id for g in page.finished] == [lost, tie] and page.finished_count == 2
    rated = page.finished[1]
    seat = by_seat.index(ana)
    ranks = result["ranks"]
    assert (rated.place, rated.tied, rated.points, rated.rated) == (
        ranks[seat], ranks.count(ranks[seat]) > 1, result["scores"][seat], True)
    assert rated.rating_change == pytest.approx(change["after"][0] - change["before"][0])
    assert [(x.name, x.user_id) for x in rated.players] == [({ana: "Ana", ben: "Ben", cy: "Cy"}[u], u) for u in by_seat]
    unrated = page.finished[0]
    assert unrated.rated is False and unrated.rating_change is None and unrated.place is not None
    assert [r["title"] for r in page.ratings] == ["counters"] and page.ratings[0]["title_name"] == "Counters"
    assert page.ratings[0]["shown"] == ratings.of_user(db, ana)[0]["shown"]
    with db.sessions() as s:
        figures = reliability.of_user(s, ana)
    assert page.reliability == {**figures, "percent": reliability.figure(figures)}


def test_35_2_a_tie_is_told_as_a_shared_place(db):
    ana, ben, cy = users(db, "ana", "ben", "cy")
    tie, by_seat = finished_game(db, [ana, ben, cy], TIE)
    with db.sessions() as s:
        ranks = s.get(Game, tie).result["ranks"]
    for user_id in (ana, ben, cy):
        line = pages.page(db, user_id, None).finished[0]
        seat = by_seat.index(user_id)
        assert line.place == ranks[seat] and line.tied is (ranks.count(ranks[seat]) > 1)
    assert sorted(ranks) == [1, 1, 3]


def test_35_6_the_page_lists_the_games_waiting_for_the_player_since_their_turn_began(db):
    ana, ben = users(db, "ana", "ben")
    game_id, by_seat = running(db, [ana, ben])
    with db.sessions() as s:
        game = s.get(Game, game_id)
        mover, started = by_seat[game.to_move], game.turn_started_at
    other = by_seat[1 - by_seat.index(mover)]
    waiting = pages.page(db, mover, None).waiting
    assert [g.id for g in waiting] == [game_id] and waiting[0].since == started
    assert waiting[0].to_move.user_id == mover
    theirs = pages.page(db, other, None)
    assert theirs.waiting == [] and [g.id for g in theirs.playing] == [game_id]
    assert theirs.playing[0].to_move.user_id == mover and theirs.playing[0].since == started

    games.submit(db, game_id, "take 1", user_id=mover)
    assert pages.page(db, mover, None).waiting == []
    assert [g.id for g in pages.page(db, other, None).waiting] == [game_id]


def test_35_6_the_longest_waiting_game_comes_first(db):
    ana, ben, cy = users(db, "ana", "ben", "cy")
    first, _ = running(db, [ana, ben], seed=1)
    second, _ = running(db, [ana, cy], seed=1)
    turns = [(first, seated(db, first).index(ana), datetime(2026, 3, 2)),
             (second, seated(db, second).index(ana), datetime(2026, 3, 1))]
    with db.transaction() as s:  # ana to move in both, the second game's turn the older
        for game_id, seat, at in turns:
            s.execute(update(Game).where(Game.id == game_id).values(to_move=seat, turn_started_at=at))
    assert [g.id for g in pages.page(db, ana, None).waiting] == [second, first]


def test_35_6_a_resigned_seat_is_waited_for_by_nobody(db):
    ana, ben, cy = users(db, "ana", "ben", "cy")
    game_id, by_seat = running(db, [ana, ben, cy])
    with db.sessions() as s:
        mover = by_seat[s.get(Game, game_id).to_move]
    games.resign(db, game_id, mover)
    page = pages.page(db, mover, None)
    assert page.waiting == [] and [(g.id, g.resigned) for g in page.playing] == [(game_id, True)]


def test_35_2_a_hidden_page_is_seen_by_its_player_and_those_who_played_with_them_only(db):
    ana, ben, cy, dan = users(db, "ana", "ben", "cy", "dan")
    running(db, [ana, ben])
    table = games.create_game(db, "counters", ana, 3, OPTIONS)
    games.join_game(db, table, dan)  # an open table does not count: anybody could join one
    hide(db, ana)
    assert pages.page(db, ana, ana).hidden is True
    assert pages.page(db, ana, ben) is not None
    assert pages.page(db, ana, cy) is None and pages.page(db, ana, dan) is None and pages.page(db, ana, None) is None
    assert pages.page(db, 10_000, None) is None  # the same answer as for nobody: existence is not told
    pages.set_hidden(db, ana, False)
    assert pages.page(db, ana, cy).name == "Ana" and pages.page(db, ana, None).hidden is False


def test_35_2_a_finished_game_together_keeps_a_hidden_page_open_to_the_other(db):
    ana, ben = users(db, "ana", "ben")
    finished_game(db, [ana, ben], ["take 3", "take 3", "take 1"], rated=False)
    hide(db, ben)
    assert pages.page(db, ben, ana) is not None and pages.page(db, ana, ben) is not None


def test_35_2_a_page_lists_the_newest_finished_games_and_counts_all(db, monkeypatch):
    ana, ben = users(db, "ana", "ben")
    monkeypatch.setattr(pages, "FINISHED_SHOWN", 2)
    ids = [finished_game(db, [ana, ben], ["take 3", "take 3", "take 1"], rated=False, seed=n)[0] for n in range(3)]
    page = pages.page(db, ana, None)
    assert [g.id for g in page.finished] == ids[:0:-1] and page.finished_count == 3


def test_35_2_seat_users_names_the_seats_that_have_an_account(db):
    ana, ben = users(db, "ana", "ben")
    game_id, by_seat = running(db, [ana, ben])
    assert pages.seat_users(db, game_id) == dict(enumerate(by_seat))


@pytest.mark.parametrize("name, expected", [("Anna Berg", "anna-berg"), ("Zoë O'Neil", "zoë-o-neil"),
                                            ("ÉMILE", "émile"), ("-_.", "player")])
def test_35_2_the_readable_part_of_an_address_is_the_name_in_lower_case(name, expected):
    assert pages.slug(name) == expected
