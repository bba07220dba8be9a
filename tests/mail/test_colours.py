"""Colours by mail: `/new GAME ... colour=C`, `/join GAME-ID COLOUR` or `colour=C`, refusals, /help."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from pbem import games
from pbem.mail import commands
from pbem.mail.commands import join
from pbem.models import Seat
from tests.mail.conftest import command_address, compose, deliver_all, mail_text, receive, verified_user

ANN, BEN, CAT, DAN = "ann@example.org", "ben@example.org", "cat@example.org", "dan@example.org"


def colours_at(db, game_id):
    with db.sessions() as s:
        seats = s.scalars(select(Seat).where(Seat.game_id == game_id).order_by(Seat.number)).all()
        return {seat.user.email: seat.colour for seat in seats}


def answer_to(db, settings, address):
    return mail_text([m for m in deliver_all(db, settings) if str(m["To"]) == address][-1])


def test_colours_are_asked_for_by_mail_and_a_taken_one_is_refused(db, settings):
    for who in (ANN, BEN, CAT, DAN):
        verified_user(db, who)
    to = {who: command_address(db, settings, who) for who in (ANN, BEN, CAT, DAN)}
    opened = receive(db, settings, compose(ANN, to[ANN], "/new tongiaki players=4 colour=Red"))
    game_id = opened.game_id
    assert opened.outcome == "done"
    text = answer_to(db, settings, ANN)
    assert "you in the first one, in red" in text
    assert f"/join {game_id} COLOUR for one of the free colours: blue, green, orange, purple, yellow" in text
    assert receive(db, settings, compose(BEN, to[BEN], f"/join {game_id} blue")).outcome == "done"
    assert f"You joined game {game_id} in blue." in answer_to(db, settings, BEN)
    refused = receive(db, settings, compose(CAT, to[CAT], f"/join {game_id} colour=RED"))
    assert refused.outcome == "failed"
    assert refused.failed[1] == (f"Red is taken at game {game_id}; the free colours are "
                                 "green, orange, purple, yellow.")
    assert "Red is taken" in answer_to(db, settings, CAT)
    assert colours_at(db, game_id) == {ANN: "red", BEN: "blue"}
    assert receive(db, settings, compose(CAT, to[CAT], f"/join {game_id} color=green")).outcome == "done"
    assert receive(db, settings, compose(DAN, to[DAN], f"/join {game_id}")).outcome == "done"
    final = colours_at(db, game_id)  # full: started; Dan, who asked for nothing, has the first colour left
    assert final == {ANN: "red", BEN: "blue", CAT: "green", DAN: "orange"}
    assert f"You joined game {game_id} as orange" in answer_to(db, settings, DAN)


def test_help_names_the_colour_choice():
    text = "\n".join(commands.help_lines("en", "tongiaki"))
    assert "/join GAME-ID [COLOUR]" in text and "[colour=C]" in text


@pytest.mark.parametrize("args,colour", [((), None), (("Blue",), "blue"), (("colour=red",), "red"),
                                         (("COLOR=green",), "green")])
def test_join_reads_a_colour(args, colour):
    assert join.parse_join(args) == colour


@pytest.mark.parametrize("args", [("blue", "red"), ("players=3",)])
def test_join_refuses_anything_else(args):
    with pytest.raises(commands.CommandError):
        join.parse_join(args)
