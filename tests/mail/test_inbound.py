"""inbound.receive: authentication, loops, limits and refusals; each refusal changes nothing in the game."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from pbem import accounts
from pbem import games
from pbem.mail import addresses, inbound, outbound
from pbem import mailkeys
from pbem.models import Game, InboundMail, MailAddress, MoveRecord, OutboundMail, User
from tests.mail.conftest import (
    command_address, compose, counters_game, deliver_all, mail_text, receive, reply_to, with_rate,
)


def state_of(db, game_id):
    with db.sessions() as s:
        game = s.get(Game, game_id)
        moves = s.scalar(select(func.count()).select_from(MoveRecord).where(MoveRecord.game_id == game_id))
        return game.version, game.state, game.chain_head, moves


def start(db, settings, **kwargs):
    """A counters game and the first turn mail (to seat 0)."""
    game_id, by_seat = counters_game(db, **kwargs)
    turn = deliver_all(db, settings)[0]
    assert str(turn["To"]) == by_seat[0]
    return game_id, by_seat, turn


def answers_to(mails, address):
    return [m for m in mails if str(m["To"]) == address]


def test_a_reply_through_the_token_moves_and_the_next_player_is_told(db, settings):
    game_id, by_seat, turn = start(db, settings)
    result = receive(db, settings, compose(by_seat[0], reply_to(turn), "take 2"))
    assert (result.outcome, result.game_id) == ("done", game_id)
    assert [m["notation"] for m in games.history(db, game_id)] == ["take 2"]
    mails = deliver_all(db, settings)
    turn2 = [m for m in mails if str(m["To"]) == by_seat[1]]
    assert len(turn2) == 1 and (str(turn2[0]["X-Pbem-Kind"]), str(turn2[0]["X-Pbem-Move"])) == ("turn", "2")
    assert "1. " in mail_text(turn2[0]) and "take 2" in mail_text(turn2[0])
    with db.sessions() as s:
        stored = s.scalars(select(InboundMail)).one()
        assert stored.outcome == "done" and stored.game_id == game_id and b"take 2" in stored.raw
        assert s.get(User, stored.game_id and s.scalars(select(User.id).where(User.email == by_seat[0])).one()
                     ).email_verified


def test_forged_from_is_refused_and_changes_nothing(db, settings):
    game_id, by_seat, turn = start(db, settings)
    before = state_of(db, game_id)
    result = receive(db, settings, compose("Mallory <mallory@example.net>", reply_to(turn), "take 3"))
    assert result.outcome == "forged_from"
    assert state_of(db, game_id) == before
    mails = deliver_all(db, settings)
    assert answers_to(mails, "mallory@example.net") == []  # the stranger learns nothing
    answer = answers_to(mails, by_seat[0])  # the seat's owner is told
    assert len(answer) == 1 and "taken only from this address" in mail_text(answer[0])
    assert "take 3" not in mail_text(answer[0]) and mailkeys.decode_reply(reply_to(answer[0]), "pbem.test") is None


def test_the_other_seat_cannot_use_a_token_either(db, settings):
    game_id, by_seat, turn = start(db, settings)
    before = state_of(db, game_id)
    assert receive(db, settings, compose(by_seat[1], reply_to(turn), "take 3")).outcome == "forged_from"
    assert state_of(db, game_id) == before


def test_from_check_off_accepts_another_address_of_the_player(db, settings):
    game_id, by_seat, turn = start(db, settings)
    with db.transaction() as s:
        s.scalars(select(User).where(User.email == by_seat[0])).one().from_check = False
    result = receive(db, settings, compose("alice.at.work@example.com", reply_to(turn), "take 1"))
    assert result.outcome == "done" and state_of(db, game_id)[0] == 1


def test_a_forged_token_is_refused_and_changes_nothing(db, settings):
    game_id, by_seat, turn = start(db, settings)
    before = state_of(db, game_id)
    address = reply_to(turn)
    local, domain = address.split("@")
    forged = local[:-4] + ("0000" if not local.endswith("0000") else "1111") + "@" + domain
    for target in (forged, f"pbem+{game_id}.1.0.{local.rsplit('.', 1)[1]}@{domain}",  # another seat, same mac
                   f"pbem+{game_id + 1}.0.0.{local.rsplit('.', 1)[1]}@{domain}"):  # another game
        result = receive(db, settings, compose(by_seat[0], target, "take 1"))
        assert result.outcome == "bad_token", target
    assert state_of(db, game_id) == before
    assert all("not valid" in mail_text(m) for m in answers_to(deliver_all(db, settings), by_seat[0]))


def test_a_new_nonce_revokes_the_seats_tokens(db, settings):
    game_id, by_seat, turn = start(db, settings)
    from pbem.models import Seat

    with db.transaction() as s:
        s.scalars(select(Seat).where(Seat.game_id == game_id, Seat.number == 0)).one().token_nonce = "renewed"
    assert receive(db, settings, compose(by_seat[0], reply_to(turn), "take 1")).outcome == "bad_token"
    assert state_of(db, game_id)[0] == 0


def test_a_reply_to_an_old_turn_gets_the_current_board_and_changes_nothing(db, settings):
    game_id, by_seat, turn = start(db, settings)
    assert receive(db, settings, compose(by_seat[0], reply_to(turn), "take 1")).outcome == "done"
    turn2 = answers_to(deliver_all(db, settings), by_seat[1])[-1]
    assert receive(db, settings, compose(by_seat[1], reply_to(turn2), "take 1")).outcome == "done"
    deliver_all(db, settings)
    before = state_of(db, game_id)
    # The first turn mail's token (move 1) used again: late, or a second answer to the same turn.
    late = receive(db, settings, compose(by_seat[0], reply_to(turn), "take 3"))
    assert late.outcome == "stale"
    assert state_of(db, game_id) == before
    answer = answers_to(deliver_all(db, settings), by_seat[0])
    assert len(answer) == 1
    body = mail_text(answer[0])
    assert "This turn has already been played" in body and "pile: 13" in body
    # It is seat 0's turn again, so the answer carries the legal moves and a fresh token.
    assert "take 3" in body and reply_to(answer[0]) != reply_to(turn)
    assert receive(db, settings, compose(by_seat[0], reply_to(answer[0]), "take 3")).outcome == "done"


def test_a_duplicate_message_id_is_processed_once(db, settings):
    game_id, by_seat, turn = start(db, settings)
    raw = compose(by_seat[0], reply_to(turn), "take 2", message_id="<same@example.org>")
    first = receive(db, settings, raw)
    again = receive(db, settings, raw)
    other_bytes = receive(db, settings, compose(by_seat[0], reply_to(turn), "take 1", message_id="<same@example.org>"))
    assert (first.outcome, again.outcome, other_bytes.outcome) == ("done", "duplicate", "duplicate")
    assert state_of(db, game_id)[0] == 1
    assert len(answers_to(deliver_all(db, settings), by_seat[0])) == 1
    with db.sessions() as s:
        assert s.scalar(select(func.count()).select_from(InboundMail)) == 1


def test_a_message_without_message_id_is_known_by_its_hash(db, settings):
    game_id, by_seat, turn = start(db, settings)
    raw = compose(by_seat[0], reply_to(turn), "take 2").replace(b"Message-ID:", b"X-Old-Message-ID:")
    assert receive(db, settings, raw).outcome == "done"
    assert receive(db, settings, raw).outcome == "duplicate"
    assert state_of(db, game_id)[0] == 1


def test_auto_replies_are_never_answered_and_change_nothing(db, settings):
    game_id, by_seat, turn = start(db, settings)
    before = state_of(db, game_id)
    for headers in ({"Auto-Submitted": "auto-replied"}, {"Precedence": "bulk"}, {"X-Autoreply": "yes"},
                    {"Return-Path": "<>"}, {"Precedence": "junk"}):
        result = receive(db, settings, compose(by_seat[0], reply_to(turn), "take 1", headers=headers))
        assert result.outcome in ("auto_reply", "bounce"), headers
    result = receive(db, settings, compose(by_seat[0], reply_to(turn), "take 1",
                                           subject="Out of Office: your turn"))
    assert result.outcome == "auto_reply"
    assert state_of(db, game_id) == before
    assert answers_to(deliver_all(db, settings), by_seat[0]) == []


def bounce_for(settings, outbox_id: int, address: str, status: str = "5.1.1") -> bytes:
    verp = mailkeys.encode_bounce(settings.secret_key, settings.mail_domain, outbox_id)
    return (f"Return-Path: <>\r\nFrom: MAILER-DAEMON@mx.example.org\r\nTo: {verp}\r\n"
            f"Subject: Undelivered Mail Returned to Sender\r\nMessage-ID: <bounce.{outbox_id}.{status}@mx>\r\n"
            "MIME-Version: 1.0\r\nContent-Type: multipart/report; report-type=delivery-status; boundary=b\r\n\r\n"
            "--b\r\nContent-Type: text/plain\r\n\r\nYour mail could not be delivered.\r\n"
            "--b\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; mx.example.org\r\n\r\n"
            f"Final-Recipient: rfc822; {address}\r\nAction: failed\r\nStatus: {status}\r\n--b--\r\n").encode()


def mails_to(db, address: str, count: int) -> list[int]:
    """`count` mails of ours sent to `address` (outbox rows), as bounces name them."""
    from pbem.notify import outbox

    with db.transaction() as s:
        ids = [outbox.queue(s, kind="move", recipient=address, subject=f"mail {n}", body="text") for n in range(count)]
        for outbox_id in ids:
            s.get(OutboundMail, outbox_id).status = "sent"
        return ids


def test_repeated_hard_bounces_stop_notifications(db, settings):
    game_id, by_seat, turn = start(db, settings)
    before = state_of(db, game_id)
    with db.sessions() as s:
        turn_id = s.scalars(select(OutboundMail.id).where(OutboundMail.kind == "turn")).one()
    soft = receive(db, settings, bounce_for(settings, turn_id, by_seat[0], "4.2.2"))
    assert soft.outcome == "bounce" and "soft" in soft.detail
    bounced = [turn_id] + mails_to(db, by_seat[0], addresses.HARD_BOUNCE_LIMIT - 1)
    for n, outbox_id in enumerate(bounced):
        result = receive(db, settings, bounce_for(settings, outbox_id, by_seat[0], f"5.1.{n + 1}"))
        assert result.outcome == "bounce"
    assert "notifications stopped" in result.detail
    assert state_of(db, game_id) == before
    with db.sessions() as s:
        status = addresses.mail_status(s, by_seat[0])
        assert status["stopped"] and status["hard_bounces"] == 3 and status["soft_bounces"] == 1
    assert answers_to(deliver_all(db, settings), "mailer-daemon@mx.example.org") == []
    # The next notification to that address is not sent; the other player's mail still is.
    games.resign(db, game_id, accounts.ensure_user(db, by_seat[1]))
    with db.sessions() as s:
        rows = s.scalars(select(OutboundMail).where(OutboundMail.status == "pending")).all()
    outcomes = {row.recipient: outbound.deliver(db, row.id, settings) for row in rows}
    assert outcomes == {by_seat[0]: "suppressed", by_seat[1]: "sent"}
    with db.transaction() as s:
        addresses.resume(s, by_seat[0])
        assert not addresses.mail_status(s, by_seat[0])["stopped"]


@pytest.mark.parametrize("status", ["5.7.1", "5.7.26", "5.3.0", "5.6.0", None])
def test_31_8_a_bounce_for_a_policy_or_without_a_status_never_stops_notifications(db, settings, status):
    """Issue 31, item 8: three spam-filter refusals of other players' mails to one address stop nothing."""
    game_id, by_seat, turn = start(db, settings)
    raw_of = (lambda outbox_id: bounce_for(settings, outbox_id, by_seat[0], status)) if status else \
        (lambda outbox_id: bounce_for(settings, outbox_id, by_seat[0], "x").replace(b"Status: x\r\n", b""))
    for outbox_id in mails_to(db, by_seat[0], addresses.HARD_BOUNCE_LIMIT + 1):
        result = receive(db, settings, raw_of(outbox_id))
        assert result.outcome == "bounce" and result.detail.startswith(f"refused bounce ({status or 'no status'})")
    with db.sessions() as s:
        row = s.get(MailAddress, by_seat[0])
        assert (row.hard_bounces, row.soft_bounces, row.stopped_at) == (0, addresses.HARD_BOUNCE_LIMIT + 1, None)
        assert (status or "no status") in row.last_bounce


def test_31_8_a_bounce_is_read_in_time_linear_in_its_size(db, settings):
    """The status is found with RE2: a report of many blank lines costs in proportion to them (a
    backtracking "^\\s*Status:" was quadratic: hours for 100,000 lines)."""
    import time

    game_id, by_seat, turn = start(db, settings)

    def cost(lines: int) -> float:
        (outbox_id,) = mails_to(db, by_seat[0], 1)
        raw = bounce_for(settings, outbox_id, by_seat[0]).replace(b"Your mail could not be delivered.",
                                                                   b"\r\n" * lines + b" Status")
        start_cpu = time.thread_time()
        results.append(receive(db, settings, raw))
        return time.thread_time() - start_cpu

    results = []
    small, large = min(cost(25_000) for _ in range(2)), min(cost(100_000) for _ in range(2))
    assert large <= 6 * small + 0.005, f"{small * 1000:.1f} ms for 25,000 lines, {large * 1000:.1f} ms for 100,000"
    assert all(result.outcome == "bounce" and "5.1.1" in result.detail for result in results)


def test_a_forged_bounce_address_counts_nothing(db, settings):
    start(db, settings)
    raw = bounce_for(settings, 1, "x@example.org").replace(b"pbem-bounce+1.", b"pbem-bounce+2.")
    assert receive(db, settings, raw).outcome == "bounce"
    with db.sessions() as s:
        assert s.scalars(select(MailAddress).where(MailAddress.hard_bounces > 0)).all() == []


def test_a_20_mb_message_is_not_read(db, settings):
    game_id, by_seat, turn = start(db, settings)
    before = state_of(db, game_id)
    raw = compose(by_seat[0], reply_to(turn), "take 1\n" + "x" * 76 + "\n") + b"y" * (20 * 1024 * 1024)
    result = receive(db, settings, raw)
    assert result.outcome == "too_large"
    assert state_of(db, game_id) == before
    with db.sessions() as s:
        assert len(s.get(InboundMail, result.inbound_id).raw) == inbound.HEAD_BYTES
    answer = answers_to(deliver_all(db, settings), by_seat[0])
    assert len(answer) == 1 and "the limit is 10 MB" in mail_text(answer[0])


def nested(depth: int) -> bytes:
    head = b""
    for level in range(depth):
        head += f"Content-Type: multipart/mixed; boundary=b{level}\r\n\r\n--b{level}\r\n".encode()
    return head + b"Content-Type: text/plain\r\n\r\ntake 1\r\n"


def test_mime_bombs_are_refused(db, settings):
    game_id, by_seat, turn = start(db, settings)
    before = state_of(db, game_id)
    def top():
        return compose(by_seat[0], reply_to(turn), "x").split(b"\nContent-Type:")[0] + b"\n"

    deep = top().replace(b"MIME-Version: 1.0\n", b"") + b"MIME-Version: 1.0\n" + nested(2000)
    parts = [b"--b\r\nContent-Type: text/plain\r\n\r\ntake 1\r\n" for _ in range(5000)]
    wide = (top().replace(b"MIME-Version: 1.0\n", b"") + b"MIME-Version: 1.0\nContent-Type: multipart/mixed; "
            b"boundary=b\r\n\r\n" + b"".join(parts) + b"--b--\r\n")
    for raw in (deep, wide):
        result = receive(db, settings, raw)
        assert result.outcome == "malformed" and "MIME parts" in result.detail
    assert state_of(db, game_id) == before


def test_a_message_with_no_text_part_is_answered_and_changes_nothing(db, settings):
    game_id, by_seat, turn = start(db, settings)
    raw = compose(by_seat[0], reply_to(turn), "x").replace(b"text/plain", b"image/png")
    result = receive(db, settings, raw)
    assert result.outcome == "no_text" and state_of(db, game_id)[0] == 0
    assert "no text part" in mail_text(answers_to(deliver_all(db, settings), by_seat[0])[0])


def test_lines_after_a_failure_are_listed_as_not_played_and_prose_is_counted_never_echoed(db, settings):
    # Issue 33, item 1: the moves and commands after a failure are listed, one a line, as not played;
    # the prose after them (a greeting, a name) is only counted.
    game_id, by_seat, turn = start(db, settings)
    result = receive(db, settings, compose(by_seat[0], reply_to(turn), "take 7\ndraw 9 cards\n/bored\nThanks!\nAnn"))
    assert result.outcome == "failed" and result.failed[0] == "take 7"
    assert result.not_played == ["draw 9 cards", "/bored"] and result.not_read == 2
    body = mail_text(answers_to(deliver_all(db, settings), by_seat[0])[0])
    assert "Failed (reading stopped here):\n  take 7" in body
    assert "Not played:\n  draw 9 cards  - not played: it comes after the line that failed\n" \
           "  /bored  - not played: it comes after the line that failed" in body
    assert "2 lines after that were not read" in body
    assert "Thanks" not in body and "Ann" not in body and "Ignored" not in body


def test_a_flood_gets_one_notice(db, settings):
    game_id, by_seat, turn = start(db, settings)
    limited = with_rate(settings, 3)
    outcomes = [receive(db, limited, compose(by_seat[0], reply_to(turn), "/board")).outcome for _ in range(8)]
    assert outcomes == ["done"] * 3 + ["rate_limited"] * 5
    answers = answers_to(deliver_all(db, settings), by_seat[0])
    assert len(answers) == 4 and "only notice" in mail_text(answers[-1])


def test_an_unknown_address_gets_a_code_and_nothing_more(db, settings):
    stranger = "newcomer@example.org"
    first = receive(db, settings, compose(stranger, "pbem@pbem.test", "/new counters players=2", subject="hi"))
    assert first.outcome == "unverified"
    assert games.list_games(db) == []
    again = receive(db, settings, compose(stranger, "pbem@pbem.test", "/games"))
    assert again.outcome == "unverified" and again.answer_id is None  # one code an hour, no answer flood
    mails = answers_to(deliver_all(db, settings), stranger)
    assert len(mails) == 1
    code = next(line.split()[1] for line in mail_text(mails[0]).splitlines() if line.strip().startswith("/confirm"))
    wrong = receive(db, settings, compose(stranger, "pbem@pbem.test", "/confirm 00000000"))
    assert wrong.outcome == "unverified"
    with db.sessions() as s:  # no user is made for an address before it is confirmed
        assert s.scalars(select(User).where(User.email == stranger)).first() is None
    confirmed = receive(db, settings, compose(stranger, "pbem@pbem.test", f"/confirm {code}"))
    assert confirmed.outcome == "confirmed"
    welcome = answers_to(deliver_all(db, settings), stranger)[0]
    assert reply_to(welcome) == command_address(db, settings, stranger)  # replying to it sends commands
    created = receive(db, settings, compose(stranger, reply_to(welcome), "/new counters players=2 pile=9"))
    assert created.outcome == "done" and games.list_games(db)[0]["title"] == "counters"


def test_a_move_without_a_token_is_refused(db, settings):
    game_id, by_seat, turn = start(db, settings)
    for to in ("pbem@pbem.test", command_address(db, settings, by_seat[0])):
        result = receive(db, settings, compose(by_seat[0], to, f"/move {game_id} take 1"))
        assert result.outcome == "failed" and "only in a reply to your turn mail" in result.failed[1]
        result = receive(db, settings, compose(by_seat[0], to, f"/resign {game_id}"))
        assert result.outcome == "failed" and state_of(db, game_id)[0] == 0
    # The answers name the game where it is the player's turn, with its turn key.
    answer = mail_text(answers_to(deliver_all(db, settings), by_seat[0])[-1])
    assert f"It is your turn in game {game_id}" in answer and f"Send your move to pbem+{game_id}.0.0." in answer


def test_commands_by_mail_open_join_and_start_a_game(db, settings):
    from tests.mail.conftest import verified_user

    to = {}
    for who in ("ann@example.org", "ben@example.org", "cat@example.org"):
        verified_user(db, who)
        to[who] = command_address(db, settings, who)
    opened = receive(db, settings, compose("ann@example.org", to["ann@example.org"], "",
                                           subject="/new counters players=3"))
    game_id = opened.game_id
    assert opened.outcome == "done" and game_id
    assert receive(db, settings, compose("ben@example.org", to["ben@example.org"], f"/join {game_id}")).outcome == "done"
    assert receive(db, settings, compose("cat@example.org", to["cat@example.org"],
                                         f"/start {game_id}")).outcome == "failed"  # no seat, not the creator
    assert receive(db, settings, compose("ann@example.org", to["ann@example.org"],
                                         f"/start {game_id}")).outcome == "done"
    listing = receive(db, settings, compose("ben@example.org", to["ben@example.org"], "/games\n/notify every"))
    assert listing.outcome == "done"
    mails = deliver_all(db, settings)
    ben = mail_text(answers_to(mails, "ben@example.org")[-1])
    assert f"#{game_id} counters: running" in ben and "after every move" in ben
    assert len([m for m in mails if str(m["X-Pbem-Kind"]) == "turn"]) == 1
    assert all(f"[pbem #{game_id} Counters]" in str(m["Subject"]) for m in mails if m["X-Pbem-Game"])


def test_an_empty_mail_is_told_how_to_write_commands(db, settings):
    game_id, by_seat, turn = start(db, settings)
    result = receive(db, settings, compose(by_seat[0], reply_to(turn), "\n\n"))
    assert result.outcome == "empty" and state_of(db, game_id)[0] == 0


def processing_row(db, raw: bytes, message_id: str, sender: str, age_s: float = 0.0) -> None:
    """The row of a first delivery of the message that is being processed (or died `age_s` ago)."""
    from datetime import timedelta

    from pbem.models import utcnow

    with db.transaction() as s:
        s.add(InboundMail(message_id=message_id, sender=sender, raw=raw, outcome="processing",
                          received_at=utcnow() - timedelta(seconds=age_s)))


def test_a_copy_arriving_while_the_first_is_processed_waits_for_it_and_is_a_duplicate(db, settings, monkeypatch):
    # Found by bench/soak.py: the same mail delivered twice at the same moment was processed twice
    # side by side (the move applied once by its key, but two answers went out; a /new made two tables).
    game_id, by_seat, turn = start(db, settings)
    raw = compose(by_seat[0], reply_to(turn), "take 2", message_id="<twice@example.org>")
    processing_row(db, raw, "<twice@example.org>", by_seat[0])
    waited = []

    def first_delivery_finishes():
        waited.append(True)
        with db.transaction() as s:
            s.scalars(select(InboundMail)).one().outcome = "done"

    monkeypatch.setattr(inbound, "_wait_for_the_other_delivery", first_delivery_finishes)
    assert receive(db, settings, raw).outcome == "duplicate"
    assert waited == [True]
    assert state_of(db, game_id)[0] == 0
    assert answers_to(deliver_all(db, settings), by_seat[0]) == []


def test_a_message_whose_processing_died_is_taken_up_again(db, settings, monkeypatch):
    game_id, by_seat, turn = start(db, settings)
    raw = compose(by_seat[0], reply_to(turn), "take 2", message_id="<died@example.org>")
    processing_row(db, raw, "<died@example.org>", by_seat[0], age_s=inbound.PROCESSING_WAIT.total_seconds() + 1)
    monkeypatch.setattr(inbound, "_wait_for_the_other_delivery", lambda: pytest.fail("a dead processing is not waited for"))
    assert receive(db, settings, raw).outcome == "done"
    assert state_of(db, game_id)[0] == 1
    assert len(answers_to(deliver_all(db, settings), by_seat[0])) == 1


def test_a_token_reply_from_the_seats_own_address_confirms_it(db, settings):
    game_id, by_seat, turn = start(db, settings)
    with db.transaction() as s:
        s.scalars(select(User).where(User.email == by_seat[0])).one().email_verified = False
    assert receive(db, settings, compose(by_seat[0], reply_to(turn), "take 1")).outcome == "done"
    with db.sessions() as s:
        assert s.scalars(select(User).where(User.email == by_seat[0])).one().email_verified


def test_a_token_reply_from_another_address_confirms_nothing(db, settings):
    game_id, by_seat, turn = start(db, settings)
    with db.transaction() as s:
        user = s.scalars(select(User).where(User.email == by_seat[0])).one()
        user.email_verified, user.from_check = False, False
    assert receive(db, settings, compose("elsewhere@example.org", reply_to(turn), "take 1")).outcome == "done"
    with db.sessions() as s:
        assert not s.scalars(select(User).where(User.email == by_seat[0])).one().email_verified


def test_a_token_of_a_seat_without_a_user_is_refused(db, settings):
    from pbem.models import Seat

    game_id, by_seat, turn = start(db, settings)
    with db.transaction() as s:  # as in an imported game: the seat belongs to no user
        s.scalars(select(Seat).where(Seat.game_id == game_id, Seat.number == 0)).one().user_id = None
    result = receive(db, settings, compose(by_seat[0], reply_to(turn), "take 1"))
    assert result.outcome == "bad_token" and state_of(db, game_id)[0] == 0


def test_a_reply_to_a_seat_of_an_unknown_game_is_refused(db, settings):
    game_id, by_seat, turn = start(db, settings)
    forged = mailkeys.encode_reply(settings.secret_key, settings.mail_domain, game_id + 1, 0, 0, "nonce")
    assert receive(db, settings, compose(by_seat[0], forged, "take 1")).outcome == "bad_token"


def test_the_budgets_of_a_new_sender_are_made_on_its_first_mail(db, settings):
    from pbem.models import MailBudget
    from tests.mail.conftest import verified_user

    verified_user(db, "first@example.org")
    assert receive(db, settings, compose("first@example.org", "pbem@pbem.test", "/games")).outcome == "done"
    assert receive(db, settings, compose("first@example.org", "pbem@pbem.test", "/games")).outcome == "done"
    with db.sessions() as s:
        counts = {row.name: row.count for row in s.scalars(select(MailBudget))}
    # Without a key: the sender as written and all unproven senders; one answer went, one was dropped.
    assert counts == {"from:first@example.org": 2, "unproven": 2, "answers:first@example.org": 1}
