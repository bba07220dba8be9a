"""Issue 35, item 5: a rematch by mail.

`/rematch GAME-ID` at the command address proposes it; every other player gets a mail in the game's
thread whose Reply-To is their seat's key, so a reply whose first line is `/rematch` accepts (and
`/rematch no` declines); the last acceptance starts the game and everyone hears of it, the player who
moves first by the usual turn mail. A reply for an offer that lapsed is answered with the reason.
"""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select, update

from pbem import games, mailkeys
from pbem.mail import commands
from pbem.models import Game, OutboundMail, RematchOffer, Seat, User, utcnow
from pbem.notify import wording
from tests.mail.conftest import DOMAIN, command_address, compose, deliver_all, mail_text, receive, reply_to, \
    verified_user

EMAILS = ("ann@example.org", "bob@example.org", "cid@example.org")


def finished(db, emails=EMAILS) -> tuple[int, list[str]]:
    """A finished counters game; its id and its players' addresses by seat."""
    ids = [verified_user(db, email) for email in emails]
    game_id = games.create_game(db, "counters", ids[0], len(ids), {"pile": 5})
    for user_id in ids[1:]:
        games.join_game(db, game_id, user_id)
    while (data := games.view(db, game_id))["status"] == "running":
        with db.sessions() as s:
            mover = s.scalar(select(Seat.user_id).where(Seat.game_id == game_id, Seat.number == data["to_move"]))
        games.submit(db, game_id, "take 3" if data["board"]["pile"] >= 3 else f"take {data['board']['pile']}",
                     user_id=mover)
    with db.sessions() as s:
        by_seat = [s.get(User, seat.user_id).email for seat in
                   s.scalars(select(Seat).where(Seat.game_id == game_id).order_by(Seat.number))]
    return game_id, by_seat


def mails_to(mails, email: str, word: str) -> list:
    return [m for m in mails if m["To"] == email and word in mail_text(m)]


def test_35_5_a_rematch_asked_and_accepted_by_mail_starts_the_game(db, settings):
    game_id, by_seat = finished(db)
    deliver_all(db, settings)  # the game's own mails, sent before
    proposer, *others = by_seat
    result = receive(db, settings, compose(proposer, command_address(db, settings, proposer), f"/rematch {game_id}",
                                           subject="rematch"))
    assert result.outcome == "done", result.detail
    mails = deliver_all(db, settings)
    (answer,) = mails_to(mails, proposer, "You proposed a rematch")
    assert f"it starts when {', '.join(games.view(db, game_id)['seats'][n]['name'] for n in (1, 2))} accepted" \
        in mail_text(answer)
    keys = {}
    for n, email in enumerate(others, start=1):
        (offer,) = mails_to(mails, email, "proposes a rematch")
        text = mail_text(offer)
        # In the game's thread, with the way to accept on its own line and the seat's key as Reply-To.
        assert offer["Subject"] == wording.thread_subject(game_id, "Counters", "en")
        assert "\n  /rematch\n" in text and "\n  /rematch no\n" in text and f"/games/{game_id}" in text
        key = mailkeys.decode_reply(reply_to(offer), DOMAIN)
        assert (key.game_id, key.seat, key.seq) == (game_id, n, games.view(db, game_id)["version"])
        keys[email] = reply_to(offer)
    # A reply: the command on its first line, the offer quoted under it.
    quoted = "\n".join("> " + line for line in mail_text(mails_to(mails, others[0], "proposes")[0]).split("\n"))
    result = receive(db, settings, compose(others[0], keys[others[0]], "/rematch\n\n" + quoted,
                                           subject=f"Re: {wording.thread_subject(game_id, 'Counters', 'en')}"))
    assert result.outcome == "done", result.detail
    assert any("You accepted the rematch" in mail_text(m) for m in mails_to(deliver_all(db, settings), others[0], ""))
    result = receive(db, settings, compose(others[1], keys[others[1]], "/rematch"))
    assert result.outcome == "done", result.detail
    with db.sessions() as s:
        new_id = s.scalar(select(RematchOffer.new_game_id).where(RematchOffer.game_id == game_id))
        new_seats = [s.get(User, seat.user_id).email for seat in
                     s.scalars(select(Seat).where(Seat.game_id == new_id).order_by(Seat.number))]
    assert new_seats == by_seat[1:] + by_seat[:1]  # the seats moved round by one
    mails = deliver_all(db, settings)
    assert mails_to(mails, others[1], f"is game {new_id}, and it has begun")  # the answer to the last acceptance
    for email in (proposer, others[0]):  # the others hear that it began, and where they sit
        (started,) = mails_to(mails, email, "Every player accepted the rematch")
        assert f"You play seat {new_seats.index(email) + 1} of 3" in mail_text(started)
    # The player who moves first gets the usual turn mail of the new game, with its turn key.
    (turn,) = [m for m in mails if m["X-Pbem-Move"] == "1" and f"#{new_id} " in m["Subject"]]
    assert turn["To"] == others[0] and mailkeys.decode_reply(reply_to(turn), DOMAIN).game_id == new_id


def test_35_5_a_reply_no_declines_and_the_others_are_told(db, settings):
    game_id, (ann, bob, cid) = finished(db)
    receive(db, settings, compose(ann, command_address(db, settings, ann), f"/rematch {game_id}"))
    mails = deliver_all(db, settings)
    keys = {email: reply_to(mails_to(mails, email, "proposes a rematch")[0]) for email in (bob, cid)}
    result = receive(db, settings, compose(bob, keys[bob], "/rematch no\nSorry, not this week."))
    assert result.outcome == "done", result.detail
    mails = deliver_all(db, settings)
    assert mails_to(mails, bob, "You declined the rematch")
    for email in (ann, cid):
        (told,) = mails_to(mails, email, "declined the rematch")
        assert "the offer is closed" in mail_text(told)
    # Cid's reply to the offer, read after Bob's decline, is answered with the reason and proposes nothing.
    result = receive(db, settings, compose(cid, keys[cid], "/rematch"))
    assert result.outcome == "failed"
    (answer,) = mails_to(deliver_all(db, settings), cid, "declined the rematch")
    assert "nothing was done" in mail_text(answer)
    with db.sessions() as s:
        assert s.scalars(select(RematchOffer.status)).all() == ["declined"]


def test_35_5_a_reply_to_an_offer_that_lapsed_is_answered_with_the_reason(db, settings):
    game_id, (ann, bob) = finished(db, EMAILS[:2])
    receive(db, settings, compose(ann, command_address(db, settings, ann), f"/rematch {game_id}"))
    key = reply_to(mails_to(deliver_all(db, settings), bob, "proposes a rematch")[0])
    with db.transaction() as s:
        s.execute(update(RematchOffer).values(lapses_at=utcnow() - timedelta(hours=1)))
    result = receive(db, settings, compose(bob, key, "/rematch"))
    assert result.outcome == "failed"
    (answer,) = mails_to(deliver_all(db, settings), bob, "lapsed on")
    assert "an offer lasts 7 days" in mail_text(answer) and "nothing was done" in mail_text(answer)
    with db.sessions() as s:
        assert s.scalar(select(RematchOffer.status)) == "lapsed"
        assert s.scalar(select(Game.id).order_by(Game.id.desc()).limit(1)) == game_id  # no new game


def test_35_5_rematch_by_mail_refuses_what_it_cannot_do_and_says_how(db, settings):
    game_id, (ann, bob) = finished(db, EMAILS[:2])
    stranger = "dee@example.org"
    verified_user(db, stranger)
    address = command_address(db, settings, ann)
    result = receive(db, settings, compose(ann, address, "/rematch"))
    assert result.failed[1].startswith("Write /rematch GAME-ID, with the number of the finished game")
    result = receive(db, settings, compose(ann, address, f"/rematch {game_id} maybe"))
    assert "Write /rematch GAME-ID to ask for a rematch or accept it" in result.failed[1]
    result = receive(db, settings, compose(stranger, command_address(db, settings, stranger), f"/rematch {game_id}"))
    assert result.failed[1] == f"Only the players of game {game_id} can ask for its rematch."
    with db.sessions() as s:
        assert s.scalar(select(RematchOffer.id)) is None
        assert s.scalars(select(OutboundMail.kind).where(OutboundMail.kind == "rematch")).all() == []
    assert any(line.strip().startswith("/rematch GAME-ID [no]") for line in commands.help_lines("en"))
