"""Issue 31, item 3: a forged From cannot spend a player's mail budget.

61 mails forged as `From: alice@...` made 62 mails to Alice, and her own move through her
valid turn key was then refused as rate-limited. Now a mail through a valid key counts
against its owner only; other mails count against their sender as written and the site's
unproven budget; their answers to a registered address go out once an ANSWER_PERIOD.
"""

from __future__ import annotations

import dataclasses
from datetime import timedelta

from pbem import games
from pbem.mail import budgets
from pbem.models import MailBudget
from tests.mail.conftest import compose, counters_game, deliver_all, mail_text, receive, reply_to, with_rate


def start(db, settings):
    game_id, by_seat = counters_game(db)
    return game_id, by_seat, deliver_all(db, settings)[0]


def test_31_3_forged_mails_in_a_players_name_never_stop_her_moves(db, settings):
    settings = with_rate(settings, 60)
    game_id, by_seat, turn = start(db, settings)
    alice = by_seat[0]
    forged = [receive(db, settings, compose(alice, "pbem@pbem.test", "/games")).outcome for _ in range(61)]
    assert forged == ["done"] * 60 + ["rate_limited"]  # read (read-only), until her From's budget is spent
    to_alice = [m for m in deliver_all(db, settings) if str(m["To"]) == alice]
    assert len(to_alice) == 1  # one answer; the other 59 were dropped
    played = receive(db, settings, compose(alice, reply_to(turn), "take 2"))
    assert played.outcome == "done" and [m["notation"] for m in games.history(db, game_id)] == ["take 2"]


def test_31_3_the_next_answer_says_how_many_were_dropped(db, settings):
    game_id, by_seat, turn = start(db, settings)
    alice = by_seat[0]
    for _ in range(4):
        receive(db, settings, compose(alice, "pbem@pbem.test", "/games"))
    assert len([m for m in deliver_all(db, settings) if str(m["To"]) == alice]) == 1
    with db.transaction() as s:  # the period is over
        row = s.get(MailBudget, budgets.answers_to(alice))
        row.window_start -= budgets.ANSWER_PERIOD + timedelta(seconds=1)
    receive(db, settings, compose(alice, "pbem@pbem.test", "/games"))
    (answer,) = [m for m in deliver_all(db, settings) if str(m["To"]) == alice]
    assert mail_text(answer).startswith("3 more mails with your address as their sender were not answered")


def test_31_3_a_keys_owner_is_counted_alone_and_told_once(db, settings):
    settings = with_rate(settings, 3)
    game_id, by_seat, turn = start(db, settings)
    alice = by_seat[0]
    for _ in range(5):  # strangers spend only their own budgets
        receive(db, settings, compose(alice, "pbem@pbem.test", "/games"))
    outcomes = [receive(db, settings, compose(alice, reply_to(turn), "/board")).outcome for _ in range(5)]
    assert outcomes == ["done"] * 3 + ["rate_limited"] * 2
    notices = [m for m in deliver_all(db, settings) if "only notice" in mail_text(m)]
    assert len(notices) == 1 and str(notices[0]["To"]) == alice


def test_31_3_unproven_mail_is_bounded_for_the_whole_site(db, settings):
    settings = dataclasses.replace(settings, mail_unproven_per_hour=5)
    outcomes = [receive(db, settings, compose(f"stranger{n}@example.net", "pbem@pbem.test", "/games")).outcome
                for n in range(7)]
    assert outcomes == ["unverified"] * 5 + ["rate_limited"] * 2
