"""Real-world-shaped replies from the common mail clients (tests/data/mail/*.eml and replies/*.eml).

tests/data/mail/*.eml: messages of many kinds (replies, auto-replies, bounces, lists), each
with its expected reading in expected.json: the lines a player wrote (quotes, "-- "
signatures, footers and HTML removed) and what receiving it must do to a game: the moves
applied, or the outcome and the error. `friendly` names the lines after the move that are
no command ("Thanks!"): the reading stops there quietly (issue 21), so the mail is "done"
and its answer has no failure in it.

tests/data/mail/replies/*.eml: replies to a turn notification written after the formats of
Gmail, Outlook (desktop, web, phone), Apple Mail, Thunderbird, TypeApp, Samsung Email,
Yahoo, Proton Mail, K-9 Mail, FairEmail, Orange's webmail, Eudora and Mutt in fifteen
languages, plain, HTML-only and multipart, in several charsets and transfer encodings,
written above the quote or below it. replies/index.json says for each file: the client,
language and format imitated, the game it answers (`counters` or `tongiaki`), the `lines`
that must come out (the move, then the friendly line if any, also listed as `friendly`), the
quote, forward headers and footers that must be `cut`, and command-like lines of the quote
(`quoted`) that must never be read. The whole reply corpus is read again with every space of
its quote headers written as U+202F and as U+00A0, as clients write them (issue 41).
"""

from __future__ import annotations

import base64
import html
import json
import quopri
import re
from email import message_from_bytes
from email import policy as email_policy
from pathlib import Path

import pytest
from sqlalchemy import select

from pbem import games
from pbem.mail import commands, loops, mime, quotes
from pbem import mailkeys
from pbem.models import MailAddress, OutboundMail
from tests.mail.conftest import counters_game, deliver_all, mail_text, receive, verified_user

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
    message = mime.parse(raw)
    if expect["outcome"] in ("auto_reply", "list", "bounce"):
        assert loops.classify(message) == expect["outcome"]
        return
    assert loops.classify(message) is None
    body = mime.reply_text(message)
    if expect["outcome"] == "no_text":
        assert body is None
        return
    lines = commands.lines_of(mime.header_text(message, "Subject"), body)
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
    bounce = mailkeys.encode_bounce(settings.secret_key, settings.mail_domain, turn_row.id)
    raw = fill((DATA / name).read_bytes(), game_id, str(turn["Reply-To"]), player, bounce)
    before = games.view(db, game_id)

    result = receive(db, settings, raw, envelope_to=[bounce] if expect["outcome"] == "bounce" else None)

    assert result.outcome == expect["outcome"], result
    if expect.get("friendly"):  # read quietly: counted as not read, never a failure
        assert not result.failed and result.not_read == len(expect["friendly"]), result
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
        if expect.get("friendly"):
            assert "Failed" not in answer and not [line for line in expect["friendly"] if line in answer]
        if expect.get("answer"):
            assert expect["answer"] in answer
    if expect["outcome"] == "bounce":
        with db.sessions() as s:
            assert s.get(MailAddress, player).hard_bounces == 1


# --------------------------------------------------------------------------------------
# Replies in fifteen languages (tests/data/mail/replies/)

REPLIES = DATA / "replies"
INDEX = json.loads((REPLIES / "index.json").read_text())
REPLY_NAMES = sorted(INDEX)
REPLY_ADDRESS = "pbem+7.0.0.00000000000000000000@pbem.test"  # as long as a real one: headers wrap alike


def test_the_reply_corpus_covers_the_languages_clients_and_encodings():
    assert sorted(p.name for p in REPLIES.glob("*.eml")) == REPLY_NAMES and len(REPLY_NAMES) >= 60
    entries = INDEX.values()
    assert {e["language"] for e in entries} == set(quotes.LANGUAGES)
    clients = " ".join(e["client"] for e in entries)
    for client in ("Gmail", "Outlook for Windows", "Outlook.com web", "Outlook for iOS", "Outlook for Android",
                   "Apple Mail", "iPhone Mail", "Thunderbird", "TypeApp", "Samsung Email", "Yahoo", "Proton Mail",
                   "K-9 Mail", "FairEmail"):
        assert client in clients, client
    formats = [e["format"] for e in entries]
    for kind in ("plain,", "html,", "multipart,", "utf-8", "iso-8859-1", "iso-8859-2", "windows-1250",
                 "windows-1251", "windows-1252", "koi8-r", "koi8-u", "quoted-printable", "base64", "8bit"):
        assert any(kind in f for f in formats), kind
    assert all(e["quoted"] and "/resign" in e["quoted"] for e in entries)


def reply_lines(name: str) -> list[str]:
    return lines_read(fill((REPLIES / name).read_bytes(), 7, REPLY_ADDRESS, "alice@example.org"))


def lines_read(raw: bytes) -> list[str]:
    message = mime.parse(raw)
    assert loops.classify(message) is None
    return commands.lines_of(mime.header_text(message, "Subject"), mime.reply_text(message))


@pytest.mark.parametrize("name", REPLY_NAMES)
def test_a_reply_reads_as_the_lines_written_above_the_quote(name):
    expect = INDEX[name]
    lines = reply_lines(name)
    assert lines == expect["lines"]
    # Whatever the expected list says: no part of a quote header, forward header or footer,
    # no quoted line and no quoted command comes out.
    cut = [c.replace("REPLY-ADDRESS", REPLY_ADDRESS).replace("GAME-ID", "7") for c in expect["cut"]]
    assert not [line for line in lines if any(line in c for c in cut)]
    assert not [line for line in lines if line.startswith(">") or REPLY_ADDRESS in line or "/resign" in line]


def start_game(db, title: str) -> int:
    """A running two-player game of `title` (the first decision is open to the player to move)."""
    if title == "counters":
        return counters_game(db)[0]
    ids = [verified_user(db, email) for email in ("alice@example.org", "bob@example.org")]
    game_id = games.create_game(db, title, ids[0], 2, {})
    games.join_game(db, game_id, ids[1])  # a full table starts
    return game_id


def receive_reply(db, settings, name: str):
    """Start the game a reply answers, and receive the reply to its first turn mail: (game id, player, result)."""
    game_id = start_game(db, INDEX[name]["game"])
    turn = next(m for m in deliver_all(db, settings) if m["X-Pbem-Kind"] == "turn")
    player = str(turn["To"])
    return game_id, player, receive(db, settings, fill((REPLIES / name).read_bytes(), game_id, str(turn["Reply-To"]),
                                                       player))


# At least one reply per language through the real door; one per game where a language has both.
RECEIVED = sorted({(INDEX[n]["language"], INDEX[n]["game"]): n for n in reversed(REPLY_NAMES)}.values())


@pytest.mark.parametrize("name", RECEIVED)
def test_receiving_a_reply_plays_its_move_and_reads_nothing_quoted(pg_db, settings, name):
    """On PostgreSQL only, as the test above: the reading is the same on both databases."""
    db, expect = pg_db, INDEX[name]

    game_id, player, result = receive_reply(db, settings, name)

    move = expect["lines"][0]
    assert [m["notation"] for m in games.history(db, game_id)] == [move]
    assert result.done and result.done[0].startswith(f"{move}  -> move 1: {move}"), result
    # Every line read (done or failed) is one the player wrote: nothing from the quote; and the
    # lines not read are only the friendly ones after the move.
    read = [line.split("  -> ")[0] for line in result.done] + ([result.failed[0]] if result.failed else [])
    assert set(read) <= set(expect["lines"]) and result.not_read == len(expect.get("friendly", [])), result
    assert games.view(db, game_id)["status"] == "running"  # the quoted /resign did not run
    answers = [m for m in deliver_all(db, settings) if str(m["To"]) == player]
    assert len(answers) == 1 and str(answers[0]["Auto-Submitted"]) == "auto-replied"
    answer = mail_text(answers[0])
    assert not any(line.startswith(">") for line in answer.splitlines())
    assert not [c for c in expect["cut"] if c.replace("REPLY-ADDRESS", "").strip() in answer]


FRIENDLY = [name for name in REPLY_NAMES if INDEX[name].get("friendly")]


def test_the_friendly_replies_are_listed():
    assert len(FRIENDLY) == 74
    assert all(INDEX[n]["lines"][1:] == INDEX[n]["friendly"] for n in FRIENDLY)


@pytest.mark.parametrize("name", FRIENDLY)
def test_a_friendly_line_after_the_move_ends_the_reading_quietly(pg_db, settings, name):
    """Issue 21, item 2: "Thanks!" after the move is no failure, and the mail is done, not partial."""
    db, expect = pg_db, INDEX[name]

    _game_id, player, result = receive_reply(db, settings, name)

    assert (result.outcome, result.failed, result.not_read) == ("done", None, len(expect["friendly"])), result
    answer = mail_text(next(m for m in deliver_all(db, settings) if str(m["To"]) == player))
    assert "Failed" not in answer and "not your turn" not in answer
    assert not [line for line in expect["friendly"] if line in answer]  # counted, never echoed


# --------------------------------------------------------------------------------------
# Issue 41: the same replies with the spaces their clients may put in a quote header

def with_spaces(raw: bytes, headers: list[str], space: str) -> tuple[bytes, set[str]]:
    """The mail `raw` with every ASCII space of the lines `headers` (as index.json's `cut` lists
    them, also where the client wrapped them over lines) written as `space`, in the decoded text of
    each text part, which is then encoded again in its transfer encoding (in UTF-8 where its charset
    has no such space); and which of `headers` were found."""
    message = message_from_bytes(raw, policy=email_policy.compat32)
    found = set()
    for part in message.walk():
        if part.get_content_maintype() != "text":
            continue
        charset = part.get_content_charset() or "us-ascii"
        before = part.get_payload(decode=True).decode(charset)
        after = before
        for header in headers:
            filled = header.replace("REPLY-ADDRESS", REPLY_ADDRESS).replace("GAME-ID", "7")
            for form in {header, filled}:  # a base64 part keeps the placeholders
                words = [w for w in form.split(" ") if w]
                # A wrapped header: the words of one line of `cut` on several lines of the mail; in
                # HTML, with tags between them ("<b>De :</b> pbem").
                between = r"(?: +\n? *|\n *)"
                if part.get_content_subtype() == "html":
                    words = [html.escape(w, quote=False) for w in words]
                    between = rf"(?:<[^<>]*>)*{between}(?:<[^<>]*>)*"
                pattern = re.compile(between.join(re.escape(w) for w in words))
                after, count = pattern.subn(lambda m: m[0].replace(" ", space), after)
                if count and " " in form.strip():
                    found.add(header)
        if after == before:
            continue
        try:
            body = after.encode(charset)
        except UnicodeEncodeError:
            charset, body = "utf-8", after.encode("utf-8")
        encoding = (part.get("Content-Transfer-Encoding") or "7bit").lower()
        if encoding == "base64":
            payload = base64.encodebytes(body).decode("ascii")
        elif encoding == "quoted-printable":
            payload = quopri.encodestring(body).decode("ascii")
        else:
            encoding, payload = "8bit", body.decode("ascii", "surrogateescape")
        del part["Content-Transfer-Encoding"]
        part["Content-Transfer-Encoding"] = encoding
        part.set_payload(payload)
        part.set_param("charset", charset)
    return message.as_bytes(), found


@pytest.mark.parametrize("space", ["\u202f", "\u00a0"], ids=["U+202F", "U+00A0"])
@pytest.mark.parametrize("name", REPLY_NAMES)
def test_41_every_reply_reads_the_same_with_other_spaces_in_its_quote_headers(name, space):
    expect = INDEX[name]
    raw = fill((REPLIES / name).read_bytes(), 7, REPLY_ADDRESS, "alice@example.org")
    spaced, found = with_spaces(raw, expect["cut"], space)
    # Every header line with a space was found and rewritten, in the text that is read.
    assert found == {c for c in expect["cut"] if " " in c.strip()}, found
    assert lines_read(spaced) == expect["lines"]


@pytest.mark.parametrize("space", ["\u202f", "\u00a0"], ids=["U+202F", "U+00A0"])
@pytest.mark.parametrize("name", RECEIVED)
def test_41_receiving_a_reply_with_other_spaces_in_its_quote_headers_plays_its_move(pg_db, settings, name, space):
    db, expect = pg_db, INDEX[name]
    game_id = start_game(db, expect["game"])
    turn = next(m for m in deliver_all(db, settings) if m["X-Pbem-Kind"] == "turn")
    player = str(turn["To"])
    raw = fill((REPLIES / name).read_bytes(), game_id, str(turn["Reply-To"]), player)

    result = receive(db, settings, with_spaces(raw, expect["cut"], space)[0])

    assert (result.outcome, result.failed, result.not_read) == ("done", None, len(expect.get("friendly", []))), result
    assert [m["notation"] for m in games.history(db, game_id)] == [expect["lines"][0]]
    assert games.view(db, game_id)["status"] == "running"  # the quoted /resign did not run
