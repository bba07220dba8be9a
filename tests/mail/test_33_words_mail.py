"""Colours in German mails are German words (issue 33, item 8: "mit green"): in the answer to /join
and in a turn mail's board in words. Notation keeps them English (`/join 12 green`, `land green Tonga 2`).
"""

from __future__ import annotations

import re

from pbem import games
from tests.mail.conftest import command_address, compose, deliver_all, mail_text, receive, verified_user
from tests.mail.test_languages import ANN, BEA, mails_to, play_to_a_turn_of

COLOURS = ("blue", "green", "orange", "purple", "red", "yellow")
ENGLISH_COLOUR = re.compile(r"\b(" + "|".join(COLOURS) + r")\b")


def test_33_8_a_german_join_answer_names_the_colour_in_german(db, settings):
    ann = verified_user(db, ANN)
    verified_user(db, BEA, language="de")
    game_id = games.create_game(db, "tongiaki", ann, 3, {})
    assert receive(db, settings, compose(BEA, command_address(db, settings, BEA), f"/join {game_id} green")).outcome \
        == "done"
    answer = mail_text(mails_to(deliver_all(db, settings), BEA)[-1])
    assert f"in Partie {game_id}, mit Grün." in answer, answer


def test_33_8_a_german_turn_mail_names_no_colour_in_english(db, settings):
    ann, bea = verified_user(db, ANN), verified_user(db, BEA, language="de")
    game_id = games.create_game(db, "tongiaki", ann, 2, {})
    games.join_game(db, game_id, bea)
    seat_user = {games.view(db, game_id, uid)["my_seat"]: uid for uid in (ann, bea)}
    play_to_a_turn_of(db, game_id, seat_user, bea, moves=12)
    text = mail_text(mails_to(deliver_all(db, settings), BEA)[-1])
    legal = games.view(db, game_id, bea)["legal_moves"]
    words = " ".join(text.split())
    for move in legal:  # the moves listed are notation
        words = words.replace(move, " ")
    # A move quoted in a sentence (`land green Tonga 2`) and the standing orders' forms (`land green blue`).
    words = re.sub(r"\bland(?: (?:" + "|".join(COLOURS) + r")\b)+", " ", words)
    assert not ENGLISH_COLOUR.search(words), text
