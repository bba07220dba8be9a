"""Issue 33, item 10: the mails of one game to one address are one thread that mail clients can follow.

The messages are built by the real outbox and sender (pbem.mail.outbound into the `outbox:` folder) and
read back with the email package, as a mail client would: the root of the thread is a Message-ID that is
really sent, every later mail of the game refers to it, and the subject stays the same.
"""

from __future__ import annotations

import dataclasses
import socket
from email import policy
from email.parser import BytesParser

import pytest
from sqlalchemy import select

from pbem import games
from pbem.mail import commands, outbound
from pbem.models import OutboundMail
from tests.mail.conftest import compose, counters_game, deliver_all, mail_text, receive, reply_to, verified_user

ALICE, BOB, CAROL = "alice@example.org", "bob@example.org", "carol@example.org"


def parse(raw: bytes):
    return BytesParser(policy=policy.default).parsebytes(raw)


def ids(header) -> list[str]:
    return str(header).split() if header is not None else []


def play_by_mail(db, settings, moves: int):
    """A counters game of Alice, Bob and Carol (all told of every move), `moves` turns played by replies to
    the turn mails; returns the game id, every mail sent (oldest first) and the Message-IDs of the replies."""
    for address in (ALICE, BOB, CAROL):
        verified_user(db, address, notify="every")
    game_id, by_seat = counters_game(db, (ALICE, BOB, CAROL))
    mails, replies = deliver_all(db, settings), {}
    for _ in range(moves):
        turn = [m for m in mails if str(m["X-Pbem-Kind"]) == "turn"][-1]
        message_id = f"<reply.{len(replies)}@example.org>"
        result = receive(db, settings, compose(str(turn["To"]), reply_to(turn), "take 1",
                                               subject="Re: " + str(turn["Subject"]), message_id=message_id))
        assert result.outcome == "done", result.detail
        replies[message_id] = str(turn["To"])
        mails += deliver_all(db, settings)
    return game_id, mails, replies


def test_33_10_one_thread_per_game_and_address_whose_root_is_sent(db, settings):
    game_id, mails, replies = play_by_mail(db, settings, 4)
    every_id = [str(m["Message-ID"]) for m in mails]
    assert len(set(every_id)) == len(every_id)  # a Message-ID is never used twice
    roots = {}
    for address in (ALICE, BOB, CAROL):
        mine = [m for m in mails if str(m["To"]) == address]
        assert len(mine) >= 4 and all(str(m["X-Pbem-Game"]) == str(game_id) for m in mine)
        root = str(mine[0]["Message-ID"])
        # The first mail of the game to this address is the root: it refers to no mail of ours.
        assert root.startswith(f"<pbem.game.{game_id}.") and ids(mine[0]["References"]) in ([], ids(
            mine[0]["In-Reply-To"]))
        assert address.split("@")[0] not in root and "example" not in root  # the address is only in an HMAC
        for later in mine[1:]:
            references = ids(later["References"])
            assert references[0] == root, (str(later["Subject"]), references)
            assert str(later["In-Reply-To"]) in references
        # One subject for the whole game ("Re: " before it in the answers to the player's mails).
        assert {str(m["Subject"]).removeprefix("Re: ") for m in mine} == {f"[pbem #{game_id} Counters] game {game_id}"}
        roots[address] = root
    assert len(set(roots.values())) == 3  # per mailbox: no one else's mail has it
    # The answers to the players' replies are in the thread and In-Reply-To the reply they answer.
    answers = [m for m in mails if str(m["Subject"]).startswith("Re: ")]
    assert len(answers) == 4
    for answer in answers:
        assert replies[str(answer["In-Reply-To"])] == str(answer["To"])
        assert ids(answer["References"])[0] == roots[str(answer["To"])]


def test_33_10_the_headers_and_the_text_say_the_move_and_whose_turn(db, settings):
    game_id, mails, _ = play_by_mail(db, settings, 3)
    turns = [m for m in mails if str(m["X-Pbem-Kind"]) == "turn"]
    assert [str(m["X-Pbem-Move"]) for m in turns] == ["1", "2", "3", "4"]
    names = {ALICE: "alice", BOB: "bob", CAROL: "carol"}
    for turn in turns:
        assert str(turn["X-Pbem-Turn"]) == names[str(turn["To"])]
        first = mail_text(turn).split("\n")[0]
        assert first == f"It is your turn in game {game_id} (Counters), move {turn['X-Pbem-Move']}."
    moves = [m for m in mails if str(m["X-Pbem-Kind"]) == "move"]
    assert moves, "both follow every move"
    for mail in moves:
        to_move = str(mail["X-Pbem-Turn"])
        assert f"{to_move} is to move, move {mail['X-Pbem-Move']}." in mail_text(mail).split("\n")[0]


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _rows(db, address):
    with db.sessions() as s:
        return list(s.scalars(select(OutboundMail).where(OutboundMail.recipient == address)
                              .order_by(OutboundMail.id)))


def test_33_10_a_mail_sent_again_keeps_its_message_id_and_the_root_is_sent_once(db, settings):
    game_id, by_seat = counters_game(db, (ALICE, BOB))
    first, other = _rows(db, by_seat[0])[0], by_seat[1]
    away = dataclasses.replace(settings, smtp_url=f"smtp://127.0.0.1:{_closed_port()}")
    with pytest.raises(outbound.TransientMailError):
        outbound.deliver(db, first.id, away)  # the relay is away: the row waits, with its Message-ID
    root = _rows(db, by_seat[0])[0].message_id
    assert root.startswith(f"<pbem.game.{game_id}.")
    # A later mail of the game to that player, claimed while the first one waits: it refers to the root, it is
    # not it; the first one, sent again once the relay is back, keeps its Message-ID, the root.
    games.submit(db, game_id, "take 1", seat=0)
    games.submit(db, game_id, "take 1", seat=1)
    waiting = [row.id for row in _rows(db, by_seat[0]) if row.status == "pending"]
    assert waiting[0] == first.id and len(waiting) == 2
    assert outbound.deliver(db, waiting[1], settings) == "sent"
    assert outbound.deliver(db, first.id, settings) == "sent"
    resent, later = (parse((settings.data_dir / "outbox" / f"{n:08d}.eml").read_bytes()) for n in waiting)
    assert str(resent["Message-ID"]) == root and resent["References"] is None
    assert str(later["Message-ID"]) != root and ids(later["References"]) == [root]
    # The other player's thread has a root of its own.
    (to_other,) = deliver_all(db, settings)
    assert str(to_other["To"]) == other and str(to_other["Message-ID"]) not in (root, str(later["Message-ID"]))
    assert to_other["References"] is None and str(to_other["Message-ID"]).startswith(f"<pbem.game.{game_id}.")


def test_33_10_a_root_that_never_left_is_taken_by_the_next_mail(db, settings, monkeypatch):
    game_id, by_seat = counters_game(db, (ALICE, BOB))
    first = _rows(db, by_seat[0])[0]

    def refused(*args):
        raise outbound.smtplib.SMTPRecipientsRefused({by_seat[0]: (550, b"5.7.1 refused by policy")})

    monkeypatch.setattr(outbound, "_smtp_send", refused)
    assert outbound.deliver(db, first.id, dataclasses.replace(settings, smtp_url="smtp://127.0.0.1:25")) == "failed"
    monkeypatch.undo()
    games.submit(db, game_id, "take 1", seat=0)
    games.submit(db, game_id, "take 1", seat=1)
    (turn,) = [m for m in deliver_all(db, settings) if str(m["To"]) == by_seat[0]]
    # The failed mail never reached the mailbox, so this one is the root there.
    assert str(turn["Message-ID"]) == _rows(db, by_seat[0])[0].message_id and turn["References"] is None


@pytest.mark.parametrize("subject", [
    "Re: [pbem #{game} Counters] game {game} take 2",  # the subject of this issue
    "Re: [pbem #{game} Counters] your turn (move 1) take 2",  # a mail sent before it
    "AW: [pbem #{game} Counters] game {game} take 2",
])
def test_33_10_a_move_written_after_the_game_subject_is_played(db, settings, subject):
    game_id, by_seat = counters_game(db, (ALICE, BOB))
    turn = deliver_all(db, settings)[0]
    result = receive(db, settings, compose(by_seat[0], reply_to(turn), "", subject=subject.format(game=game_id)))
    assert result.outcome == "done", result.detail
    assert [m["notation"] for m in games.history(db, game_id)] == ["take 2"]


def test_33_10_the_game_subject_is_taken_off_in_every_language():
    for text in ("Re: [pbem #12 Tongiaki] game 12 place Tonga 3", "Re: Re: [pbem #12 Tongiaki] game 12 place Tonga 3",
                 "Re: [pbem #12 Tongiaki] your turn (move 3) place Tonga 3"):
        assert commands.subject_move(text) == "place Tonga 3"
    assert commands.subject_move("Re: [pbem #12 Tongiaki] game 12") is None
    assert commands.subject_command("Re: [pbem #12 Tongiaki] game 12 /board") == "/board"
