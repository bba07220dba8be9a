"""Which mails a game sends, and that no mail gives away what its reader may not see."""

from __future__ import annotations

import json

from sqlalchemy import select

from pbem import games, notify
from pbem.models import Game, OutboundMail, User
from tests.mail.conftest import counters_game, deliver_all, mail_text


def rows(db, kind=None):
    """Outbox rows, each with `text`: what its mail says (a game mail's text is written when it is
    first sent, from what the seat saw after its move: `notify.view_text`)."""
    with db.sessions() as s:
        query = select(OutboundMail).order_by(OutboundMail.id)
        if kind:
            query = query.where(OutboundMail.kind == kind)
        found = list(s.scalars(query))
        for row in found:
            row.text = row.body_text or notify.view_text(s, row)
        return found


def user_id(db, email):
    with db.sessions() as s:
        return s.scalars(select(User.id).where(User.email == email)).one()


def test_one_turn_mail_per_turn_with_moves_deadline_and_commitment(db, settings):
    game_id, by_seat = counters_game(db)
    for n in range(3):
        games.submit(db, game_id, "take 1", seat=n % 2)
    turns = rows(db, "turn")
    assert [r.seq for r in turns] == [0, 1, 2, 3]
    assert [r.recipient for r in turns] == [by_seat[n % 2] for n in range(4)]
    with db.sessions() as s:
        commitment = s.get(Game, game_id).commitment
    body = turns[-1].text
    assert "Your legal moves (4):\n  take 1\n  take 2\n  take 3\n  draw" in body
    assert commitment in body and "3. " in body and "/games/" in body


def test_no_mail_shows_the_seed_the_deck_or_another_hand_while_the_game_runs(db, settings):
    game_id, by_seat = counters_game(db, options={"pile": 12})
    games.submit(db, game_id, "draw", seat=0)
    games.submit(db, game_id, "draw", seat=1)
    games.submit(db, game_id, "take 1", seat=0)
    with db.sessions() as s:
        game = s.get(Game, game_id)
        seed, state = game.seed, json.loads(game.state)
    mails = deliver_all(db, settings)
    assert len(mails) == 4
    for message in mails:
        text = mail_text(message)
        assert seed not in message.as_string()
        assert "hands: null" in text and json.dumps(state["deck"]) not in text
    last = mails[-1]  # to seat 1, after both drew: its own card only
    assert str(last["To"]) == by_seat[1]
    assert f"my_hand: {json.dumps(state['hands'][1])}" in mail_text(last)


def test_the_result_mail_reveals_the_seed_once_the_game_is_over(db, settings):
    game_id, by_seat = counters_game(db, options={"pile": 5})
    games.submit(db, game_id, "take 3", seat=0)
    games.submit(db, game_id, "take 2", seat=1)
    results = rows(db, "result")
    with db.sessions() as s:
        seed = s.get(Game, game_id).seed
    assert sorted(r.recipient for r in results) == sorted(by_seat.values())
    assert all(seed in r.text and "Final scores" in r.text for r in results)


def test_notification_settings_every_and_none(db, settings):
    game_id, by_seat = counters_game(db, emails=("a@example.org", "b@example.org", "c@example.org"))
    every, none = user_id(db, by_seat[2]), user_id(db, by_seat[1])
    with db.transaction() as s:
        s.get(User, every).notify = "every"
        s.get(User, none).notify = "none"
    games.submit(db, game_id, "take 1", seat=0)  # to seat 1: "none", so no turn mail
    games.submit(db, game_id, "take 1", seat=1)  # to seat 2
    turns = [(r.recipient, r.seq) for r in rows(db, "turn")]
    assert turns == [(by_seat[0], 0), (by_seat[2], 2)]
    moves = [(r.recipient, r.seq) for r in rows(db, "move")]
    assert moves == [(by_seat[2], 1)]  # seat 2 follows every move, but not its own turn twice
    assert "played take 1" in rows(db, "move")[0].text


def test_digest_players_get_no_turn_mail_but_a_daily_digest(db, settings):
    from pbem.notify import digest

    game_id, by_seat = counters_game(db)
    digest_user = user_id(db, by_seat[1])
    with db.transaction() as s:
        s.get(User, digest_user).notify = "digest"
    games.submit(db, game_id, "take 1", seat=0)
    assert [r.recipient for r in rows(db, "turn")] == [by_seat[0]]
    assert digest.queue_digests(db, settings) == 1
    assert digest.queue_digests(db, settings) == 0  # one a day
    mails = [m for m in deliver_all(db, settings) if str(m["To"]) == by_seat[1]]
    assert len(mails) == 1 and f"game {game_id}" in mail_text(mails[0]).lower()
    assert f"pbem+{game_id}.1.1." in mail_text(mails[0])


def test_a_turn_mail_sent_late_says_what_the_seat_saw_at_its_move(db, settings):
    """Texts tell what the seat saw after the move, however late they are written: a worker that
    was behind must not mail a later position (nor that position's legal moves) under an older
    turn's token. The text written while the game is at the move and the one written after the
    game moved on are the same."""
    game_id, by_seat = counters_game(db, options={"pile": 12})
    games.submit(db, game_id, "take 1", seat=0)  # the turn mail for move 2 waits unsent
    first = rows(db, "turn")[-1].text
    games.submit(db, game_id, "take 3", seat=1)
    games.submit(db, game_id, "take 2", seat=0)
    later = [r for r in rows(db, "turn") if r.seq == 1][0].text
    assert later == first
    # The moves are told once, in "Since your last turn" (issue 33 item 6, c), and only those up to the move.
    told = later.split("Since your last turn:")[1].split("\n\n")[0]
    assert "move 2." in later and "take 1" in told and "take 3" not in told
    mails = deliver_all(db, settings)
    sent = [m for m in mails if "move 2." in mail_text(m)]
    assert len(sent) == 1 and "pile: 11" in mail_text(sent[0]) and "pile: 11" in later
