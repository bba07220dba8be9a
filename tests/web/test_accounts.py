"""pbem.accounts: argon2 passwords, confirmation and reset links, no account take-over, API tokens."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from sqlalchemy import func, select, update

from pbem import accounts, games
from pbem.accounts import passwords, sessions, signup
from pbem.models import ApiToken, LoginLink, OutboundMail, PendingSignup, User, WebSession, utcnow
from tests.web.conftest import PASSWORD, SECRET, make_user

LINKS = accounts.Links("http://pbem.test")


def outbox(db, kind=None):
    with db.sessions() as s:
        query = select(OutboundMail).order_by(OutboundMail.id)
        if kind:
            query = query.where(OutboundMail.kind == kind)
        return list(s.scalars(query))


def link_in(mail, path):
    match = re.search(rf"http://pbem\.test/{path}/(\S+)", mail.body_text)
    assert match, mail.body_text
    return match.group(1)


def test_sign_up_is_pending_until_the_link_is_opened_with_its_password(db):
    assert accounts.sign_up(db, " Ana@Example.org ", PASSWORD, "Ana", SECRET, LINKS) is None
    with db.sessions() as s:
        assert s.scalars(select(User)).first() is None  # no account yet
        pending = s.scalars(select(PendingSignup)).one()
    assert pending.email == "ana@example.org" and pending.password_hash.startswith("$argon2id$")
    assert PASSWORD not in pending.password_hash
    [mail] = outbox(db, "verify")
    assert mail.recipient == "ana@example.org" and mail.user_id is None and mail.status == "pending"
    with pytest.raises(accounts.AccountError, match="Wrong email address or password"):
        accounts.authenticate(db, "ana@example.org", PASSWORD)
    token = link_in(mail, "verify")
    assert accounts.signup_address(db, token, SECRET) == "ana@example.org"
    with pytest.raises(accounts.AccountError, match="not the password chosen"):
        accounts.complete_sign_up(db, token, "somebody else's guess", SECRET)
    user_id = accounts.complete_sign_up(db, token, PASSWORD, SECRET)
    with db.sessions() as s:
        user = s.get(User, user_id)
        assert s.scalars(select(PendingSignup)).first() is None
    assert (user.email, user.display_name, user.email_verified) == ("ana@example.org", "Ana", True)
    assert accounts.authenticate(db, "ANA@example.org", PASSWORD).id == user_id
    with pytest.raises(accounts.AccountError, match="used already"):
        accounts.complete_sign_up(db, token, PASSWORD, SECRET)  # a link works once


@pytest.mark.parametrize("email,password,message", [
    ("not-an-address", PASSWORD, "not an email address"),
    ("a@example.org", "short", "10 to 200 characters"),
])
def test_bad_sign_ups_are_refused_and_store_nothing(db, email, password, message):
    with pytest.raises(accounts.AccountError, match=message):
        accounts.sign_up(db, email, password, "A", SECRET, LINKS)
    assert outbox(db) == []
    with db.sessions() as s:
        assert s.scalars(select(User)).first() is None and s.scalars(select(PendingSignup)).first() is None


def test_wrong_password_and_unknown_address_get_the_same_answer(db):
    make_user(db, "ana@example.org")
    for email, password in [("ana@example.org", "wrong password!"), ("nobody@example.org", PASSWORD)]:
        with pytest.raises(accounts.AccountError, match="^Wrong email address or password.$"):
            accounts.authenticate(db, email, password)


def test_sign_up_links_are_signed(db):
    accounts.sign_up(db, "ana@example.org", PASSWORD, "Ana", SECRET, LINKS)
    token = link_in(outbox(db, "verify")[0], "verify")
    for bad in (token[:-2] + "xx", token.replace(token[5], "A" if token[5] != "A" else "B", 1)):
        with pytest.raises(accounts.AccountError, match="not valid"):
            accounts.complete_sign_up(db, bad, PASSWORD, SECRET)
    with pytest.raises(accounts.AccountError, match="not valid"):
        accounts.complete_sign_up(db, token, PASSWORD, "another-secret")
    with db.sessions() as s:
        assert s.scalars(select(User)).first() is None


def test_31_7c_a_later_sign_up_leaves_the_earlier_link_valid_and_the_account_made_drops_the_others(db):
    accounts.sign_up(db, "ana@example.org", PASSWORD, "Ana", SECRET, LINKS)  # the owner
    owners = link_in(outbox(db, "verify")[0], "verify")
    accounts.sign_up(db, "ana@example.org", "eve's password", "Eve", SECRET, LINKS)  # a stranger, after her
    eves = link_in(outbox(db, "verify")[1], "verify")
    assert accounts.signup_address(db, owners, SECRET) == accounts.signup_address(db, eves, SECRET)
    with pytest.raises(accounts.AccountError, match="not the password chosen"):
        accounts.complete_sign_up(db, owners, "eve's password", SECRET)  # each link keeps its own password
    user_id = accounts.complete_sign_up(db, owners, PASSWORD, SECRET)
    with db.sessions() as s:
        assert s.get(User, user_id).display_name == "Ana"
        assert s.scalars(select(PendingSignup)).first() is None  # the address has its account: Eve's is gone
    with pytest.raises(accounts.AccountError, match="used already"):
        accounts.complete_sign_up(db, eves, "eve's password", SECRET)


def test_31_7c_an_address_has_at_most_max_pending_sign_ups_and_is_told_so(db, monkeypatch):
    monkeypatch.setattr(signup, "MAX_PENDING_SIGNUPS", 3)
    for n in range(3):
        accounts.sign_up(db, "ana@example.org", f"password number {n}", "Eve", SECRET, LINKS)
    links = [link_in(mail, "verify") for mail in outbox(db, "verify")]
    accounts.sign_up(db, "ana@example.org", PASSWORD, "Ana", SECRET, LINKS)  # one too many: not recorded
    with db.sessions() as s:
        assert s.scalar(select(func.count()).select_from(PendingSignup)) == 3
    told = outbox(db, "verify")[-1]
    assert told.recipient == "ana@example.org" and "/verify/" not in told.body_text
    assert "3 sign-ups with it are waiting" in told.body_text
    assert [accounts.signup_address(db, link, SECRET) for link in links] == ["ana@example.org"] * 3
    with db.transaction() as s:  # the oldest expires: a place is free again
        oldest = s.scalars(select(PendingSignup).order_by(PendingSignup.id)).first()
        oldest.created_at = utcnow() - timedelta(seconds=accounts.SIGNUP_MAX_AGE + 60)
    accounts.sign_up(db, "ana@example.org", PASSWORD, "Ana", SECRET, LINKS)
    assert accounts.complete_sign_up(db, link_in(outbox(db, "verify")[-1], "verify"), PASSWORD, SECRET)
    accounts.sign_up(db, "ben@example.org", PASSWORD, "Ben", SECRET, LINKS)  # another address counts apart
    assert "/verify/" in outbox(db, "verify")[-1].body_text


def test_sign_up_with_a_taken_address_changes_nothing_and_mails_the_owner(db):
    # A player known so far only by email (no password) must not be taken over by a sign-up.
    owner = accounts.ensure_user(db, "ana@example.org", "Ana")
    accounts.sign_up(db, "ana@example.org", "attacker password", "Eve", SECRET, LINKS)
    with db.sessions() as s:
        user = s.get(User, owner)
        assert user.password_hash is None and user.display_name == "Ana"
        assert s.scalars(select(PendingSignup)).first() is None
    [mail] = outbox(db)
    assert mail.kind == "reset" and mail.recipient == "ana@example.org"
    with pytest.raises(accounts.AccountError):
        accounts.authenticate(db, "ana@example.org", "attacker password")
    # The owner uses the link: that sets the password and confirms the address.
    accounts.reset_password(db, link_in(mail, "reset"), "owner's new password", SECRET)
    assert accounts.authenticate(db, "ana@example.org", "owner's new password").id == owner


def test_a_reset_link_works_once(db):
    user_id = make_user(db, "ana@example.org")
    accounts.request_reset(db, "ana@example.org", SECRET, LINKS)
    accounts.request_reset(db, "nobody@example.org", SECRET, LINKS)  # silently nothing
    [mail] = outbox(db, "reset")
    token = link_in(mail, "reset")
    assert accounts.reset_password(db, token, "a brand new password", SECRET) == user_id
    with pytest.raises(accounts.AccountError, match="used already"):
        accounts.reset_password(db, token, "and another one!!", SECRET)
    assert accounts.authenticate(db, "ana@example.org", "a brand new password").id == user_id
    with pytest.raises(accounts.AccountError):
        accounts.authenticate(db, "ana@example.org", PASSWORD)


def test_settings_are_checked(db):
    user_id = make_user(db, "ana@example.org")
    accounts.update_settings(db, user_id, display_name="Ana B", notify="digest", timezone="Europe/Berlin",
                             from_check=False)
    with db.sessions() as s:
        user = s.get(User, user_id)
    assert (user.display_name, user.notify, user.timezone, user.from_check) == (
        "Ana B", "digest", "Europe/Berlin", False)
    for change, message in [({"notify": "hourly"}, "Notifications"), ({"timezone": "Mars/Base"}, "time zone"),
                            ({"display_name": "  "}, "name")]:
        values = {"display_name": "Ana", "notify": "turn", "timezone": "UTC", "from_check": True, **change}
        with pytest.raises(accounts.AccountError, match=message):
            accounts.update_settings(db, user_id, **values)


def test_a_password_change_needs_the_current_one_and_ends_the_other_sessions(db):
    user_id = make_user(db, "ana@example.org")
    here, there = accounts.start_session(db, user_id, "here"), accounts.start_session(db, user_id, "there")
    with pytest.raises(accounts.AccountError, match="current password is wrong"):
        accounts.change_password(db, user_id, "not my password", "a brand new password", keep_session=here)
    assert accounts.session_user(db, there).id == user_id
    accounts.change_password(db, user_id, PASSWORD, "a brand new password", keep_session=here)
    assert accounts.session_user(db, here).id == user_id and accounts.session_user(db, there) is None
    assert accounts.authenticate(db, "ana@example.org", "a brand new password").id == user_id


def test_sessions_end_when_logged_out_revoked_or_idle_too_long(db):
    ana, ben = make_user(db, "ana@example.org"), make_user(db, "ben@example.org")
    one, two, three = (accounts.start_session(db, ana, f"browser {n}") for n in range(3))
    with db.sessions() as s:
        assert all(one not in row.key_hash for row in s.scalars(select(WebSession)))  # only digests stored
    accounts.end_session(db, one)
    assert accounts.session_user(db, one) is None and accounts.session_user(db, two).id == ana
    listed = accounts.list_sessions(db, ana, current_key=two)
    assert [x["current"] for x in listed].count(True) == 1 and len(listed) == 2
    other = next(x["id"] for x in listed if not x["current"])
    assert not accounts.revoke_session(db, ben, other)  # not Ben's
    assert accounts.revoke_session(db, ana, other) and accounts.session_user(db, three) is None
    with db.transaction() as s:
        s.execute(update(WebSession).values(last_seen_at=utcnow() - accounts.SESSION_MAX_IDLE - timedelta(minutes=1)))
    assert accounts.session_user(db, two) is None


def test_api_tokens_are_stored_hashed_and_revocable_by_their_owner_only(db):
    ana, ben = make_user(db, "ana@example.org"), make_user(db, "ben@example.org")
    token = accounts.create_api_token(db, ana, "my bot")
    assert token.startswith("pbem_") and accounts.user_for_token(db, token) == ana
    with db.sessions() as s:
        row = s.scalars(select(ApiToken)).one()
    assert token not in row.token_hash and row.last_used_at is not None
    assert accounts.user_for_token(db, token + "x") is None and accounts.user_for_token(db, "") is None
    assert not accounts.revoke_api_token(db, ben, row.id)
    assert accounts.user_for_token(db, token) == ana
    assert accounts.revoke_api_token(db, ana, row.id)
    assert accounts.user_for_token(db, token) is None


def test_old_links_expire(db, monkeypatch):
    make_user(db, "ana@example.org")
    accounts.sign_up(db, "ben@example.org", PASSWORD, "Ben", SECRET, LINKS)
    accounts.request_reset(db, "ana@example.org", SECRET, LINKS)
    monkeypatch.setattr(signup, "SIGNUP_MAX_AGE", -1)
    monkeypatch.setattr(passwords, "RESET_MAX_AGE", -1)
    with pytest.raises(accounts.AccountError, match="sign-up link has expired; sign up again"):
        accounts.complete_sign_up(db, link_in(outbox(db, "verify")[-1], "verify"), PASSWORD, SECRET)
    with pytest.raises(accounts.AccountError, match="reset link has expired"):
        accounts.reset_password(db, link_in(outbox(db, "reset")[0], "reset"), "a brand new password", SECRET)


def test_31_7b_a_session_without_stay_logged_in_ends_after_a_day_unused_one_with_it_after_thirty(db):
    ana = make_user(db, "ana@example.org")
    browser, remembered = accounts.start_session(db, ana, "browser"), accounts.start_session(db, ana, "kept", True)
    with db.transaction() as s:
        s.execute(update(WebSession).values(last_seen_at=utcnow() - accounts.SESSION_MAX_IDLE_BROWSER
                                            - timedelta(minutes=1)))
    assert accounts.session_user(db, browser) is None and accounts.session_user(db, remembered).id == ana
    assert [x["user_agent"] for x in accounts.list_sessions(db, ana)] == ["kept"]
    with db.transaction() as s:
        s.execute(update(WebSession).values(last_seen_at=utcnow() - accounts.SESSION_MAX_IDLE - timedelta(minutes=1)))
    assert accounts.list_sessions(db, ana) == [] and accounts.session_user(db, remembered) is None


def test_31_7b_a_login_prunes_the_ended_sessions_of_everyone_and_keeps_max_sessions_per_user(db):
    ana, ben = make_user(db, "ana@example.org"), make_user(db, "ben@example.org")
    bens = [accounts.start_session(db, ben, "idle"), accounts.start_session(db, ben, "kept", remember=True)]
    with db.transaction() as s:  # Ben went away for two days: his session without "stay logged in" has ended
        s.execute(update(WebSession).values(last_seen_at=utcnow() - timedelta(days=2)))
    keys = [accounts.start_session(db, ana, f"browser {n}") for n in range(accounts.MAX_SESSIONS + 2)]
    with db.sessions() as s:
        rows = s.scalars(select(WebSession).where(WebSession.user_id == ana)).all()
        assert len(rows) == accounts.MAX_SESSIONS
        assert [r.user_agent for r in s.scalars(select(WebSession).where(WebSession.user_id == ben))] == ["kept"]
    # The least recently used of Ana's went; the newest stay.
    assert accounts.session_user(db, keys[0]) is None and accounts.session_user(db, keys[1]) is None
    assert all(accounts.session_user(db, key).id == ana for key in keys[2:])
    assert accounts.session_user(db, bens[1]).id == ben


def test_31_7a_a_log_in_link_goes_to_the_account_works_once_and_dies_with_a_new_password(db, monkeypatch):
    ana = make_user(db, "ana@example.org")
    accounts.ensure_user(db, "mailonly@example.org")  # plays by mail, has no password: no link
    for address in ("ana@example.org", "nobody@example.org", "mailonly@example.org", "not an address"):
        accounts.request_login_link(db, address, SECRET, LINKS)
    [mail] = outbox(db, "login")
    assert mail.recipient == "ana@example.org" and mail.user_id == ana
    token = link_in(mail, "login/link")
    with db.sessions() as s:
        [row] = s.scalars(select(LoginLink)).all()
    assert token not in row.key_hash and row.user_id == ana  # only a digest of the key is stored
    assert accounts.login_link_address(db, token, SECRET) == "ana@example.org"  # looking does not use it
    for forged in (token[:-2] + "xx", token):
        with pytest.raises(accounts.AccountError, match="not valid"):
            accounts.use_login_link(db, forged, "another-secret" if forged == token else SECRET)
    assert accounts.use_login_link(db, token, SECRET).id == ana
    with pytest.raises(accounts.AccountError, match="used already"):
        accounts.use_login_link(db, token, SECRET)
    # A new password ends the links still in the mailbox, as it ends the other logins.
    accounts.request_login_link(db, "ana@example.org", SECRET, LINKS)
    accounts.change_password(db, ana, PASSWORD, "a brand new password", keep_session=None)
    with pytest.raises(accounts.AccountError, match="used already"):
        accounts.use_login_link(db, link_in(outbox(db, "login")[-1], "login/link"), SECRET)
    # At most LOGIN_LINKS_PER_USER live links, the newest; and a link expires.
    for _ in range(accounts.LOGIN_LINKS_PER_USER + 2):
        accounts.request_login_link(db, "ana@example.org", SECRET, LINKS)
    with db.sessions() as s:
        assert s.scalar(select(func.count()).select_from(LoginLink)) == accounts.LOGIN_LINKS_PER_USER
    newest = link_in(outbox(db, "login")[-1], "login/link")
    with pytest.raises(accounts.AccountError, match="used already"):
        accounts.use_login_link(db, link_in(outbox(db, "login")[-accounts.LOGIN_LINKS_PER_USER - 1], "login/link"),
                                SECRET)
    monkeypatch.setattr(sessions, "LOGIN_LINK_MAX_AGE", -1)
    with pytest.raises(accounts.AccountError, match="log-in link has expired"):
        accounts.use_login_link(db, newest, SECRET)


@pytest.mark.parametrize("typed,quoted", [
    ("Ana", "Ana"),
    ("Jean-Luc O'Neill", "Jean-Luc O'Neill"),
    ("Se\u00e1n O\u2019Neill", "Se\u00e1n O\u2019Neill"),
    ("J.R.R. Tolkien", "J. R. R. Tolkien"),
    ("Zoë Ångström 山田", "Zoë Ångström 山田"),
    ("URGENT: verify your bank at evil.example", "URGENT verify your bank at evil. example"),
    ("see https://evil.example/x?y=1 now", "see https evil. example x y 1 now"),
    ("mail me: eve@evil.example", "mail me eve evil. example"),
    ("evil\uff0eexample", "evil. example"),  # a fullwidth dot is a dot
    ("Ana\u202egnp.exe\u202c", "Ana gnp. exe"),  # bidi overrides
    ("Ana\r\nBcc: x\x00", "Ana Bcc x"),
    ("!!!", ""),
    ("x" * 100, "x" * 39 + "\u2026"),
])
def test_31_7d_a_display_name_quoted_to_strangers_keeps_only_what_a_name_needs(typed, quoted):
    assert accounts.quoted_name(typed) == quoted
    assert len(accounts.quoted_name(typed)) <= accounts.QUOTED_NAME_CHARS
