"""Issue 35 item 4 (Reliability and pace): games finished and abandoned, deadlines missed per 100 turns and
the quartiles of the response times per turn (pbem.players.reliability), checked on a hand-built history;
and a table's minimum reliability to join, through the service, the web, mail and the API.

The hand-built history is rows written directly (games, seats, the moves' log with chosen times, the games'
event log), so every figure below is worked out by hand from the rules in the module's docstring.
"""

from __future__ import annotations

import itertools
from datetime import datetime, timedelta

import pytest
from sqlalchemy import select

from engine.core import canonical_json
from pbem import accounts, games
from pbem.games import log
from pbem.models import Game, GameEvent, MoveRecord, Seat, User
from pbem.players import reliability
from pbem.schedule import deadlines
from tests.mail.conftest import (  # noqa: F401 (settings: a fixture)
    command_address, compose, deliver_all, mail_text, receive, settings, verified_user,
)
from tests.web.conftest import app, cheap_argon2, players, post  # noqa: F401 (fixtures)
from tests.worker.helpers import T0 as DEADLINE_T0, table

T0 = datetime(2030, 1, 7, 9, 0)
H = timedelta(hours=1)
RESIGN = "resign"
_emails = itertools.count()


# --- a hand-built history -----------------------------------------------------------------------


def new_user(s, name: str) -> User:
    user = User(email=f"{name}{next(_emails)}@example.org", display_name=name.title(), email_verified=True)
    s.add(user)
    s.flush()
    return user


def new_game(s, sitters: list[User], status: str, *, started: datetime | None = T0, to_move: int | None = None,
             resigned: tuple[int, ...] = ()) -> Game:
    """A game of the counters title with these users in seats 0, 1, ... (play order)."""
    game = Game(title="counters", engine_version="counters-1", players=len(sitters), status=status,
                started_at=started, to_move=to_move, finished_at=T0 + 1000 * H if status == "finished" else None)
    s.add(game)
    s.flush()
    for number, user in enumerate(sitters):
        s.add(Seat(game_id=game.id, number=number, user_id=user.id, display_name=user.display_name,
                   token_nonce="0" * 16, resigned=number in resigned))
    return game


def logged(s, game: Game, *records: tuple) -> None:
    """The game's log: (seat, source, hours after T0) per move, (seat, source, hours, RESIGN) per resignation."""
    for seq, (seat, source, hours, *kind) in enumerate(records, start=1):
        move = [log.RESIGN, []] if kind == [RESIGN] else ["take", [1]]
        s.add(MoveRecord(game_id=game.id, seq=seq, seat=seat, move=canonical_json(move), notation="x",
                         source=source, state_hash="0" * 64, chain_hash="0" * 64, created_at=T0 + hours * H))
    game.version = len(records)


def missed(s, game: Game, seat: int, seq: int, times: int = 1, kind: str = "missed") -> None:
    for _ in range(times):
        s.add(GameEvent(game_id=game.id, seq=seq, seat=seat, kind=kind, detail={}, created_at=T0))


def history(db) -> dict[str, int]:
    """Ann's games, and Dan's one; the figures each gives are in the comments (hours after T0)."""
    with db.transaction() as s:
        ann, bob, cy, dan = (new_user(s, name) for name in ("ann", "bob", "cy", "dan"))
        # 1. Finished, Ann in seat 0 to the end: turns at 2 h (2 h after the start), 9 h (4 h after Bob's move at
        # 5 h; her second move at 9.5 h is the same turn), 92 h (the timeout policy's: no response) and 94 h
        # (1 h). One deadline missed, in the third turn. Finished; 4 turns; responses 2, 4, 1.
        one = new_game(s, [ann, bob], "finished")
        logged(s, one, (0, "web", 2), (1, "web", 5), (0, "email", 9), (0, "email", 9.5), (1, "web", 20),
               (0, "timeout", 92), (1, "web", 93), (0, "api", 94))
        missed(s, one, 0, 5)
        missed(s, one, 0, 5, kind="late")  # another kind of event: not a missed deadline
        # 2. Ann in seat 1 is resigned by the timeout policy after three missed deadlines at move 4; the server
        # plays her turns from then on (auto). Abandoned; turns: the one at 7 h (6 h after Bob's move at 1 h) and
        # the one she was resigned in (a missed deadline and no move of hers); 3 missed; response 6.
        two = new_game(s, [bob, ann, cy], "finished", started=T0 + 1 * H, resigned=(1,))
        logged(s, two, (0, "web", 2), (1, "web", 8), (2, "web", 9), (0, "web", 10), (1, "timeout", 300, RESIGN),
               (1, "auto", 300), (2, "web", 301), (0, "web", 302), (1, "auto", 302), (2, "web", 303))
        missed(s, two, 1, 4, times=3)
        missed(s, two, 0, 0)  # Bob's miss: not Ann's
        # 3. Two players; Ann concedes, and her resignation ends the game: finished. One turn, 3 h.
        three = new_game(s, [ann, bob], "finished", resigned=(0,))
        logged(s, three, (0, "web", 3), (1, "web", 4), (0, "web", 10, RESIGN))
        # 4. Ann (seat 2) resigns by herself and the game goes on without her: abandoned at once, while it still
        # runs. One turn, 10 h (from Dan's move at 2 h). Dan (seat 1): turns at 2 h (1 h after Bob's at 1 h) and
        # 15 h: 2 h after Bob's move at 13 h, Ann's resignation at 14 h being nobody's turn.
        four = new_game(s, [bob, dan, ann], "running", to_move=0, resigned=(2,))
        logged(s, four, (0, "web", 1), (1, "web", 2), (2, "cli", 12), (0, "web", 13), (2, "web", 14, RESIGN),
               (1, "web", 15), (2, "auto", 15))
        # 5. Running, Ann to move after Bob's first move, two deadlines missed (wait policy): a turn, 2 missed.
        five = new_game(s, [ann, bob], "running", to_move=0)
        logged(s, five, (1, "web", 1))
        missed(s, five, 0, 1, times=2)
        # 6. An open table and 7. one left before it started: neither counts.
        new_game(s, [ann, bob], "open", started=None)
        new_game(s, [ann], "abandoned", started=None)
        # 8. Begun, then abandoned while waiting on Ann: abandoned. 9. The same waiting on Bob: neither finished nor
        # abandoned for Ann, but her first move, 1 h after the start, was a turn.
        logged(s, new_game(s, [ann, bob], "abandoned", to_move=0), (1, "web", 1))
        logged(s, new_game(s, [ann, bob], "abandoned", to_move=1), (0, "web", 1))
        return {"ann": ann.id, "dan": dan.id, "bob": bob.id}


def figures_of(db, user_id: int) -> dict:
    with db.sessions() as s:
        return reliability.of_user(s, user_id)


def test_35_4_a_hand_built_history_gives_the_figures_worked_out_by_hand(db):
    who = history(db)
    ann = figures_of(db, who["ann"])
    # Finished: games 1 and 3; abandoned: 2, 4 and 8. Turns 4 + 2 + 1 + 1 + 1 + 1, missed 1 + 3 + 2.
    # Responses 1, 1, 2, 3, 4, 6, 10 h: inclusive quartiles at positions 1.5, 3 and 4.5 of the sorted list.
    assert ann == {"games_finished": 2, "games_abandoned": 3, "finished_share": 0.4, "turns": 10, "missed": 6,
                   "missed_per_100_turns": 60.0, "response_hours": [1.5, 3.0, 5.0]}
    # The figure: 2/5 of the games finished times 4/10 of the turns kept = 16%.
    with db.sessions() as s:
        assert reliability.percent(s, who["ann"]) == 16
    dan = figures_of(db, who["dan"])
    assert dan == {"games_finished": 0, "games_abandoned": 0, "finished_share": None, "turns": 2, "missed": 0,
                   "missed_per_100_turns": 0.0, "response_hours": [1.25, 1.5, 1.75]}
    assert reliability.figure(dan) == 100  # no game over yet: his turns alone, all kept


def test_35_4_a_newcomer_has_no_figure_and_one_turn_gives_its_time_three_times(db):
    with db.transaction() as s:
        eve, fay = new_user(s, "eve"), new_user(s, "fay")
        logged(s, new_game(s, [eve, fay], "running", to_move=0), (0, "web", 5), (1, "web", 6))
        new_id = new_user(s, "newcomer").id
    assert figures_of(db, new_id) == {"games_finished": 0, "games_abandoned": 0, "finished_share": None,
                                      "turns": 0, "missed": 0, "missed_per_100_turns": None, "response_hours": None}
    with db.sessions() as s:
        assert reliability.percent(s, new_id) is None
    assert figures_of(db, eve.id)["response_hours"] == [5.0, 5.0, 5.0]


def test_35_4_what_the_service_logs_is_what_the_figures_read(db):
    """A real game: the resign policy resigns seat 0 after one missed deadline, which ends the game; the
    figures read the resignation and the miss as the game service and the scheduler wrote them."""
    game_id, (first, second) = table(db, policy="resign", resign_after=1)
    assert deadlines.process(db, game_id, DEADLINE_T0 + 24 * H) == "resigned"
    late = figures_of(db, first)
    assert (late["games_finished"], late["games_abandoned"], late["turns"], late["missed"]) == (0, 1, 1, 1)
    assert late["response_hours"] is None
    other = figures_of(db, second)
    assert (other["games_finished"], other["games_abandoned"], other["turns"], other["missed"]) == (1, 0, 0, 0)


# --- the minimum to join --------------------------------------------------------------------------


def give_record(db, user_id: int, finished: int = 0, abandoned: int = 0) -> None:
    """Games of `user_id` against a stranger: finished ones, and ones the timeout policy resigned them from."""
    with db.transaction() as s:
        user, other = s.get(User, user_id), new_user(s, "stranger")
        for _ in range(finished):
            logged(s, new_game(s, [user, other], "finished"), (0, "web", 1), (1, "web", 2))
        for _ in range(abandoned):
            logged(s, new_game(s, [user, other], "finished", resigned=(0,)), (0, "timeout", 30, RESIGN))


def seat_count(db, game_id: int) -> int:
    with db.sessions() as s:
        return len(s.scalars(select(Seat).where(Seat.game_id == game_id)).all())


def test_35_4_a_table_refuses_a_seat_below_its_minimum_and_says_both_figures(db):
    ann, bob, cy, dan = (verified_user(db, f"{name}@example.org", name.title()) for name in ("ann", "bob", "cy", "dan"))
    give_record(db, bob, finished=1, abandoned=1)  # 50%
    give_record(db, cy, finished=4, abandoned=1)  # 80%: exactly the minimum
    game_id = games.create_game(db, "counters", ann, 4, {}, min_reliability=80)  # Ann: no history, no figure
    with pytest.raises(reliability.BelowMinimumError) as refused:
        games.join_game(db, game_id, bob)
    assert str(refused.value) == (f"Game {game_id} asks for a reliability of at least 80%; yours is 50% (games "
                                  "finished: 1 of 2; turns: 1; deadlines missed: 0).")
    assert refused.value.code == "below_minimum_reliability" and seat_count(db, game_id) == 1
    games.join_game(db, game_id, cy)
    games.join_game(db, game_id, dan)  # a newcomer joins any table
    assert seat_count(db, game_id) == 3
    games.join_game(db, games.create_game(db, "counters", ann, 2, {}), bob)  # no minimum: anybody


def test_35_4_nobody_opens_a_table_they_could_not_join_and_a_bad_minimum_is_refused(db):
    bob = verified_user(db, "bob@example.org", "Bob")
    give_record(db, bob, finished=1, abandoned=1)
    with pytest.raises(reliability.BelowMinimumError, match=r"You cannot open a table that asks for a reliability "
                                                            r"of at least 60%: yours is 50%"):
        games.create_game(db, "counters", bob, 2, {}, min_reliability=60)
    for bad in (101, -1, "80", 2.5, True):
        with pytest.raises(games.GameError, match="The minimum reliability is a whole percentage from 1 to 100"):
            games.create_game(db, "counters", bob, 2, {}, min_reliability=bad)
    with db.sessions() as s:
        assert s.scalars(select(Game).where(Game.status == "open")).all() == []
    game_id = games.create_game(db, "counters", bob, 2, {}, min_reliability=50)
    assert games.create_game(db, "counters", bob, 2, {}, min_reliability=0) == game_id + 1
    with db.sessions() as s:
        assert [s.get(Game, game_id).min_reliability, s.get(Game, game_id + 1).min_reliability] == [50, None]


def test_35_4_by_mail_new_takes_min_reliability_and_join_is_refused_below_it(db, settings):
    verified_user(db, "ann@example.org", "Ann")
    bob = verified_user(db, "bob@example.org", "Bob")
    give_record(db, bob, finished=1, abandoned=1)

    def sent(sender: str, line: str):
        return receive(db, settings, compose(sender, command_address(db, settings, sender), line + "\n"))

    assert sent("ann@example.org", "/new counters players=2 min_reliability=80%").outcome == "done"
    assert sent("ann@example.org", "/new counters players=2 min_reliability=abc").outcome != "done"
    with db.sessions() as s:
        game_id, minimum = s.execute(select(Game.id, Game.min_reliability).where(Game.status == "open")).one()
    assert minimum == 80
    assert sent("bob@example.org", f"/join {game_id}").outcome != "done"
    answers = [mail_text(m) for m in deliver_all(db, settings) if str(m["Subject"]).startswith("Re:")]
    assert "A player needs a reliability of at least 80% to join (min_reliability=80)." in answers[0]
    assert ("min_reliability= is the least reliability a player needs to join, a whole percentage from 1 to 100 "
            "(0 or none: anybody); not 'abc'.") in answers[1]
    assert (f"Game {game_id} asks for a reliability of at least 80%; yours is 50% (games finished: 1 of 2; "
            "turns: 1; deadlines missed: 0).") in answers[2]
    assert seat_count(db, game_id) == 1


def test_35_4_on_the_web_the_create_form_sets_the_minimum(db, app, players):
    ana = players[0]
    page = ana.client.get("/games/new/counters").get_data(as_text=True)
    assert 'name="min_reliability"' in page and "Least reliability to join" in page
    form = {"players": "2", "timeout_policy": "wait", "opt_pile": "7"}
    for minimum in ("80", "", "0"):
        answer = post(ana.client, "/games/new/counters", {**form, "min_reliability": minimum},
                      page="/games/new/counters")
        assert answer.status_code == 302
    refused = post(ana.client, "/games/new/counters", {**form, "min_reliability": "120"}, page="/games/new/counters")
    assert refused.status_code == 400
    with db.sessions() as s:
        assert list(s.scalars(select(Game.min_reliability).order_by(Game.id))) == [80, None, None]


def test_35_4_on_the_web_a_join_below_the_minimum_is_refused_with_both_figures(db, app, players):
    ana, ben, _ = players
    give_record(db, ben.id, finished=1, abandoned=1)
    game_id = games.create_game(db, "counters", ana.id, 2, {}, min_reliability=80)
    answer = post(ben.client, f"/games/{game_id}/join", page=f"/games/{game_id}", follow_redirects=True)
    assert (f"Game {game_id} asks for a reliability of at least 80%; yours is 50% (games finished: 1 of 2; "
            "turns: 1; deadlines missed: 0).") in answer.get_data(as_text=True)
    assert seat_count(db, game_id) == 1


def test_35_4_the_api_creates_with_a_minimum_refuses_below_it_and_tells_the_figures(db, app, players):
    ana, ben, cy = players
    give_record(db, ben.id, finished=1, abandoned=1)
    token = {p.id: {"Authorization": f"Bearer {accounts.create_api_token(db, p.id, 'bot')}"} for p in players}
    client = app.test_client()
    too_high = client.post("/api/v1/games", json={"title": "counters", "players": 2, "min_reliability": 101},
                           headers=token[ana.id])
    assert too_high.status_code == 422 and "min_reliability" in too_high.get_json()["errors"]["json"]
    created = client.post("/api/v1/games", json={"title": "counters", "players": 2, "min_reliability": 80},
                          headers=token[ana.id])
    assert created.status_code == 201
    game_id = created.get_json()["id"]
    joined = client.post(f"/api/v1/games/{game_id}/join", json={}, headers=token[ben.id])
    assert joined.status_code == 403 and joined.get_json()["errors"]["reason"] == "below_minimum_reliability"
    assert "yours is 50%" in joined.get_json()["message"] and seat_count(db, game_id) == 1
    figures = client.get(f"/api/v1/players/{ben.id}/reliability").get_json()
    assert figures == {"games_finished": 1, "games_abandoned": 1, "finished_share": 0.5, "turns": 1, "missed": 0,
                       "missed_per_100_turns": 0.0, "response_hours": [1.0, 1.0, 1.0], "percent": 50}
    assert client.get(f"/api/v1/players/{cy.id}/reliability").get_json()["percent"] is None
    with db.transaction() as s:
        s.get(User, ben.id).page_hidden = True  # hidden from those who never sat with him at a started game
    assert client.get(f"/api/v1/players/{ben.id}/reliability", headers=token[ana.id]).status_code == 404
    assert client.get(f"/api/v1/players/{ben.id}/reliability").status_code == 404
    assert client.get(f"/api/v1/players/{ben.id}/reliability", headers=token[ben.id]).status_code == 200
    assert client.get("/api/v1/players/999999/reliability").status_code == 404
