"""Issue 35, item 5: a rematch in the domain (pbem.players.rematch).

When every player of a finished game has accepted, the same game starts again: the same players and
table settings, a new seed, the seats moved round by one, each player in their colour. One open offer
per game; accepting twice changes nothing; a decline or the lapse ends the offer, and a request that
meant an offer which lapsed is refused with the reason; two acceptances at once start one game.
"""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
import sqlalchemy
from sqlalchemy import func, select, update

from pbem import accounts, games
from pbem.models import Game, OutboundMail, RematchAcceptance, RematchOffer, Seat, utcnow
from pbem.players import rematch

EMAILS = ("ann@example.org", "bob@example.org", "cid@example.org")


class Told(list):
    """A `tell` that records what each change announced (the mails are tests/mail's)."""

    def __call__(self, s, news):
        self.append((news.kind, news.actor_id, news.new_game.id if news.new_game else None))


def users(db, emails=EMAILS) -> list[int]:
    with db.transaction() as s:
        made = [accounts.get_or_create_user(s, email) for email in emails]
        s.flush()
        return [user.id for user in made]


def play_out(db, game_id: int) -> None:
    """Take counters until the game is over (the pile is small)."""
    while (data := games.view(db, game_id))["status"] == "running":
        with db.sessions() as s:
            mover = s.scalar(select(Seat.user_id).where(Seat.game_id == game_id, Seat.number == data["to_move"]))
        legal = games.view(db, game_id, mover)["legal_moves"]
        games.submit(db, game_id, max(m for m in legal if m.startswith("take")), user_id=mover)


def finished_game(db, ids: list[int], **table) -> int:
    """A finished counters game of these users, with the table settings given (colours asked for: none)."""
    settings = {"turn_hours": 48, "timeout_policy": "skip", "press": "public", "press_spectators": True,
                "press_after_end": False, "rated": True, **table}
    game_id = games.create_game(db, "counters", ids[0], len(ids), {"pile": 6, "bonus": False}, **settings)
    for user_id in ids[1:]:
        games.join_game(db, game_id, user_id)
    play_out(db, game_id)
    return game_id


def seats_by_number(db, game_id: int) -> list[tuple[int, str]]:
    with db.sessions() as s:
        return [(seat.user_id, seat.colour) for seat in
                s.scalars(select(Seat).where(Seat.game_id == game_id).order_by(Seat.number))]


def count(db, model, **where) -> int:
    with db.sessions() as s:
        return s.scalar(select(func.count()).select_from(model).filter_by(**where))


def test_35_5_the_last_acceptance_starts_the_same_table_again_with_the_seats_moved_round(db):
    ann, bob, cid = ids = users(db)
    old_id = finished_game(db, ids)
    before = seats_by_number(db, old_id)
    told = Told()
    first, second, third = (user for user, _colour in before)
    assert rematch.accept(db, old_id, second, tell=told).kind == "proposed"
    assert rematch.accept(db, old_id, first, tell=told).kind == "accepted"
    assert count(db, Game) == 1  # nothing starts before the last player accepts
    done = rematch.accept(db, old_id, third, tell=told)
    assert done.kind == "started" and done.offer.status == "started"
    new_id = done.offer.new_game_id
    assert told == [("offered", second, None), ("started", third, new_id)]
    # Seat 2 plays first, the first player of the finished game last; each keeps their colour.
    assert seats_by_number(db, new_id) == [before[1], before[2], before[0]]
    with db.sessions() as s:
        old, new = s.get(Game, old_id), s.get(Game, new_id)
        assert new.status == "running" and new.to_move == 0 and new.version == 0
        assert (new.title, new.players, new.turn_hours, new.timeout_policy, new.press, new.press_spectators,
                new.press_after_end, new.rated) == ("counters", 3, 48, "skip", "public", True, False, True)
        assert {k: v for k, v in new.options.items() if k != "colours"} == \
               {k: v for k, v in old.options.items() if k != "colours"}
        assert new.seed != old.seed and new.commitment != old.commitment
        assert new.deadline is not None  # the turn's clock runs, as at every start
        # The usual start: a turn mail to the player who moves first, through the game's own notifications.
        turn = s.scalars(select(OutboundMail).where(OutboundMail.game_id == new_id, OutboundMail.kind == "turn")).all()
        assert [row.user_id for row in turn] == [before[1][0]]
    # The new game is an ordinary game: it is played to its end like any other.
    play_out(db, new_id)
    assert games.view(db, new_id)["status"] == "finished"


def test_35_5_colours_chosen_at_the_table_follow_their_players(db):
    ann, bob = ids = users(db, EMAILS[:2])
    game_id = games.create_game(db, "counters", ann, 2, {"pile": 5}, colour="green")
    games.join_game(db, game_id, bob, "red")
    play_out(db, game_id)
    rematch.accept(db, game_id, ann, tell=Told())
    new_id = rematch.accept(db, game_id, bob, tell=Told()).offer.new_game_id
    colours = dict(seats_by_number(db, new_id))
    assert colours == {ann: "green", bob: "red"}
    # The engine draws and names each seat in its player's colour.
    assert games.view(db, new_id)["board"]["colours"] == [colours[user] for user, _c in seats_by_number(db, new_id)]


def test_35_5_accepting_twice_changes_nothing(db):
    ann, bob, cid = ids = users(db)
    game_id = finished_game(db, ids)
    told = Told()
    rematch.accept(db, game_id, ann, tell=told)
    assert rematch.accept(db, game_id, ann, tell=told).kind == "already"
    assert rematch.accept(db, game_id, bob, tell=told).kind == "accepted"
    assert rematch.accept(db, game_id, bob, tell=told).kind == "already"
    assert count(db, RematchAcceptance) == 2 and count(db, RematchOffer) == 1 and len(told) == 1
    new_id = rematch.accept(db, game_id, cid, tell=told).offer.new_game_id
    again = rematch.accept(db, game_id, cid, tell=told)
    assert again.kind == "already" and again.offer.new_game_id == new_id
    assert count(db, Game) == 2 and len(told) == 2


def test_35_5_a_decline_ends_the_offer_and_a_new_one_may_follow(db):
    ann, bob, cid = ids = users(db)
    game_id = finished_game(db, ids)
    told = Told()
    offer = rematch.accept(db, game_id, ann, tell=told).offer
    done = rematch.decline(db, game_id, bob, tell=told)
    assert done.kind == "declined" and done.offer.status == "declined" and told[-1][:2] == ("declined", bob)
    assert rematch.decline(db, game_id, bob, tell=told).kind == "already"
    # Cid's Accept button still showed the declined offer: refused with the reason, nothing written.
    with pytest.raises(games.GameStateError, match="declined the rematch"):
        rematch.accept(db, game_id, cid, tell=told, offer_id=offer.id)
    assert count(db, RematchAcceptance, offer_id=offer.id) == 1
    # Asking again makes a new offer.
    fresh = rematch.accept(db, game_id, cid, tell=told)
    assert fresh.kind == "proposed" and fresh.offer.id != offer.id
    assert rematch.current(db, game_id).id == fresh.offer.id


def test_35_5_a_lapsed_offer_is_refused_with_the_reason_then_a_new_one_may_be_made(db):
    ann, bob, cid = ids = users(db)
    game_id = finished_game(db, ids)
    told = Told()
    offer = rematch.accept(db, game_id, ann, tell=told).offer
    assert offer.lapses_at - offer.created_at == rematch.LAPSE
    with db.transaction() as s:
        s.execute(update(RematchOffer).values(lapses_at=utcnow() - timedelta(minutes=1)))
    with pytest.raises(games.GameStateError, match=r"lapsed on .* \(an offer lasts 7 days\)"):
        rematch.accept(db, game_id, bob, tell=told)
    with db.sessions() as s:
        row = s.get(RematchOffer, offer.id)
        assert row.status == "lapsed" and row.open_for is None
    assert count(db, RematchAcceptance, offer_id=offer.id) == 1
    with pytest.raises(games.GameStateError, match="lapsed"):
        rematch.decline(db, game_id, bob, tell=told, offer_id=offer.id)
    assert rematch.accept(db, game_id, bob, tell=told).kind == "proposed"


def test_35_5_reading_an_offer_past_its_time_marks_it_lapsed(db):
    ann, bob = ids = users(db, EMAILS[:2])
    game_id = finished_game(db, ids)
    offer = rematch.accept(db, game_id, ann, tell=Told()).offer
    assert rematch.current(db, game_id).status == "open"
    with db.transaction() as s:
        s.execute(update(RematchOffer).values(lapses_at=utcnow() - timedelta(seconds=1)))
    assert rematch.current(db, game_id).status == "lapsed"
    with db.sessions() as s:
        assert s.get(RematchOffer, offer.id).status == "lapsed"
    # Lapsed on read, the next request proposes anew: nobody is refused for a lapse they were shown.
    assert rematch.accept(db, game_id, bob, tell=Told()).kind == "proposed"


def test_35_5_only_the_players_of_a_finished_game_ask_for_its_rematch(db):
    ann, bob, cid = users(db)
    running = games.create_game(db, "counters", ann, 2, {"pile": 30})
    games.join_game(db, running, bob)
    with pytest.raises(games.GameStateError, match="still being played"):
        rematch.accept(db, running, ann, tell=Told())
    finished = finished_game(db, [ann, bob])
    with pytest.raises(games.NotAllowedError, match="Only the players of game"):
        rematch.accept(db, finished, cid, tell=Told())
    rematch.accept(db, finished, ann, tell=Told())
    with pytest.raises(games.NotAllowedError, match="Only the players of game"):
        rematch.decline(db, finished, cid, tell=Told())
    with pytest.raises(games.NotFoundError):
        rematch.accept(db, 99_999, ann, tell=Told())
    assert count(db, RematchOffer) == 1 and count(db, RematchAcceptance) == 1


def test_35_5_a_game_has_at_most_three_offers(db):
    ann, bob = ids = users(db, EMAILS[:2])
    game_id = finished_game(db, ids)
    for _ in range(rematch.MAX_OFFERS_PER_GAME):
        rematch.accept(db, game_id, ann, tell=Told())
        rematch.decline(db, game_id, bob, tell=Told())
    with pytest.raises(games.NotAllowedError, match="3 rematch offers already"):
        rematch.accept(db, game_id, ann, tell=Told())
    assert count(db, RematchOffer) == rematch.MAX_OFFERS_PER_GAME


def test_35_5_one_open_offer_per_game_in_the_schema(db):
    ann, bob = ids = users(db, EMAILS[:2])
    game_id = finished_game(db, ids)
    rematch.accept(db, game_id, ann, tell=Told())
    with pytest.raises(sqlalchemy.exc.IntegrityError, match="(?i)unique"):
        with db.transaction() as s:
            s.add(RematchOffer(game_id=game_id, open_for=game_id, proposed_by=bob, status="open",
                               lapses_at=utcnow()))


def _at_once(calls) -> list:
    """Run the calls in threads released together; their results (or the errors they raised)."""
    barrier, results = threading.Barrier(len(calls), timeout=20), []

    def run(call):
        barrier.wait()
        try:
            results.append(call())
        except Exception as error:  # noqa: BLE001 - an error is a result to look at
            results.append(error)

    threads = [threading.Thread(target=run, args=(call,)) for call in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def test_35_5_acceptances_at_the_same_moment_start_one_game_on_postgresql(pg_db):
    db = pg_db
    ann, bob, cid = ids = users(db)
    for _round in range(3):
        game_id = finished_game(db, ids)
        told = Told()
        # Two players propose at once: one offer, both have accepted it.
        results = _at_once([lambda: rematch.accept(db, game_id, ann, tell=told),
                            lambda: rematch.accept(db, game_id, bob, tell=told)])
        assert sorted(r.kind for r in results) == ["accepted", "proposed"], results
        assert count(db, RematchOffer, game_id=game_id) == 1
        # The last player's acceptance arrives twice at once (the page and a mail): one new game.
        results = _at_once([lambda: rematch.accept(db, game_id, cid, tell=told)] * 2)
        assert sorted(r.kind for r in results) == ["already", "started"], results
        assert len({r.offer.new_game_id for r in results}) == 1
        with db.sessions() as s:
            assert s.scalar(select(func.count()).select_from(RematchOffer)
                            .where(RematchOffer.game_id == game_id, RematchOffer.new_game_id.is_not(None))) == 1
        assert [kind for kind, *_ in told] == ["offered", "started"]
