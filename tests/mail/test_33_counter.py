"""Issue 33, item 5: one number for one moment. A turn mail names the game's move counter ("move N", the
number of the decision awaited: game.version + 1) the same in its X-Pbem-Move header, its first line and the
title of its picture; a count of the title's own (Tongiaki's turns, Tapaono's rounds) is the same number in
the text and the picture, under a word of its own.
"""

from __future__ import annotations

import json
import random
import re

import pytest
from sqlalchemy import select

import engine
import renderers
from pbem import games
from pbem.mail import outbound
from pbem.models import Game, OutboundMail
from tests.mail.conftest import SEED, mail_text, verified_user
from tests.mail.test_33_threads import parse

MOVES = {"tongiaki": 12, "discovery": 6, "tapaono": 9}  # random decisions played before the turn mail is read
# The text board's head and the picture's title, with the title's own count: (the text's, the picture's).
OWN_COUNT = {"tongiaki": (r"^Tongiaki, (\w+) (\d+)\.", r"(\w+) (\d+)$"),
             "tapaono": (r"^Tapaono, (\w+) (\d+)\.", r"(\w+) (\d+)$")}


def played_game(db, title: str, language: str | None = None) -> int:
    """A two-player game of `title` after MOVES[title] random legal decisions (seeded), mails queued as usual."""
    ids = [verified_user(db, f"{name}@example.org", name, **({"language": language} if language else {}))
           for name in ("ann", "bea")]
    game_id = games.create_game(db, title, ids[0], 2, {})
    games.join_game(db, game_id, ids[1], seed=SEED)
    rules, rng = engine.get(title), random.Random(title)
    for _ in range(MOVES[title]):
        with db.sessions() as s:
            state = rules.state_from_json(json.loads(s.get(Game, game_id).state))
        seat = rules.to_move(state)
        if seat is None:
            break
        games.submit(db, game_id, rules.notation(state, rng.choice(rules.legal_moves(state))), seat=seat)
    return game_id


def last_turn_mail(db, settings, game_id: int, monkeypatch):
    """The newest turn mail of the game, sent by the real sender, and the titles of the pictures drawn for it."""
    drawn, draw = [], renderers.render

    def recording(title, view, texts):
        drawn.append(renderers._module(title).frame(view, texts).title)
        return draw(title, view, texts=texts)

    monkeypatch.setattr(renderers, "render", recording)
    with db.sessions() as s:
        row = s.scalars(select(OutboundMail).where(OutboundMail.game_id == game_id, OutboundMail.kind == "turn")
                        .order_by(OutboundMail.id.desc())).first()
    # A turn mail is written when a player's turn begins, about the position then (move row.seq + 1).
    assert outbound.deliver(db, row.id, settings) == "sent"
    mail = parse((settings.data_dir / "outbox" / f"{row.id:08d}.eml").read_bytes())
    assert len(drawn) == 1
    return mail, drawn[0], row.seq + 1


@pytest.mark.parametrize("title", sorted(MOVES))
def test_33_5_a_turn_mail_names_one_move_number_in_its_header_text_and_picture(db, settings, title, monkeypatch):
    game_id = played_game(db, title)
    mail, picture, move = last_turn_mail(db, settings, game_id, monkeypatch)
    text = mail_text(mail)
    assert str(mail["X-Pbem-Move"]) == str(move)
    assert text.split("\n")[0].endswith(f"move {move}.")
    assert f"move {move}" in picture, picture
    assert not re.search(rf"\bmove (?!{move}\b)\d+", picture + "\n" + text.split("\n")[0])
    if title in OWN_COUNT:
        in_text, in_picture = OWN_COUNT[title]
        head = next(re.match(in_text, line) for line in text.split("\n") if re.match(in_text, line))
        word, number = re.search(in_picture, picture).groups()
        assert (word, number) == head.groups() and word != "move", (picture, head[0])


def test_33_5_tongiakis_turn_is_not_called_a_move_in_german(db, settings, monkeypatch):
    """German said "Zug" for both the move counter and Tongiaki's turns ("(Zug 15)", "Tongiaki, Zug 4")."""
    game_id = played_game(db, "tongiaki", "de")
    mail, picture, move = last_turn_mail(db, settings, game_id, monkeypatch)
    lines = mail_text(mail).split("\n")
    move_word = re.search(rf"(\w+) {move}\.$", lines[0])[1]  # "..., Zug 13."
    head = next(re.match(r"^Tongiaki, (\w+) (\d+)\.", line) for line in lines if re.match(r"^Tongiaki, \w+ \d+\.", line))
    assert head[1] != move_word, f"the turn count is labelled like the move counter: {head[0]!r} and {lines[0]!r}"
    assert f"{move_word} {move}" in picture or f"move {move}" in picture, picture
    assert picture.endswith(f" {head[2]}") and not picture.endswith(f"{move_word} {head[2]}"), picture
