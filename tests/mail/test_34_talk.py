"""Issue 34 (table talk and private notes), items 1, 3, 4 and 5 in the domain (pbem.talk) and by mail.

A message goes to the whole table or to the players named; who may read it is decided in one
place, and a private message or a note is found nowhere a third player or a spectator can look:
not in their conversation, not in their mails.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select, update

from pbem import games, talk
from pbem.models import Game, Message, OutboundMail, Seat, User, utcnow
from tests.mail.conftest import command_address, compose, counters_game, deliver_all, mail_text, receive, \
    verified_user

EMAILS = ("ann@example.org", "bob@example.org", "cid@example.org")


@pytest.fixture
def table(db):
    """A running three-player game; its seats by number and the user ids of Ann, Bob and Cid."""
    game_id, by_seat = counters_game(db, EMAILS)
    with db.sessions() as s:
        users = {u.email: u.id for u in s.scalars(select(User))}
        seats = {seat.user_id: seat.number for seat in s.scalars(select(Seat).where(Seat.game_id == game_id))}
    ann, bob, cid = (users[e] for e in EMAILS)
    return game_id, ann, bob, cid, seats


def outbox_of(db, email: str, kind: str = "message") -> list[OutboundMail]:
    with db.sessions() as s:
        return list(s.scalars(select(OutboundMail).where(OutboundMail.recipient == email, OutboundMail.kind == kind)))


def test_34_1_a_message_to_the_table_reaches_every_other_player(db, table):
    game_id, ann, bob, cid, seats = table
    talk.post(db, game_id, ann, "Good luck, everyone!")
    for reader in (ann, bob, cid):
        said = talk.conversation(db, game_id, reader)
        assert [m.body for m in said] == ["Good luck, everyone!"]
        assert said[0].to is None and said[0].mine == (reader == ann)
    assert outbox_of(db, EMAILS[0]) == []  # the author is not mailed their own message
    for email in EMAILS[1:]:
        (row,) = outbox_of(db, email)
        assert "Good luck, everyone!" in row.body_text and "Reply to this mail to answer the table" in row.body_text


def test_34_1_a_private_message_reaches_only_those_named(db, table):
    game_id, ann, bob, cid, seats = table
    talk.post(db, game_id, ann, "Bob, shall we stop Cid?", to=(seats[bob],))
    assert [m.body for m in talk.conversation(db, game_id, bob)] == ["Bob, shall we stop Cid?"]
    assert [m.body for m in talk.conversation(db, game_id, ann)] == ["Bob, shall we stop Cid?"]
    assert talk.conversation(db, game_id, cid) == []
    assert talk.conversation(db, game_id, None) == []
    assert len(outbox_of(db, EMAILS[1])) == 1 and outbox_of(db, EMAILS[2]) == []


def test_34_private_message_and_note_are_nowhere_a_third_player_or_spectator_looks(db, table, settings):
    """The hidden-information rule: A's private message to B and B's note, searched for in everything C
    and a spectator get (conversation, mails, the game's view) after the game has gone on and ended."""
    game_id, ann, bob, cid, seats = table
    secret, note = "XYZZY-private-plan", "PLUGH-my-note"
    talk.post(db, game_id, ann, f"{secret} for you", to=(seats[bob],))
    talk.write_note(db, game_id, bob, note)
    talk.post(db, game_id, cid, "hello all")
    for viewer in (cid, None):
        for said in talk.conversation(db, game_id, viewer):
            assert secret not in (said.body or "") and note not in (said.body or "")
    assert [n.body for n in talk.notes(db, game_id, bob)] == [note]
    assert talk.notes(db, game_id, cid) == [] and talk.notes(db, game_id, ann) == []
    with db.transaction() as s:
        s.execute(update(Game).where(Game.id == game_id).values(status="finished", press_spectators=True))
    for viewer in (cid, None):
        assert all(secret not in (m.body or "") for m in talk.conversation(db, game_id, viewer))
    mails = deliver_all(db, settings)
    for message in mails:
        if message["To"] in (EMAILS[2],):
            assert secret not in message.as_string() and note not in message.as_string()
    assert any(secret in mail_text(m) for m in mails if m["To"] == EMAILS[1])


def test_34_4_press_options_of_the_table(db, table):
    game_id, ann, bob, cid, seats = table
    with db.transaction() as s:
        s.execute(update(Game).where(Game.id == game_id).values(press="public"))
    with pytest.raises(talk.TalkError, match="private messages are not allowed"):
        talk.post(db, game_id, ann, "psst", to=(seats[bob],))
    talk.post(db, game_id, ann, "to all")
    with db.transaction() as s:
        s.execute(update(Game).where(Game.id == game_id).values(press="none"))
    with pytest.raises(talk.TalkError, match="plays without messages"):
        talk.post(db, game_id, ann, "anyone?")
    with db.transaction() as s:
        s.execute(update(Game).where(Game.id == game_id).values(press="full", status="finished",
                                                                 press_after_end=False))
    with pytest.raises(talk.TalkError, match="does not talk after the end"):
        talk.post(db, game_id, ann, "gg")
    assert [m.body for m in talk.conversation(db, game_id, bob)] == ["to all"]


def test_34_4_a_late_player_may_be_kept_from_talking_until_they_move(db, table):
    game_id, ann, bob, cid, seats = table
    with db.sessions() as s:
        to_move = s.get(Game, game_id).to_move
    late = next(user for user, number in seats.items() if number == to_move)
    other = next(user for user in (ann, bob, cid) if user != late)
    with db.transaction() as s:
        s.execute(update(Game).where(Game.id == game_id).values(press_late_blocked=True,
                                                                 deadline=utcnow() - timedelta(hours=1)))
    with pytest.raises(talk.TalkError, match="past its deadline"):
        talk.post(db, game_id, late, "sorry, busy")
    talk.post(db, game_id, other, "where are you?")


def test_34_1_spectators_read_the_public_messages_only_if_the_table_allows(db, table):
    game_id, ann, bob, cid, seats = table
    talk.post(db, game_id, ann, "public words")
    outsider = verified_user(db, "dee@example.org")
    assert talk.conversation(db, game_id, outsider) == [] and talk.conversation(db, game_id, None) == []
    with db.transaction() as s:
        s.execute(update(Game).where(Game.id == game_id).values(press_spectators=True))
    assert [m.body for m in talk.conversation(db, game_id, None)] == ["public words"]
    with pytest.raises(talk.TalkError, match="Only the players"):
        talk.post(db, game_id, outsider, "hi from the rail")


def test_34_5_bounds_and_cleaning(db, table):
    game_id, ann, bob, cid, seats = table
    with pytest.raises(talk.TalkError, match="empty"):
        talk.post(db, game_id, ann, " \u200b\x07 ")
    with pytest.raises(talk.TalkError, match="at most 2000 characters"):
        talk.post(db, game_id, ann, "x" * (talk.MAX_CHARS + 1))
    talk.post(db, game_id, ann, "line one\r\n\r\n\r\n\r\nline two\x1b[31m \u202eevil")
    (said,) = talk.conversation(db, game_id, bob)
    assert said.body == "line one\n\nline two[31m evil"
    for n in range(talk.PER_HOUR - 1):
        talk.post(db, game_id, ann, f"message {n}")
    with pytest.raises(talk.TalkError, match="in the last hour"):
        talk.post(db, game_id, ann, "one too many")
    with db.sessions() as s:
        assert s.query(Message).count() == talk.PER_HOUR  # the refused ones wrote nothing


def test_34_1_addressees_by_colour_or_name_and_a_typo_refused(db, table):
    game_id, ann, bob, cid, seats = table
    with db.sessions() as s:
        seat_rows = list(s.scalars(select(Seat).where(Seat.game_id == game_id).order_by(Seat.number)))
    bob_seat = next(x for x in seat_rows if x.user_id == bob)
    to, body = talk.split_addressees(f"@{bob_seat.colour} meet me", seat_rows)
    assert to == (bob_seat.number,) and body == "meet me"
    to, body = talk.split_addressees(f"@{bob_seat.display_name.replace(' ', '')} hi", seat_rows)
    assert to == (bob_seat.number,)
    with pytest.raises(talk.TalkError, match="Nobody at this table is called @bbo"):
        talk.split_addressees("@bbo secret", seat_rows)
    assert talk.split_addressees("no one named", seat_rows) == (None, "no one named")


def test_34_5_muting_stops_showing_and_mailing(db, table):
    game_id, ann, bob, cid, seats = table
    talk.mute(db, bob, ann)
    talk.post(db, game_id, ann, "can you hear me?")
    assert talk.conversation(db, game_id, bob) == []
    assert outbox_of(db, EMAILS[1]) == [] and len(outbox_of(db, EMAILS[2])) == 1
    talk.mute(db, bob, ann, on=False)
    assert [m.body for m in talk.conversation(db, game_id, bob)] == ["can you hear me?"]
    with pytest.raises(talk.TalkError, match="mute yourself"):
        talk.mute(db, bob, bob)


def test_34_5_report_and_hide(db, table):
    game_id, ann, bob, cid, seats = table
    public = talk.post(db, game_id, ann, "rude words")
    private = talk.post(db, game_id, ann, "rude to bob", to=(seats[bob],))
    talk.report(db, public, cid, "insults")
    talk.report(db, public, cid, "insults again")  # once per reader
    with pytest.raises(talk.TalkError, match="no such message"):
        talk.report(db, private, cid, "cannot even read it")  # not a way to learn it exists
    with pytest.raises(talk.TalkError, match="Say why"):
        talk.report(db, public, bob, "  ")
    assert [(r.user_id, m.id) for r, m in talk.reports(db)] == [(cid, public)]
    operator = verified_user(db, "op@example.org")
    talk.hide(db, public, operator, "insults, see report")
    said = talk.conversation(db, game_id, bob)
    assert [(m.hidden, m.body) for m in said] == [(True, None), (False, "rude to bob")]
    with db.sessions() as s:
        row = s.get(Message, public)
        assert row.body == "rude words" and row.hidden_by == operator and row.hidden_reason == "insults, see report"


def test_34_1_say_and_note_by_mail(db, table, settings):
    game_id, ann, bob, cid, seats = table
    with db.sessions() as s:
        bob_colour = s.scalars(select(Seat.colour).where(Seat.game_id == game_id, Seat.user_id == bob)).one()
    address = command_address(db, settings, EMAILS[0])
    body = f"/say {game_id} Hello   table, shall we play fast?\n/say {game_id} @{bob_colour} just you\n" \
           f"/note {game_id} remember: Bob bluffs"
    result = receive(db, settings, compose(EMAILS[0], address, body, subject="talk"))
    assert result.outcome == "done", result
    assert [m.body for m in talk.conversation(db, game_id, bob)] == ["Hello   table, shall we play fast?",
                                                                        "just you"]
    assert [m.body for m in talk.conversation(db, game_id, cid)] == ["Hello   table, shall we play fast?"]
    assert [n.body for n in talk.notes(db, game_id, ann)] == ["remember: Bob bluffs"]
    mails = deliver_all(db, settings)
    answer = next(m for m in mails if m["To"] == EMAILS[0])
    text = mail_text(answer)
    assert "Your message went to the table of game" in text and "Your note on game" in text
    to_bob = [mail_text(m) for m in mails if m["To"] == EMAILS[1]]
    assert any("wrote to you alone" in t and "just you" in t for t in to_bob)
    assert all("Bob bluffs" not in m.as_string() for m in mails if m["To"] != EMAILS[0])


def test_34_1_say_from_a_forged_sender_only_asks_to_confirm(db, table, settings):
    """A From header proves nothing: /say without a key writes nothing, it asks the owner to confirm."""
    game_id, ann, bob, cid, seats = table
    from pbem import mailkeys
    plain = mailkeys.plain_address(settings.mail_domain)
    receive(db, settings, compose(EMAILS[0], plain, f"/say {game_id} I resign, ha!", subject="x"))
    assert talk.conversation(db, game_id, bob) == []
    assert games.view(db, game_id)["status"] == "running"


def turn_key(db, settings, game_id: int, seat: int) -> str:
    from pbem import mailkeys
    with db.sessions() as s:
        row = s.scalars(select(Seat).where(Seat.game_id == game_id, Seat.number == seat)).one()
        version = s.get(Game, game_id).version
        return mailkeys.encode_reply(settings.secret_key, settings.mail_domain, game_id, seat, version,
                                     row.token_nonce)


def test_34_1_a_message_under_the_move_in_a_turn_reply(db, table, settings):
    """A German player writes the move, then "--- Nachricht ---" and a message to one player; the move is
    played, the message goes to that player only, and the lines of the message are never read as moves."""
    game_id, ann, bob, cid, seats = table
    state = games.view(db, game_id)
    mover_seat = state["to_move"]
    mover = next(user for user, number in seats.items() if number == mover_seat)
    email = next(e for e in EMAILS if {EMAILS[0]: ann, EMAILS[1]: bob, EMAILS[2]: cid}[e] == mover)
    other = next(user for user in (ann, bob, cid) if user != mover)
    with db.sessions() as s:
        other_colour = s.scalars(select(Seat.colour).where(Seat.game_id == game_id, Seat.user_id == other)).one()
    move = games.view(db, game_id, mover)["legal_moves"][0]
    body = f"{move}\n\n--- Nachricht ---\n@{other_colour}\ntake 99 is my plan\nsee you\n\n> quoted turn mail\n"
    result = receive(db, settings, compose(email, turn_key(db, settings, game_id, mover_seat), body))
    assert result.outcome == "done" and len(result.done) == 1, result
    assert games.view(db, game_id)["version"] == state["version"] + 1
    said = talk.conversation(db, game_id, other)
    assert [m.body for m in said] == ["take 99 is my plan\nsee you"] and said[0].private
    third = next(user for user in (ann, bob, cid) if user not in (mover, other))
    assert talk.conversation(db, game_id, third) == []
    answer = next(m for m in deliver_all(db, settings) if m["To"] == email and "Your message went to" in mail_text(m))
    assert "not read" not in mail_text(answer).lower()


def test_34_4_press_options_at_creation_by_mail(db, settings):
    """/new takes the table talk's settings as the web form does; a wrong value opens nothing."""
    from tests.mail.conftest import command_address as address_of
    email = "opener@example.org"
    verified_user(db, email)
    address = address_of(db, settings, email)
    result = receive(db, settings, compose(email, address, "/new tapaono press=public spectators=yes late_silent=yes",
                                           subject="new"))
    assert result.outcome == "done", result
    with db.sessions() as s:
        game = s.scalars(select(Game)).one()
        assert (game.press, game.press_spectators, game.press_after_end, game.press_late_blocked) == \
            ("public", True, True, True)
    result = receive(db, settings, compose(email, address, "/new tapaono press=loud", subject="new"))
    assert result.outcome == "failed" and "press= is what the table may say" in result.failed[1]
    with db.sessions() as s:
        assert s.query(Game).count() == 1


def test_34_1_a_reply_to_a_message_answers_the_same_readers(db, table, settings):
    """A message mail comes from its author's name, in the game's thread, with a talk key as Reply-To; the
    reply (quotes removed) goes to the same players, and a forged sender with the key writes nothing."""
    game_id, ann, bob, cid, seats = table
    talk.post(db, game_id, ann, "Bob, truce?", to=(seats[bob],))
    mails = deliver_all(db, settings)
    (to_bob,) = [m for m in mails if m["To"] == EMAILS[1] and m["X-Pbem-Kind"] == "message"]
    with db.sessions() as s:
        ann_name = s.scalars(select(Seat.display_name).where(Seat.game_id == game_id, Seat.user_id == ann)).one()
    assert to_bob["From"].addresses[0].display_name == f"{ann_name} (pbem)"
    assert to_bob["Subject"] == f"[pbem #{game_id} Counters] game {game_id}"
    key = str(to_bob["Reply-To"])
    assert key.startswith("pbem+m")
    forged = receive(db, settings, compose("mallory@example.org", key, "I accept, says Bob", subject="Re: x"))
    assert forged.outcome == "forged_from"
    assert [m.body for m in talk.conversation(db, game_id, ann)] == ["Bob, truce?"]
    reply = "Yes, truce until move 20.\n\nOn Sat, Nov 28, 2026 at 10:12 AM Ann (pbem) wrote:\n> Bob, truce?\n"
    result = receive(db, settings, compose(EMAILS[1], key, reply, subject=f"Re: {to_bob['Subject']}"))
    assert result.outcome == "done", result
    said = talk.conversation(db, game_id, ann)
    assert [(m.body, m.to) for m in said] == [("Bob, truce?", (seats[bob],)), ("Yes, truce until move 20.",
                                                                               (seats[ann],))]
    assert [m.body for m in talk.conversation(db, game_id, cid)] == []
