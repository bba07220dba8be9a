"""Issue 37 item 3 by mail: `/leave GAME-ID` hands a running game's seat to a bot and offers it (at a table that
declared the policy), `/take GAME-ID SEAT` gives an offered seat to a replacement; both change a table, so
they are done through the command key and only asked to confirm without it; /help lists them."""

from __future__ import annotations

from sqlalchemy import select

from bench.soak.drivers import SHORT_TAPAONO
from pbem import games
from pbem.mail import commands
from pbem.models import Seat
from pbem.players import bot_seats
from tests.mail.conftest import DOMAIN, command_address, compose, deliver_all, mail_text, receive, verified_user

PLAIN = f"pbem@{DOMAIN}"


def table(db, replace_after=2):
    """Ann and Bea at a running short Tapaono; with `replace_after`, the table's policy for abandoned seats."""
    ann, bea = verified_user(db, "ann@example.org", "Ann"), verified_user(db, "bea@example.org", "Bea")
    game_id = games.create_game(db, "tapaono", ann, 2, dict(SHORT_TAPAONO), turn_hours=24,
                                replace_after=replace_after, bot_level="easy" if replace_after else None)
    games.join_game(db, game_id, bea)
    return game_id, ann, bea


def seats(db, game_id):
    with db.sessions() as s:
        return [(x.user_id, x.bot_level, x.open_since is not None)
                for x in s.scalars(select(Seat).where(Seat.game_id == game_id).order_by(Seat.number))]


def answer_to(db, settings, email):
    return "\n".join(mail_text(m) for m in deliver_all(db, settings) if m["To"] == email)


def test_37_3_leave_by_mail_hands_the_seat_to_a_bot_and_take_by_mail_gives_it_to_a_replacement(db, settings):
    game_id, ann, bea = table(db)
    deliver_all(db, settings)
    result = receive(db, settings, compose("bea@example.org", command_address(db, settings, "bea@example.org"),
                                           f"/leave {game_id}", subject="leaving"))
    assert result.outcome == "done", result.detail
    assert f"You left game {game_id}. A bot (easy) plays your seat" in answer_to(db, settings, "bea@example.org")
    number = next(n for n, (user, _, _) in enumerate(seats(db, game_id)) if user is None)
    assert seats(db, game_id)[number] == (None, "easy", True)
    assert bot_seats.open_seats(db) == [(game_id, "tapaono", number, "Bot 1 (easy)")]
    cy = verified_user(db, "cy@example.org", "Cy")
    result = receive(db, settings, compose("cy@example.org", command_address(db, settings, "cy@example.org"),
                                           f"/take {game_id} {number + 1}", subject="taking"))
    assert result.outcome == "done", result.detail
    assert f"You took seat {number + 1} of game {game_id}" in answer_to(db, settings, "cy@example.org")
    assert seats(db, game_id)[number] == (cy, None, False) and bot_seats.open_seats(db) == []
    assert games.view(db, game_id, cy)["status"] == "running"


def test_37_3_leave_and_take_without_a_key_only_ask_to_confirm(db, settings):
    game_id, ann, bea = table(db)
    before = seats(db, game_id)
    assert receive(db, settings, compose("bea@example.org", PLAIN, f"/leave {game_id}")).outcome == "to_confirm"
    assert seats(db, game_id) == before
    games.leave_game(db, game_id, bea)
    number = next(n for n, (user, _, _) in enumerate(seats(db, game_id)) if user is None)
    verified_user(db, "cy@example.org", "Cy")
    after_leave = seats(db, game_id)
    assert receive(db, settings, compose("cy@example.org", PLAIN, f"/take {game_id} {number + 1}")).outcome \
        == "to_confirm"
    assert seats(db, game_id) == after_leave


def test_37_3_leave_and_take_by_mail_are_refused_with_the_reason_and_change_nothing(db, settings):
    game_id, ann, bea = table(db, replace_after=None)  # no policy: a started game is resigned, not left
    before = seats(db, game_id)
    key = command_address(db, settings, "bea@example.org")
    deliver_all(db, settings)
    assert receive(db, settings, compose("bea@example.org", key, f"/leave {game_id}")).outcome == "failed"
    assert "resign instead" in answer_to(db, settings, "bea@example.org") and seats(db, game_id) == before
    cy_key = (verified_user(db, "cy@example.org", "Cy"), command_address(db, settings, "cy@example.org"))[1]
    for line, said in [(f"/take {game_id} 1", "is not offered to a replacement"),
                       (f"/take {game_id}", "Write /take GAME-ID SEAT"),
                       (f"/take {game_id} first", "Write /take GAME-ID SEAT"),
                       ("/take", "Write /take GAME-ID SEAT.")]:
        assert receive(db, settings, compose("cy@example.org", cy_key, line)).outcome == "failed", line
        assert said in answer_to(db, settings, "cy@example.org"), line
    assert seats(db, game_id) == before


def test_37_3_help_lists_leave_and_take():
    text = "\n".join(commands.help_lines("en"))
    assert "/leave GAME-ID" in text and "/take GAME-ID SEAT" in text
    assert commands.spec("leave").changes and commands.spec("take").changes
