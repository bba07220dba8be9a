"""Issue 33 item 4 (Find, open and fill a game by mail), through the mail door (`pbem.mail.inbound.receive`,
and the SMTP listener and `pbem mail ingest` for the list and the line it gives to join).

- `/list`: the open tables by title, as the web lobby lists them, each with the line that joins it;
- `/invite GAME-ID ADDRESS...`: the invitee gets a mail with the join command, within the web's limits;
- `/new` takes the web form's options with its defaults (a deadline included), and refuses a wrong one
  with its name and the values it takes, opening nothing;
- `/games` says whose turn it is in each game and since when, and the deadline.
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from sqlalchemy import func, select

import engine
from pbem import games
from pbem.accounts import invitations
from pbem.games import tables
from pbem.mail.commands import list as list_command
from pbem.models import Game, InboundMail, OutboundMail, Seat, User
from pbem.notify import wording
from tests.mail.conftest import command_address, compose, deliver_all, mail_text, receive, reply_to, verified_user
from tests.mail.smtp_world import text_of
from tests.mail.test_answers import answer_in, door, world  # noqa: F401  (fixtures)

ANN, BEA, CID = "ann@example.org", "bea@example.org", "cid@example.org"


def players(db, *emails: str) -> list[int]:
    return [verified_user(db, email, email.split("@")[0].capitalize()) for email in emails]


def command(db, settings, sender: str, body: str):
    """A mail of commands to the sender's command address, through the door; its outcome."""
    return receive(db, settings, compose(sender, command_address(db, settings, sender), body + "\n"))


def answer(db, settings, address: str) -> str:
    """The text of the one answer (Re: ...) among the mails now sent to `address`."""
    found = [m for m in deliver_all(db, settings) if str(m["To"]) == address and str(m["Subject"]).startswith("Re:")]
    assert len(found) == 1, [str(m["Subject"]) for m in found]
    return mail_text(found[0])


def seated(db, game_id: int) -> set[str]:
    with db.sessions() as s:
        return set(s.scalars(select(User.email).join(Seat, Seat.user_id == User.id).where(Seat.game_id == game_id)))


def invitations_sent(db, recipient: str | None = None) -> list[OutboundMail]:
    with db.sessions() as s:
        query = select(OutboundMail).where(OutboundMail.kind == "invite")
        if recipient is not None:
            query = query.where(OutboundMail.recipient == recipient)
        return list(s.scalars(query.order_by(OutboundMail.id)))


def running_game(db, first: int, second: int) -> int:
    game_id = games.create_game(db, "counters", first, 2, {})
    games.join_game(db, game_id, second, seed=7)  # the table is full: it starts
    return game_id


# --------------------------------------------------------------------------------------
# /list


def test_33_4_list_shows_an_open_table_not_a_running_one_and_its_join_line_pasted_back_joins(
        world, door, db):  # noqa: F811
    settings = world.settings
    ann, bea, cid = players(db, ANN, BEA, CID)
    open_id = games.create_game(db, "tongiaki", ann, 3, turn_hours=48, colour="red")
    running_id = running_game(db, ann, cid)
    door.send(BEA, command_address(db, settings, BEA), compose(BEA, command_address(db, settings, BEA), "/list\n"))
    text = text_of(answer_in(world.flush(), BEA))
    assert "Tongiaki: 1 open table" in text, text
    assert f'Game {open_id}, 1 of 3 seats taken, opened by "Ann".' in text
    assert "Pace: 2 days a move; when a deadline passes: wait (remind only)." in text
    assert f"Free colours: blue, green, orange, purple, yellow. To join, send:\n    /join {open_id}\n" in text
    assert f"or, in a colour: /join {open_id} blue" in text
    assert f"Game {running_id}" not in text and "/join %d" % running_id not in text and "Counters" not in text
    # The line as the answer gives it, pasted into a mail to the command address: Bea sits at the table.
    line = re.search(r"^\s*(/join \d+)\s*$", text, re.M)[1]
    door.send(BEA, command_address(db, settings, BEA), compose(BEA, command_address(db, settings, BEA), line + "\n"))
    assert seated(db, open_id) == {ANN, BEA}
    assert f"You joined game {open_id}" in text_of(answer_in(world.flush(), BEA))


def test_33_4_list_is_the_web_lobbys_list_bounded_per_title_and_answered_without_a_key(db, settings, monkeypatch):
    monkeypatch.setattr(list_command, "PER_TITLE", 2)
    ann, bea, cid = players(db, ANN, BEA, CID)
    opened = [games.create_game(db, "counters", ann, 3) for _ in range(3)]
    mine = games.create_game(db, "counters", bea, 3)  # Bea's own: in /games, not in her /list
    found = tables.open_tables(db, bea, per_title=2)
    with db.sessions() as s:  # the query the web lobby pages
        lobby = list(s.scalars(tables.open_tables_query(None, bea).with_only_columns(Game.id)))
    assert lobby == opened[::-1] and [t.id for t in found[0][1]] == opened[:0:-1] and found[0][2] == 3
    result = receive(db, settings, compose(BEA, "pbem@pbem.test", "/list counters\n"))  # read-only: no key needed
    assert result.outcome == "done"
    text = answer(db, settings, BEA)
    assert "Counters: 3 open tables" in text and f"/join {opened[2]}" in text and f"/join {opened[1]}" in text
    assert f"/join {opened[0]}" not in text and f"/join {mine}" not in text
    assert "... and 1 more, older ones: all are on https://pbem.example/?title=counters" in text
    assert command(db, settings, CID, "/list nosuchgame").outcome == "failed"
    assert "Write /list, or /list GAME for the tables of one game" in answer(db, settings, CID)


# --------------------------------------------------------------------------------------
# /invite


def test_33_4_invite_sends_the_invitee_a_mail_with_the_join_command_and_replying_it_joins(db, settings):
    ann, bea = players(db, ANN, BEA)
    game_id = games.create_game(db, "tongiaki", ann, 3)
    result = command(db, settings, ANN, f"/invite {game_id} <Bea@Example.org>, dora@example.org")
    assert result.outcome == "done", result
    mails = deliver_all(db, settings)
    said = mail_text(next(m for m in mails if str(m["To"]) == ANN))
    assert f"Invitations to game {game_id} sent to bea@example.org, dora@example.org" in said
    to_bea = next(m for m in mails if str(m["To"]) == BEA)
    to_dora = next(m for m in mails if str(m["To"]) == "dora@example.org")
    assert str(to_bea["Subject"]) == f"[pbem #{game_id} Tongiaki] an invitation to play"
    for mail in (to_bea, to_dora):
        text = mail_text(mail)
        assert text.startswith(f'A player who calls themselves "Ann" invites you to a game of Tongiaki (game {game_id}).')
        assert f"reply to this mail with the line\n\n  /join {game_id}\n" in text
        assert f"https://pbem.example/games/{game_id}" in text
    assert str(to_dora["Reply-To"]) == "pbem@pbem.test"  # no account yet: the plain address, which confirms first
    # Bea has an account: the reply to the invitation goes to her command address and joins.
    assert receive(db, settings, compose(BEA, reply_to(to_bea), f"/join {game_id}\n")).outcome == "done"
    assert seated(db, game_id) == {ANN, BEA}


def test_33_4_invite_is_refused_at_a_running_table_by_a_non_player_and_without_a_key_nothing_is_sent(db, settings):
    ann, bea, cid = players(db, ANN, BEA, CID)
    running_id = running_game(db, ann, bea)
    assert command(db, settings, ANN, f"/invite {running_id} dora@example.org").outcome == "failed"
    assert f"Game {running_id} is running; only open tables take invitations." in answer(db, settings, ANN)
    open_id = games.create_game(db, "counters", ann, 3)
    assert command(db, settings, CID, f"/invite {open_id} dora@example.org").outcome == "failed"
    assert f"Only players at game {open_id} can invite others to it." in answer(db, settings, CID)
    assert command(db, settings, ANN, f"/invite {open_id} dora@example.org not-an-address").outcome == "failed"
    assert "'not-an-address' is not an email address." in answer(db, settings, ANN)
    six = " ".join(f"friend{n}@example.org" for n in range(6))
    assert command(db, settings, ANN, f"/invite {open_id} {six}").outcome == "failed"
    assert "/invite takes at most 5 addresses at once, not 6; nothing was sent." in answer(db, settings, ANN)
    # Without a key it changes a table: only asked to be confirmed.
    assert receive(db, settings, compose(ANN, "pbem@pbem.test", f"/invite {open_id} dora@example.org\n")
                   ).outcome == "to_confirm"
    assert invitations_sent(db) == []


def test_33_4_invite_by_mail_keeps_the_webs_limits_per_player_and_per_invited_address(db, settings, monkeypatch):
    from pbem.web import ratelimit

    def figures(text: str) -> tuple:
        spans = {"hour": timedelta(hours=1), "day": timedelta(days=1)}
        return tuple((int(most), spans[span]) for most, _per, span in (part.split() for part in text.split(";")))

    assert invitations.PER_ACCOUNT == figures(ratelimit.INVITES_PER_ACCOUNT)  # the web's numbers, by mail too
    assert invitations.PER_ADDRESS == figures(ratelimit.INVITES_PER_ADDRESS)
    ann, bea, cid = players(db, ANN, BEA, CID)
    table = games.create_game(db, "counters", ann, 4)
    monkeypatch.setattr(invitations, "PER_ACCOUNT", ((3, timedelta(hours=1)), (50, timedelta(days=1))))
    assert command(db, settings, ANN, f"/invite {table} a1@example.org a2@example.org").outcome == "done"
    assert "Invitations to game" in answer(db, settings, ANN)
    # Two more would be four in the hour: the line is refused whole, and nothing of it is sent.
    assert command(db, settings, ANN, f"/invite {table} a3@example.org a4@example.org").outcome == "failed"
    refused = " ".join(answer(db, settings, ANN).split())
    assert "as many invitations as one player may (3 an hour, 50 a day); nothing of this line was sent." in refused
    assert [m.recipient for m in invitations_sent(db)] == ["a1@example.org", "a2@example.org"]
    assert command(db, settings, ANN, f"/invite {table} a3@example.org").outcome == "done"  # the third of the hour
    # One address is invited at most 3 times a day, whoever invites it.
    bea_table = games.create_game(db, "counters", bea, 4)
    cid_table = games.create_game(db, "counters", cid, 4)
    assert command(db, settings, BEA, f"/invite {bea_table} target@example.org").outcome == "done"
    assert command(db, settings, BEA, f"/invite {bea_table} target@example.org").outcome == "done"
    assert command(db, settings, CID, f"/invite {cid_table} target@example.org").outcome == "done"
    assert command(db, settings, CID, f"/invite {cid_table} target@example.org").outcome == "failed"
    deliver_all(db, settings)
    assert len(invitations_sent(db, "target@example.org")) == 3


def test_33_4_the_limit_refusal_names_the_figures(db, settings, monkeypatch):
    monkeypatch.setattr(invitations, "PER_ACCOUNT", ((1, timedelta(hours=1)), (50, timedelta(days=1))))
    ann, = players(db, ANN)
    table = games.create_game(db, "counters", ann, 4)
    assert command(db, settings, ANN, f"/invite {table} a1@example.org a2@example.org").outcome == "failed"
    text = " ".join(answer(db, settings, ANN).split())
    assert ("You have sent as many invitations as one player may (1 an hour, 50 a day); nothing of this line was "
            "sent. Try again later.") in text, text
    assert invitations_sent(db) == []


def test_33_4_web_invitations_go_through_the_same_table_rules(db, settings):
    ann, bea = players(db, ANN, BEA)
    running_id = running_game(db, ann, bea)
    with pytest.raises(games.GameStateError, match="only open tables take invitations"):
        invitations.invite_by_email(db, running_id, ann, "dora@example.org", "https://pbem.example")
    from pbem.web import lobby

    assert lobby.invite_by_email is invitations.invite_by_email  # the web's invite view calls the same code


# --------------------------------------------------------------------------------------
# /new


def test_33_4_new_without_options_gets_the_web_forms_defaults_a_deadline_included(db, settings, monkeypatch):
    from pbem.web import create_app
    from pbem.web.forms import create_form_for

    monkeypatch.setenv("PBEM_SECRET_KEY", "test-secret-key")
    app = create_app({"DATABASE_URL": db.url, "TESTING": True, "SECRET_KEY": "test-secret-key"})
    with app.test_request_context():
        form = create_form_for(engine.get("tongiaki").describe())
        # What the page submits untouched: the fields' defaults, the policy shown first (a select without a default).
        web = (form.players.data, form.turn_hours.data, next(iter(form.timeout_policy.iter_choices()))[0])
    app.extensions["pbem_db"].dispose()
    assert web[1] == tables.DEFAULT_TURN_HOURS is not None
    ann, bea = players(db, ANN, BEA)
    assert command(db, settings, ANN, "/new tongiaki").outcome == "done"
    with db.sessions() as s:
        game = s.scalars(select(Game)).one()
        opened = (game.players, game.turn_hours, game.timeout_policy)
    assert opened == web == (2, tables.DEFAULT_TURN_HOURS, "wait")
    assert "Pace: 3 days a move (hours=72); when a deadline passes: wait (remind only)." in answer(db, settings, ANN)
    assert command(db, settings, BEA, f"/join {game.id}").outcome == "done"  # full: it starts, with a deadline
    assert games.view(db, game.id)["deadline"] is not None


def test_33_4_new_takes_the_forms_pace_and_timeout_options(db, settings):
    ann, = players(db, ANN)
    assert command(db, settings, ANN, "/new tapaono hours=none timeout=skip mode=fast colour=blue").outcome == "done"
    assert command(db, settings, ANN, "/new counters players=3 hours=24 timeout=random pile=9 bonus=no").outcome == "done"
    with db.sessions() as s:
        found = [(g.title, g.players, g.turn_hours, g.timeout_policy, g.options.get("mode"), g.options.get("pile"),
                  g.options.get("bonus")) for g in s.scalars(select(Game).order_by(Game.id))]
    assert found == [("tapaono", 2, None, "skip", "fast", None, None), ("counters", 3, 24, "random", None, 9, False)]


@pytest.mark.parametrize("line,said", [
    ("/new tongiaki speed=fast", "tongiaki has no option 'speed'. Its options, with the values they take: players "
                                 "(2-6); colour (blue, green, orange, purple, red, yellow, any); hours (1-1440, none); "
                                 "timeout (wait, skip, random, resign); press (full, public, none); spectators "
                                 "(yes, no); after_end (yes, no); late_silent (yes, no); rated (yes, no); min_reliability (0-100, none)."),
    ("/new counters pile=99", "Option pile must be between 5 and 40."),
    ("/new counters bonus=maybe", "Option bonus is yes or no, not 'maybe'."),
    ("/new tapaono mode=slow", "Option mode must be one of normal, fast, absolute, free; 'slow' is not."),
    ("/new counters hours=soon", "hours= is the time a move may take, in hours from 1 to 1440, or none for no "
                                 "deadline; not 'soon'."),
    ("/new counters timeout=never", "timeout= is what happens when a deadline passes: wait, skip, random, resign; "
                                    "not 'never'."),
    ("/new counters players=9", "players= is the number of seats, 2 to 4 for counters, not '9'."),
    ("/new counters colour=pink", "colour= is one of blue, green, orange, purple, red, yellow (or any), not 'pink'."),
    ("/new counters fast", "Options are NAME=VALUE, not 'fast'. The options of counters: players (2-4);"),
    ("/new counters hours=1 hours=2", "The option hours is given twice."),
])
def test_33_4_new_with_a_wrong_option_names_it_and_its_values_and_opens_nothing(db, settings, line, said):
    ann, = players(db, ANN)
    assert command(db, settings, ANN, line).outcome == "failed"
    assert said in " ".join(answer(db, settings, ANN).split()), line
    # Without a key too: refused when read, never asked to be confirmed.
    assert receive(db, settings, compose(ANN, "pbem@pbem.test", line + "\n")).outcome == "failed"
    with db.sessions() as s:
        assert s.scalar(select(func.count(Game.id))) == 0
        assert s.scalar(select(func.count(InboundMail.id)).where(InboundMail.outcome == "to_confirm")) == 0


# --------------------------------------------------------------------------------------
# /games


@pytest.mark.parametrize("language", ["en", "de"])
def test_33_4_games_says_whose_turn_it_is_since_when_and_the_deadline(db, settings, language):
    ann, bea = players(db, ANN, BEA)
    with db.transaction() as s:
        for user in s.scalars(select(User)):
            user.language = language
    game_id = games.create_game(db, "counters", ann, 2, {}, turn_hours=48)
    games.join_game(db, game_id, bea, seed=7)
    waiting = games.create_game(db, "counters", ann, 3)
    data = games.view(db, game_id)
    to_move = data["seats"][data["to_move"]]
    mover, other = (ANN, BEA) if to_move["name"] == "Ann" else (BEA, ANN)
    games.submit(db, game_id, "take 1", seat=data["to_move"])  # the other player's turn now
    with db.sessions() as s:
        game = s.get(Game, game_id)
        since, deadline = game.turn_started_at, game.deadline
        name, colour = next((x.display_name, x.colour) for x in game.seats if x.number == game.to_move)
    assert since is not None and deadline is not None
    at = wording.when(since, language, "%Y-%m-%d %H:%M UTC")
    due = wording.when(deadline, language, "%Y-%m-%d %H:%M UTC")
    assert command(db, settings, mover, "/games").outcome == "done"
    text = " ".join(answer(db, settings, mover).split())
    assert command(db, settings, other, "/games").outcome == "done"
    theirs = " ".join(answer(db, settings, other).split())
    if language == "en":
        assert f"#{game_id} counters: running, 1 move; {name} ({colour}) to move since {at}; deadline {due}" in text
        assert f"#{game_id} counters: running, 1 move; your turn since {at}; deadline {due}" in theirs
        assert f"#{waiting} counters: open, 0 moves" in text and f"#{waiting} counters: open, 0 moves;" not in text
    else:
        assert f"{name} ({colour})" in text and at in text and due in text and at in theirs
