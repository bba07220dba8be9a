"""Accounts: sign-up, argon2 passwords, confirmation, password reset and change, settings,
web sessions, log-in links and API tokens.

A web sign-up is a pending row (address, name, password hash, nonce), not an account: the
account, with that password, is made only when the link mailed to the address is opened
and the password chosen at sign-up is typed again there. So confirming an address by mail
(`/confirm`, a reply with a key: pbem.mail) never activates a password set by someone else,
and a stranger who signs up with somebody's address gets nothing, even if the owner clicks
the link. Each pending sign-up's link stays valid until it is used or expires
(SIGNUP_MAX_AGE): a later sign-up for the same address, a stranger's perhaps, adds a row and
kills no earlier link; an address has at most MAX_PENDING_SIGNUPS of them. The account made
from one drops the others.

Links are signed tokens (itsdangerous, keyed with the server secret): a sign-up token names
the address and the pending row's nonce, a reset token the user and a digest of the password
hash it replaces, so it works once; a log-in link's token names the user and a random key
whose SHA-256 is a `LoginLink` row, deleted when the link is used. The mails go through the
outbox (kinds "verify", "reset" and "login", pbem.notify.outbox), in the user's language; a
sign-up's link, to an address without an account, in the language of the browser that signed
up. A display name in a mail to an address that may have no account (a sign-up's, an
invitation's) is quoted as data, cleaned by `quoted_name`: whoever typed it may be a stranger.

A log-in link is the owner's way past the log-in throttle (pbem.web.ratelimit): mailed to the
registered address of an account with a password, it logs that browser in once, within
LOGIN_LINK_MAX_AGE, without the password.

A web session is a row (`WebSession`): the browser's cookies carry a random key, the row
only its SHA-256. Logging out deletes the row; a password change deletes the user's other
sessions and log-in links; a reset deletes all of them and the user's API tokens as well. A
session ends by itself after SESSION_MAX_IDLE_BROWSER unused (SESSION_MAX_IDLE when the
login asked to stay logged in), and a user keeps at most MAX_SESSIONS: a new login ends the
least recently used beyond them.

Signing up with an address that has an account, and asking for a reset, do the same work
and answer the same whether the address exists or not (an argon2 hash on every sign-up);
the owner of an existing account gets a mail with a reset link instead.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import unicodedata
import zoneinfo
from dataclasses import dataclass
from datetime import timedelta

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer
from sqlalchemy import and_, bindparam, delete, func, not_, or_, select
from sqlalchemy.orm import Session

from pbem import i18n, tokens
from pbem.db import Database
from pbem.i18n import N_
from pbem.models import ApiToken, LoginLink, PendingSignup, User, WebSession, utcnow
from pbem.notify import outbox
from pbem.reasons import Refusal

SIGNUP_MAX_AGE = 24 * 3600
# Pending sign-ups one address may have at once: each link stays valid until used or expired, so a stranger's
# sign-ups cannot kill the owner's; this bounds the rows (sign-ups are also limited per address: pbem.web.ratelimit).
MAX_PENDING_SIGNUPS = 10
RESET_MAX_AGE = 2 * 3600
# A log-in link lives as long as the window of its count per address (ratelimit.LOGIN_LINKS_PER_ADDRESS): when
# that count is spent, the last link mailed in its window still works, so a stranger who asks for links for
# somebody's address cannot leave its owner without one.
LOGIN_LINK_MAX_AGE = 3600
LOGIN_LINKS_PER_USER = 5  # live links kept per user; a newer one drops the oldest
SESSION_MAX_IDLE = timedelta(days=30)  # a session that stays logged in (and its remember cookie) ends unused so long
SESSION_MAX_IDLE_BROWSER = timedelta(days=1)  # one without "stay logged in": its cookie dies with the browser anyway
MAX_SESSIONS = 10  # per user: a new login ends the least recently used beyond them
SESSION_TOUCH_S = 60  # a session's last use is written at most this often
USER_AGENT_CHARS = 200
MIN_PASSWORD = 10
MAX_PASSWORD = 200
NOTIFY_CHOICES = ("every", "turn", "digest", "none")
TOKEN_PREFIX = "pbem_"
# Why a reset link is mailed (the sentence above the link; translated in the mail's language).
RESET_REASONS = {
    "sign-up": N_("Someone (perhaps you) tried to sign up with this address, which already has a pbem account. "
                  "If it was you, you can set your password here."),
    "asked": N_("You asked to set a new password."),
}
QUOTED_NAME_CHARS = 40  # a display name quoted in a mail to an address that may have no account
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
        user = User(email=address, display_name=outbox.header_text(display_name, 80) or address.split("@")[0][:80])
        s.add(user)
        s.flush()
    return user


def ensure_user(db: Database, email: str, display_name: str | None = None) -> int:
    """The id of the user with this address, made if there is none (the CLI, tests and benches)."""
    with db.transaction() as s:
        return get_or_create_user(s, email, display_name).id


class AccountError(Refusal):
    """A request about an account that cannot be done; the message says why, in one sentence.

    Raised with an English message marked for the catalogues (`N_`) and its named values, as a
    GameError: `str(error)` is the English, `error.text(language)` the reader's language."""


@dataclass(frozen=True)
class Links:
    """How to build the links put into mails: the site's base URL."""

    base_url: str


def normalize_email(email: str) -> str:
    address = (email or "").strip().lower()
    if not EMAIL_RE.match(address) or len(address) > 320:
        raise AccountError(N_("%(address)s is not an email address."), address=repr(email))
    return address


def check_password_rules(password: str) -> None:
    if not MIN_PASSWORD <= len(password or "") <= MAX_PASSWORD:
        raise AccountError(N_("A password has %(least)d to %(most)d characters."), least=MIN_PASSWORD,
                           most=MAX_PASSWORD)


_DOT_BEFORE_WORD = re.compile(r"\.(?=\w)")


def quoted_name(name: str | None) -> str:
    """A display name as a mail to an address that may have no account quotes it ("" if nothing is left).

    Whoever typed the name may be a stranger to the reader, so it is cut down to what a name
    needs: letters, combining marks, digits, spaces and - ' \u2019 . _ (no control or bidi characters,
    no @, / or :), a dot never directly before a letter or digit (so no domain name or address
    that a mail program would make a link of), at most QUOTED_NAME_CHARS characters.
    """
    text = unicodedata.normalize("NFKC", name or "")
    kept = "".join(c if unicodedata.category(c)[0] in "LMN" or c in "-'\u2019._" else " " for c in text)
    words = " ".join(_DOT_BEFORE_WORD.sub(". ", kept).split())
    if len(words) <= QUOTED_NAME_CHARS:
        return words
    return words[:QUOTED_NAME_CHARS - 1].rstrip() + "\u2026"


def hash_password(password: str) -> str:
    return _HASHER.hash(password)


def _password_matches(password_hash: str | None, password: str) -> bool:
    """Whether the password is the one of the hash; an argon2 verification either way (no timing hint)."""
    if not password_hash:
        _HASHER.hash(password or "x")
        return False
    try:
        return _HASHER.verify(password_hash, password or "")
    except (VerificationError, InvalidHashError):
        return False


def _serializer(secret: str, purpose: str) -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(secret, salt=f"pbem.accounts.{purpose}")


# What is wrong with a link, by its purpose: it expired (and what to do), or it is not one of ours.
LINK_EXPIRED = {"signup": N_("This sign-up link has expired; sign up again."),
                "reset": N_("This reset link has expired; ask for a new one."),
                "login": N_("This log-in link has expired; ask for a new one.")}
LINK_INVALID = {"signup": N_("This sign-up link is not valid."), "reset": N_("This reset link is not valid."),
                "login": N_("This log-in link is not valid.")}


def _load_token(secret: str, purpose: str, token: str, max_age: int) -> dict:
    """The signed data of a link's token, or AccountError saying that it expired or is not valid."""
    try:
        data = _serializer(secret, purpose).loads(token, max_age=max_age)
    except SignatureExpired:
        raise AccountError(LINK_EXPIRED[purpose]) from None
    except BadSignature:
        raise AccountError(LINK_INVALID[purpose]) from None
    if not isinstance(data, dict):
        raise AccountError(LINK_INVALID[purpose])
    return data


def _password_digest(user: User) -> str:
    return hashlib.sha256((user.password_hash or "-").encode()).hexdigest()[:16]


def _queue(s: Session, address: str, user_id: int | None, kind: str, subject: str, body: str, language: str) -> None:
    outbox.queue(s, kind=kind, recipient=address, user_id=user_id, subject=subject, body=body, language=language)


def _reset_mail(s: Session, user: User, secret: str, links: Links, why: str) -> None:
    """A reset link to the user, in their language; `why` is one of RESET_REASONS (English, translated here)."""
    t = i18n.texts(user.language)
    token = _serializer(secret, "reset").dumps({"u": user.id, "p": _password_digest(user)})
    _queue(s, user.email, user.id, "reset", "[pbem] " + t.gettext("set your password"),
           t.gettext("Hello %(name)s,\n\n%(why)s\n\nTo set a new password, open:\n\n  %(link)s\n\nThe link works "
                     "once, for 2 hours. If you did not ask for it, ignore this mail: your password stays as it is.",
                     name=user.display_name, why=t.gettext(why), link=f"{links.base_url}/reset/{token}"),
           t.language)


# --------------------------------------------------------------------------------------
# Sign-up


def sign_up(db: Database, email: str, password: str, display_name: str, secret: str, links: Links,
            language: str = i18n.DEFAULT) -> None:
    """Record a pending sign-up and mail its link, or mail the owner of an existing account.

    The password is hashed either way, so the answer takes the same time whether the
    address has an account or not; the caller answers the same page in both cases.
    `language` (the browser's, on the web) becomes the new account's; one pbem does not
    speak is English. The links of earlier sign-ups for the address stay valid; when it has
    MAX_PENDING_SIGNUPS waiting already, nothing is recorded and the address is told why.
    """
    address = normalize_email(email)
    language = i18n.normalize(language) or i18n.DEFAULT
    check_password_rules(password)
    name = outbox.header_text(display_name, 80) or address.split("@")[0]
    password_hash = hash_password(password)
    now = utcnow()
    with db.transaction() as s:
        user = s.scalars(select(User).where(User.email == address)).first()
        if user is not None:
            # An account's address is not open to sign-ups: pending ones made before the account are dropped.
            s.execute(delete(PendingSignup).where(PendingSignup.email == address))
            _reset_mail(s, user, secret, links, RESET_REASONS["sign-up"])
            return
        s.execute(delete(PendingSignup).where(PendingSignup.created_at < now - timedelta(seconds=SIGNUP_MAX_AGE)))
        waiting = s.scalar(select(func.count()).select_from(PendingSignup).where(PendingSignup.email == address))
        t = i18n.texts(language)  # the browser's: the address has no account whose language could be asked
        if waiting >= MAX_PENDING_SIGNUPS:
            # The earlier links stay valid (a stranger's sign-ups must not kill the owner's): this one waits.
            _queue(s, address, None, "verify", "[pbem] " + t.gettext("your sign-up"),
                   t.gettext("Hello,\n\nsomeone (perhaps you) tried to sign up to pbem with this address, but "
                             "%(most)d sign-ups with it are waiting for their links already, as many as we keep. "
                             "If one of them is yours, open the link in its mail. A sign-up waits 24 hours at "
                             "most; after that you can sign up again.", most=MAX_PENDING_SIGNUPS), language)
            return
        pending = PendingSignup(email=address, display_name=name, password_hash=password_hash, language=language,
                                nonce=secrets.token_hex(16), created_at=now)
        s.add(pending)
        s.flush()
        token = _serializer(secret, "signup").dumps({"e": address, "n": pending.nonce})
        quoted = quoted_name(name)  # typed by whoever signed up: perhaps not the owner of the address
        body = (t.gettext("Hello,\n\nsomeone (perhaps you) signed up to pbem with this address, under the name "
                          "\"%(name)s\". To finish signing up, open:\n\n  %(link)s\n\nand type the password you "
                          "chose. The link works for 24 hours. If you did not sign up, ignore this mail: nothing "
                          "happens without that password.", name=quoted, link=f"{links.base_url}/verify/{token}")
                if quoted else
                t.gettext("Hello,\n\nsomeone (perhaps you) signed up to pbem with this address. To finish signing "
                          "up, open:\n\n  %(link)s\n\nand type the password you chose. The link works for 24 "
                          "hours. If you did not sign up, ignore this mail: nothing happens without that password.",
                          link=f"{links.base_url}/verify/{token}"))
        _queue(s, address, None, "verify", "[pbem] " + t.gettext("confirm your sign-up"), body, language)


def _pending_of(s: Session, token: str, secret: str) -> PendingSignup:
    data = _load_token(secret, "signup", token, SIGNUP_MAX_AGE)
    pending = s.scalars(select(PendingSignup).where(PendingSignup.email == data.get("e"),
                                                    PendingSignup.nonce == str(data.get("n")))).first()
    if pending is None:
        raise AccountError(N_("This sign-up link has been used already, or the address has an account now: log "
                              "in, or use 'forgot password'."))
    if (utcnow() - pending.created_at).total_seconds() > SIGNUP_MAX_AGE:
        raise AccountError(LINK_EXPIRED["signup"])
    return pending


def signup_address(db: Database, token: str, secret: str) -> str:
    """The address of a pending sign-up's link, or AccountError if the link is dead."""
    with db.sessions() as s:
        return _pending_of(s, token, secret).email


def complete_sign_up(db: Database, token: str, password: str, secret: str) -> int:
    """Make the account of a pending sign-up, given the password chosen at sign-up; returns its id.

    If an account appeared for the address meanwhile (its owner played by mail), it gets
    the password, unless it has one already: then nothing changes. A new account gets the
    language of the sign-up; one that was there keeps its own (its owner may have chosen it).
    """
    with db.transaction() as s:
        pending = _pending_of(s, token, secret)
        if not _password_matches(pending.password_hash, password):
            raise AccountError(N_("That is not the password chosen at sign-up."))
        user = s.scalars(select(User).where(User.email == pending.email)).first()
        if user is not None and user.password_hash:
            s.delete(pending)
            raise AccountError(N_("This address has an account with a password already: log in, or use 'forgot "
                                  "password'."))
        if user is None:
            user = User(email=pending.email, display_name=pending.display_name,
                        language=i18n.normalize(pending.language) or i18n.DEFAULT)
            s.add(user)
        user.password_hash = pending.password_hash
        user.email_verified = True  # the link came through the address
        # The address has an account now: no other pending sign-up can make one (a stranger's are dead).
        s.execute(delete(PendingSignup).where(PendingSignup.email == pending.email))
        s.flush()
        return user.id


# --------------------------------------------------------------------------------------
# Passwords


def authenticate(db: Database, email: str, password: str) -> User:
    """The user with this address and password, or AccountError (the same message for every failure)."""
    wrong = AccountError(N_("Wrong email address or password."))
    try:
        address = normalize_email(email)
    except AccountError:
        raise wrong from None
    with db.transaction() as s:
        user = s.scalars(select(User).where(User.email == address)).first()
        if not _password_matches(user.password_hash if user else None, password):
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
            _reset_mail(s, user, secret, links, RESET_REASONS["asked"])


def _end_logins(s: Session, user_id: int, keep_key: str | None = None) -> None:
    """Delete the user's web sessions (but the one with `keep_key`) and log-in links: their cookies and
    links stop working."""
    query = delete(WebSession).where(WebSession.user_id == user_id)
    if keep_key:
        query = query.where(WebSession.key_hash != _key_hash(keep_key))
    s.execute(query)
    s.execute(delete(LoginLink).where(LoginLink.user_id == user_id))


# --------------------------------------------------------------------------------------
# Log-in links


def request_login_link(db: Database, email: str, secret: str, links: Links) -> None:
    """Mail a one-time log-in link to the address if it has an account with a password; says nothing either way.

    The way in for the owner when log-ins are throttled (too many wrong passwords, from here or
    from everywhere): the link goes to the registered address only, whoever asks.
    """
    try:
        address = normalize_email(email)
    except AccountError:
        return
    now = utcnow()
    with db.transaction() as s:
        user = s.scalars(select(User).where(User.email == address)).first()
        if user is None or not user.password_hash:  # an account without a password logs in by mail only
            return
        s.execute(delete(LoginLink).where(LoginLink.created_at < now - timedelta(seconds=LOGIN_LINK_MAX_AGE)))
        older = s.scalars(select(LoginLink.id).where(LoginLink.user_id == user.id)
                          .order_by(LoginLink.created_at.desc(), LoginLink.id.desc())
                          .offset(LOGIN_LINKS_PER_USER - 1)).all()
        if older:
            s.execute(delete(LoginLink).where(LoginLink.id.in_(older)))
        key = secrets.token_urlsafe(32)
        s.add(LoginLink(user_id=user.id, key_hash=_key_hash(key), created_at=now))
        token = _serializer(secret, "login").dumps({"u": user.id, "k": key})
        t = i18n.texts(user.language)
        _queue(s, user.email, user.id, "login", "[pbem] " + t.gettext("your log-in link"),
               t.gettext("Hello %(name)s,\n\nsomeone (perhaps you) asked for a link that logs in to your pbem "
                         "account without the password. To log in, open:\n\n  %(link)s\n\nThe link works once, "
                         "for an hour. If you did not ask for it, ignore this mail: nobody can use the link but "
                         "the reader of this mail. If someone keeps guessing your password, choose a new one "
                         "on your settings page once you are in.",
                         name=user.display_name, link=f"{links.base_url}/login/link/{token}"),
               t.language)


def _login_link_of(s: Session, token: str, secret: str) -> LoginLink:
    data = _load_token(secret, "login", token, LOGIN_LINK_MAX_AGE)
    link = s.scalars(select(LoginLink).where(LoginLink.key_hash == _key_hash(str(data.get("k"))),
                                             LoginLink.user_id == data.get("u"))).first()
    if link is None:
        raise AccountError(N_("This log-in link has been used already or is not valid; ask for a new one."))
    if (utcnow() - link.created_at).total_seconds() > LOGIN_LINK_MAX_AGE:
        raise AccountError(LINK_EXPIRED["login"])
    return link


def login_link_address(db: Database, token: str, secret: str) -> str:
    """The address of the account a log-in link is for, or AccountError if the link is dead; looking uses nothing."""
    with db.sessions() as s:
        return s.get(User, _login_link_of(s, token, secret).user_id).email


def use_login_link(db: Database, token: str, secret: str) -> User:
    """The user a log-in link logs in; the link is used up. AccountError if it is dead."""
    with db.transaction() as s:
        link = _login_link_of(s, token, secret)
        # Deleted by its id with the count checked: of two requests with the same link, one logs in.
        if s.execute(delete(LoginLink).where(LoginLink.id == link.id)).rowcount != 1:
            raise AccountError(N_("This log-in link has been used already or is not valid; ask for a new one."))
        return s.get(User, link.user_id)


def reset_password(db: Database, token: str, password: str, secret: str) -> int:
    """Set a new password from a reset link (which also confirms the address); returns the user's id.

    Every session and API token of the user ends: a reset is what a player does who fears
    that someone else knows the password.
    """
    check_password_rules(password)
    data = _load_token(secret, "reset", token, RESET_MAX_AGE)
    with db.transaction() as s:
        user = s.get(User, data.get("u"))
        if user is None or _password_digest(user) != data.get("p"):
            raise AccountError(N_("This reset link has been used already or is not valid."))
        user.password_hash = hash_password(password)
        user.email_verified = True
        user.mail_nonce = tokens.new_nonce()  # the command key in old mails dies with the old password
        _end_logins(s, user.id)
        s.execute(delete(ApiToken).where(ApiToken.user_id == user.id))
        return user.id


def change_password(db: Database, user_id: int, current: str, new: str, keep_session: str | None) -> None:
    """Change a password, given the current one; every other session of the user ends."""
    check_password_rules(new)
    with db.transaction() as s:
        user = s.get(User, user_id)
        if user is None or not _password_matches(user.password_hash, current):
            raise AccountError(N_("The current password is wrong."))
        user.password_hash = hash_password(new)
        user.mail_nonce = tokens.new_nonce()  # the command key in old mails dies with the old password
        _end_logins(s, user.id, keep_session)


def get_user(db: Database, user_id: int) -> User | None:
    with db.sessions() as s:
        return s.get(User, user_id)


def update_settings(db: Database, user_id: int, *, display_name: str, notify: str, timezone: str,
                    from_check: bool) -> None:
    """Change one user's own settings (the caller has made sure it is that user).

    The bank of vacation days is not among them: a player who could refill it would never
    be late (it is filled by pbem.schedule.absences.set_vacation_days).
    """
    if notify not in NOTIFY_CHOICES:
        raise AccountError(N_("Notifications are one of %(choices)s."), choices=", ".join(NOTIFY_CHOICES))
    if timezone not in zoneinfo.available_timezones():
        raise AccountError(N_("%(zone)s is not a time zone name such as Europe/Berlin."), zone=repr(timezone))
    name = outbox.header_text(display_name, 80)  # it goes into mails' headers: no line breaks
    if not name:
        raise AccountError(N_("Your name cannot be empty."))
    with db.transaction() as s:
        user = s.get(User, user_id)
        if user is None:
            raise AccountError(N_("There is no such user."))
        user.display_name = name
        user.notify = notify
        user.timezone = timezone
        user.from_check = from_check


def set_language(s: Session, user: User, code: str) -> str:
    """Set a user's language (settings on the web, `/language de` by mail), in the caller's transaction.

    `code` is one of pbem.i18n.LANGUAGES, in any case or with a region ("de-AT" is German);
    returns the language set, or raises AccountError naming the languages there are.
    """
    language = i18n.normalize(code)
    if language is None or len(code.strip()) > 16:
        raise AccountError(N_("%(code)s is not a language of pbem; there are %(languages)s."), code=repr(code),
                           languages=", ".join(f"{c} ({i18n.NAMES[c]})" for c in i18n.LANGUAGES))
    user.language = language
    return language


def update_language(db: Database, user_id: int, code: str) -> str:
    """Set one user's language in a transaction of its own (the settings page); returns it."""
    with db.transaction() as s:
        user = s.get(User, user_id)
        if user is None:
            raise AccountError(N_("There is no such user."))
        return set_language(s, user, code)


# --------------------------------------------------------------------------------------
# Web sessions


def _key_hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def _ended(now):
    """The sessions that ended by being idle (found by two ranges of the index on (remember, last_seen_at))."""
    return or_(and_(WebSession.remember.is_(True), WebSession.last_seen_at < now - SESSION_MAX_IDLE),
               and_(WebSession.remember.is_(False), WebSession.last_seen_at < now - SESSION_MAX_IDLE_BROWSER))


def start_session(db: Database, user_id: int, user_agent: str = "", remember: bool = False) -> str:
    """A new web session for the user; returns its key (for the cookies), stored only as its SHA-256.

    `remember`: the login asked to stay logged in (a remember cookie), and the session lasts
    SESSION_MAX_IDLE unused instead of SESSION_MAX_IDLE_BROWSER. The rows of every session that
    ended by being idle go, and the user's least recently used beyond MAX_SESSIONS end.
    """
    key = secrets.token_urlsafe(32)
    now = utcnow()
    with db.transaction() as s:
        s.execute(delete(WebSession).where(_ended(now)))
        older = s.scalars(select(WebSession.id).where(WebSession.user_id == user_id)
                          .order_by(WebSession.last_seen_at.desc(), WebSession.id.desc())
                          .offset(MAX_SESSIONS - 1)).all()
        if older:
            s.execute(delete(WebSession).where(WebSession.id.in_(older)))
        s.add(WebSession(user_id=user_id, key_hash=_key_hash(key), user_agent=(user_agent or "")[:USER_AGENT_CHARS],
                         created_at=now, last_seen_at=now, remember=remember))
    return key


# Built once (a statement is immutable and takes parameters): building it cost as much as running it, and
# every page a logged-in user opens runs it (bench/web.py's player page).
_SESSION_USER = (select(WebSession.id.label("session_id"), WebSession.last_seen_at, WebSession.remember, User.id,
                        User.email, User.display_name, User.timezone, User.language, User.email_verified)
                 .join(User, User.id == WebSession.user_id).where(WebSession.key_hash == bindparam("key_hash")))


def session_user(db: Database, key: str):
    """The user of a live session key (a row: id, email, display_name, timezone, language,
    email_verified), or None (no such session, or unused for longer than it may be)."""
    if not key or len(key) > 100:
        return None
    now = utcnow()
    rows = db.read(_SESSION_USER, key_hash=_key_hash(key))
    if not rows:
        return None
    user = rows[0]
    session_id, last_seen = user.session_id, user.last_seen_at
    idle = (now - last_seen).total_seconds()
    if idle > (SESSION_MAX_IDLE if user.remember else SESSION_MAX_IDLE_BROWSER).total_seconds():
        end_session(db, key)
        return None
    if idle > SESSION_TOUCH_S:  # at most one write a minute per browser, not one per page
        with db.transaction() as s:
            row = s.get(WebSession, session_id)
            if row is None:  # ended meanwhile (logged out elsewhere, or beyond MAX_SESSIONS)
                return None
            row.last_seen_at = now
    return user


def end_session(db: Database, key: str) -> None:
    """Delete one session (logging out): its cookies, copied or not, stop working."""
    with db.transaction() as s:
        s.execute(delete(WebSession).where(WebSession.key_hash == _key_hash(key)))


def list_sessions(db: Database, user_id: int, current_key: str | None = None) -> list[dict]:
    """The user's sessions, the most recently used first; `current` marks the one of `current_key`."""
    mine = _key_hash(current_key) if current_key else None
    with db.sessions() as s:
        rows = s.scalars(select(WebSession).where(WebSession.user_id == user_id, not_(_ended(utcnow())))
                         .order_by(WebSession.last_seen_at.desc(), WebSession.id.desc()))
        return [{"id": r.id, "user_agent": r.user_agent, "created_at": r.created_at, "last_seen_at": r.last_seen_at,
                 "current": r.key_hash == mine} for r in rows]


def _delete_own(db: Database, model: type[WebSession] | type[ApiToken], user_id: int, row_id: int) -> bool:
    """Delete one row of the user's own (a session, an API token); False if they have none with that id."""
    with db.transaction() as s:
        row = s.get(model, row_id)
        if row is None or row.user_id != user_id:
            return False
        s.delete(row)
        return True


def revoke_session(db: Database, user_id: int, session_id: int) -> bool:
    """End one of the user's own sessions (that browser is logged out); False if they have no such session."""
    return _delete_own(db, WebSession, user_id, session_id)


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
    return _delete_own(db, ApiToken, user_id, token_id)


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
