"""Rate limits of the web's doors that cost mail, passwords or CPU (Flask-Limiter), and their storage.

Limits per client address, per mail address and per account on log-in, sign-up, reset,
log-in links and invitations; per account and for the whole site (`site`) on archive uploads,
each replayed move by move. A password check (log-in, a sign-up's link, the current password
before a change) counts when it fails; the wrong passwords tried on one account count per
account and client address together, so a guesser elsewhere does not lock its owner out, under
a ceiling per account high enough that only a guesser spread over many addresses reaches it
(the owner then logs in by a link mailed to the account's address: `LOGIN_LINKS_PER_ADDRESS`).
Successful log-ins count apart, per account and client address (each is an argon2 check and a
session row). The counters live where every web
process sees them: Redis when PBEM_RATELIMIT_STORAGE_URL (or a Redis PBEM_BROKER_URL) names
one, else a table of the service's database (`DatabaseStorage`, fixed windows). Not in the memory of one process
(gunicorn runs several, and each would allow the whole limit), except while that store does not
answer: then each process counts on its own until it is back, so an outage of Redis neither fails
a log-in nor lifts the limits.

A mail address is counted by an HMAC of it with the server secret, not by the address, so
the counters neither store addresses (nor digests anyone could match against a list of
addresses) nor tell which of them have accounts: every address is counted the same.
This module does not decide what a request may do, only how often.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import time

from flask import current_app, request
from flask_limiter import Limiter
from flask_login import current_user
from limits.storage import Storage
from sqlalchemy import case, delete, select, text
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import SQLAlchemyError

from pbem.models import RateLimitCounter

DATABASE_STORAGE = "pbem-database://"
MAX_KEY = 255  # the counters table's key column

# Log-in, failed attempts: from one client address; on one account from one client address (and the current
# password before a change, per account); on one account from everywhere. The ceiling is ten clients' worth: a
# guesser needs ten addresses to reach it, and gets at most 300 guesses a day at one account.
LOGIN_FAILURES_PER_CLIENT = "30 per hour"
LOGIN_FAILURES_PER_ACCOUNT = "10 per hour"
LOGIN_FAILURES_PER_ACCOUNT_EVERYWHERE = "100 per hour;300 per day"
# Log-in, successful: on one account from one client address.
LOGINS_PER_ACCOUNT = "20 per hour"
# Log-in links mailed to one address (accounts.LOGIN_LINK_MAX_AGE is as long as this window); per client
# address they count with sign-up and reset (MAIL_REQUESTS_PER_CLIENT).
LOGIN_LINKS_PER_ADDRESS = "5 per hour"
# Sign-up and reset requests together (each sends a mail).
MAIL_REQUESTS_PER_CLIENT = "20 per hour"
MAIL_REQUESTS_PER_ADDRESS = "5 per hour"
# Invitations (each sends a mail to someone who may not want it).
INVITES_PER_ACCOUNT = "20 per hour;50 per day"
INVITES_PER_ADDRESS = "3 per day"
INVITES_PER_CLIENT = "50 per day"
# Pictures drawn because someone asked for one that was not drawn yet.
DRAWINGS_PER_CLIENT = "300 per hour"
# Archive uploads, refused ones too: each is checked by replaying every move (issue 31, item 6).
UPLOADS_PER_ACCOUNT = "10 per hour;30 per day"
UPLOADS_PER_SITE = "60 per hour"


def client_address() -> str:
    """The client's IP address (the proxy's X-Forwarded-For when PBEM_PROXIES says to trust it)."""
    return "client:" + (request.remote_addr or "unknown")


def mail_address() -> str:
    """An HMAC of the mail address the form names (sign-up, reset, log-in, invitation)."""
    address = (request.form.get("email") or "").strip().lower()
    if not address:
        return client_address()
    digest = hmac.new(current_app.config["SECRET_KEY"].encode(), address.encode(), hashlib.sha256)
    return "address:" + digest.hexdigest()[:32]


def account_at_client() -> str:
    """The account a log-in form names (an HMAC of its address) together with the client's address."""
    return f"{mail_address()}|{client_address()}"


def login_of_account_at_client() -> str:
    """As account_at_client, for the count of successful log-ins (a counter of its own whatever the limits)."""
    return "logged-in|" + account_at_client()


def account() -> str:
    """The logged-in account."""
    return f"user:{current_user.id}" if current_user.is_authenticated else client_address()


def site() -> str:
    """Everyone together: a limit of the whole site."""
    return "site"


def refused(response) -> bool:
    """A form answered 400: a wrong password, or a form that did not validate."""
    return response.status_code == 400


def logged_in(response) -> bool:
    """The log-in form was answered with the redirect of a successful log-in."""
    return response.status_code == 302


def drawn(response) -> bool:
    """The answer carries a picture drawn for this request (not one stored before)."""
    return response.headers.get("X-Pbem-Drawn") == "1"


def _now(name: str):
    """The limit named, read at each request (so that a test or an operator's patch takes effect)."""
    return lambda: globals()[name]


# The limits of each door: (the constant naming the limit, Flask-Limiter's options); a `scope`
# makes it a limit shared by every view that names the same scope.
login = [("LOGIN_FAILURES_PER_CLIENT", {"deduct_when": refused, "methods": ["POST"]}),
         ("LOGIN_FAILURES_PER_ACCOUNT", {"key_func": account_at_client, "deduct_when": refused, "methods": ["POST"]}),
         ("LOGIN_FAILURES_PER_ACCOUNT_EVERYWHERE", {"key_func": mail_address, "deduct_when": refused,
                                                    "methods": ["POST"]}),
         ("LOGINS_PER_ACCOUNT", {"key_func": login_of_account_at_client, "deduct_when": logged_in,
                                 "methods": ["POST"]})]
signup_password = [("LOGIN_FAILURES_PER_CLIENT", {"deduct_when": refused, "methods": ["POST"]})]
current_password = [("LOGIN_FAILURES_PER_ACCOUNT", {"key_func": account, "deduct_when": refused})]
mail_requests = [("MAIL_REQUESTS_PER_CLIENT", {"scope": "mail-requests", "methods": ["POST"]}),
                 ("MAIL_REQUESTS_PER_ADDRESS", {"scope": "mail-requests-address", "key_func": mail_address,
                                                "methods": ["POST"]})]
login_links = [("MAIL_REQUESTS_PER_CLIENT", {"scope": "mail-requests", "methods": ["POST"]}),
               ("LOGIN_LINKS_PER_ADDRESS", {"scope": "login-links-address", "key_func": mail_address,
                                            "methods": ["POST"]})]
invites = [("INVITES_PER_ACCOUNT", {"key_func": account}),
           ("INVITES_PER_ADDRESS", {"key_func": mail_address}),
           ("INVITES_PER_CLIENT", {})]
drawings = [("DRAWINGS_PER_CLIENT", {"deduct_when": drawn})]
uploads = [("UPLOADS_PER_ACCOUNT", {"key_func": account, "methods": ["POST"]}),
           ("UPLOADS_PER_SITE", {"key_func": site, "methods": ["POST"]})]

_LIMITED: dict[str, tuple] = {}  # every limited view by its qualified name: (the view, its limits)
_VIEWS = "pbem_limited_views"  # app.extensions: each limited view as the app's own limiter counts it


def limited(*groups):
    """A view decorator applying every limit of the groups given (lists above), with the limiter
    of the app that serves the request (`init_app`)."""
    def decorate(view):
        name = f"{view.__module__}.{view.__qualname__}"
        _LIMITED[name] = (view, [limit for group in groups for limit in group])

        @functools.wraps(view)
        def counted(*args, **kwargs):
            return current_app.extensions[_VIEWS][name](*args, **kwargs)
        return counted
    return decorate


def init_app(app) -> Limiter:
    """Give the app a limiter of its own, and every limited view its limits on it.

    One limiter per app, not one per process: Flask-Limiter keeps on the Limiter the state of
    its store (whether it answers, and the in-memory counts meanwhile), which must not pass from
    one app to the next (the tests make an app each)."""
    limiter = Limiter(key_func=client_address)
    limiter.init_app(app)
    views = {}
    for name, (view, limits) in _LIMITED.items():
        for limit, options in limits:
            decorator = limiter.shared_limit if "scope" in options else limiter.limit
            view = decorator(_now(limit), **options)(view)
        views[name] = view
    app.extensions[_VIEWS] = views
    return limiter


class DatabaseStorage(Storage):
    """Fixed-window counters in the `rate_limits` table of the current app's database.

    `limits` documents storages as its extension point (a Storage subclass registers its
    scheme); this one serves the embedded default, where there is no Redis. Each count is
    one upsert (INSERT ... ON CONFLICT DO UPDATE, on SQLite and PostgreSQL alike), so
    concurrent requests of several processes count exactly; expired rows are deleted as
    new ones are counted.
    """

    STORAGE_SCHEME = ["pbem-database"]

    @property
    def base_exceptions(self):
        return SQLAlchemyError

    @staticmethod
    def _db():
        return current_app.extensions["pbem_db"]

    @staticmethod
    def _key(key: str) -> str:
        return key if len(key) <= MAX_KEY else "sha256:" + hashlib.sha256(key.encode()).hexdigest()

    def incr(self, key: str, expiry: int, amount: int = 1) -> int:
        db = self._db()
        now = time.time()
        dialect = postgresql if db.is_postgres else sqlite
        table = RateLimitCounter.__table__
        statement = dialect.insert(table).values(key=self._key(key), count=amount, expires_at=now + expiry)
        expired = table.c.expires_at <= now
        statement = statement.on_conflict_do_update(index_elements=[table.c.key], set_={
            "count": case((expired, amount), else_=table.c.count + amount),
            "expires_at": case((expired, now + expiry), else_=table.c.expires_at),
        }).returning(table.c.count)
        with db.transaction() as s:
            s.execute(delete(RateLimitCounter).where(RateLimitCounter.expires_at < now - 60))
            return s.execute(statement).scalar_one()

    def get(self, key: str) -> int:
        with self._db().sessions() as s:
            count = s.scalar(select(RateLimitCounter.count).where(RateLimitCounter.key == self._key(key),
                                                                  RateLimitCounter.expires_at > time.time()))
        return count or 0

    def get_expiry(self, key: str) -> float:
        with self._db().sessions() as s:
            expires = s.scalar(select(RateLimitCounter.expires_at).where(RateLimitCounter.key == self._key(key)))
        return expires if expires is not None else time.time()

    def check(self) -> bool:
        try:
            with self._db().sessions() as s:
                s.execute(text("SELECT 1"))
        except SQLAlchemyError:
            return False
        return True

    def reset(self) -> int | None:
        with self._db().transaction() as s:
            return s.execute(delete(RateLimitCounter)).rowcount

    def clear(self, key: str) -> None:
        with self._db().transaction() as s:
            s.execute(delete(RateLimitCounter).where(RateLimitCounter.key == self._key(key)))
