"""Issue 34, item 5: an operator hides a message through a door, `pbem admin message hide`, and lists the
reports with `pbem admin message reports`.

The game is played through the web fixtures (three logged-in players) on the `db` fixture's database, and
the `pbem` command is pointed at the same database, as an operator on the server would run it. A hidden
message stays in the database with who hid it and why, and no player reads its text any more: not on the
page, not through the API, not in the replay, not in the mails that follow.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from sqlalchemy import select

from pbem import accounts, cli, talk
from pbem.mail import outbound
from pbem.models import Message, OutboundMail, User
from tests.mail.conftest import compose, deliver_all, mail_text, receive, reply_to, settings  # noqa: F401
from tests.web.conftest import app, cheap_argon2, client, players, running_game  # noqa: F401

RUDE = "RUDE-WORDS-QX"
PRIVATE = "PRIVATE-PLAN-QX"
OPERATOR = "op@pbem.example"


@pytest.fixture
def run(db, monkeypatch):
    """`pbem ...` on the test's database; returns click's result (exit code 0 unless ok=False)."""
    monkeypatch.setenv("PBEM_DATABASE_URL", db.url)
    runner = CliRunner()

    def invoke(*args, ok=True):
        result = runner.invoke(cli.main, [str(a) for a in args], catch_exceptions=False)
        assert (result.exit_code == 0) == ok, result.output
        return result

    return invoke


@pytest.fixture
def reported(db, players):
    """A running three-player game in which Ana wrote a rude public message (reported by Cy twice and by
    Ben) and a private one to Ben; returns (game id, players, rude message id, private message id)."""
    game_id, table = running_game(db, players, n=3)
    first, second, third = table
    rude = talk.post(db, game_id, first.id, f"{RUDE} to you all", source="web")
    private = talk.post(db, game_id, first.id, f"{PRIVATE} for Ben", to=(1,), source="web")
    talk.report(db, rude, third.id, "insults the table")
    talk.report(db, rude, second.id, "not nice")
    return game_id, table, rude, private


def test_34_5_reports_lists_reported_messages_with_their_reports(run, reported):
    game_id, _table, rude, private = reported
    text = run("admin", "message", "reports").output
    assert f"message {rude}\tgame {game_id}\tseat 0\t{RUDE} to you all" in text
    assert "insults the table" in text and "not nice" in text
    assert text.count(f"message {rude}\t") == 1  # one message, its reports under it
    assert PRIVATE not in text and f"message {private}\t" not in text  # not reported: not shown


def test_34_5_no_reports_says_so(run, db):
    assert run("admin", "message", "reports").output.strip() == "no reported messages"


def test_34_5_hide_by_cli_keeps_who_and_why_and_no_player_reads_it(run, db, reported, client):
    game_id, table, rude, private = reported
    assert run("admin", "message", "hide", rude, "--by", OPERATOR, "--reason", "insults, see reports").output \
        .strip() == f"message {rude} hidden"
    with db.sessions() as s:
        row = s.get(Message, rude)
        operator = s.scalars(select(User.id).where(User.email == OPERATOR)).one()
        assert row.body.startswith(RUDE)  # kept for the operators
        assert (row.hidden_by, row.hidden_reason) == (operator, "insults, see reports") and row.hidden_at
    listed = run("admin", "message", "reports").output
    assert f"hidden by user {operator}" in listed and "insults, see reports" in listed
    tokens = {p.id: accounts.create_api_token(db, p.id, "bot") for p in table}
    for player in table:
        for path in (f"/games/{game_id}/talk?part=1", f"/games/{game_id}/talk", f"/games/{game_id}",
                     f"/games/{game_id}/replay"):
            assert RUDE not in player.client.get(path).get_data(as_text=True), path
        said = client.get(f"/api/v1/games/{game_id}/messages",
                          headers={"Authorization": f"Bearer {tokens[player.id]}"}).get_json()
        assert all(RUDE not in (m.get("body") or "") for m in said)
        assert RUDE not in json.dumps(talk.archived(db, game_id, player.id), default=str)  # their own download
    # The private message nobody reported is untouched: still read by its two readers.
    assert [m.body for m in talk.conversation(db, game_id, table[1].id) if not m.hidden] == [f"{PRIVATE} for Ben"]


def test_34_5_mails_after_the_hide_do_not_carry_it(run, db, reported, settings):
    """Ben answers the hidden message from its mail's reply address: his answer reaches the table, and
    nothing mailed after the hide quotes the hidden text."""
    game_id, table, rude, _private = reported
    first, second, _third = table
    before = deliver_all(db, settings)
    to_ben = next(m for m in before if m["To"] == second.email and RUDE in mail_text(m))
    run("admin", "message", "hide", rude, "--by", OPERATOR, "--reason", "insults")
    receive(db, settings, compose(second.email, reply_to(to_ben), f"Please calm down.\n\n> {RUDE} to you all\n",
                                  subject=str(to_ben["Subject"])))
    after = deliver_all(db, settings)
    assert any("Please calm down." in mail_text(m) for m in after if m["To"] == first.email)
    assert after and all(RUDE not in mail_text(m) for m in after)


def test_34_5_hide_refuses_bad_input_and_changes_nothing(run, db, reported):
    _game_id, _table, rude, _private = reported
    missing = run("admin", "message", "hide", 999, "--by", OPERATOR, "--reason", "spam", ok=False)
    assert "There is no such message." in missing.output
    blank = run("admin", "message", "hide", rude, "--by", OPERATOR, "--reason", "   ", ok=False)
    assert "Say why, in a few words." in blank.output
    assert "--reason" in run("admin", "message", "hide", rude, "--by", OPERATOR, ok=False).output
    with db.sessions() as s:
        assert s.get(Message, rude).hidden_at is None


def test_34_5_a_message_mail_still_queued_at_the_hide_is_not_sent(run, db, players, settings):
    game_id, table = running_game(db, players, n=3)
    rude = talk.post(db, game_id, table[0].id, f"{RUDE} queued", source="web")
    with db.sessions() as s:
        queued = list(s.scalars(select(OutboundMail.id).where(OutboundMail.kind == "message",
                                                              OutboundMail.status == "pending")))
    assert len(queued) == 2  # the two other players' mails, written when the message was
    run("admin", "message", "hide", rude, "--by", OPERATOR, "--reason", "insults")
    assert [outbound.deliver(db, outbox_id, settings) for outbox_id in queued] == ["suppressed", "suppressed"]
    assert all(RUDE not in mail_text(m) for m in deliver_all(db, settings))
