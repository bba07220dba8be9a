"""Issue 35 item 3 (Ratings): openskill's Plackett-Luce ratings per player and title, changed in the
transaction that finishes a game the table made rated (pbem.players.ratings), rebuilt by `pbem ratings
rebuild` to the same numbers, and shown on the settings page and by the API.

Games are the suite's counters game: with `bonus` off a seat's score is the counters it took, so the
moves decide the places (`take 3, take 3, take 1` from a pile of 7 is a tie for the first place).
"""

from __future__ import annotations

from datetime import timedelta

from click.testing import CliRunner
from openskill.models import PlackettLuce
from sqlalchemy import select, update

import engine
from pbem import accounts, cli, events, games
from pbem.models import Game, Rating, RatingUpdate, Seat
from pbem.players import ratings
from tests.mail.conftest import (  # noqa: F401 (settings: a fixture)
    command_address, compose, deliver_all, mail_text, receive, settings, verified_user,
)
from tests.web.conftest import app, cheap_argon2, players, post  # noqa: F401 (fixtures)

OPTIONS = {"pile": 7, "bonus": False}
TIE = ["take 3", "take 3", "take 1"]  # three seats: 3, 3 and 1 counters
START = PlackettLuce().rating()


def users(db, *names: str) -> list[int]:
    return [verified_user(db, f"{name}@example.org", name.title()) for name in names]


def finished_game(db, ids: list[int], moves: list[str], *, rated: bool = True, seed: int = 35,
                  resign: dict[int, int] | None = None) -> tuple[int, list[int]]:
    """A counters game of these users played to its end; `resign`: before the move with that index, the seat
    to move resigns. Returns (game id, user ids by seat)."""
    game_id = games.create_game(db, "counters", ids[0], len(ids), OPTIONS, rated=rated)
    for user_id in ids[1:]:
        games.join_game(db, game_id, user_id, seed=seed)
    by_seat = seated(db, game_id)
    for n, move in enumerate(moves):
        to_move = games.view(db, game_id)["to_move"]
        if resign and n in resign:
            games.resign(db, game_id, by_seat[resign[n]])
            continue
        games.submit(db, game_id, move, seat=to_move)
    assert games.view(db, game_id)["status"] == "finished"
    return game_id, by_seat


def seated(db, game_id: int) -> list[int]:
    with db.sessions() as s:
        return list(s.scalars(select(Seat.user_id).where(Seat.game_id == game_id).order_by(Seat.number)))


def result_ranks(db, game_id: int) -> list[int]:
    with db.sessions() as s:
        return s.get(Game, game_id).result["ranks"]


def rating_of(db, user_id: int, title: str = "counters") -> tuple[float, float, int] | None:
    with db.sessions() as s:
        row = s.scalars(select(Rating).where(Rating.user_id == user_id, Rating.title == title)).first()
        return None if row is None else (row.mu, row.sigma, row.games)


def everything(db) -> tuple[list, list]:
    """Every rating and every rating update, as plain values."""
    with db.sessions() as s:
        rows = [(r.user_id, r.title, r.mu, r.sigma, r.ordinal, r.games, r.updated_at)
                for r in s.scalars(select(Rating).order_by(Rating.user_id, Rating.title))]
        updates = [(u.game_id, u.title, u.players, u.finished_at, u.weight, u.changes)
                   for u in s.scalars(select(RatingUpdate).order_by(RatingUpdate.game_id))]
    return rows, updates


def direct(before: list[tuple[float, float]], ranks: list[int]) -> list[tuple[float, float]]:
    """openskill called directly: one player per team, in seat order, with these ranks."""
    model = PlackettLuce()
    new = model.rate([[model.rating(mu=mu, sigma=sigma)] for mu, sigma in before], ranks=ranks)
    return [(team[0].mu, team[0].sigma) for team in new]


def test_35_3_a_three_player_tie_rates_as_openskill_does(db, app, players):
    ana, ben, cy = players
    game_id, by_seat = finished_game(db, [ana.id, ben.id, cy.id], TIE)
    assert result_ranks(db, game_id) == [1, 1, 3]
    expected = direct([(START.mu, START.sigma)] * 3, [1, 1, 3])
    assert [rating_of(db, user) for user in by_seat] == [(mu, sigma, 1) for mu, sigma in expected]
    assert expected[0] == expected[1] and expected[0][0] > START.mu > expected[2][0]  # a tie: the same numbers
    # Shown with its uncertainty: mu ± 2 sigma on the player's settings page, and in the API's list.
    first = next(p for p in players if p.id == by_seat[0])
    page = first.client.get("/settings").get_data(as_text=True)
    mu, sigma = expected[0]
    assert f"Counters: {mu:.1f} ± {2 * sigma:.1f} ({mu - 3 * sigma:.1f} in the lists; 1 game)" in page
    listed = app.test_client().get("/api/v1/ratings?title=counters").get_json()
    assert [(x["name"], x["mu"], x["sigma"], x["games"]) for x in listed[:2]] == sorted(
        [(p.email.split("@")[0].title(), mu, sigma, 1) for p in players if p.id in by_seat[:2]])
    assert listed[2]["mu"] == expected[2][0] and listed[2]["ordinal"] == expected[2][0] - 3 * expected[2][1]
    assert "email" not in listed[0] and all("@" not in str(value) for x in listed for value in x.values())
    missing = app.test_client().get("/api/v1/ratings?title=chess")
    assert missing.status_code == 400 and "There is no game called 'chess'" in missing.get_json()["message"]
    assert app.test_client().get("/api/v1/ratings?title=tongiaki").get_json() == []


def test_35_3_a_resignation_is_a_loss_whatever_the_score(db):
    ann, bea, cid = users(db, "ann", "bea", "cid")
    # Seat 0 takes 3, the others 1 each; seat 0 resigns at its next turn (its seat then takes 1 by itself, 4 in
    # all, the most), and seat 1 takes the last counter.
    game_id, by_seat = finished_game(db, [ann, bea, cid], ["take 3", "take 1", "take 1", "resign", "take 1"],
                                     resign={3: 0})
    assert result_ranks(db, game_id) == [1, 2, 3]  # by the score, the seat that resigned came first
    expected = direct([(START.mu, START.sigma)] * 3, [4, 2, 3])
    assert [rating_of(db, user)[:2] for user in by_seat] == expected
    assert rating_of(db, by_seat[0])[0] < START.mu
    with db.sessions() as s:
        changes = s.scalars(select(RatingUpdate.changes).where(RatingUpdate.game_id == game_id)).one()
    assert [changes[str(user)]["rank"] for user in by_seat] == [4, 2, 3]


def test_35_3_an_unrated_game_changes_nothing(db):
    ids = users(db, "ann", "bea", "cid")
    finished_game(db, ids, TIE, rated=False)
    assert everything(db) == ([], [])
    assert ratings.rebuild(db) == 0 and everything(db) == ([], [])


def test_35_3_a_game_finished_twice_changes_ratings_once(db):
    ids = users(db, "ann", "bea", "cid")
    game_id, by_seat = finished_game(db, ids, TIE)
    once = everything(db)
    with db.transaction() as s:  # the end of the game announced again (a listener run twice, a retry)
        game = s.get(Game, game_id)
        seats = list(s.scalars(select(Seat).where(Seat.game_id == game_id).order_by(Seat.number)))
        events.game_finished.send(s, game=game, seats=seats, rules=engine.get("counters"), state=None)
    assert everything(db) == once
    assert [rating_of(db, user)[2] for user in by_seat] == [1, 1, 1]


def test_35_3_games_among_the_same_players_count_less_after_three_in_thirty_days(db):
    ann, bea, cid = users(db, "ann", "bea", "cid")
    for seed in range(5):
        finished_game(db, [ann, bea], ["take 3", "take 3", "take 1"], seed=seed)
    finished_game(db, [ann, bea, cid], TIE)  # another set of players: a game of full weight, and not counted
    with db.sessions() as s:
        updates = list(s.scalars(select(RatingUpdate).order_by(RatingUpdate.id)))
    seats = {u.game_id: seated(db, u.game_id) for u in updates}
    assert [u.weight for u in updates] == [1.0, 1.0, 1.0, 1 / 2, 1 / 3, 1.0]
    for u in updates:
        users_by_seat = seats[u.game_id]
        before = [tuple(u.changes[str(user)]["before"]) for user in users_by_seat]
        rated = direct(before, [u.changes[str(user)]["rank"] for user in users_by_seat])
        expected = [(b[0] + u.weight * (r[0] - b[0]), b[1] + u.weight * (r[1] - b[1])) if u.weight != 1 else r
                    for b, r in zip(before, rated)]
        assert [tuple(u.changes[str(user)]["after"]) for user in users_by_seat] == expected
    assert abs(updates[3].changes[str(ann)]["after"][0] - updates[3].changes[str(ann)]["before"][0]) > 0
    # Thirty days later the same two players count fully again.
    with db.transaction() as s:
        s.execute(update(RatingUpdate).values(finished_at=RatingUpdate.finished_at - timedelta(days=31)))
    finished_game(db, [ann, bea], ["take 3", "take 3", "take 1"], seed=9)
    with db.sessions() as s:
        assert s.scalars(select(RatingUpdate.weight).order_by(RatingUpdate.id.desc())).first() == 1.0


def test_35_3_rebuild_gives_the_same_numbers(db, monkeypatch):
    ann, bea, cid, dan = users(db, "ann", "bea", "cid", "dan")
    finished_game(db, [ann, bea, cid], TIE)
    finished_game(db, [bea, cid, dan], ["take 3", "take 1", "take 1", "resign", "take 1"], resign={3: 0})
    finished_game(db, [ann, dan], ["take 3", "take 3", "take 1"], rated=False)
    for seed in range(5):  # the fourth and fifth with less weight
        finished_game(db, [cid, dan], ["take 3", "take 3", "take 1"], seed=seed)
    finished_game(db, [dan, ann, cid], TIE)
    before = everything(db)
    assert len(before[1]) == 8 and any(weight < 1 for *_, weight, _ in before[1])
    monkeypatch.setenv("PBEM_DATABASE_URL", db.url)
    with db.transaction() as s:  # a rating gone wrong, to be put right
        s.execute(update(Rating).values(mu=99.0, games=42))
    result = CliRunner().invoke(cli.main, ["ratings", "rebuild"], catch_exceptions=False)
    assert result.exit_code == 0 and "rebuilt the ratings from 8 finished rated game(s)" in result.output
    assert everything(db) == before


def test_35_3_rated_yes_by_mail_makes_a_rated_game(db, settings):
    ann, = users(db, "ann")
    sent = lambda line: receive(db, settings, compose("ann@example.org",  # noqa: E731
                                                      command_address(db, settings, "ann@example.org"), line + "\n"))
    assert sent("/new counters players=2 rated=yes").outcome == "done"
    assert sent("/new counters players=2").outcome == "done"
    assert sent("/new counters players=2 rated=maybe").outcome != "done"
    answers = [mail_text(m) for m in deliver_all(db, settings) if str(m["Subject"]).startswith("Re:")]
    assert ["The game is rated: its result changes the players' ratings." in text for text in answers] == [
        True, False, False]
    assert "rated= is yes or no, not 'maybe'." in answers[2]
    with db.sessions() as s:
        assert list(s.scalars(select(Game.rated).order_by(Game.id))) == [True, False]


def test_35_3_the_create_forms_check_box_and_the_api_make_a_rated_game(db, app, players):
    ana = players[0]
    page = ana.client.get("/games/new/counters").get_data(as_text=True)
    assert 'name="rated"' in page and "Rated game" in page
    for data in ({"rated": "y"}, {}):
        form = {"players": "2", "timeout_policy": "wait", "opt_pile": "7", **data}
        response = post(ana.client, "/games/new/counters", form, page="/games/new/counters")
        assert response.status_code == 302
    headers = {"Authorization": f"Bearer {accounts.create_api_token(db, players[1].id, 'bot')}"}
    for body in ({"rated": True}, {}):
        response = app.test_client().post("/api/v1/games", json={"title": "counters", "players": 2, **body},
                                          headers=headers)
        assert response.status_code == 201
    with db.sessions() as s:
        assert list(s.scalars(select(Game.rated).order_by(Game.id))) == [True, False, True, False]
