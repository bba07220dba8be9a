"""Issue 37 item 3 on the web pages: the create form declares the table's policy for abandoned seats (refused
with a rated game, the reason beside the field), the game page says the policy in words, and a player seated
in the running game gets "Leave this game", which hands the seat to a bot and offers it."""

from __future__ import annotations

import re

from sqlalchemy import func, select

from pbem import games
from pbem.models import Game, Seat
from tests.web.conftest import post

FORM = re.compile(r'<form method="post" action="/games/new/tapaono" class="create-form">(.*?)</form>', re.S)


def create_fields(page: str, **changes) -> dict:
    """What a browser sends for the create form as it is filled in (checked boxes only), with `changes`."""
    form = FORM.search(page).group(1)
    fields = {}
    for tag in re.findall(r"<input[^>]*>", form):
        name, value = re.search(r'name="([^"]+)"', tag), re.search(r'value="([^"]*)"', tag)
        if name and ('type="checkbox"' not in tag or " checked" in tag):
            fields[name.group(1)] = value.group(1) if value else ""
    for name, options in re.findall(r'<select[^>]*name="([^"]+)"[^>]*>(.*?)</select>', form, re.S):
        chosen = re.search(r'<option selected value="([^"]*)"|<option value="([^"]*)" selected', options)
        first = re.search(r'<option[^>]*value="([^"]*)"', options)  # none selected: a browser sends the first
        fields[name] = next(v for v in chosen.groups() if v is not None) if chosen else first.group(1)
    fields.pop("submit", None)
    for name, value in changes.items():
        if value is None:
            fields.pop(name, None)
        else:
            fields[name] = value
    return fields


def field_box(page: str, name: str) -> str:
    """The markup of one field's box on a form page (its label, input, help and errors)."""
    start = page.index(f'id="field-{name}"')
    return page[start:page.index('<div class="field', start + 1)] if '<div class="field' in page[start + 1:] \
        else page[start:]


def tables_of(db) -> int:
    with db.sessions() as s:
        return s.scalar(select(func.count()).select_from(Game))


def test_37_3_the_create_form_declares_the_policy_for_abandoned_seats(db, players):
    ana = players[0]
    page = ana.client.get("/games/new/tapaono").get_data(as_text=True)
    assert 'name="replace_after"' in page and 'name="replace_level"' in page
    answer = post(ana.client, "/games/new/tapaono", create_fields(page, replace_after="3", replace_level="medium"),
                  page="/games/new/tapaono")
    assert answer.status_code == 302, answer.get_data(as_text=True)[:2000]
    with db.sessions() as s:
        game = s.scalars(select(Game).order_by(Game.id.desc())).first()
        assert (game.replace_after, game.bot_level, game.rated) == (3, "medium", False)
    # Left empty: no policy, as before.
    answer = post(ana.client, "/games/new/tapaono", create_fields(page, replace_after=""), page="/games/new/tapaono")
    assert answer.status_code == 302
    with db.sessions() as s:
        assert s.scalars(select(Game).order_by(Game.id.desc())).first().replace_after is None


def test_37_3_a_policy_with_a_rated_game_or_out_of_bounds_is_refused_beside_the_field(db, players):
    ana = players[0]
    page = ana.client.get("/games/new/tapaono").get_data(as_text=True)
    before = tables_of(db)
    for changes, said in [({"replace_after": "2", "rated": "y"}, "A game with bots is not rated"),
                          ({"replace_after": "11"}, "between 1 and 10")]:
        answer = post(ana.client, "/games/new/tapaono", create_fields(page, **changes), page="/games/new/tapaono")
        text = answer.get_data(as_text=True)
        assert answer.status_code == 400, changes
        box = field_box(text, "replace_after")
        assert said in box and 'role="alert"' in box, (changes, box)
        assert text.count(said) == 1, changes  # beside that field only
    assert tables_of(db) == before  # nothing opened


def running(db, players, replace_after):
    """Ana and Ben at a running Tapaono, with or without the policy; its id."""
    ana, ben, _ = players
    game_id = games.create_game(db, "tapaono", ana.id, 2, {}, turn_hours=24, replace_after=replace_after,
                                bot_level="easy" if replace_after else None)
    games.join_game(db, game_id, ben.id)
    return game_id


def test_37_3_the_game_page_says_the_policy_and_offers_leave_to_a_seated_player(db, players):
    ana, ben, cy = players
    game_id = running(db, players, 2)
    page = ben.client.get(f"/games/{game_id}").get_data(as_text=True)
    assert 'id="seat-policy"' in page and "misses 2 deadlines in a row, or leaves, is replaced by a bot" in page
    assert 'id="leave-seat"' in page and f'action="/games/{game_id}/seat/leave"' in page
    watcher = cy.client.get(f"/games/{game_id}").get_data(as_text=True)  # not seated: the policy, no button
    assert 'id="seat-policy"' in watcher and 'id="leave-seat"' not in watcher
    plain = running(db, players, None)
    page = ben.client.get(f"/games/{plain}").get_data(as_text=True)
    assert 'id="seat-policy"' not in page and 'id="leave-seat"' not in page and 'id="resign"' in page


def test_37_3_leave_this_game_hands_the_seat_to_a_bot_and_offers_it(db, players):
    ana, ben, cy = players
    game_id = running(db, players, 2)
    answer = post(ben.client, f"/games/{game_id}/seat/leave", page=f"/games/{game_id}")
    assert answer.status_code == 303
    page = ben.client.get(f"/games/{game_id}").get_data(as_text=True)
    assert "A bot plays your seat until a replacement takes it." in page and 'id="leave-seat"' not in page
    with db.sessions() as s:
        seats = s.scalars(select(Seat).where(Seat.game_id == game_id).order_by(Seat.number)).all()
        assert ben.id not in [x.user_id for x in seats]
        bot = next(x for x in seats if x.user_id is None)
        assert (bot.bot_level, bot.display_name, bot.open_since is not None) == ("easy", "Bot 1 (easy)", True)
    assert f'id="take-{game_id}-{bot.number}"' in cy.client.get("/").get_data(as_text=True)


def test_37_3_leave_is_refused_without_the_policy_or_a_seat_and_changes_nothing(db, players):
    ana, ben, cy = players
    plain = running(db, players, None)
    with_policy = running(db, players, 2)

    def seats_of(game_id):
        with db.sessions() as s:
            return [(x.user_id, x.bot_level) for x in s.scalars(select(Seat).where(Seat.game_id == game_id))]

    before = seats_of(plain), seats_of(with_policy)
    answer = post(ben.client, f"/games/{plain}/seat/leave", page=f"/games/{plain}", follow_redirects=True)
    assert "cannot be left" in answer.get_data(as_text=True)
    answer = post(cy.client, f"/games/{with_policy}/seat/leave", page=f"/games/{with_policy}", follow_redirects=True)
    assert "no seat" in answer.get_data(as_text=True)
    assert ben.client.post(f"/games/{with_policy}/seat/leave").status_code == 400  # no CSRF token
    assert (seats_of(plain), seats_of(with_policy)) == before


def test_37_3_the_settings_page_sets_the_titles_a_volunteer_is_offered_seats_at(db, players):
    from pbem.players import volunteers

    ana = players[0]
    page = ana.client.get("/settings").get_data(as_text=True)
    assert 'id="seats-to-take-over"' in page and 'id="volunteer-tapaono"' in page and 'id="volunteer-tongiaki"' in page
    assert 'id="volunteer-tapaono" name="volunteer" value="tapaono" checked' not in page
    answer = post(ana.client, "/settings/volunteer", {"volunteer": ["tapaono", "tongiaki"]}, page="/settings",
                  follow_redirects=True)
    text = answer.get_data(as_text=True)
    assert "You are offered seats to take over at: Tapaono, Tongiaki." in text
    assert 'id="volunteer-tapaono" name="volunteer" value="tapaono" checked' in text
    assert volunteers.titles_of(db, ana.id) == ["tapaono", "tongiaki"]
    answer = post(ana.client, "/settings/volunteer", {"volunteer": ["tapaono", "chess"]}, page="/settings",
                  follow_redirects=True)
    assert "There is no game called &#39;chess&#39;" in answer.get_data(as_text=True)
    assert volunteers.titles_of(db, ana.id) == ["tapaono", "tongiaki"]  # unchanged
    assert ana.client.post("/settings/volunteer", data={"volunteer": "tapaono"}).status_code == 400  # no CSRF token
    answer = post(ana.client, "/settings/volunteer", {}, page="/settings", follow_redirects=True)
    assert "You are offered no seats to take over." in answer.get_data(as_text=True)
    assert volunteers.titles_of(db, ana.id) == []
