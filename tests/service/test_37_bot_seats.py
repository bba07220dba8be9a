"""Seats for bots (issue 37 item 2): tables opened with bots, their turns played as moves with source "bot",
logged, archived and verified like any move, and the budget of bot jobs per game and per site."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from sqlalchemy import func, select

from bench.soak.drivers import SHORT_TAPAONO
from pbem import accounts, cli, games, jobs
from pbem.games import archive, tables
from pbem.models import BotTurn, Game, MoveRecord, OutboundMail, Seat
from pbem.players import bot_seats


@pytest.fixture
def posted(monkeypatch):
    """The bot jobs posted after commits, as (game id, version), in order (the others are posted as ever)."""
    seen: list[tuple[int, int]] = []
    real = jobs.after_commit

    def spy(session, task_name, *args):
        if task_name == bot_seats.PLAY_BOT:
            seen.append(tuple(args))
        real(session, task_name, *args)

    monkeypatch.setattr(jobs, "after_commit", spy)
    return seen


def person(db, n=0):
    return accounts.ensure_user(db, f"b{n}@example.org", f"Person {n}")


def against_bot(db, user_id, level="easy"):
    """A two-player Tapaono (short) against one bot: started at once."""
    return games.create_game(db, "tapaono", user_id, 2, dict(SHORT_TAPAONO), turn_hours=24, bot_seats=1,
                             bot_level=level)


def state_of(db, game_id):
    with db.sessions() as s:
        game = s.get(Game, game_id)
        seats = s.scalars(select(Seat).where(Seat.game_id == game_id).order_by(Seat.number)).all()
        turn = s.get(BotTurn, game_id)
        return game, seats, turn


def person_moves_until_bot(db, game_id, user_id):
    """The person plays their first legal move until the bot is to move (or the game is over)."""
    while True:
        game, seats, _ = state_of(db, game_id)
        if game.status != "running" or seats[game.to_move].bot_level:
            return game
        legal = games.view(db, game_id, user_id)["legal_moves"]
        games.submit(db, game_id, legal[0], user_id=user_id, expected_version=game.version)


def play_out(db, game_id, user_id):
    """Play the game to its end: the bot's turns as the worker's job would, the person's first legal moves."""
    for _ in range(500):
        game = person_moves_until_bot(db, game_id, user_id)
        if game.status != "running":
            return game
        assert bot_seats.play(db, game_id, game.version) == "moved"
    raise AssertionError("the game did not end")


def test_37_2_a_table_against_a_bot_starts_at_once_and_the_bot_plays_its_turns_as_source_bot(db, posted):
    user_id = person(db)
    game_id = against_bot(db, user_id)
    game, seats, _ = state_of(db, game_id)
    assert game.status == "running" and not game.rated
    bot = next(seat for seat in seats if seat.bot_level)
    assert (bot.user_id, bot.bot_level, bot.display_name) == (None, "easy", "Bot 1 (easy)")
    game = play_out(db, game_id, user_id)
    assert game.status == "finished"
    with db.sessions() as s:
        records = s.scalars(select(MoveRecord).where(MoveRecord.game_id == game_id).order_by(MoveRecord.seq)).all()
        mailed = set(s.scalars(select(OutboundMail.user_id).where(OutboundMail.game_id == game_id)))
        left = s.scalar(select(func.count()).select_from(BotTurn))
    by_seat = {record.seat: {r.source for r in records if r.seat == record.seat} for record in records}
    assert by_seat[bot.number] == {"bot"}  # every move of the bot's seat, and only those, is the bot's
    assert "bot" not in by_seat[1 - bot.number]
    assert mailed == {user_id}  # a bot's seat is never told anything
    assert left == 0  # no bot turn waits in a finished game
    assert len(posted) == len({version for _, version in posted})  # one job per position


def test_37_2_a_bots_move_is_in_the_archive_and_passes_pbem_verify(db, monkeypatch):
    user_id = person(db)
    game_id = against_bot(db, user_id)
    play_out(db, game_id, user_id)
    assert archive.verify_game(db, game_id) == []
    data = json.loads(archive.export_bytes(db, game_id))
    assert "bot" in {move["source"] for move in data["moves"]}
    assert "Bot 1 (easy)" in {seat["name"] for seat in data["seats"]}
    copy = archive.import_archive(db, archive.export_bytes(db, game_id))  # an archive with bot moves reads back
    assert archive.verify_game(db, copy) == []
    replayed = games.history(db, copy)  # the replay's list of moves names the bot's
    assert "bot" in {move["source"] for move in replayed}
    monkeypatch.setattr(cli, "_db", lambda: db)  # the command on this test's database (closed by its fixture)
    result = CliRunner().invoke(cli.main, ["verify", str(game_id)], catch_exceptions=False)
    assert result.exit_code == 0 and "1 good, 0 with problems" in result.output, result.output


def test_37_2_a_job_delivered_twice_moves_once_and_a_stale_job_does_nothing(db, posted):
    user_id = person(db)
    game_id = against_bot(db, user_id)
    game = person_moves_until_bot(db, game_id, user_id)
    version = game.version
    assert posted[-1] == (game_id, version)
    assert bot_seats.play(db, game_id, version) == "moved"
    assert bot_seats.play(db, game_id, version) == "stale"  # delivered again: the game has moved on
    assert bot_seats.play(db, game_id, version - 1) == "stale"
    with db.sessions() as s:
        at_version = s.scalar(select(func.count()).select_from(MoveRecord).where(
            MoveRecord.game_id == game_id, MoveRecord.idempotency_key == f"bot:{game_id}:{version}"))
    assert at_version == 1


def test_37_2_one_bot_job_per_game_and_at_most_the_site_budget_queued(db, posted, monkeypatch):
    """The rule: a game has one bot turn row, so at most one bot job queued; the site has at most
    SITE_BUDGET bot jobs posted and not done; a bot turn that finds the budget full waits, and the
    sweep posts it when a place is free."""
    monkeypatch.setattr(bot_seats, "SITE_BUDGET", 2)
    ids = []
    for n in range(3):
        user_id = person(db, n)
        game_id = against_bot(db, user_id)
        person_moves_until_bot(db, game_id, user_id)
        ids.append(game_id)
    assert bot_seats.queued(db) == 2
    with db.sessions() as s:
        turns = {t.game_id: t for t in s.scalars(select(BotTurn))}
    assert set(turns) == set(ids)  # one row per game
    waiting = [game_id for game_id, turn in turns.items() if turn.posted_at is None]
    assert len(waiting) == 1 and waiting[0] not in {g for g, _ in posted}
    assert len({g for g, _ in posted}) == len(posted) == 2  # one job per game, two in all
    assert bot_seats.due(db) == []  # the budget is full: the sweep posts nothing
    first = posted[0][0]
    while (turn := state_of(db, first)[2]) is not None:  # the bot plays its turn: each decision's job posts the
        assert turn.posted_at is not None  # next one (its own game's place), until the person is to move ...
        assert bot_seats.play(db, first, turn.version) == "moved"
        assert bot_seats.queued(db) <= 2
    assert bot_seats.queued(db) == 1
    assert bot_seats.due(db) == [(waiting[0], turns[waiting[0]].version)]  # ... and the sweep posts the one waiting
    assert bot_seats.queued(db) == 2


def test_37_2_bad_bot_settings_are_refused_and_change_nothing(db):
    user_id = person(db)
    cases = [({"bot_seats": 1, "rated": True}, "not rated"),
             ({"bot_seats": 2}, "at most 1 bots"),
             ({"bot_seats": 1, "bot_level": "grandmaster"}, "no bot level 'grandmaster'"),
             ({"bot_seats": -1}, "whole number")]
    for settings, message in cases:
        with pytest.raises(games.GameError, match=message):
            games.create_game(db, "tapaono", user_id, 2, dict(SHORT_TAPAONO), **settings)
    with db.sessions() as s:
        assert s.scalar(select(func.count()).select_from(Game)) == 0


# --- by mail: /new ... bots=B level=L -------------------------------------------------------------


def test_37_2_new_by_mail_with_bots_starts_a_game_against_them(db, mail_settings):
    from tests.mail.conftest import command_address, compose, deliver_all, mail_text, receive, verified_user

    verified_user(db, "ann@example.org", "Ann")

    def new(line):
        outcome = receive(db, mail_settings, compose("ann@example.org", command_address(db, mail_settings,
                                                                                         "ann@example.org"), line + "\n"))
        replies = [mail_text(m) for m in deliver_all(db, mail_settings) if str(m["Subject"]).startswith("Re:")]
        return outcome.outcome, " ".join(" ".join(replies).split())

    for line, said in [("/new tongiaki players=3 bots=3", "bots= is how many of the other seats bots play, 0 to 2"),
                       ("/new tongiaki bots=1 level=genius", "level= is the bots' level: easy, medium, hard"),
                       ("/new tongiaki bots=1 rated=yes", "A game with bots is not rated")]:
        outcome, reply = new(line)
        assert outcome == "failed" and said in reply, (line, reply)
    with db.sessions() as s:
        assert s.scalar(select(func.count()).select_from(Game)) == 0  # nothing opened
    outcome, reply = new("/new tongiaki players=3 bots=2 level=medium")
    assert outcome == "done" and "has started: you against 2 bots" in reply, reply
    with db.sessions() as s:
        game = s.scalars(select(Game)).one()
        levels = sorted(s.scalars(select(Seat.bot_level).where(Seat.game_id == game.id, Seat.bot_level.is_not(None))))
    assert game.status == "running" and levels == ["medium", "medium"]
    outcome, reply = new("/new tongiaki replace=0")
    assert outcome == "failed" and "replace= is how many missed deadlines in a row" in reply, reply
    outcome, reply = new("/new tongiaki replace=2 level=hard")  # issue 37 item 3: the abandoned seats' policy
    assert outcome == "done" and "a bot (hard) plays it until one takes it" in reply, reply
    with db.sessions() as s:
        newest = s.scalars(select(Game).order_by(Game.id.desc())).first()
    assert (newest.status, newest.replace_after, newest.bot_level) == ("open", 2, "hard")


@pytest.fixture
def mail_settings(tmp_path):
    """The mail tests' settings (tests/mail/conftest.py: `settings`): a local outbox and a mail domain."""
    from pbem import config
    from tests.mail.conftest import DOMAIN

    return config.load({"PBEM_DATA_DIR": str(tmp_path / "data"), "PBEM_SECRET_KEY": "test-secret-key",
                        "PBEM_MAIL_DOMAIN": DOMAIN, "PBEM_SMTP_URL": "outbox:", "PBEM_BASE_URL": "https://pbem.example"})


# --- item 3: abandoned seats ------------------------------------------------------------------------


def two_players_with_policy(db, replace_after=2):
    """Ann and Bea at a short Tapaono whose table hands a seat to a bot after `replace_after` missed deadlines."""
    from pbem.schedule import deadlines
    from tests.worker.helpers import T0

    ann, bea = person(db, 0), person(db, 1)
    game_id = games.create_game(db, "tapaono", ann, 2, dict(SHORT_TAPAONO), turn_hours=24, timeout_policy="wait",
                                replace_after=replace_after, bot_level="easy")
    with deadlines.frozen(T0):
        games.join_game(db, game_id, bea)
    return game_id, ann, bea


def miss_deadline(db, game_id):
    """Let the deadline of the turn pass (the deadlines' own processing, at a moment past it)."""
    from datetime import timedelta

    from pbem.schedule import deadlines

    game, _, _ = state_of(db, game_id)
    at = game.deadline + timedelta(minutes=1)
    with deadlines.frozen(at):
        return deadlines.process(db, game_id, at)


def test_37_3_a_seat_that_misses_n_deadlines_is_played_by_a_bot_then_taken_by_a_replacement(db, posted):
    from pbem import talk
    from pbem.models import SeatHolder

    game_id, ann, bea = two_players_with_policy(db, replace_after=2)
    game, seats, _ = state_of(db, game_id)
    late = seats[game.to_move]
    late_user, number = late.user_id, late.number
    talk.write_note(db, game_id, late_user, "my plan: the north star")
    assert miss_deadline(db, game_id) == "late"
    assert state_of(db, game_id)[1][number].user_id == late_user  # one miss: still theirs
    assert miss_deadline(db, game_id) == "late"
    game, seats, turn = state_of(db, game_id)
    seat = seats[number]
    assert (seat.user_id, seat.bot_level, seat.display_name) == (None, "easy", "Bot 1 (easy)")
    assert seat.open_since is not None and turn is not None and turn.version == game.version
    assert posted[-1] == (game_id, game.version)  # the bot's job, after the commit
    assert bot_seats.open_seats(db) == [(game_id, "tapaono", number, "Bot 1 (easy)")]
    assert bot_seats.play(db, game_id, game.version) == "moved"
    cy = person(db, 2)
    with pytest.raises(games.GameError, match="already have a seat"):
        tables.take_seat(db, game_id, number, ann if late_user == bea else bea)  # the other player cannot take it
    tables.take_seat(db, game_id, number, cy)
    game, seats, turn = state_of(db, game_id)
    assert (seats[number].user_id, seats[number].bot_level, seats[number].open_since) == (cy, None, None)
    assert bot_seats.open_seats(db) == []
    with pytest.raises(games.GameError, match="not offered"):
        tables.take_seat(db, game_id, number, person(db, 3))
    assert talk.notes(db, game_id, cy) == []  # the previous player's private notes are not handed over
    with db.sessions() as s:
        holders = [(h.seat, h.from_seq, h.user_id, h.bot_level, h.reason)
                   for h in s.scalars(select(SeatHolder).where(SeatHolder.game_id == game_id).order_by(SeatHolder.id))]
        sources = {r.seq: r.source for r in s.scalars(select(MoveRecord).where(MoveRecord.game_id == game_id,
                                                                                MoveRecord.seat == number))}
    bot_from, cy_from = holders[1][1], holders[2][1]
    assert holders == [(number, 1, late_user, None, "first"), (number, bot_from, None, "easy", "missed"),
                       (number, cy_from, cy, None, "replaced")]
    # The record says who played which moves: the bot's moves are between its taking the seat and Cy's.
    assert sources and all(source == "bot" and bot_from <= seq < cy_from for seq, source in sources.items())
    if game.status == "running" and game.to_move == number:  # the replacement plays on from the position
        legal = games.view(db, game_id, cy)["legal_moves"]
        games.submit(db, game_id, legal[0], user_id=cy, expected_version=game.version)
    assert archive.verify_game(db, game_id) == []
    # The seat handed over is a game the late player abandoned, with the two deadlines they missed in it
    # (issue 35 item 4); the bot's moves are nobody's turns, and Cy's game is still running.
    from pbem.players import reliability
    with db.sessions() as s:
        late_record, cy_record = reliability.of_user(s, late_user), reliability.of_user(s, cy)
    assert (late_record["games_abandoned"], late_record["games_finished"], late_record["missed"]) == (1, 0, 2)
    assert (cy_record["games_abandoned"], cy_record["missed"]) == (0, 0)


def test_37_3_a_player_who_leaves_a_running_game_hands_the_seat_to_a_bot(db, posted):
    game_id, ann, bea = two_players_with_policy(db)
    games.leave_game(db, game_id, bea)
    game, seats, turn = state_of(db, game_id)
    seat = next(x for x in seats if x.display_name == "Bot 1 (easy)")
    assert seat.user_id is None and seat.open_since is not None and game.status == "running"
    assert (turn is not None) == (game.to_move == seat.number)  # the bot moves at once if it is its turn
    with pytest.raises(games.GameError, match="no seat"):
        games.leave_game(db, game_id, bea)  # gone: nothing more to leave


def test_37_3_without_a_policy_a_started_game_cannot_be_left_and_a_rated_table_cannot_declare_one(db):
    ann, bea = person(db, 0), person(db, 1)
    game_id = games.create_game(db, "tapaono", ann, 2, dict(SHORT_TAPAONO))
    games.join_game(db, game_id, bea)
    with pytest.raises(games.GameError, match="resign instead"):
        games.leave_game(db, game_id, bea)
    for settings, said in [({"replace_after": 0}, "after 1 to 10 missed deadlines"),
                           ({"replace_after": 2, "rated": True}, "not rated"),
                           ({"replace_after": 2, "bot_level": "genius"}, "no bot level")]:
        with pytest.raises(games.GameError, match=said):
            games.create_game(db, "tapaono", ann, 2, dict(SHORT_TAPAONO), **settings)


def test_37_3_a_seat_taken_while_its_bot_thinks_gets_no_bot_move(db, posted, monkeypatch):
    game_id, ann, bea = two_players_with_policy(db)
    game, seats, _ = state_of(db, game_id)
    leaver = seats[game.to_move].user_id  # the player to move leaves: the bot is to move at once
    games.leave_game(db, game_id, leaver)
    game, seats, turn = state_of(db, game_id)
    assert turn is not None and turn.version == game.version
    cy = person(db, 2)
    real = bot_seats.bots.choose

    def thinking(*args, **kwargs):
        tables.take_seat(db, game_id, game.to_move, cy)  # Cy takes the seat meanwhile
        return real(*args, **kwargs)

    monkeypatch.setattr(bot_seats.bots, "choose", thinking)
    assert bot_seats.play(db, game_id, game.version) == "stale"
    after, seats, turn = state_of(db, game_id)
    assert after.version == game.version and turn is None and seats[game.to_move].user_id == cy


def test_37_2_a_bot_job_lost_by_the_broker_is_posted_again_after_the_sweeps_delay(db, posted):
    """A post that failed (the broker away) leaves the turn marked posted: the sweep posts it again once the
    sweep's own delay has passed (PBEM_SWEEP_AFTER_S, as for mails), not only after LOST_AFTER_S."""
    from datetime import timedelta

    from pbem.models import utcnow

    game_id = against_bot(db, person(db, 0))
    game = person_moves_until_bot(db, game_id, person(db, 0))
    turn = state_of(db, game_id)[2]
    assert turn is not None and turn.version == game.version
    with db.transaction() as s:
        s.get(BotTurn, game_id).posted_at = utcnow() - timedelta(seconds=30)  # its job never reached a worker
    assert bot_seats.due(db, 60) == []  # within the sweep's delay: it may still be on its way
    assert bot_seats.due(db, 20) == [(game_id, game.version)]  # past it: posted again, once
    assert bot_seats.due(db, 20) == []
