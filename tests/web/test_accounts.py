"""pbem.accounts: argon2 passwords, confirmation and reset links, no account take-over, API tokens."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import select

from pbem import accounts, games
from pbem.models import ApiToken, OutboundMail, User
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


def test_sign_up_stores_an_argon2_hash_and_queues_a_confirmation(db):
    user_id = accounts.sign_up(db, " Ana@Example.org ", PASSWORD, "Ana", SECRET, LINKS)
    with db.sessions() as s:
        user = s.get(User, user_id)
    assert user.email == "ana@example.org" and user.password_hash.startswith("$argon2id$")
    assert PASSWORD not in user.password_hash and not user.email_verified
    [mail] = outbox(db, "verify")
    assert mail.recipient == "ana@example.org" and mail.user_id == user_id and mail.status == "pending"
    with pytest.raises(accounts.AccountError, match="confirm your email"):
        accounts.authenticate(db, "ana@example.org", PASSWORD)
    assert accounts.verify_email(db, link_in(mail, "verify"), SECRET) == user_id
    assert accounts.authenticate(db, "ANA@example.org", PASSWORD).id == user_id


@pytest.mark.parametrize("email,password,message", [
    ("not-an-address", PASSWORD, "not an email address"),
    ("a@example.org", "short", "10 to 200 characters"),
])
def test_bad_sign_ups_are_refused_and_store_nothing(db, email, password, message):
    with pytest.raises(accounts.AccountError, match=message):
        accounts.sign_up(db, email, password, "A", SECRET, LINKS)
    assert outbox(db) == []
    with db.sessions() as s:
        assert s.scalars(select(User)).first() is None


def test_wrong_password_and_unknown_address_get_the_same_answer(db):
    make_user(db, "ana@example.org")
    for email, password in [("ana@example.org", "wrong password!"), ("nobody@example.org", PASSWORD)]:
        with pytest.raises(accounts.AccountError, match="^Wrong email address or password.$"):
            accounts.authenticate(db, email, password)


def test_confirmation_links_are_signed(db):
    user_id = accounts.sign_up(db, "ana@example.org", PASSWORD, "Ana", SECRET, LINKS)
    token = link_in(outbox(db, "verify")[0], "verify")
    for bad in (token[:-2] + "xx", token.replace(token[5], "A" if token[5] != "A" else "B", 1)):
        with pytest.raises(accounts.AccountError, match="not valid"):
            accounts.verify_email(db, bad, SECRET)
    with pytest.raises(accounts.AccountError, match="not valid"):
        accounts.verify_email(db, token, "another-secret")
    with db.sessions() as s:
        assert not s.get(User, user_id).email_verified


def test_sign_up_with_a_taken_address_changes_nothing_and_mails_the_owner(db):
    # A player known so far only by email (no password) must not be taken over by a sign-up.
    owner = accounts.ensure_user(db, "ana@example.org", "Ana")
    assert accounts.sign_up(db, "ana@example.org", "attacker password", "Eve", SECRET, LINKS) is None
    with db.sessions() as s:
        user = s.get(User, owner)
        assert user.password_hash is None and user.display_name == "Ana"
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
                             vacation_days=5, from_check=False)
    with db.sessions() as s:
        user = s.get(User, user_id)
    assert (user.display_name, user.notify, user.timezone, user.vacation_days, user.from_check) == (
        "Ana B", "digest", "Europe/Berlin", 5, False)
    for change, message in [({"notify": "hourly"}, "Notifications"), ({"timezone": "Mars/Base"}, "time zone"),
                            ({"vacation_days": 400}, "Vacation"), ({"display_name": "  "}, "name")]:
        values = {"display_name": "Ana", "notify": "turn", "timezone": "UTC", "vacation_days": 0,
                  "from_check": True, **change}
        with pytest.raises(accounts.AccountError, match=message):
            accounts.update_settings(db, user_id, **values)


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
    accounts.sign_up(db, "ana@example.org", PASSWORD, "Ana", SECRET, LINKS)
    accounts.request_reset(db, "ana@example.org", SECRET, LINKS)
    monkeypatch.setattr(accounts, "VERIFY_MAX_AGE", -1)
    monkeypatch.setattr(accounts, "RESET_MAX_AGE", -1)
    with pytest.raises(accounts.AccountError, match="has expired; use 'forgot password'"):
        accounts.verify_email(db, link_in(outbox(db, "verify")[0], "verify"), SECRET)
    with pytest.raises(accounts.AccountError, match="reset link has expired"):
        accounts.reset_password(db, link_in(outbox(db, "reset")[0], "reset"), "a brand new password", SECRET)
