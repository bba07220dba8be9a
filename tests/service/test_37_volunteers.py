"""Volunteers for abandoned seats (issue 37 item 3): a player who asked to be offered seats at a title gets a mail
when a seat there goes to a bot (by missed deadlines or by leaving), with the `/take` line and the game page, and
a reply with that line takes the seat; never the players of that game, at most one mail per volunteer per seat,
and at most `volunteers.DAILY_CAP` a day."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select, update

from bench.soak.drivers import SHORT_TAPAONO
from pbem import accounts, config, games
from pbem.games import tables
from pbem.models import OutboundMail, Seat, SeatOfferMail
from pbem.notify import seat_offers
from pbem.players import bot_seats, volunteers
from tests.mail.conftest import DOMAIN, compose, deliver_all, mail_text, receive, reply_to, verified_user
from tests.service.test_37_bot_seats import miss_deadline, two_players_with_policy


@pytest.fixture
def settings(tmp_path):
    return config.load({"PBEM_DATA_DIR": str(tmp_path / "data"), "PBEM_SECRET_KEY": "test-secret-key",
                        "PBEM_MAIL_DOMAIN": DOMAIN, "PBEM_SMTP_URL": "outbox:", "PBEM_BASE_URL": "https://pbem.example"})


def offers_to(db, email: str) -> list[OutboundMail]:
    with db.sessions() as s:
        return list(s.scalars(select(OutboundMail).where(OutboundMail.kind == seat_offers.KIND,
                                                         OutboundMail.recipient == email).order_by(OutboundMail.id)))


def table(db, n: int) -> tuple[int, int, int]:
    """A running short Tapaono of two new players (n-th pair) whose table declared the policy; (game, a, b)."""
    a, b = verified_user(db, f"a{n}@example.org", f"A{n}"), verified_user(db, f"b{n}@example.org", f"B{n}")
    game_id = games.create_game(db, "tapaono", a, 2, dict(SHORT_TAPAONO), turn_hours=24, replace_after=2,
                                bot_level="easy")
    games.join_game(db, game_id, b)
    return game_id, a, b


def offered_seat(db, game_id: int) -> int:
    with db.sessions() as s:
        return s.scalar(select(Seat.number).where(Seat.game_id == game_id, Seat.open_since.is_not(None)))


def test_37_3_a_volunteer_gets_the_offer_by_mail_and_takes_the_seat_with_its_line(db, settings):
    dee = verified_user(db, "dee@example.org", "Dee")
    volunteers.set_titles(db, dee, ["tapaono"])
    game_id, ann, bea = two_players_with_policy(db, replace_after=2)  # tests.service.test_37_bot_seats
    volunteers.set_titles(db, bea, ["tapaono"])  # a player of that game: never offered it
    volunteers.set_titles(db, verified_user(db, "eve@example.org", "Eve"), ["tongiaki"])  # another title
    miss_deadline(db, game_id)
    assert offers_to(db, "dee@example.org") == []  # one miss: nothing offered yet
    miss_deadline(db, game_id)
    number = offered_seat(db, game_id)
    assert number is not None
    (offer,) = [m for m in deliver_all(db, settings) if m["X-Pbem-Kind"] == seat_offers.KIND]
    assert offer["To"] == "dee@example.org"
    text = mail_text(offer)
    assert f"\n  /take {game_id} {number + 1}\n" in text and f"https://pbem.example/games/{game_id}" in text
    assert "missed 2 deadlines in a row" in text and "A bot (easy) plays it" in text
    assert offer["Subject"] == f"[pbem #{game_id} Tapaono] a seat to take over"
    # The reply goes to Dee's command address, and its /take line takes the seat.
    result = receive(db, settings, compose("dee@example.org", reply_to(offer),
                                           f"/take {game_id} {number + 1}\n\n> {text.splitlines()[0]}",
                                           subject=f"Re: {offer['Subject']}"))
    assert result.outcome == "done", result.detail
    with db.sessions() as s:
        seat = s.scalar(select(Seat).where(Seat.game_id == game_id, Seat.number == number))
        assert (seat.user_id, seat.bot_level, seat.open_since) == (dee, None, None)
    assert bot_seats.open_seats(db) == []
    with db.sessions() as s:  # nobody else heard of it: not the players, not a volunteer for another title
        told = set(s.scalars(select(OutboundMail.recipient).where(OutboundMail.kind == seat_offers.KIND)))
    assert told == {"dee@example.org"}


def test_37_3_a_volunteer_hears_of_a_seat_once_even_if_it_is_offered_again(db, settings):
    dee = verified_user(db, "dee@example.org", "Dee")
    volunteers.set_titles(db, dee, ["tapaono"])
    game_id, a, b = table(db, 0)
    games.leave_game(db, game_id, b)
    number = offered_seat(db, game_id)
    assert len(offers_to(db, "dee@example.org")) == 1
    cy = verified_user(db, "cy@example.org", "Cy")
    tables.take_seat(db, game_id, number, cy)
    games.leave_game(db, game_id, cy)  # the same seat offered again
    assert offered_seat(db, game_id) == number
    assert len(offers_to(db, "dee@example.org")) == 1


def test_37_3_a_volunteer_gets_at_most_the_daily_cap_of_offers(db, settings):
    dee = verified_user(db, "dee@example.org", "Dee")
    volunteers.set_titles(db, dee, ["tapaono"])
    volunteers.set_titles(db, accounts.ensure_user(db, "new@example.org", "New"), ["tapaono"])  # not confirmed
    for n in range(volunteers.DAILY_CAP + 1):
        game_id, a, b = table(db, n)
        games.leave_game(db, game_id, b)
    assert len(offers_to(db, "dee@example.org")) == volunteers.DAILY_CAP
    assert offers_to(db, "new@example.org") == []  # an address not confirmed gets none
    with db.transaction() as s:  # a day later the cap is free again
        s.execute(update(SeatOfferMail).values(sent_at=SeatOfferMail.sent_at - timedelta(days=1, minutes=1)))
    game_id, a, b = table(db, 99)
    games.leave_game(db, game_id, a)
    assert len(offers_to(db, "dee@example.org")) == volunteers.DAILY_CAP + 1


def test_37_3_the_volunteer_setting_keeps_known_titles_and_refuses_others(db):
    dee = verified_user(db, "dee@example.org", "Dee")
    assert volunteers.set_titles(db, dee, ["tongiaki", "tapaono", "tapaono"]) == ["tapaono", "tongiaki"]
    with pytest.raises(games.GameError, match="no game called 'chess'"):
        volunteers.set_titles(db, dee, ["tapaono", "chess"])
    assert volunteers.titles_of(db, dee) == ["tapaono", "tongiaki"]  # unchanged
    assert volunteers.set_titles(db, dee, []) == [] and volunteers.titles_of(db, dee) == []
