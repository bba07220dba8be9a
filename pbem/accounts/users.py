"""Users: the account row, its address, and what its owner chose (name, notifications, time zone, language).

A user with an address and no password is an account that plays by mail (made by the first
mail or invitation that names the address, `get_or_create_user`); the password, the web
sessions, the API tokens and the rules for names (`names`) are the other modules of this
package. `AccountError` (pbem.accounts.errors, named here too) is the refusal of every module here.
"""

from __future__ import annotations

import re
import zoneinfo

from sqlalchemy import select
from sqlalchemy.orm import Session

from pbem import i18n
from pbem.accounts import names
from pbem.accounts.errors import AccountError
from pbem.db import Database
from pbem.i18n import N_
from pbem.models import ApiToken, User, WebSession

NOTIFY_CHOICES = ("every", "turn", "digest", "none")
EMAIL_RE = re.compile(r"^[^@\s<>()\[\],;:\"]{1,64}@[A-Za-z0-9.-]{1,253}\.[A-Za-z0-9-]{2,63}$")


def normalize_email(email: str) -> str:
    """The address as accounts keep it (trimmed, lower case), or AccountError if it is not an address."""
    address = (email or "").strip().lower()
    if not EMAIL_RE.match(address) or len(address) > 320:
        raise AccountError(N_("%(address)s is not an email address."), address=repr(email))
    return address


def get_or_create_user(s: Session, email: str, display_name: str | None = None) -> User:
    """The user with this address, made (unconfirmed, without a password) if there is none.

    A new user's name is `display_name` (a mail's From display name) made valid, else the
    address's local part, with a number after it if another user has it or one like it
    (pbem.accounts.names.propose); `/name` and the settings page change it.
    """
    address = email.strip().lower()
    user = s.scalars(select(User).where(User.email == address)).first()
    if user is None:
        user = User(email=address, **names.columns(names.propose(s, display_name, address.split("@")[0])))
        s.add(user)
        s.flush()
    return user


def ensure_user(db: Database, email: str, display_name: str | None = None) -> int:
    """The id of the user with this address, made if there is none (the CLI, tests and benches)."""
    with db.transaction() as s:
        return get_or_create_user(s, email, display_name).id


def get_user(db: Database, user_id: int) -> User | None:
    """The user row (detached: read its columns only), or None."""
    with db.sessions() as s:
        return s.get(User, user_id)


def update_settings(db: Database, user_id: int, *, display_name: str, notify: str, timezone: str,
                    from_check: bool) -> None:
    """Change one user's own settings (the caller has made sure it is that user).

    The bank of vacation days is not among them: a player who could refill it would never
    be late (it is filled by pbem.schedule.absences.set_vacation_days). The name keeps the rules of
    pbem.accounts.names (a DisplayNameError says which it breaks, or that it is taken); a new
    one is taken by the user's seats at open and running tables too.
    """
    if notify not in NOTIFY_CHOICES:
        raise AccountError(N_("Notifications are one of %(choices)s."), choices=", ".join(NOTIFY_CHOICES))
    if timezone not in zoneinfo.available_timezones():
        raise AccountError(N_("%(zone)s is not a time zone name such as Europe/Berlin."), zone=repr(timezone))
    with db.transaction() as s:
        user = s.get(User, user_id)
        if user is None:
            raise AccountError(N_("There is no such user."))
        if user.display_name != display_name or user.name_key is None:
            names.rename(s, user, display_name)
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


def delete_own(db: Database, model: type[WebSession] | type[ApiToken], user_id: int, row_id: int) -> bool:
    """Delete one row of the user's own (a session, an API token); False if they have none with that id."""
    with db.transaction() as s:
        row = s.get(model, row_id)
        if row is None or row.user_id != user_id:
            return False
        s.delete(row)
        return True
