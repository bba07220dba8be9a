"""A game is one plug-in (issue 32, item 1): the suite's counters game, taken off the registry, is offered
nowhere; one `engine.register(TITLE)` later it is offered on the web (home page, lobby, new-game page,
create form), in the API's titles, in its rules page and by mail (/help lists it, /new opens a table of
it), with nothing else edited."""

from __future__ import annotations

import html
import re

import pytest
from sqlalchemy import select

import engine
from pbem import config, games
from pbem.mail import inbound
from pbem.models import Game
from tests.engine import toygame
from tests.mail.conftest import command_address, compose, deliver_all, mail_text
from tests.web.conftest import post


@pytest.fixture
def without_counters():
    """The site before the counters game is registered: its entry is taken off, and put back afterwards."""
    entry = engine.unregister("counters")
    assert entry is toygame.TITLE
    yield entry
    engine.register(entry)


@pytest.fixture
def mail_settings(tmp_path):
    return config.load({"PBEM_DATA_DIR": str(tmp_path / "data"), "PBEM_SECRET_KEY": "test-secret-key",
                        "PBEM_MAIL_DOMAIN": "pbem.test", "PBEM_SMTP_URL": "outbox:",
                        "PBEM_BASE_URL": "https://pbem.example"})


def mailed(db, settings, email: str, line: str) -> tuple[str, str]:
    """What the mail door answers a user who sends `line` to their command address: (outcome, answer text)."""
    outcome = inbound.receive(db, compose(email, command_address(db, settings, email), line), settings).outcome
    answers = [m for m in deliver_all(db, settings) if str(m["To"]) == email and str(m["Subject"]).startswith("Re:")]
    return outcome, mail_text(answers[-1])


def offered(app, db, ana, settings) -> dict[str, bool]:
    """Where the counters game is offered, door by door."""
    visitor = app.test_client()
    help_text = mailed(db, settings, ana.email, "/help")[1]
    rules = visitor.get("/rules/counters")
    new_game = ana.client.get("/games/new").get_data(as_text=True)
    return {
        "home page": 'href="/rules/counters"' in visitor.get("/").get_data(as_text=True),
        "lobby's titles": 'href="/?title=counters"' in ana.client.get("/").get_data(as_text=True),
        "new-game page": 'id="new-counters"' in new_game and html.escape(str(toygame.TITLE.blurb)) in new_game,
        "create form": 'name="opt_pile"' in ana.client.get("/games/new/counters").get_data(as_text=True),
        "rules page": rules.status_code == 200 and "<code>take 1</code>" in rules.get_data(as_text=True),
        "API titles": "counters" in [t["name"] for t in visitor.get("/api/v1/titles").json],
        "mail /help": "counters" in re.search(r"\(games: ([^)]*)\)", help_text).group(1).split(", "),
    }


def test_32_1_a_fourth_title_is_offered_at_every_door_after_one_registration(app, db, players, without_counters,
                                                                             mail_settings):
    ana = players[0]
    before = offered(app, db, ana, mail_settings)
    assert not any(before.values()), before
    assert ana.client.get("/games/new/counters").status_code == 404
    assert mailed(db, mail_settings, ana.email, "/new counters players=2")[0] == "failed"

    engine.register(toygame.TITLE)  # the one registration (tests/conftest.py makes it for the whole run)

    after = offered(app, db, ana, mail_settings)
    assert all(after.values()), after
    # The rules page shows the players' sections of the title's own page, not the developers' ones.
    page = app.test_client().get("/rules/counters").get_data(as_text=True)
    assert "<h1>Counters" in page and "A section for developers" not in page
    # And it plays: a table opened by mail and one by the web form.
    assert mailed(db, mail_settings, ana.email, "/new counters players=2")[0] == "done"
    response = post(ana.client, "/games/new/counters", {"players": "2", "timeout_policy": "wait", "opt_pile": "9"},
                    page="/games/new/counters")
    assert response.status_code == 302
    with db.sessions() as s:
        assert s.scalars(select(Game.title)).all() == ["counters", "counters"]
    assert [g["title"] for g in games.list_games(db, "open")] == ["counters", "counters"]
