"""Issue 19's web items, each reproduced as a hostile player would try it, through the real doors
(the Flask client with its CSRF tokens, the API with bearer tokens, the mail door for /confirm).

One test (or a few) per numbered item: item 3 (account takeover by signing up first), item 6
(logins that cannot be revoked), item 7 (cheap denial of service), item 8 (unlimited mail) and
item 11 (smaller holes). docs/security.md is the model they check.
"""

from __future__ import annotations

import io
import json
import os
import random
import re
import stat
from datetime import timedelta
from email.message import EmailMessage
from email.utils import make_msgid

from PIL import Image
from sqlalchemy import func, select, update

from pbem import accounts, boards, config, games
from pbem.games import archive, log, tables
from pbem.mail import inbound
from pbem.models import Animation, ApiToken, OutboundMail, PendingSignup, RateLimitCounter, User, WebSession, utcnow
from pbem.web import create_app, ratelimit
from tests.conftest import service_missing
from tests.support.net import free_port
from tests.web.conftest import PASSWORD, SECRET, csrf_of, finished_tapaono, login, make_user, post, signup_token

ATTACKER_PASSWORD = "attacker's password"


def new_app(db, monkeypatch, ratelimit_storage: str | None = None):
    """An app of its own on the test's database; with `ratelimit_storage`, its counters go there."""
    monkeypatch.setenv("PBEM_SECRET_KEY", SECRET)
    if ratelimit_storage:
        monkeypatch.setenv("PBEM_RATELIMIT_STORAGE_URL", ratelimit_storage)
    return create_app({"DATABASE_URL": db.url, "TESTING": True, "SECRET_KEY": SECRET, "BASE_URL": "http://pbem.test"})


def redis_away() -> str:
    """A Redis address on a port nobody listens on."""
    return f"redis://127.0.0.1:{free_port()}/0"


def outbox(db, kind: str, recipient: str | None = None) -> list[OutboundMail]:
    with db.sessions() as s:
        query = select(OutboundMail).where(OutboundMail.kind == kind).order_by(OutboundMail.id)
        if recipient:
            query = query.where(OutboundMail.recipient == recipient)
        return list(s.scalars(query))


def web_sign_up(client, email: str, password: str, name: str = "Someone"):
    return post(client, "/signup", {"email": email, "display_name": name, "password": password,
                                    "confirm": password}, page="/signup")


def mail_settings(tmp_path):
    return config.load({"PBEM_DATA_DIR": str(tmp_path / "data"), "PBEM_SECRET_KEY": SECRET,
                        "PBEM_MAIL_DOMAIN": "pbem.test", "PBEM_SMTP_URL": "outbox:",
                        "PBEM_BASE_URL": "http://pbem.test"})


def mail_in(db, settings, sender: str, body: str) -> inbound.Received:
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = sender, "pbem@pbem.test", "hello"
    message["Message-ID"] = make_msgid(domain="example.org")
    message.set_content(body)
    return inbound.receive(db, message.as_bytes(), settings)


def logged_in(client) -> bool:
    return client.get("/settings").status_code == 200


# --------------------------------------------------------------------------------------
# Item 3: account takeover by signing up first


def test_item3_signing_up_first_does_not_take_over_the_address(app, client, db, tmp_path):
    victim = "victim@example.org"
    # Eve signs up with the victim's address and her own password, before the victim ever came.
    assert web_sign_up(client, victim, ATTACKER_PASSWORD, "Eve").status_code == 200
    eve_link = f"/verify/{signup_token(db, victim)}"
    # The victim plays by mail and confirms the address with the code mailed to it.
    settings = mail_settings(tmp_path)
    assert mail_in(db, settings, victim, "/games").outcome == "unverified"
    with db.sessions() as s:
        texts = [m.body_text for m in s.scalars(select(OutboundMail).where(OutboundMail.recipient == victim))]
    code = next(m.group(1) for m in map(re.compile(r"/confirm\s+(\S+)").search, texts) if m)
    assert mail_in(db, settings, victim, f"/confirm {code}").outcome == "confirmed"
    with db.sessions() as s:
        user = s.scalars(select(User).where(User.email == victim)).one()
        assert user.email_verified and user.password_hash is None  # Eve's password is nowhere on the account
    eve = app.test_client()
    assert login(eve, victim, ATTACKER_PASSWORD).status_code == 400 and not logged_in(eve)
    # The victim, puzzled, opens the sign-up link mailed to them: without Eve's password nothing happens.
    page = client.get(eve_link)
    assert page.status_code == 200 and b"Type the password you chose" in page.data
    assert post(client, eve_link, {"password": "whatever I try"}, page=eve_link).status_code == 400
    # A later sign-up (the victim's own, on the web now) drops Eve's: her link is dead even with her password.
    owner = app.test_client()
    web_sign_up(owner, victim, PASSWORD, "The Victim")  # a name nobody has (the account made by mail is "victim")
    assert outbox(db, "reset", victim)  # the account exists: its owner gets a reset link instead
    assert post(eve, eve_link, {"password": ATTACKER_PASSWORD}, page="/login").status_code == 400
    assert login(eve, victim, ATTACKER_PASSWORD).status_code == 400


def test_item3_a_pending_sign_up_expires(client, db, monkeypatch):
    web_sign_up(client, "late@example.org", PASSWORD)
    link = f"/verify/{signup_token(db, 'late@example.org')}"
    with db.transaction() as s:
        s.execute(update(PendingSignup).values(created_at=utcnow().replace(year=2000)))
    response = client.get(link)
    assert response.status_code == 400 and b"expired" in response.data
    web_sign_up(client, "other@example.org", PASSWORD)  # signing up clears expired rows
    with db.sessions() as s:
        assert [p.email for p in s.scalars(select(PendingSignup))] == ["other@example.org"]


# --------------------------------------------------------------------------------------
# Item 6: logins cannot be revoked


def test_item6_a_session_cookie_copied_before_logout_is_dead_after_it(app, db):
    make_user(db, "ana@example.org")
    browser = app.test_client()
    assert login(browser, "ana@example.org").status_code == 302
    stolen = browser.get_cookie("session").value
    thief = app.test_client()
    thief.set_cookie("session", stolen)
    assert logged_in(thief)  # the copy works while the session lasts ...
    assert post(browser, "/logout").status_code == 302
    assert not logged_in(thief)  # ... and not a moment longer
    with db.sessions() as s:
        assert s.scalar(select(func.count()).select_from(WebSession)) == 0


def test_item6_a_reset_ends_every_session_remember_cookie_and_api_token(app, db):
    user_id = make_user(db, "ana@example.org")
    laptop, phone = app.test_client(), app.test_client()
    for device in (laptop, phone):
        token = csrf_of(device)
        assert device.post("/login", data={"email": "ana@example.org", "password": PASSWORD, "remember": "y",
                                           "csrf_token": token}).status_code == 302
    remember = phone.get_cookie("remember_token").value
    assert not remember.startswith(f"{user_id}|")  # not the user id with a fixed signature
    assert remember != laptop.get_cookie("remember_token").value  # a different key at every login
    only_remembered = app.test_client()
    only_remembered.set_cookie("remember_token", remember)
    assert logged_in(only_remembered)
    api_token = accounts.create_api_token(db, user_id, "bot")
    headers = {"Authorization": f"Bearer {api_token}"}
    assert laptop.post("/api/v1/games", json={"title": "counters", "players": 2}, headers=headers).status_code == 201
    # Ana fears someone knows her password: she resets it from the mailed link.
    post(laptop, "/reset", {"email": "ana@example.org"}, page="/reset")
    path = re.search(r"http://pbem\.test(/reset/\S+)", outbox(db, "reset")[-1].body_text).group(1)
    response = post(laptop, path, {"password": "my new password", "confirm": "my new password"}, page=path)
    assert response.status_code == 302
    for device in (laptop, phone):
        assert not logged_in(device)
    fresh = app.test_client()
    fresh.set_cookie("remember_token", remember)
    assert not logged_in(fresh)
    assert laptop.post("/api/v1/games", json={"title": "counters", "players": 2}, headers=headers).status_code == 401
    with db.sessions() as s:
        assert s.scalar(select(func.count()).select_from(ApiToken)) == 0


def test_item6_a_password_change_ends_the_other_logins_and_the_settings_revoke_them(app, db):
    make_user(db, "ana@example.org")
    here, there, third = app.test_client(), app.test_client(), app.test_client()
    for device in (here, there, third):
        assert login(device, "ana@example.org").status_code == 302
    page = here.get("/settings").get_data(as_text=True)
    assert page.count('id="end-session-') == 3 and "this one" in page
    # Ending another browser's login from the settings page.
    other = re.findall(r"/settings/sessions/(\d+)/revoke", page)
    with db.sessions() as s:
        third_id = max(s.scalars(select(WebSession.id)))
    assert str(third_id) in other
    post(here, f"/settings/sessions/{third_id}/revoke", page="/settings")
    assert not logged_in(third) and logged_in(there) and logged_in(here)
    # A wrong current password changes nothing.
    data = {"current": "not my password", "password": "a new password!", "confirm": "a new password!"}
    assert post(here, "/settings/password", data, page="/settings").status_code == 400
    assert logged_in(there)
    response = post(here, "/settings/password", {**data, "current": PASSWORD}, page="/settings")
    assert response.status_code == 302
    # Whoever holds a session cannot guess the current password for long (one wrong guess was made above).
    per_account = int(ratelimit.LOGIN_FAILURES_PER_ACCOUNT.split()[0])
    codes = [post(here, "/settings/password", {**data, "current": f"guess {n}"}, page="/settings").status_code
             for n in range(per_account)]
    assert codes == [400] * (per_account - 1) + [429]
    assert logged_in(here) and not logged_in(there)
    assert login(app.test_client(), "ana@example.org", "a new password!").status_code == 302


def test_item6_cookies_are_secure_and_headers_strict_when_the_base_url_is_https(db, monkeypatch):
    monkeypatch.setenv("PBEM_SECRET_KEY", SECRET)
    app = create_app({"DATABASE_URL": db.url, "TESTING": True, "SECRET_KEY": SECRET, "BASE_URL": "https://pbem.test"})
    try:
        _secure_login(app, db)
    finally:
        app.extensions["pbem_db"].dispose()


def _secure_login(app, db):
    make_user(db, "ana@example.org")
    client = app.test_client()
    page = client.get("/login", base_url="https://pbem.test")
    token = re.search(r'name="csrf_token"[^>]*value="([^"]+)"', page.get_data(as_text=True)).group(1)
    assert "max-age=" in page.headers["Strict-Transport-Security"]
    response = client.post("/login", base_url="https://pbem.test", headers={"Referer": "https://pbem.test/login"},
                           data={"email": "ana@example.org", "password": PASSWORD, "remember": "y", "csrf_token": token})
    assert response.status_code == 302
    cookies = {c.split("=", 1)[0]: c for c in response.headers.getlist("Set-Cookie")}
    for name in ("session", "remember_token"):
        assert "Secure" in cookies[name] and "HttpOnly" in cookies[name] and "SameSite=Lax" in cookies[name]


# --------------------------------------------------------------------------------------
# Item 7: cheap denial of service


def test_item7_an_animation_is_drawn_once_stored_by_sha256_and_bounded(client, db, players, monkeypatch):
    game_id = finished_tapaono(db, players)
    import renderers
    drawings = []
    real = renderers.render_replay
    monkeypatch.setattr(renderers, "render_replay", lambda title, frames, texts: drawings.append(len(frames)) or
                        real(title, frames, texts=texts))
    monkeypatch.setattr(boards, "ANIMATION_MAX_FRAMES", 6)
    moves = games.view(db, game_id)["version"]
    assert moves + 1 > 6, "the game must be longer than the bound for this test"
    asked = client.get(f"/games/{game_id}/replay/animation")  # asked for: the worker draws it (issue 31, item 6)
    assert asked.status_code == 202 and asked.headers["X-Pbem-Drawn"] == "1" and drawings == []
    assert boards.draw_animation(db, game_id, "en") == boards.AnimationStatus.DONE  # the worker's job
    first = client.get(f"/games/{game_id}/replay/animation")
    assert first.status_code == 200 and first.data.startswith(b"GIF8")
    assert Image.open(io.BytesIO(first.data)).n_frames == 6 and drawings == [6]
    for _ in range(5):  # anonymous requests after the first cost no drawing
        again = client.get(f"/games/{game_id}/replay/animation")
        assert again.data == first.data and "X-Pbem-Drawn" not in again.headers
    assert boards.draw_animation(db, game_id, "en") == boards.AnimationStatus.DONE  # a job again draws nothing
    assert drawings == [6]
    with db.sessions() as s:
        row = s.get(Animation, (game_id, "en"))
    assert row.status == "done" and row.frames == 6 and first.headers["ETag"].strip('"') == row.sha256
    assert client.get(f"/games/{game_id}/replay/animation",
                      headers={"If-None-Match": first.headers["ETag"]}).status_code == 304


def test_item7_requests_while_an_animation_is_drawn_wait_and_a_too_large_one_is_refused(client, db, players,
                                                                                           monkeypatch):
    game_id = finished_tapaono(db, players)
    drawings = []
    import renderers
    monkeypatch.setattr(renderers, "render_replay", lambda title, frames, texts: drawings.append(len(frames)) or
                        b"GIF89a" + b"x" * 1000)
    with db.transaction() as s:  # a worker has claimed the drawing just now
        s.add(Animation(game_id=game_id, status="drawing", frames=0, claimed_at=utcnow()))
    busy = client.get(f"/games/{game_id}/replay/animation")
    assert busy.status_code == 202 and busy.headers["Retry-After"] and drawings == []
    assert boards.draw_animation(db, game_id, "en") == boards.AnimationStatus.DRAWING and drawings == []
    with db.transaction() as s:  # that worker died: its claim is taken over after a while
        s.get(Animation, (game_id, "en")).claimed_at = utcnow() - boards.ANIMATION_CLAIM * 2
    monkeypatch.setattr(boards, "ANIMATION_MAX_BYTES", 500)
    assert boards.draw_animation(db, game_id, "en") == boards.AnimationStatus.TOO_LARGE
    assert client.get(f"/games/{game_id}/replay/animation").status_code == 404
    assert len(drawings) == boards.ANIMATION_TRIES and drawings == sorted(drawings, reverse=True)
    assert client.get(f"/games/{game_id}/replay/animation").status_code == 404
    assert boards.draw_animation(db, game_id, "en") == boards.AnimationStatus.TOO_LARGE
    assert len(drawings) == boards.ANIMATION_TRIES  # refused for good, never drawn again


def test_item7_board_pictures_are_drawn_once_and_drawings_are_limited_per_client(client, db, players, monkeypatch):
    game_id = finished_tapaono(db, players)
    import renderers
    drawn = []
    real = renderers.render
    monkeypatch.setattr(renderers, "render",
                        lambda title, view, **words: drawn.append(title) or real(title, view, **words))
    monkeypatch.setattr(ratelimit, "DRAWINGS_PER_CLIENT", "3 per hour")
    first = client.get(f"/games/{game_id}/board/1.png")
    assert first.status_code == 200 and first.data.startswith(b"\x89PNG") and len(drawn) == 1
    again = client.get(f"/games/{game_id}/board/1.png")
    assert again.data == first.data and len(drawn) == 1 and again.headers["ETag"] == first.headers["ETag"]
    assert client.get(f"/games/{game_id}/board/100000.png").status_code == 404 and len(drawn) == 1
    assert client.get(f"/games/{game_id}/board/2.png").status_code == 200
    assert client.get(f"/games/{game_id}/board/3.png").status_code == 200
    refused = client.get(f"/games/{game_id}/board/4.png")
    assert refused.status_code == 429 and len(drawn) == 3
    elsewhere = client.application.test_client()  # another client address has its own count
    elsewhere.environ_base["REMOTE_ADDR"] = "192.0.2.7"
    assert elsewhere.get(f"/games/{game_id}/board/4.png").status_code == 200 and len(drawn) == 4


def test_item7_open_tables_per_player_are_limited(client, db, players):
    ana = players[0]
    for _ in range(tables.MAX_OPEN_TABLES):
        assert post(ana.client, "/games/new/counters", {"players": 3, "timeout_policy": "wait", "colour": "any",
                                                        "opt_pile": 20}, page="/games/new/counters").status_code == 302
    response = post(ana.client, "/games/new/counters", {"players": 3, "timeout_policy": "wait", "colour": "any",
                                                        "opt_pile": 20}, page="/games/new/counters")
    assert response.status_code == 400 and b"open tables waiting for players already" in response.data
    token = accounts.create_api_token(db, ana.id, "bot")
    refused = client.post("/api/v1/games", json={"title": "counters", "players": 3},
                          headers={"Authorization": f"Bearer {token}"})
    assert refused.status_code == 403 and "open tables" in refused.json["message"]
    assert len(games.list_games(db, "open")) == tables.MAX_OPEN_TABLES


# --------------------------------------------------------------------------------------
# Item 8: unlimited mail to any address


def test_item8_reset_and_sign_up_mails_are_limited_per_address_and_per_client(app, client, db, monkeypatch):
    make_user(db, "ana@example.org")
    sent = []
    for _ in range(50):  # the reproduction: /reset fired 50 times at one address
        response = post(client, "/reset", {"email": "ana@example.org"}, page="/reset")
        sent.append(response.status_code)
    per_address = int(ratelimit.MAIL_REQUESTS_PER_ADDRESS.split()[0])
    assert sent[:per_address] == [200] * per_address and set(sent[per_address:]) == {429}
    assert len(outbox(db, "reset")) == per_address
    # Sign-up shares the count: it mails the address too.
    assert web_sign_up(client, "ana@example.org", PASSWORD).status_code == 429
    # Per client: many addresses from one place.
    monkeypatch.setattr(ratelimit, "MAIL_REQUESTS_PER_CLIENT", "3 per hour")
    other = app.test_client()
    other.environ_base["REMOTE_ADDR"] = "198.51.100.9"
    codes = [post(other, "/reset", {"email": f"n{n}@example.org"}, page="/reset").status_code for n in range(4)]
    assert codes == [200, 200, 200, 429]
    # The counters are in the database, where every web process sees them, not in this process.
    with db.sessions() as s:
        assert s.scalar(select(func.count()).select_from(RateLimitCounter)) > 0
    second_process = new_app(db, monkeypatch)
    try:
        again = post(second_process.test_client(), "/reset", {"email": "ana@example.org"}, page="/reset")
        assert again.status_code == 429
    finally:
        second_process.extensions["pbem_db"].dispose()


def test_item8_the_counters_live_in_redis_when_the_site_has_it(db, monkeypatch):
    import redis

    url = "redis://127.0.0.1:6379/15"
    try:
        redis.Redis.from_url(url).ping()
    except redis.exceptions.ConnectionError as error:
        service_missing("Redis", error)
    base = {"PBEM_SECRET_KEY": SECRET}
    assert config.load({**base, "PBEM_BROKER_URL": "redis://broker:6379/0"}).ratelimit_storage_url == \
        "redis://broker:6379/0"
    assert config.load({**base, "PBEM_BROKER_URL": "amqp://broker//"}).ratelimit_storage_url == ""  # the database
    assert config.load({**base, "PBEM_BROKER_URL": "redis://broker:6379/0",
                        "PBEM_RATELIMIT_STORAGE_URL": url}).ratelimit_storage_url == url
    app = new_app(db, monkeypatch, url)
    try:
        client = app.test_client()
        client.environ_base["REMOTE_ADDR"] = f"10.{random.randrange(256)}.{random.randrange(256)}.1"
        address = f"redis-{random.randrange(10**12)}@example.org"  # keys no other run shares
        per_address = int(ratelimit.MAIL_REQUESTS_PER_ADDRESS.split()[0])
        codes = [post(client, "/reset", {"email": address}, page="/reset").status_code for _ in range(per_address + 1)]
        assert codes == [200] * per_address + [429]
        with db.sessions() as s:
            assert s.scalar(select(func.count()).select_from(RateLimitCounter)) == 0  # not in the database
    finally:
        app.extensions["pbem_db"].dispose()


def test_item8_a_counters_store_that_does_not_answer_fails_no_log_in_and_the_limits_hold(db, monkeypatch):
    """The soak paused Redis, and a log-in in that moment answered 500: now the process counts alone."""
    app = new_app(db, monkeypatch, redis_away())
    try:
        make_user(db, "ana@example.org")
        assert login(app.test_client(), "ana@example.org").status_code == 302
        guesser = app.test_client()
        guesser.environ_base["REMOTE_ADDR"] = "203.0.113.8"
        per_account = int(ratelimit.LOGIN_FAILURES_PER_ACCOUNT.split()[0])
        codes = [login(guesser, "ana@example.org", f"guess {n}").status_code for n in range(per_account + 1)]
        assert codes == [400] * per_account + [429]  # counted in this process meanwhile
    finally:
        app.extensions["pbem_db"].dispose()


def test_item8_an_app_counts_in_its_own_store_after_another_apps_store_was_away(db, monkeypatch):
    """Each app has a limiter of its own: one whose Redis was away (counting in memory meanwhile)
    must not leave the next app of the process counting in that memory instead of its own store
    (the suite saw invitations and log-ins let through: counts lost between the two)."""
    make_user(db, "ana@example.org")
    away = new_app(db, monkeypatch, redis_away())
    monkeypatch.delenv("PBEM_RATELIMIT_STORAGE_URL")
    try:
        assert login(away.test_client(), "ana@example.org", "a wrong guess").status_code == 400  # counted in memory
        app = new_app(db, monkeypatch)
        try:
            guesser = app.test_client()
            per_account = int(ratelimit.LOGIN_FAILURES_PER_ACCOUNT.split()[0])
            codes = [login(guesser, "ana@example.org", f"guess {n}").status_code for n in range(per_account + 1)]
            assert codes == [400] * per_account + [429]
            with db.sessions() as s:  # counted where every process of the site sees it
                assert s.scalar(select(func.max(RateLimitCounter.count))) == per_account
        finally:
            app.extensions["pbem_db"].dispose()
    finally:
        away.extensions["pbem_db"].dispose()


def test_item8_invitations_are_limited_per_inviter_across_tables_and_per_invitee(app, db, players, monkeypatch):
    ana, ben, _ = players
    monkeypatch.setattr(ratelimit, "INVITES_PER_ACCOUNT", "4 per hour")
    tables = [games.create_game(db, "counters", ana.id, 3) for _ in range(3)]
    codes = []
    for n in range(6):  # spread over tables: the limit is Ana's, not each table's
        response = post(ana.client, f"/games/{tables[n % 3]}/invite", {"email": f"friend{n}@example.org"})
        codes.append(response.status_code)
    assert codes == [303] * 4 + [429] * 2 and len(outbox(db, "invite")) == 4
    ben_table = games.create_game(db, "counters", ben.id, 3)
    per_invitee = int(ratelimit.INVITES_PER_ADDRESS.split()[0])
    for n in range(per_invitee + 1):
        response = post(ben.client, f"/games/{ben_table}/invite", {"email": "friend0@example.org"})
    assert response.status_code == 429
    assert len(outbox(db, "invite", "friend0@example.org")) == per_invitee


def test_item8_failed_logins_are_throttled_per_account_and_per_client(app, db, monkeypatch):
    make_user(db, "ana@example.org")
    ana = app.test_client()
    for _ in range(12):  # successful logins never count
        assert login(ana, "ana@example.org").status_code == 302
    guesser = app.test_client()
    guesser.environ_base["REMOTE_ADDR"] = "203.0.113.5"
    per_account = int(ratelimit.LOGIN_FAILURES_PER_ACCOUNT.split()[0])
    codes = [login(guesser, "ana@example.org", f"guess number {n}").status_code for n in range(per_account + 1)]
    assert codes == [400] * per_account + [429]
    assert login(guesser, "ana@example.org", PASSWORD).status_code == 429  # throttled, even when right
    # Per client: one place guessing at many accounts.
    monkeypatch.setattr(ratelimit, "LOGIN_FAILURES_PER_CLIENT", "5 per hour")
    sprayer = app.test_client()
    sprayer.environ_base["REMOTE_ADDR"] = "203.0.113.77"
    codes = [login(sprayer, f"user{n}@example.org", "password123!").status_code for n in range(6)]
    assert codes == [400] * 5 + [429]


def test_item8_sign_up_and_reset_answer_the_same_with_the_same_work(client, db):
    accounts.ensure_user(db, "known@example.org", "Known")  # an account (played by mail)

    class CountingHasher:
        """argon2 as configured, counting the hashes made."""

        def __init__(self, inner):
            self.inner, self.hashes = inner, 0

        def hash(self, password):
            self.hashes += 1
            return self.inner.hash(password)

        def verify(self, hashed, password):
            return self.inner.verify(hashed, password)

        def check_needs_rehash(self, hashed):
            return self.inner.check_needs_rehash(hashed)

    def answer(response) -> str:
        return re.search(r"<main[^>]*>(.*)</main>", response.get_data(as_text=True), re.S).group(1)

    pages, work = {}, {}
    for address in ("known@example.org", "unknown@example.org"):
        counter = CountingHasher(None)
        counter.inner = accounts.use_hasher(counter)
        try:
            signed = web_sign_up(client, address, PASSWORD)
            reset = post(client, "/reset", {"email": address}, page="/reset")
        finally:
            accounts.use_hasher(counter.inner)
        pages[address] = (signed.status_code, answer(signed), reset.status_code, answer(reset))
        work[address] = counter.hashes
    assert pages["known@example.org"] == pages["unknown@example.org"]
    assert work["known@example.org"] == work["unknown@example.org"] == 1  # one argon2 hash either way
    assert [m.kind for m in outbox(db, "reset", "known@example.org")] == ["reset", "reset"]  # the owner hears of it


# --------------------------------------------------------------------------------------
# Item 11: smaller holes


def test_item11_the_api_answers_400_with_a_reason_for_json_it_cannot_read(client, db, players):
    token = accounts.create_api_token(db, players[0].id, "bot")
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    deep = '{"title": "counters", "players": 2, "options": ' + '{"a": ' * 3000 + "1" + "}" * 3000 + "}"
    huge = '{"title": "counters", "players": ' + "9" * 5000 + "}"
    for body, reason in [(deep, "nested too deeply"), (huge, "too many digits"), ('{"title": ', "not valid JSON")]:
        response = client.post("/api/v1/games", data=body, headers=headers)
        assert response.status_code == 400 and reason in response.json["message"], response.json
    response = client.post("/api/v1/games", data="[" * 70_000, headers=headers)
    assert response.status_code == 413
    game_id = games.create_game(db, "counters", players[0].id, 3)
    response = client.post(f"/api/v1/games/{game_id}/moves", json={"move": {"take": 1}}, headers=headers)
    assert response.status_code == 422 and "move" in response.json["errors"]["json"]
    assert games.list_games(db, "open")[0]["id"] == game_id and len(games.list_games(db)) == 1


def _upload(client, raw: bytes):
    token = csrf_of(client, "/archives/upload")
    return client.post("/archives/upload", data={"csrf_token": token, "archive": (io.BytesIO(raw), "game.json")},
                       content_type="multipart/form-data")


def test_item11_archive_import_answers_400_with_a_reason(db, players):
    from tests.service.test_archive import finished_game

    ana = players[0]
    game_id, _ = finished_game(db)
    data = json.loads(archive.export_bytes(db, game_id))
    before = len(games.list_games(db))

    def changed(path, value):
        copy = json.loads(json.dumps(data))
        target = copy
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
        return json.dumps(copy).encode()

    cases = [
        (b'{"format": "pbem-archive", "x": ' + b"[" * 50_000 + b"]" * 50_000 + b"}", "nested too deeply"),
        (b'{"format": "pbem-archive", "format_version": ' + b"9" * 5000 + b"}", "far too large"),
        (changed(["game", "started_at"], "yesterday"), "not in the archive&#39;s format"),
        (changed(["moves", 0, "move"], ["draw", {"pile": 1}]), "a move is [kind, [arguments]]"),
        (changed(["moves", 1, "move"], ["take", [{"n": 1}]]), "not an object"),
        (changed(["moves", 1, "move"], ["take", [10**30]]), "number out of range"),
        (changed(["moves", 0, "seq"], 10**30), "out of range"),
        (changed(["moves", 0, "source"], "x" * 40), "is not one of"),
    ]
    for raw, reason in cases:
        response = _upload(ana.client, raw)
        assert response.status_code == 400 and reason in response.get_data(as_text=True), reason
    assert len(games.list_games(db)) == before


def rechain(data: dict) -> None:
    """Recompute an archive's chain hashes after its records were changed."""
    previous = log.genesis(data["commitment"])
    for m in data["moves"]:
        m["chain_hash"] = log.chain_hash(previous, m["seq"], m["seat"], m["move"], m["notation"], m["source"],
                                         m["at"], m["state_hash"])
        previous = m["chain_hash"]


def test_item11_resignation_records_in_archives_are_checked(db, players):
    ana, ben, cy = players
    game_id = games.create_game(db, "counters", ana.id, 3, {"pile": 8})
    games.join_game(db, game_id, ben.id)
    games.join_game(db, game_id, cy.id)  # full: it starts
    games.resign(db, game_id, cy.id)
    games.resign(db, game_id, ben.id)  # one player left: the game ends
    data = json.loads(archive.export_bytes(db, game_id))
    assert _upload(ana.client, json.dumps(data).encode()).status_code == 303  # the real one imports
    resigned_seat = next(m["seat"] for m in data["moves"] if m["notation"] == "resign")
    unflagged = json.loads(json.dumps(data))
    unflagged["seats"][resigned_seat]["resigned"] = False
    renamed = json.loads(json.dumps(data))
    next(m for m in renamed["moves"] if m["notation"] == "resign")["move"] = ["_resign", [1]]
    rechain(renamed)  # a forger recomputes the chain: it has no secret in it
    before = len(games.list_games(db))
    for forged, reason in [(unflagged, "marked as resigned"), (renamed, "a resignation is written")]:
        response = _upload(ana.client, json.dumps(forged).encode())
        assert response.status_code == 400 and reason in response.get_data(as_text=True), reason
    assert len(games.list_games(db)) == before


def test_item11_a_creator_who_left_cannot_start_the_table(db, players):
    ana, ben, cy = players
    game_id = games.create_game(db, "counters", ana.id, 3)
    games.join_game(db, game_id, ben.id)
    games.leave_game(db, game_id, ana.id)
    response = post(ana.client, f"/games/{game_id}/start", page=f"/games/{game_id}")
    assert response.status_code == 303 and games.view(db, game_id)["status"] == "open"
    token = accounts.create_api_token(db, ana.id, "bot")
    refused = ana.client.post(f"/api/v1/games/{game_id}/start", headers={"Authorization": f"Bearer {token}"})
    assert refused.status_code == 403 and games.view(db, game_id)["status"] == "open"


def test_item11_every_page_carries_the_security_headers_and_no_inline_script(client, db, players):
    ana = players[0]
    game_id = finished_tapaono(db, players)
    pages = ["/", "/login", "/signup", "/reset", f"/games/{game_id}", f"/games/{game_id}/replay",
             "/api/v1/games", f"/games/{game_id}/board/0.png"]
    inline = re.compile(r'<script(?![^>]*\b(?:src=|type="application/json"))[^>]*>|\son[a-z]+\s*=|javascript:', re.I)
    for who, path in [(client, p) for p in pages] + [(ana.client, "/settings"), (ana.client, f"/games/{game_id}")]:
        response = who.get(path)
        assert response.status_code == 200, path
        csp = response.headers["Content-Security-Policy"]
        script = next(part for part in csp.split(";") if part.strip().startswith("script-src"))
        assert "'unsafe-inline'" not in script and "frame-ancestors 'none'" in csp, path
        assert response.headers["X-Frame-Options"] == "DENY", path
        assert response.headers["X-Content-Type-Options"] == "nosniff", path
        assert response.headers["Referrer-Policy"], path
        if response.mimetype == "text/html":
            assert not inline.search(response.get_data(as_text=True)), path


def test_item11_the_database_the_secret_and_the_outbox_are_private(tmp_path):
    data_dir = tmp_path / "data"
    (data_dir / "outbox").mkdir(parents=True)
    os.chmod(data_dir, 0o755)
    for name in ("pbem.sqlite3", "pbem.sqlite3-wal", "secret_key"):
        (data_dir / name).write_text("x")
        os.chmod(data_dir / name, 0o644)
    settings = config.load({"PBEM_DATA_DIR": str(data_dir), "PBEM_SECRET_KEY": SECRET})
    previous = os.umask(0o022)
    try:
        config.protect(settings)
        assert os.umask(0o022) == 0o077  # files written from now on (outbox mails, the WAL) are private
    finally:
        os.umask(previous)
    assert stat.S_IMODE(data_dir.stat().st_mode) == 0o700
    assert stat.S_IMODE((data_dir / "outbox").stat().st_mode) == 0o700
    for name in ("pbem.sqlite3", "pbem.sqlite3-wal", "secret_key"):
        assert stat.S_IMODE((data_dir / name).stat().st_mode) == 0o600, name
    fresh = tmp_path / "fresh"
    config.load({"PBEM_DATA_DIR": str(fresh)})  # makes the secret
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o700
    assert stat.S_IMODE((fresh / "secret_key").stat().st_mode) == 0o600


def test_item11_the_vacation_bank_cannot_be_refilled_by_its_player(db, players):
    from pbem.schedule import absences

    ana = players[0]
    absences.set_vacation_days(db, ana.id, 2)
    data = {"display_name": "Ana", "notify": "turn", "timezone": "UTC", "from_check": "y", "vacation_days": "60"}
    assert post(ana.client, "/settings", data, page="/settings").status_code == 302
    with db.sessions() as s:
        assert s.get(User, ana.id).vacation_days == 2
    assert 'id="vacation-days">2<' in ana.client.get("/settings").get_data(as_text=True)


# --------------------------------------------------------------------------------------
# Issue 31, item 7: a stranger spoils log-ins, sign-ups and invitations for the owner


def login_link_path(db, address: str) -> str:
    mail = outbox(db, "login", address)[-1]
    return re.search(r"http://pbem\.test(/login/link/\S+)", mail.body_text).group(1)


def test_31_7a_a_guesser_elsewhere_does_not_lock_the_owner_out(app, db):
    make_user(db, "ana@example.org")
    guesser = app.test_client()
    guesser.environ_base["REMOTE_ADDR"] = "203.0.113.5"
    per_account = int(ratelimit.LOGIN_FAILURES_PER_ACCOUNT.split()[0])
    codes = [login(guesser, "ana@example.org", f"guess number {n}").status_code for n in range(per_account + 1)]
    assert codes == [400] * per_account + [429]  # the guesser is held back ...
    owner = app.test_client()
    owner.environ_base["REMOTE_ADDR"] = "198.51.100.20"
    assert login(owner, "ana@example.org").status_code == 302  # ... the owner, from her own place, is not
    assert login(guesser, "ana@example.org", PASSWORD).status_code == 429  # the guesser, even when right, is


def test_31_7a_guessers_spread_over_many_addresses_meet_a_ceiling_and_the_owner_gets_in_by_a_mailed_link(
        app, db, monkeypatch):
    make_user(db, "ana@example.org")
    monkeypatch.setattr(ratelimit, "LOGIN_FAILURES_PER_ACCOUNT", "3 per hour")
    monkeypatch.setattr(ratelimit, "LOGIN_FAILURES_PER_ACCOUNT_EVERYWHERE", "7 per hour")
    codes = []
    for n in range(4):  # four places, each under its own limit: together they reach the account's ceiling
        guesser = app.test_client()
        guesser.environ_base["REMOTE_ADDR"] = f"203.0.113.{n + 1}"
        codes += [login(guesser, "ana@example.org", f"guess {n}.{m}").status_code for m in range(2)]
    assert codes == [400] * 7 + [429]
    owner = app.test_client()
    owner.environ_base["REMOTE_ADDR"] = "198.51.100.20"
    throttled = login(owner, "ana@example.org")
    assert throttled.status_code == 429 and b'href="/login/link"' in throttled.data
    # The owner's way in: a link mailed to the account's address, past the throttle.
    assert post(owner, "/login/link", {"email": "ana@example.org"}, page="/login/link").status_code == 200
    path = login_link_path(db, "ana@example.org")
    assert post(owner, path, page=path).status_code == 302 and logged_in(owner)
    assert post(app.test_client(), path, page="/login").status_code == 400  # once


def test_31_7a_a_stranger_who_asks_for_log_in_links_leaves_the_owner_a_live_one(app, db):
    make_user(db, "ana@example.org")
    stranger = app.test_client()
    stranger.environ_base["REMOTE_ADDR"] = "203.0.113.9"
    per_address = int(ratelimit.LOGIN_LINKS_PER_ADDRESS.split()[0])
    codes = [post(stranger, "/login/link", {"email": "ana@example.org"}, page="/login/link").status_code
             for _ in range(per_address + 1)]
    assert codes == [200] * per_address + [429]
    assert len(outbox(db, "login", "ana@example.org")) == per_address  # every link went to Ana, none to the asker
    owner = app.test_client()
    owner.environ_base["REMOTE_ADDR"] = "198.51.100.20"
    assert post(owner, "/login/link", {"email": "ana@example.org"}, page="/login/link").status_code == 429
    # The count is spent for this window, and the last link mailed in it lives as long as the window does.
    assert accounts.LOGIN_LINK_MAX_AGE >= 3600 and ratelimit.LOGIN_LINKS_PER_ADDRESS.endswith("per hour")
    path = login_link_path(db, "ana@example.org")
    assert post(owner, path, page=path).status_code == 302 and logged_in(owner)


def test_31_7b_successful_log_ins_are_limited_per_account_and_client(app, db):
    make_user(db, "ana@example.org")
    browser = app.test_client()
    per_client = int(ratelimit.LOGINS_PER_ACCOUNT.split()[0])
    codes = [login(browser, "ana@example.org").status_code for _ in range(per_client + 1)]
    assert codes == [302] * per_client + [429]
    with db.sessions() as s:  # and the rows they leave are bounded per user
        assert s.scalar(select(func.count()).select_from(WebSession)) == accounts.MAX_SESSIONS
    elsewhere = app.test_client()
    elsewhere.environ_base["REMOTE_ADDR"] = "198.51.100.20"
    assert login(elsewhere, "ana@example.org").status_code == 302


def test_31_7b_a_login_without_stay_logged_in_ends_after_a_day_unused(app, db):
    make_user(db, "ana@example.org")
    browser, kept = app.test_client(), app.test_client()
    assert login(browser, "ana@example.org").status_code == 302
    assert kept.post("/login", data={"email": "ana@example.org", "password": PASSWORD, "remember": "y",
                                     "csrf_token": csrf_of(kept)}).status_code == 302
    with db.transaction() as s:
        s.execute(update(WebSession).values(last_seen_at=utcnow() - accounts.SESSION_MAX_IDLE_BROWSER
                                            - timedelta(minutes=5)))
    assert not logged_in(browser) and logged_in(kept)
    with db.sessions() as s:
        assert [row.remember for row in s.scalars(select(WebSession))] == [True]


def test_31_7c_a_strangers_sign_up_does_not_kill_the_owners_pending_link(app, client, db):
    victim = "victim@example.org"
    assert web_sign_up(client, victim, PASSWORD, "Victim").status_code == 200
    owners_link = f"/verify/{signup_token(db, victim)}"
    eve = app.test_client()
    eve.environ_base["REMOTE_ADDR"] = "203.0.113.66"
    assert web_sign_up(eve, victim, ATTACKER_PASSWORD, "Eve").status_code == 200  # after the owner
    eves_link = f"/verify/{signup_token(db, victim)}"
    assert eves_link != owners_link
    page = client.get(owners_link)
    assert page.status_code == 200 and victim.encode() in page.data
    assert post(client, owners_link, {"password": PASSWORD}, page=owners_link).status_code == 302
    assert logged_in(client)
    with db.sessions() as s:
        assert s.scalars(select(User).where(User.email == victim)).one().display_name == "Victim"
        assert s.scalar(select(func.count()).select_from(PendingSignup)) == 0
    assert post(eve, eves_link, {"password": ATTACKER_PASSWORD}, page="/login").status_code == 400


def test_31_7d_an_invitation_quotes_the_inviters_name_as_data_and_never_in_its_subject(db, players, tmp_path):
    from email import policy
    from email.parser import BytesParser

    from pbem.mail import outbound

    ana = players[0]
    phishing = "URGENT: log in at evil.example \u202e!"
    data = {"display_name": phishing, "notify": "turn", "timezone": "UTC", "from_check": "y"}
    assert post(ana.client, "/settings", data, page="/settings").status_code == 400  # the rules for names (issue 35)
    with db.transaction() as s:  # a name kept from before those rules is still quoted as data
        s.get(User, ana.id).display_name = phishing
    game_id = games.create_game(db, "counters", ana.id, 3)
    assert post(ana.client, f"/games/{game_id}/invite", {"email": "stranger@example.org"}).status_code == 303
    [row] = outbox(db, "invite", "stranger@example.org")
    settings = mail_settings(tmp_path)
    assert outbound.deliver(db, row.id, settings) == "sent"
    raw = (settings.data_dir / "outbox" / f"{row.id:08d}.eml").read_bytes()
    mail = BytesParser(policy=policy.default).parsebytes(raw)
    text = mail.get_body(("plain",)).get_content()
    assert str(mail["Subject"]) == f"[pbem #{game_id} Counters] an invitation to play"
    assert text.startswith('A player who calls themselves "URGENT log in at evil. example" invites you to a game '
                           f"of Counters (game {game_id}).")
    assert "evil.example" not in raw.decode("ascii", "replace") and "\u202e" not in text
