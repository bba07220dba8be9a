"""Whole games by email with players who batch what they can (issue 20), through the real mail path.

Each title is played to its end by `bench/roundtrips.py`'s players: after each turn mail a
player writes, in one mail, every decision they can make without seeing new information, then
standing orders for what comes after chance. Every mail goes through
`pbem.mail.inbound.receive` to the seat's turn key; the finished game's log must replay from
its seed exactly (`pbem verify`), and where the title has chance inside a turn, standing orders
must have made moves. (The engines' own tests check each order's meaning: P9, T13, D9.)
"""

from __future__ import annotations

import pytest

import engine
from bench import roundtrips
from pbem import games, mailkeys
from pbem.mail import inbound
from tests.mail.conftest import compose

TITLES = sorted(roundtrips.BY_MAIL)


@pytest.mark.parametrize("title", TITLES)
def test_a_whole_game_by_mail_with_batching_players_verifies(title, tmp_path):
    rules = engine.get(title)
    players, preset = roundtrips.BY_MAIL[title]
    tally, made = roundtrips.Tally(), []

    def driver(rules_, players_, options_, seed):
        made.append(roundtrips.MailDriver(rules_, players_, options_, seed, tmp_path))
        return made[-1]

    roundtrips.play_game(rules, players, rules.check_options(preset), 3, tally, make_driver=driver)
    mail = made[0]
    try:
        summary = games.view(mail.db, mail.game_id)
        assert summary["status"] == "finished"
        assert mail.verify() == []  # every move, the orders' included, replays from the seed
        history = games.history(mail.db, mail.game_id)
        assert {m["source"] for m in history} <= {"email", "order"}
        if title in ("tapaono", "tongiaki"):  # chance inside a turn: the orders saved the waiting
            assert tally.by_order[0] > 0 and any(m["source"] == "order" for m in history)
        # About one round trip per player turn (goals: issue 20; bench/roundtrips.py measures them).
        assert roundtrips.percentile(tally.per_turn, 0.5) <= 1
    finally:
        mail.close()


def test_an_order_that_can_never_apply_is_answered_with_the_reason_and_nothing_is_queued(tmp_path):
    rules = engine.get("tapaono")
    mail = roundtrips.MailDriver(rules, 2, rules.check_options({}), 5, tmp_path)
    try:
        seat = rules.to_move(mail.state)
        first = rules.notation(mail.state, rules.legal_moves(mail.state)[0])
        address, nonce = mail.emails[seat]
        key = mailkeys.encode_reply(mail.settings.secret_key, mail.settings.mail_domain, mail.game_id, seat, 0, nonce)
        raw = compose(address, key, f"{first}\ntake 1 2,0 1,0\n")  # 2,0 is a star: no marker lies on a star
        received = inbound.receive(mail.db, raw, mail.settings)
        assert received.outcome == "partial" and received.failed[0].startswith("take 1 2,0")
        assert "star" in received.failed[1]
        with mail.db.sessions() as s:  # and the writer's queue stays empty
            user_id = games.seats_of(s, games.load_game(s, mail.game_id))[seat].user_id
        assert games.orders_of(mail.db, mail.game_id, user_id) == []
    finally:
        mail.close()
