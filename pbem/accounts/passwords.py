"""Passwords: argon2 hashes, logging in with one, changing one, and the reset link for a new one.

A password change ends the user's other sessions and log-in links; a reset, what a player
does who fears that someone else knows the password, ends all of them and the user's API
tokens as well (`sessions.end_logins`). Asking for a reset does the same work and answers
the same whether the address has an account or not; so does a failed log-in, which spends
an argon2 verification even for an address without an account (no timing hint).
"""

from __future__ import annotations

import hashlib

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from pbem import i18n, mailkeys
from pbem.accounts.links import Links, load_token, queue_mail, serializer
from pbem.accounts.sessions import end_logins
from pbem.accounts.users import AccountError, normalize_email
from pbem.db import Database
from pbem.i18n import N_
from pbem.models import ApiToken, User

MIN_PASSWORD = 10
MAX_PASSWORD = 200
RESET_MAX_AGE = 2 * 3600
# Why a reset link is mailed (the sentence above the link; translated in the mail's language).
RESET_REASONS = {
    "sign-up": N_("Someone (perhaps you) tried to sign up with this address, which already has a pbem account. "
                  "If it was you, you can set your password here."),
    "asked": N_("You asked to set a new password."),
}

_HASHER = PasswordHasher()


def use_hasher(hasher: PasswordHasher) -> PasswordHasher:
    """Swap the argon2 parameters (tests use argon2's cheapest profile); returns the previous hasher."""
    global _HASHER
    previous, _HASHER = _HASHER, hasher
    return previous


def hash_password(password: str) -> str:
    """The argon2 hash of a password, with the parameters of the hasher in use."""
    return _HASHER.hash(password)


def password_matches(password_hash: str | None, password: str) -> bool:
    """Whether the password is the one of the hash; an argon2 verification either way (no timing hint)."""
    if not password_hash:
        _HASHER.hash(password or "x")
        return False
    try:
        return _HASHER.verify(password_hash, password or "")
    except (VerificationError, InvalidHashError):
        return False


def check_password_rules(password: str) -> None:
    """AccountError unless the password has MIN_PASSWORD to MAX_PASSWORD characters."""
    if not MIN_PASSWORD <= len(password or "") <= MAX_PASSWORD:
        raise AccountError(N_("A password has %(least)d to %(most)d characters."), least=MIN_PASSWORD,
                           most=MAX_PASSWORD)


def _password_digest(user: User) -> str:
    """A digest of the user's password hash: a reset link names it, so it works until the password changes."""
    return hashlib.sha256((user.password_hash or "-").encode()).hexdigest()[:16]


def reset_mail(s: Session, user: User, secret: str, links: Links, why: str) -> None:
    """A reset link to the user, in their language; `why` is one of RESET_REASONS (English, translated here)."""
    t = i18n.texts(user.language)
    token = serializer(secret, "reset").dumps({"u": user.id, "p": _password_digest(user)})
    queue_mail(s, user.email, user.id, "reset", "[pbem] " + t.gettext("set your password"),
               t.gettext("Hello %(name)s,\n\n%(why)s\n\nTo set a new password, open:\n\n  %(link)s\n\nThe link "
                         "works once, for 2 hours. If you did not ask for it, ignore this mail: your password stays "
                         "as it is.",
                         name=user.display_name, why=t.gettext(why), link=f"{links.base_url}/reset/{token}"),
               t.language)


def authenticate(db: Database, email: str, password: str) -> User:
    """The user with this address and password, or AccountError (the same message for every failure)."""
    wrong = AccountError(N_("Wrong email address or password."))
    try:
        address = normalize_email(email)
    except AccountError:
        raise wrong from None
    with db.transaction() as s:
        user = s.scalars(select(User).where(User.email == address)).first()
        if not password_matches(user.password_hash if user else None, password):
            raise wrong
        if not user.email_verified:
            raise AccountError(N_("Please confirm your email address first: use 'forgot password' for a link."))
        if _HASHER.check_needs_rehash(user.password_hash):
            user.password_hash = hash_password(password)
        return user


def request_reset(db: Database, email: str, secret: str, links: Links) -> None:
    """Queue a reset mail if the address has an account; says nothing either way."""
    try:
        address = normalize_email(email)
    except AccountError:
        return
    with db.transaction() as s:
        user = s.scalars(select(User).where(User.email == address)).first()
        if user is not None:
            reset_mail(s, user, secret, links, RESET_REASONS["asked"])


def reset_password(db: Database, token: str, password: str, secret: str) -> int:
    """Set a new password from a reset link (which also confirms the address); returns the user's id.

    Every session and API token of the user ends: a reset is what a player does who fears
    that someone else knows the password.
    """
    check_password_rules(password)
    data = load_token(secret, "reset", token, RESET_MAX_AGE)
    with db.transaction() as s:
        user = s.get(User, data.get("u"))
        if user is None or _password_digest(user) != data.get("p"):
            raise AccountError(N_("This reset link has been used already or is not valid."))
        user.password_hash = hash_password(password)
        user.email_verified = True
        user.mail_nonce = mailkeys.new_nonce()  # the command key in old mails dies with the old password
        end_logins(s, user.id)
        s.execute(delete(ApiToken).where(ApiToken.user_id == user.id))
        return user.id


def change_password(db: Database, user_id: int, current: str, new: str, keep_session: str | None) -> None:
    """Change a password, given the current one; every other session of the user ends."""
    check_password_rules(new)
    with db.transaction() as s:
        user = s.get(User, user_id)
        if user is None or not password_matches(user.password_hash, current):
            raise AccountError(N_("The current password is wrong."))
        user.password_hash = hash_password(new)
        user.mail_nonce = mailkeys.new_nonce()  # the command key in old mails dies with the old password
        end_logins(s, user.id, keep_session)
