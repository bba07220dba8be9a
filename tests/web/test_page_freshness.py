"""The game page as players rely on it: a move shows at once on every page, nobody gets another
user's page, each page carries its session's own token and a fresh key, and a message shows once."""

from __future__ import annotations

import html
import itertools
import json
import re
import time

import pytest
from itsdangerous import TimestampSigner
from sqlalchemy import text, update

from pbem import games
from pbem.models import Game, User, utcnow
from pbem.web import create_app
from tests.web.conftest import SECRET, login, make_user, running_game

KEY_RE = re.compile(r'<input id="key" name="key" type="hidden" value="([^"]*)"')
TOKEN_RE = re.compile(r'name="csrf_token"[^>]*value="([^"]+)"')


def page(client, game_id) -> str:
    response = client.get(f"/games/{game_id}")
    assert response.status_code == 200
    return response.get_data(as_text=True)


def shown_view(text: str) -> dict:
    """The position the page shows (a title without a picture: a list of the view's simple entries)."""
    found = re.search(r'<dl class="view" id="board-items">(.*?)</dl>', text, re.S).group(1)
    return {html.unescape(k): html.unescape(v) for k, v in re.findall(r"<dt>(.*?)</dt><dd>(.*?)</dd>", found)}


def history(text: str) -> list[tuple[str, str]]:
    """The move log on the page, oldest first, as (notation, the sentence that tells the move: issue 36 item 6)."""
    found = re.findall(r'<li value="\d+"[^>]*><a href="[^"]*" class="log-move" title="([^"]*)">'
                       r'<span class="told">([^<]*)</span></a>', text)
    return [(html.unescape(notation), html.unescape(told)) for notation, told in reversed(found)]


def test_a_move_shows_at_once_and_the_old_position_is_not_served_again(client, db, players):
    game_id, (first, second) = running_game(db, players)
    before = page(first.client, game_id)
    assert _without_tokens(before, page(first.client, game_id)) == before  # the same page, fresh tokens
    assert page(client, game_id)
    games.submit(db, game_id, "take 2", user_id=first.id)  # through the service: no web request saw it
    for c in (first.client, second.client, client):
        after = page(c, game_id)
        assert history(after)[-1][0] == "take 2" and 'data-version="1"' in after
        assert int(shown_view(after)["pile"]) == int(shown_view(before)["pile"]) - 2
    assert "Your move" not in page(first.client, game_id) and "Your move" in page(second.client, game_id)
    games.submit(db, game_id, "take 1", user_id=second.id)
    for c in (first.client, second.client, client):
        assert [notation for notation, _ in history(page(c, game_id))] == ["take 2", "take 1"]
    told = [sentence.split(" (")[0] for _, sentence in history(page(client, game_id))]
    assert told == [_name(db, first.id), _name(db, second.id)]


def _name(db, user_id):
    with db.sessions() as s:
        return s.get(User, user_id).display_name


def _without_tokens(a: str, b: str) -> str:
    """b with its CSRF token and idempotency key replaced by a's (everything else must be equal)."""
    for pattern in (TOKEN_RE, KEY_RE):
        for old, new in zip(pattern.findall(b), pattern.findall(a)):
            b = b.replace(old, new)
    return b


def test_a_seats_page_never_reaches_another_user(client, db, players):
    game_id, (first, second) = running_game(db, players)
    games.submit(db, game_id, "draw", user_id=first.id)
    games.submit(db, game_id, "draw", user_id=second.id)
    hands = {p.id: ", ".join(map(str, games.view(db, game_id, p.id)["board"]["my_hand"])) for p in (first, second)}
    mine = page(first.client, game_id)
    assert shown_view(mine)["my hand"] == hands[first.id] and "Your move" in mine
    for _ in range(2):
        for other, hand in ((second, hands[second.id]), (players[2], None)):
            theirs = page(other.client, game_id)
            assert shown_view(theirs).get("my hand") == hand and "Your move" not in theirs
            assert f'id="nav-settings">{_name(db, other.id)}</a>' in theirs  # their own name in the menu
        anonymous = page(client, game_id)
        assert "my hand" not in shown_view(anonymous) and "Log out" not in anonymous
        assert not TOKEN_RE.search(anonymous)
        assert shown_view(page(first.client, game_id))["my hand"] == hands[first.id]
    # A spectator's request carries no session cookie and gets none.
    response = client.get(f"/games/{game_id}")
    assert "Set-Cookie" not in response.headers


def test_pages_carry_the_sessions_own_token_and_a_fresh_key_and_their_form_works(db, players, monkeypatch):
    game_id, (first, second) = running_game(db, players)
    # Every signature gets a new time stamp, as if each request came a second after the last.
    clock = itertools.count(int(time.time()))
    monkeypatch.setattr(TimestampSigner, "get_timestamp", lambda self: next(clock))
    pages = [page(first.client, game_id) for _ in range(3)]
    keys = [KEY_RE.search(p).group(1) for p in pages]
    assert len(set(keys)) == 3 and all(len(k) == 32 for k in keys)
    assert all(len(set(TOKEN_RE.findall(p))) == 1 for p in pages)  # every form of a page: the same token
    tokens = {t for p in pages for t in TOKEN_RE.findall(p)}
    others = {t for t in TOKEN_RE.findall(page(second.client, game_id))}
    assert others and not others & tokens
    # The form of the first page is accepted after two more pages: its token belongs to this session.
    response = first.client.post(f"/games/{game_id}/move", data={
        "csrf_token": TOKEN_RE.search(pages[0]).group(1), "expected_version": "0", "key": keys[2],
        "move": "take 3", "text": ""})
    assert response.status_code == 303 and games.view(db, game_id)["version"] == 1
    # The same form again (same key) applies nothing; another's token is refused.
    response = second.client.post(f"/games/{game_id}/move", data={
        "csrf_token": TOKEN_RE.search(pages[0]).group(1), "expected_version": "1", "key": "x" * 32,
        "move": "take 1", "text": ""})
    assert response.status_code == 400 and games.view(db, game_id)["version"] == 1


def test_the_message_after_a_move_shows_once(db, players):
    game_id, (first, second) = running_game(db, players)
    text = page(first.client, game_id)
    data = {"csrf_token": TOKEN_RE.search(text).group(1), "expected_version": "0",
            "key": KEY_RE.search(text).group(1), "move": "take 1", "text": ""}
    shown = first.client.post(f"/games/{game_id}/move", data=data, follow_redirects=True).get_data(as_text=True)
    assert 'role="status">You played take 1.</p>' in shown
    assert 'role="status">You played' not in page(first.client, game_id)  # (the log tells it: issue 36 item 6)


def test_a_new_name_or_time_zone_shows_on_the_page(db, players):
    game_id, (first, _) = running_game(db, players, options={"pile": 9})
    with db.transaction() as s:
        s.execute(update(Game).where(Game.id == game_id).values(deadline=utcnow()))
    assert "(UTC)" in page(first.client, game_id)
    with db.transaction() as s:
        s.execute(update(User).where(User.id == first.id).values(display_name="Renamed", timezone="Asia/Tokyo"))
    text = page(first.client, game_id)
    assert 'id="nav-settings">Renamed</a>' in text and "(Asia/Tokyo)" in text


def test_the_page_survives_the_database_dropping_its_connections(pg_db, monkeypatch):
    """A restart of the database server (every pooled connection closed) costs a page nothing."""
    monkeypatch.setenv("PBEM_SECRET_KEY", SECRET)
    app = create_app({"DATABASE_URL": pg_db.url, "TESTING": True, "SECRET_KEY": SECRET})
    try:
        ana, ben = (make_user(pg_db, f"{n}@example.org", n.title()) for n in ("ana", "ben"))
        game_id = games.create_game(pg_db, "counters", ana, 2)
        games.join_game(pg_db, game_id, ben)
        player, spectator = app.test_client(), app.test_client()
        assert login(player, "ana@example.org").status_code == 302
        seat = games.view(pg_db, game_id, ana)["my_seat"]
        assert page(player, game_id) and page(spectator, game_id)
        assert app.extensions["pbem_db"].engine.pool.checkedin() >= 1
        with pg_db.engine.connect() as c:  # what a restart of the server does to every open connection
            killed = c.execute(text("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                                    "WHERE datname = current_database() AND pid <> pg_backend_pid()")).scalar()
        assert killed >= 1
        assert ("Your move" in page(player, game_id)) == (seat == 0)
        assert "Log out" not in page(spectator, game_id)
    finally:
        app.extensions["pbem_db"].dispose()
