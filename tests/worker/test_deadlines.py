"""Deadlines with a controlled clock: counting time, reminders, each timeout policy, the event log."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from pbem import db as dbmod, games
from pbem.schedule import absences, deadlines
from pbem.models import MoveRecord
from tests.worker.helpers import T0, count, events, game, mails, moves, table

H = timedelta(hours=1)


# --- counting time ---------------------------------------------------------------------------


def test_every_hour_counts_without_weekday_rules():
    assert deadlines.advance(T0, 30) == T0 + 30 * H


def test_weekends_do_not_count_for_a_monday_to_friday_game():
    friday_evening = datetime(2026, 11, 20, 18, 0)
    # 6 hours left on Friday, Saturday and Sunday skipped, 18 hours on Monday.
    assert deadlines.advance(friday_evening, 24, weekdays="12345") == datetime(2026, 11, 23, 18, 0)


def test_weekdays_are_judged_in_the_players_time_zone():
    friday_evening = datetime(2026, 11, 20, 18, 0)  # already Saturday 07:00 in Auckland (UTC+13)
    # Auckland's Saturday and Sunday do not count; its Monday starts on Sunday 11:00 UTC.
    assert deadlines.advance(friday_evening, 24, tz="Pacific/Auckland", weekdays="12345") == \
        datetime(2026, 11, 23, 11, 0)


def test_weekdays_follow_a_daylight_saving_change():
    # New York: Friday 16:00 EDT; the weekend ends on Monday 00:00 EST (05:00 UTC) after the clocks go back.
    start = datetime(2026, 10, 30, 20, 0)
    assert deadlines.advance(start, 24, tz="America/New_York", weekdays="12345") == datetime(2026, 11, 2, 21, 0)


def test_absences_stop_the_clock_and_an_unknown_zone_counts_as_utc():
    away = [(T0 + 2 * H, T0 + 5 * H)]
    assert deadlines.advance(T0, 24, absences=away) == T0 + 27 * H
    assert deadlines.advance(T0, 24, tz="Mars/Olympus", absences=away) == T0 + 27 * H


def test_bad_weekday_settings_are_refused_with_a_reason():
    with pytest.raises(deadlines.DeadlineError, match="ISO numbers"):
        deadlines.check_weekdays("89")
    assert deadlines.check_weekdays("5432123") == "12345"


# --- the turn's deadline ------------------------------------------------------------------------


def test_a_turn_deadline_is_set_in_the_players_zone_and_logged(db):
    friday = datetime(2026, 11, 20, 18, 0)
    game_id, _ = table(db, timezones=("Pacific/Auckland", "Pacific/Auckland"), at=friday, weekdays="12345")
    assert game(db, game_id).deadline == datetime(2026, 11, 23, 11, 0)
    logged = events(db, game_id, "deadline")
    assert logged[-1].detail == {"old": None, "new": "2026-11-23T11:00:00Z", "reason": "turn"}


def test_the_next_turn_starts_when_the_move_is_made(db):
    game_id, users = table(db)
    with deadlines.frozen(T0 + 5 * H):
        games.submit(db, game_id, "take 1", user_id=users[0])
    current = game(db, game_id)
    assert current.deadline == T0 + 29 * H and current.turn_started_at == T0 + 5 * H and current.turn_seq == 1


def test_a_reminder_goes_once_per_turn_even_after_a_restart(db):
    game_id, users = table(db)  # 24 h turns: the reminder is due 6 h before the deadline
    assert deadlines.process(db, game_id, T0 + 17 * H) == "nothing"
    assert deadlines.due(db, T0 + 19 * H) == [game_id]
    assert deadlines.process(db, game_id, T0 + 19 * H) == "reminded"
    assert deadlines.process(db, game_id, T0 + 20 * H) == "nothing"
    fresh = dbmod.Database(db.url)  # a restarted worker sees the recorded reminder
    try:
        assert deadlines.due(fresh, T0 + 21 * H) == []
        assert deadlines.process(fresh, game_id, T0 + 21 * H) == "nothing"
    finally:
        fresh.dispose()
    reminders = mails(db, "reminder")
    assert [m.user_id for m in reminders] == [users[0]]
    assert "2026-11-17T09:00:00Z" in reminders[0].body_text
    with deadlines.frozen(T0 + 22 * H):
        games.submit(db, game_id, "take 1", user_id=users[0])
    assert deadlines.process(db, game_id, T0 + 41 * H) == "reminded"  # the next turn has its own
    assert [m.user_id for m in mails(db, "reminder")] == [users[0], users[1]]


# --- timeout policies ---------------------------------------------------------------------------


def test_wait_marks_the_player_late_tells_the_table_and_restarts_the_clock(db):
    game_id, users = table(db, policy="wait")
    late_at = T0 + 25 * H
    assert deadlines.process(db, game_id, late_at) == "late"
    assert moves(db, game_id) == []
    assert sorted(m.user_id for m in mails(db, "late")) == sorted(users)
    current = game(db, game_id)
    assert current.deadline == late_at + 24 * H
    seen = absences.table(db, game_id, late_at)
    assert [s["late"] for s in seen["seats"]] == [True, False]
    assert [e.kind for e in events(db, game_id)][-3:] == ["missed", "late", "deadline"]
    assert deadlines.process(db, game_id, late_at + H) == "nothing"  # done once, not again


def test_random_plays_a_legal_move_marked_timeout(db):
    game_id, users = table(db, policy="random")
    assert deadlines.process(db, game_id, T0 + 24 * H) == "random"
    played = moves(db, game_id)
    assert len(played) == 1 and played[0].source == "timeout" and played[0].seat == 0
    assert played[0].notation in ("take 1", "take 2", "take 3", "draw")
    current = game(db, game_id)
    assert current.to_move == 1 and current.deadline == T0 + 48 * H  # the next turn starts at the timeout
    assert deadlines.process(db, game_id, T0 + 24 * H) == "nothing"
    logged = [(e.kind, e.seat, e.seq) for e in events(db, game_id) if e.kind in ("missed", "timeout")]
    assert logged == [("missed", 0, 0), ("timeout", 0, 0)]


def test_a_move_that_arrives_with_the_timeout_wins(db, monkeypatch):
    game_id, users = table(db, policy="random")
    real_submit = games.submit

    def player_first(database, gid, move, **kwargs):
        if kwargs.get("source") == "timeout":  # the player's own move lands between the check and the timeout
            real_submit(database, gid, "take 2", user_id=users[0], source="email")
        return real_submit(database, gid, move, **kwargs)

    monkeypatch.setattr(games, "submit", player_first)
    assert deadlines.process(db, game_id, T0 + 24 * H) == "moved"
    played = moves(db, game_id)
    assert [(m.notation, m.source) for m in played] == [("take 2", "email")]
    assert events(db, game_id, "missed") == []  # the player was in time after all


def test_skip_plays_a_pass_where_the_rules_allow_one(db):
    game_id, _ = table(db, "passing", policy="skip")
    assert deadlines.process(db, game_id, T0 + 24 * H) == "pass"
    assert [(m.notation, m.source) for m in moves(db, game_id)] == [("pass", "timeout")]


def test_skip_waits_where_the_rules_allow_no_pass(db):
    game_id, _ = table(db, "counters", policy="skip")
    assert deadlines.process(db, game_id, T0 + 24 * H) == "late"
    assert moves(db, game_id) == []
    assert "allow no pass" in mails(db, "late")[0].body_text
    assert "allow no pass" in events(db, game_id, "late")[0].detail["why"]


def test_resign_waits_then_resigns_the_seat_after_n_missed_turns(db):
    game_id, users = table(db, policy="resign", resign_after=2)
    assert deadlines.process(db, game_id, T0 + 24 * H) == "late"
    assert game(db, game_id).status == "running"
    assert deadlines.process(db, game_id, T0 + 48 * H) == "resigned"
    current = game(db, game_id)
    assert current.status == "finished" and "Resigned: Player 0" in current.result["reason"]
    assert moves(db, game_id)[-1].source == "timeout"


def test_a_seat_that_moves_again_starts_counting_missed_turns_afresh(db):
    game_id, users = table(db, policy="resign", resign_after=2)
    assert deadlines.process(db, game_id, T0 + 24 * H) == "late"
    with deadlines.frozen(T0 + 30 * H):
        games.submit(db, game_id, "take 1", user_id=users[0])
        games.submit(db, game_id, "take 1", user_id=users[1])
    assert deadlines.process(db, game_id, T0 + 55 * H) == "late"  # one miss since it last moved
    assert game(db, game_id).status == "running"


# --- vacation days and absences -----------------------------------------------------------------


def test_a_banked_vacation_day_is_spent_before_the_policy(db):
    game_id, users = table(db, policy="random")
    absences.set_vacation_days(db, users[0], 1)
    assert deadlines.process(db, game_id, T0 + 24 * H) == "vacation"
    assert moves(db, game_id) == []
    assert game(db, game_id).deadline == T0 + 48 * H
    seen = absences.table(db, game_id, T0 + 30 * H)
    assert seen["seats"][0]["away"] and seen["seats"][0]["vacation_days"] == 0
    assert deadlines.process(db, game_id, T0 + 48 * H) == "random"  # the bank is empty now


def test_an_absence_moves_the_deadline_later_and_ending_it_never_moves_it_back(db):
    game_id, users = table(db)
    absence = absences.declare(db, users[0], T0 + 10 * H, T0 + 72 * H, at=T0 + H)
    assert game(db, game_id).deadline == T0 + 86 * H  # 10 h before, 62 h away, 14 h after
    assert events(db, game_id, "deadline")[-1].detail["reason"] == "absence"
    absences.end(db, users[0], absence, at=T0 + 20 * H)
    assert game(db, game_id).deadline == T0 + 86 * H
    assert absences.table(db, game_id, T0 + 21 * H)["seats"][0]["away"] is False


def test_a_turn_that_begins_during_an_absence_starts_after_it(db):
    game_id, users = table(db)
    absences.declare(db, users[1], T0 + 2 * H, T0 + 50 * H, at=T0)
    with deadlines.frozen(T0 + 3 * H):
        games.submit(db, game_id, "take 1", user_id=users[0])
    assert game(db, game_id).deadline == T0 + 74 * H
    assert absences.table(db, game_id, T0 + 4 * H)["seats"][1]["away_until"] == "2026-11-18T11:00:00Z"


def test_every_absence_ends(db):
    game_id, users = table(db)
    with pytest.raises(absences.AbsenceError, match="at most 30 days"):
        absences.declare(db, users[0], T0, T0 + timedelta(days=31), at=T0)
    absences.declare(db, users[0], T0, T0 + timedelta(days=20), at=T0)
    with pytest.raises(absences.AbsenceError, match="at most 30 days in a row"):  # no chaining past the limit
        absences.declare(db, users[0], T0 + timedelta(days=20), T0 + timedelta(days=40), at=T0)
    with pytest.raises(absences.AbsenceError, match="already over"):
        absences.declare(db, users[0], T0 - 3 * H, T0 - H, at=T0)
    assert len(absences.current(db, users[0], T0)) == 1


def test_settings_change_the_deadline_only_later_and_only_by_the_creator(db):
    game_id, users = table(db)
    with pytest.raises(games.NotAllowedError):
        deadlines.configure(db, game_id, users[1], turn_hours=48)
    with deadlines.frozen(T0 + H):
        assert deadlines.configure(db, game_id, users[0], turn_hours=48)["deadline"] == "2026-11-18T09:00:00Z"
        assert deadlines.configure(db, game_id, users[0], turn_hours=2)["deadline"] == "2026-11-18T09:00:00Z"
    with pytest.raises(deadlines.DeadlineError):
        deadlines.configure(db, game_id, users[0], policy="sulk")
    assert [e.detail["reason"] for e in events(db, game_id, "deadline")] == ["turn", "settings"]


def test_untimed_games_have_no_deadline_and_nothing_is_due(db):
    game_id, _ = table(db, hours=None)
    assert game(db, game_id).deadline is None
    assert deadlines.due(db, T0 + timedelta(days=400)) == []
    assert count(db, MoveRecord) == 0
