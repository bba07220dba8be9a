"""Account pages: sign up, confirm, log in and out, reset, settings, API tokens, and their refusals."""

from __future__ import annotations

import re

from sqlalchemy import select

from pbem.models import OutboundMail, User
from pbem.web import ratelimit
from tests.web.conftest import PASSWORD, csrf_of, login, make_user, post


def mails(db, kind):
    with db.sessions() as s:
        return list(s.scalars(select(OutboundMail).where(OutboundMail.kind == kind).order_by(OutboundMail.id)))


def path_in(mail, kind):
    return re.search(rf"http://pbem\.test(/{kind}/\S+)", mail.body_text).group(1)


def test_sign_up_confirm_log_in_and_out(client, db):
    page = client.get("/signup")
    assert page.status_code == 200 and b'name="csrf_token"' in page.data
    response = post(client, "/signup", {"email": "ana@example.org", "display_name": "Ana", "password": PASSWORD,
                                        "confirm": PASSWORD}, page="/signup")
    assert response.status_code == 200 and b"Check your mail" in response.data
    assert login(client, "ana@example.org").status_code == 400  # no account before the link is opened
    [mail] = mails(db, "verify")
    path = path_in(mail, "verify")
    page = client.get(path)
    assert page.status_code == 200 and b"ana@example.org" in page.data
    response = post(client, path, {"password": "not the one chosen"}, page=path)
    assert response.status_code == 400 and b"not the password chosen at sign-up" in response.data
    response = post(client, path, {"password": PASSWORD}, page=path)
    assert response.status_code == 302 and response.headers["Location"] == "/"
    home = client.get("/").get_data(as_text=True)
    assert "My games" in home and "Ana" in home  # logged in by finishing the sign-up
    assert post(client, "/logout").status_code == 302
    assert "My games" not in client.get("/").get_data(as_text=True)
    assert client.get("/settings").status_code == 302
    assert login(client, "ana@example.org").status_code == 302
    assert client.get(path).status_code == 400  # the link has been used


def test_sign_up_refusals_show_the_reason(client, db):
    data = {"email": "ana@example.org", "display_name": "Ana", "password": PASSWORD, "confirm": "something else"}
    response = post(client, "/signup", data, page="/signup")
    assert response.status_code == 400 and b"The passwords differ." in response.data
    response = post(client, "/signup", {**data, "email": "not an address", "confirm": PASSWORD}, page="/signup")
    assert response.status_code == 400 and b"is not an email address" in response.data
    assert mails(db, "verify") == []


def test_every_form_needs_its_csrf_token(client, db):
    make_user(db, "ana@example.org")
    before = len(mails(db, "verify"))
    for path, data in [("/login", {"email": "ana@example.org", "password": PASSWORD}),
                       ("/signup", {"email": "b@example.org", "display_name": "B", "password": PASSWORD,
                                    "confirm": PASSWORD}),
                       ("/reset", {"email": "ana@example.org"}),
                       ("/logout", {})]:
        response = client.post(path, data=data)
        assert response.status_code == 400 and b"CSRF" in response.data, path
        response = client.post(path, data={**data, "csrf_token": "forged"})
        assert response.status_code == 400 and b"CSRF" in response.data, path
    assert len(mails(db, "verify")) == before and mails(db, "reset") == []
    assert "My games" not in client.get("/").get_data(as_text=True)


def test_wrong_password_is_refused(client, db):
    make_user(db, "ana@example.org")
    response = login(client, "ana@example.org", "not my password")
    assert response.status_code == 400 and b"Wrong email address or password." in response.data
    assert client.get("/settings").status_code == 302


def test_login_follows_only_local_next_links(client, db):
    make_user(db, "ana@example.org")
    token = csrf_of(client)
    data = {"email": "ana@example.org", "password": PASSWORD, "csrf_token": token}
    response = client.post("/login?next=https://evil.example/x", data=data)
    assert response.headers["Location"] == "/"
    client.post("/logout", data={"csrf_token": csrf_of(client, "/")})
    response = client.post("/login?next=/settings", data={**data, "csrf_token": csrf_of(client)})
    assert response.headers["Location"] == "/settings"


def test_password_reset_through_the_pages(client, db):
    make_user(db, "ana@example.org")
    response = post(client, "/reset", {"email": "ana@example.org"}, page="/reset")
    assert b"Check your mail" in response.data
    post(client, "/reset", {"email": "nobody@example.org"}, page="/reset")
    [mail] = mails(db, "reset")
    path = path_in(mail, "reset")
    response = post(client, path, {"password": "my new password", "confirm": "my new password"}, page=path)
    assert response.status_code == 302
    assert login(client, "ana@example.org", PASSWORD).status_code == 400
    assert login(client, "ana@example.org", "my new password").status_code == 302
    # The link has been used: it does nothing a second time.
    response = post(client, path, {"password": "third password!", "confirm": "third password!"}, page=path)
    assert response.status_code == 400 and b"used already" in response.data


def test_settings_show_and_change_only_my_own(client, db):
    ana = make_user(db, "ana@example.org", "Ana")
    make_user(db, "ben@example.org", "Ben")
    login(client, "ana@example.org")
    page = client.get("/settings").get_data(as_text=True)
    assert "ana@example.org" in page and "ben@example.org" not in page
    data = {"display_name": "Ana B", "notify": "digest", "timezone": "Pacific/Tongatapu", "from_check": ""}
    response = post(client, "/settings", data, page="/settings")
    assert response.status_code == 302
    with db.sessions() as s:
        user = s.get(User, ana)
        assert (user.display_name, user.notify, user.timezone, user.from_check) == (
            "Ana B", "digest", "Pacific/Tongatapu", False)
        other = s.scalars(select(User).where(User.email == "ben@example.org")).one()
        assert (other.display_name, other.notify) == ("Ben", "turn")
    response = post(client, "/settings", {**data, "timezone": "Mars/Base"}, page="/settings")
    assert response.status_code == 400
    with db.sessions() as s:
        assert s.get(User, ana).timezone == "Pacific/Tongatapu"
    # No CSRF token: refused, nothing changes.
    assert client.post("/settings", data={**data, "display_name": "Mallory"}).status_code == 400
    with db.sessions() as s:
        assert s.get(User, ana).display_name == "Ana B"


def test_api_tokens_on_the_settings_page(app, db):
    make_user(db, "ana@example.org")
    make_user(db, "ben@example.org")
    ana, ben = app.test_client(), app.test_client()
    login(ana, "ana@example.org")
    login(ben, "ben@example.org")
    response = post(ana, "/settings/tokens", {"name": "my bot"}, page="/settings")
    token = re.search(r'<code id="secret-code">(pbem_[^<]+)</code>', response.get_data(as_text=True)).group(1)
    assert ana.get("/api/v1/games", headers={"Authorization": f"Bearer {token}"}).status_code == 200
    page = ana.get("/settings").get_data(as_text=True)
    assert "my bot" in page and token not in page
    token_id = int(re.search(r"/settings/tokens/(\d+)/revoke", page).group(1))
    assert "my bot" not in ben.get("/settings").get_data(as_text=True)
    post(ben, f"/settings/tokens/{token_id}/revoke", page="/settings")  # not Ben's: nothing happens
    headers = {"Authorization": f"Bearer {token}"}
    assert ana.post("/api/v1/games", json={"title": "counters", "players": 2}, headers=headers).status_code == 201
    post(ana, f"/settings/tokens/{token_id}/revoke", page="/settings")
    assert ana.post("/api/v1/games", json={"title": "counters", "players": 2}, headers=headers).status_code == 401


def test_pages_that_need_a_login_send_to_the_login_page(client):
    for path in ["/settings", "/games/new", "/games/new/counters", "/archives/upload"]:
        response = client.get(path)
        assert response.status_code == 302 and "/login?next=" in response.headers["Location"], path


def test_absences_on_the_settings_page_are_my_own(app, db):
    from datetime import date, timedelta

    from pbem.schedule import absences

    ana_id = make_user(db, "ana@example.org")
    ben_id = make_user(db, "ben@example.org")
    ana, ben = app.test_client(), app.test_client()
    login(ana, "ana@example.org")
    login(ben, "ben@example.org")
    start = date.today() + timedelta(days=3)
    data = {"starts": start.isoformat(), "ends": (start + timedelta(days=4)).isoformat(), "note": "sailing"}
    response = post(ana, "/settings/absences", data, page="/settings", follow_redirects=True)
    assert b"Absence noted" in response.data and b"sailing" in response.data
    [absence] = absences.current(db, ana_id)
    assert absences.current(db, ben_id) == []
    assert "sailing" not in ben.get("/settings").get_data(as_text=True)
    refused = post(ben, f"/settings/absences/{absence['id']}/end", page="/settings", follow_redirects=True)
    assert b"You have no absence" in refused.data and len(absences.current(db, ana_id)) == 1
    backwards = {**data, "ends": (start - timedelta(days=1)).isoformat()}
    response = post(ana, "/settings/absences", backwards, page="/settings", follow_redirects=True)
    assert b"ends after it starts" in response.data and len(absences.current(db, ana_id)) == 1
    assert ana.post("/settings/absences", data=data).status_code == 400  # no CSRF token
    post(ana, f"/settings/absences/{absence['id']}/end", page="/settings")
    assert absences.current(db, ana_id) == []


def test_31_7a_the_throttled_log_in_page_offers_a_mailed_link_that_logs_in_once(app, client, db):
    make_user(db, "ana@example.org")
    for n in range(int(ratelimit.LOGIN_FAILURES_PER_ACCOUNT.split()[0])):
        assert login(client, "ana@example.org", f"a wrong guess {n}").status_code == 400
    throttled = login(client, "ana@example.org")  # the right password waits too ...
    assert throttled.status_code == 429 and b'id="login-link-offer"' in throttled.data  # ... but there is a way in
    assert b'href="/login/link"' in throttled.data
    assert b"login-link-offer" not in client.get("/login").data  # offered where log-ins are held back only
    response = post(client, "/login/link", {"email": "ana@example.org"}, page="/login/link")
    assert response.status_code == 200 and b"Check your mail" in response.data
    [mail] = mails(db, "login")
    assert mail.recipient == "ana@example.org"
    path = path_in(mail, "login/link")
    page = client.get(path)  # opening the link (a mail program may) logs nobody in and uses nothing
    assert page.status_code == 200 and b"ana@example.org" in page.data
    assert client.get("/settings").status_code == 302
    response = post(client, path, {"remember": "y"}, page=path)
    assert response.status_code == 302 and client.get("/settings").status_code == 200
    assert client.get_cookie("remember_token") is not None
    other = app.test_client()
    assert other.get(path).status_code == 400  # once
    assert post(other, path, {}, page="/login").status_code == 400
    assert other.get("/settings").status_code == 302
