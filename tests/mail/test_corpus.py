"""Real-world-shaped replies from the common mail clients (tests/data/mail/*.eml).

Each message has its expected reading in tests/data/mail/expected.json: the lines a
player wrote (quotes, signatures and HTML removed) and what receiving it must do to a
game: the moves applied, or the outcome and the error.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import select

from pbem import games
from pbem.mail import commands, loops, text
from pbem import tokens
from pbem.models import MailAddress, OutboundMail
from tests.mail.conftest import counters_game, deliver_all, mail_text, receive

DATA = Path(__file__).resolve().parent.parent / "data" / "mail"
EXPECTED = json.loads((DATA / "expected.json").read_text())
NAMES = sorted(EXPECTED)


def test_the_corpus_is_complete():
    files = sorted(p.name for p in DATA.glob("*.eml"))
    assert files == NAMES and len(files) >= 30


def fill(raw: bytes, game_id: int, reply: str, player: str, bounce: str = "bounce@example.org") -> bytes:
    return (raw.replace(b"REPLY-ADDRESS", reply.encode()).replace(b"GAME-ID", str(game_id).encode())
            .replace(b"alice@example.org", player.encode()).replace(b"BOUNCE-ADDRESS", bounce.encode()))


@pytest.mark.parametrize("name", NAMES)
def test_the_lines_a_player_wrote_are_found(name):
    expect = EXPECTED[name]
    raw = fill((DATA / name).read_bytes(), 7, "pbem+7.0.0.00000000000000000000@pbem.test", "alice@example.org")
    message = text.parse(raw)
    if expect["outcome"] in ("auto_reply", "list", "bounce"):
        assert loops.classify(message) == expect["outcome"]
        return
    assert loops.classify(message) is None
    body = text.reply_text(message)
    if expect["outcome"] == "no_text":
        assert body is None
        return
    lines = commands.lines_of(text.header_text(message, "Subject"), body)
    assert lines == [line.replace("GAME-ID", "7") for line in expect["lines"]]


@pytest.mark.parametrize("name", NAMES)
def test_receiving_the_message_does_what_it_says(pg_db, settings, name):
    """On PostgreSQL only: the parsing is the same on both, and tests/mail/test_inbound.py runs on both."""
    db = pg_db
    expect = EXPECTED[name]
    game_id, by_seat = counters_game(db)
    player = by_seat[0]
    turn = deliver_all(db, settings)[0]
    with db.sessions() as s:
        turn_row = s.scalars(select(OutboundMail).where(OutboundMail.kind == "turn")).one()
    bounce = tokens.encode_bounce(settings.secret_key, settings.mail_domain, turn_row.id)
    raw = fill((DATA / name).read_bytes(), game_id, str(turn["Reply-To"]), player, bounce)
    before = games.view(db, game_id)

    result = receive(db, settings, raw, envelope_to=[bounce] if expect["outcome"] == "bounce" else None)

    assert result.outcome == expect["outcome"], result
    after = games.view(db, game_id)
    played = [m["notation"] for m in games.history(db, game_id)]
    assert played == expect["moves"]
    if not expect["moves"]:
        assert (after["version"], after["to_move"]) == (before["version"], before["to_move"])
    if expect.get("error"):
        assert expect["error"] in result.failed[1]
    answers = deliver_all(db, settings)
    mine = [m for m in answers if str(m["To"]) == player and "Re:" in str(m["Subject"])]
    if expect["outcome"] in ("auto_reply", "list", "bounce"):
        assert mine == []  # never answered: no mail loop can start
    else:
        assert len(mine) == 1
        answer = mail_text(mine[0])
        assert "wrote:" not in answer and not any(line.startswith(">") for line in answer.splitlines())
        assert str(mine[0]["Auto-Submitted"]) == "auto-replied"
        if expect.get("answer"):
            assert expect["answer"] in answer
    if expect["outcome"] == "bounce":
        with db.sessions() as s:
            assert s.get(MailAddress, player).hard_bounces == 1
