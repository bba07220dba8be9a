"""Accounts: sign-up, argon2 passwords, email verification, password reset, settings, API tokens.

Verification and reset links are signed tokens (itsdangerous, keyed with the server
secret) rather than rows: a verify token names the user and the address it was sent to,
a reset token also carries a digest of the password hash it replaces, so it works once
and stops working when the password changes. The mails go through the outbox
(kinds "verify" and "reset", pbem.notify.outbox), which sends them as soon as the
transaction commits.

Signing up with an address that already has an account never reveals or changes that
account: its owner gets a mail instead (a reset link), so nobody can take over a player
who so far only played by email.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import zoneinfo
from dataclasses import dataclass

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer
from sqlalchemy import select
from sqlalchemy.orm import Session

from pbem.db import Database
from pbem.models import ApiToken, User, utcnow
from pbem.notify import outbox

VERIFY_MAX_AGE = 7 * 24 * 3600
RESET_MAX_AGE = 2 * 3600
MIN_PASSWORD = 10
MAX_PASSWORD = 200
NOTIFY_CHOICES = ("every", "turn", "digest", "none")
MAX_VACATION_DAYS = 60
TOKEN_PREFIX = "pbem_"
EMAIL_RE = re.compile(r"^[^@\s<>()\[\],;:\"]{1,64}@[A-Za-z0-9.-]{1,253}\.[A-Za-z0-9-]{2,63}$")

_HASHER = PasswordHasher()


def use_hasher(hasher: PasswordHasher) -> PasswordHasher:
    """Swap the argon2 parameters (tests use argon2's cheapest profile); returns the previous hasher."""
    global _HASHER
    previous, _HASHER = _HASHER, hasher
    return previous


def get_or_create_user(s: Session, email: str, display_name: str | None = None) -> User:
    """The user with this address, made (unconfirmed, without a password) if there is none."""
    address = email.strip().lower()
    user = s.scalars(select(User).where(User.email == address)).first()
    if user is None:
        user = User(email=address, display_name=(display_name or address.split("@")[0])[:80])
        s.add(user)
        s.flush()
    return user


def ensure_user(db: Database, email: str, display_name: str | None = None) -> int:
    """The id of the user with this address, made if there is none (the CLI, tests and benches)."""
    with db.transaction() as s:
        return get_or_create_user(s, email, display_name).id


class AccountError(Exception):
    """A request about an account that cannot be done; the message says why, in one sentence."""


@dataclass(frozen=True)
class Links:
    """How to build the links put into mails: the site's base URL."""

    base_url: str


def normalize_email(email: str) -> str:
    address = (email or "").strip().lower()
    if not EMAIL_RE.match(address) or len(address) > 320:
        raise AccountError(f"{email!r} is not an email address.")
    return address


def check_password_rules(password: str) -> None:
    if not MIN_PASSWORD <= len(password or "") <= MAX_PASSWORD:
        raise AccountError(f"A password has {MIN_PASSWORD} to {MAX_PASSWORD} characters.")


def hash_password(password: str) -> str:
    return _HASHER.hash(password)


def _serializer(secret: str, purpose: str) -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(secret, salt=f"pbem.accounts.{purpose}")


def _load_token(secret: str, purpose: str, token: str, max_age: int, what: str, remedy: str) -> dict:
    """The signed data of a link's token, or AccountError saying that it expired or is not valid."""
    try:
        data = _serializer(secret, purpose).loads(token, max_age=max_age)
    except SignatureExpired:
        raise AccountError(f"This {what} has expired; {remedy}.") from None
    except BadSignature:
        raise AccountError(f"This {what} is not valid.") from None
    if not isinstance(data, dict):
        raise AccountError(f"This {what} is not valid.")
    return data


def _password_digest(user: User) -> str:
    return hashlib.sha256((user.password_hash or "-").encode()).hexdigest()[:16]


def _queue(s: Session, user: User, kind: str, subject: str, body: str) -> None:
    outbox.queue(s, kind=kind, recipient=user.email, user_id=user.id, subject=subject, body=body)


def _verify_mail(s: Session, user: User, secret: str, links: Links) -> None:
    token = _serializer(secret, "verify").dumps({"u": user.id, "e": user.email})
    _queue(s, user, "verify", "[pbem] confirm your email address",
           f"Hello {user.display_name},\n\nto confirm this address for your pbem account, open:\n\n"
           f"  {links.base_url}/verify/{token}\n\nThe link works for 7 days. If you did not sign up, "
           "ignore this mail.")


def _reset_mail(s: Session, user: User, secret: str, links: Links, why: str) -> None:
    token = _serializer(secret, "reset").dumps({"u": user.id, "p": _password_digest(user)})
    _queue(s, user, "reset", "[pbem] set your password",
           f"Hello {user.display_name},\n\n{why}\n\nTo set a new password, open:\n\n"
           f"  {links.base_url}/reset/{token}\n\nThe link works once, for 2 hours. If you did not ask "
           "for it, ignore this mail: your password stays as it is.")


def sign_up(db: Database, email: str, password: str, display_name: str, secret: str, links: Links) -> int | None:
    """Create an unverified account and queue its verification mail; returns the new user's id.

    For an address that already has an account nothing changes: its owner gets a mail
    with a reset link, and None is returned (the page says the same in both cases).
    """
    address = normalize_email(email)
    check_password_rules(password)
    name = (display_name or "").strip()[:80] or address.split("@")[0]
    with db.transaction() as s:
        user = s.scalars(select(User).where(User.email == address)).first()
        if user is not None:
            why = ("Someone (perhaps you) tried to sign up with this address, which already has a pbem "
                   "account.")
            _reset_mail(s, user, secret, links, why)
            return None
        user = User(email=address, display_name=name, password_hash=hash_password(password), email_verified=False)
        s.add(user)
        s.flush()
        _verify_mail(s, user, secret, links)
        return user.id


def resend_verification(db: Database, user_id: int, secret: str, links: Links) -> None:
    with db.transaction() as s:
        user = s.get(User, user_id)
        if user is None or user.email_verified:
            return
        _verify_mail(s, user, secret, links)


def verify_email(db: Database, token: str, secret: str) -> int:
    """Mark the address of a verify token as confirmed; returns the user's id."""
    data = _load_token(secret, "verify", token, VERIFY_MAX_AGE, "confirmation link",
                       "use 'forgot password' to get a new link")
    with db.transaction() as s:
        user = s.get(User, data.get("u"))
        if user is None or user.email != data.get("e"):
            raise AccountError("This confirmation link is not valid.")
        user.email_verified = True
        return user.id


def authenticate(db: Database, email: str, password: str) -> User:
    """The user with this address and password, or AccountError (the same message for every failure)."""
    wrong = AccountError("Wrong email address or password.")
    try:
        address = normalize_email(email)
    except AccountError:
        raise wrong from None
    with db.transaction() as s:
        user = s.scalars(select(User).where(User.email == address)).first()
        if user is None or not user.password_hash:
            _HASHER.hash(password or "x")  # the same work either way: no timing hint that an address exists
            raise wrong
        try:
            _HASHER.verify(user.password_hash, password or "")
        except (VerificationError, InvalidHashError):
            raise wrong from None
        if not user.email_verified:
            raise AccountError("Please confirm your email address first with the link we sent "
                               "(or use 'forgot password' for a new one).")
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
            _reset_mail(s, user, secret, links, "You asked to set a new password.")


def reset_password(db: Database, token: str, password: str, secret: str) -> int:
    """Set a new password from a reset link (which also confirms the address); returns the user's id."""
    check_password_rules(password)
    data = _load_token(secret, "reset", token, RESET_MAX_AGE, "reset link", "ask for a new one")
    with db.transaction() as s:
        user = s.get(User, data.get("u"))
        if user is None or _password_digest(user) != data.get("p"):
            raise AccountError("This reset link has been used already or is not valid.")
        user.password_hash = hash_password(password)
        user.email_verified = True
        return user.id


def get_user(db: Database, user_id: int) -> User | None:
    with db.sessions() as s:
        return s.get(User, user_id)


def update_settings(db: Database, user_id: int, *, display_name: str, notify: str, timezone: str,
                    vacation_days: int, from_check: bool) -> None:
    """Change one user's own settings (the caller has made sure it is that user)."""
    if notify not in NOTIFY_CHOICES:
        raise AccountError(f"Notifications are one of {', '.join(NOTIFY_CHOICES)}.")
    if timezone not in zoneinfo.available_timezones():
        raise AccountError(f"{timezone!r} is not a time zone name such as Europe/Berlin.")
    if not 0 <= vacation_days <= MAX_VACATION_DAYS:
        raise AccountError(f"Vacation is 0 to {MAX_VACATION_DAYS} days.")
    name = (display_name or "").strip()[:80]
    if not name:
        raise AccountError("Your name cannot be empty.")
    with db.transaction() as s:
        user = s.get(User, user_id)
        if user is None:
            raise AccountError("There is no such user.")
        user.display_name = name
        user.notify = notify
        user.timezone = timezone
        user.vacation_days = vacation_days
        user.from_check = from_check


# --------------------------------------------------------------------------------------
# API tokens


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def create_api_token(db: Database, user_id: int, name: str) -> str:
    """A new bearer token for the user; the plain text is returned once and never stored."""
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    with db.transaction() as s:
        s.add(ApiToken(user_id=user_id, name=(name or "bot").strip()[:80] or "bot", token_hash=_token_hash(token)))
    return token


def list_api_tokens(db: Database, user_id: int) -> list[dict]:
    with db.sessions() as s:
        rows = s.scalars(select(ApiToken).where(ApiToken.user_id == user_id).order_by(ApiToken.id))
        return [{"id": r.id, "name": r.name, "created_at": r.created_at, "last_used_at": r.last_used_at}
                for r in rows]


def revoke_api_token(db: Database, user_id: int, token_id: int) -> bool:
    """Delete one of the user's own tokens; False if they have no token with that id."""
    with db.transaction() as s:
        row = s.get(ApiToken, token_id)
        if row is None or row.user_id != user_id:
            return False
        s.delete(row)
        return True


def user_for_token(db: Database, token: str) -> int | None:
    """The id of the user a bearer token belongs to, or None."""
    if not token or not token.startswith(TOKEN_PREFIX) or len(token) > 200:
        return None
    with db.transaction() as s:
        row = s.scalars(select(ApiToken).where(ApiToken.token_hash == _token_hash(token))).first()
        if row is None:
            return None
        now = utcnow()
        # Touch at most once a minute: a bot polling hard must not turn every read into a write.
        if row.last_used_at is None or (now - row.last_used_at).total_seconds() > 60:
            row.last_used_at = now
        return row.user_id
