"""Web sessions and log-in links: how a browser stays logged in, and the owner's way in by mail.

A web session is a row (`WebSession`): the browser's cookies carry a random key, the row
only its SHA-256. Logging out deletes the row; a password change deletes the user's other
sessions and log-in links, a reset all of them (`end_logins`, called by `passwords`). A
session ends by itself after SESSION_MAX_IDLE_BROWSER unused (SESSION_MAX_IDLE when the
login asked to stay logged in), and a user keeps at most MAX_SESSIONS: a new login ends the
least recently used beyond them.

A log-in link is the owner's way past the log-in throttle (pbem.web.ratelimit): mailed to the
registered address of an account with a password, it logs that browser in once, within
LOGIN_LINK_MAX_AGE, without the password. Its token names the user and a random key whose
SHA-256 is a `LoginLink` row, deleted when the link is used.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from sqlalchemy import and_, bindparam, delete, not_, or_, select
from sqlalchemy.orm import Session

from pbem import i18n
from pbem.accounts.links import LINK_EXPIRED, Links, load_token, queue_mail, serializer
from pbem.accounts.users import AccountError, delete_own, normalize_email
from pbem.db import Database
from pbem.i18n import N_
from pbem.models import LoginLink, User, WebSession, utcnow

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


def revoke_session(db: Database, user_id: int, session_id: int) -> bool:
    """End one of the user's own sessions (that browser is logged out); False if they have no such session."""
    return delete_own(db, WebSession, user_id, session_id)


def end_logins(s: Session, user_id: int, keep_key: str | None = None) -> None:
    """Delete the user's web sessions (but the one with `keep_key`) and log-in links: their cookies and
    links stop working."""
    query = delete(WebSession).where(WebSession.user_id == user_id)
    if keep_key:
        query = query.where(WebSession.key_hash != _key_hash(keep_key))
    s.execute(query)
    s.execute(delete(LoginLink).where(LoginLink.user_id == user_id))


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
        token = serializer(secret, "login").dumps({"u": user.id, "k": key})
        t = i18n.texts(user.language)
        queue_mail(s, user.email, user.id, "login", "[pbem] " + t.gettext("your log-in link"),
                   t.gettext("Hello %(name)s,\n\nsomeone (perhaps you) asked for a link that logs in to your pbem "
                             "account without the password. To log in, open:\n\n  %(link)s\n\nThe link works once, "
                             "for an hour. If you did not ask for it, ignore this mail: nobody can use the link but "
                             "the reader of this mail. If someone keeps guessing your password, choose a new one "
                             "on your settings page once you are in.",
                             name=user.display_name, link=f"{links.base_url}/login/link/{token}"),
                   t.language)


def _login_link_of(s: Session, token: str, secret: str) -> LoginLink:
    data = load_token(secret, "login", token, LOGIN_LINK_MAX_AGE)
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
