"""Budgets of inbound mail that only their owner can spend (issue 31, item 3).

A From header proves nothing, so mails are not counted against the address they claim to
come from alone. Each mail is counted, in the transaction that stores it, against one budget
of PBEM_MAIL_RATE_PER_HOUR mails in a one-hour window:

- a mail through a valid key against the key's owner (`key:<user id>`): only someone who holds
  one of their keys can spend it, so a player's move is never refused because strangers wrote;
- any other mail against its sender as written (`from:<address>`), unproven, and also against
  the budget of all unproven mail of the site (`unproven`, PBEM_MAIL_UNPROVEN_PER_HOUR).

Over a budget, a mail is not read (`rate_limited`); the owner of a key budget gets one notice
a window, an unproven sender none. The answers that unproven mails cause to a registered
address (a read-only answer, a request to confirm, a refusal) go out at most once an
ANSWER_PERIOD (`may_answer`); the next one that goes says how many were dropped, so a stranger
who writes a player's From makes at most one mail an ANSWER_PERIOD reach them.
"""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import bindparam, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from pbem.models import MailBudget, utcnow

WINDOW = timedelta(hours=1)
ANSWER_PERIOD = timedelta(minutes=15)

# Every stored mail is counted: the statements are built once.
_BUDGETS = MailBudget.__table__
_NEW = insert(_BUDGETS)
_READ = select(_BUDGETS.c.window_start, _BUDGETS.c.count, _BUDGETS.c.noticed, _BUDGETS.c.carried).where(
    _BUDGETS.c.name == bindparam("key")).with_for_update()
_WRITE = update(_BUDGETS).where(_BUDGETS.c.name == bindparam("key")).values(
    window_start=bindparam("start"), count=bindparam("count"), noticed=bindparam("noticed"),
    carried=bindparam("carried"))


def of_key(user_id: int) -> str:
    return f"key:{user_id}"


def of_sender(address: str) -> str:
    return f"from:{address.strip().lower()}"


UNPROVEN = "unproven"


def answers_to(address: str) -> str:
    return f"answers:{address.strip().lower()}"


def _read(s: Session, name: str):
    row = s.execute(_READ, {"key": name}).first()
    if row is None:
        try:  # made once per budget; a savepoint guards a concurrent first mail
            with s.begin_nested():
                s.execute(_NEW, {"name": name, "count": 0, "noticed": False, "carried": 0})
        except IntegrityError:
            pass
        row = s.execute(_READ, {"key": name}).one()
    return row


def spend(s: Session, name: str, limit: int, window: timedelta = WINDOW) -> str:
    """Count one mail against the budget `name`: 'ok', 'notice' (the first one over `limit` in the
    window) or 'quiet' (over it again). Runs in the caller's transaction. A budget of something else
    than mails (the invitations /invite sends) may have a `window` of its own."""
    start, count, noticed, carried = _read(s, name)
    now = utcnow()
    if start is None or now - start >= window:
        start, count, noticed = now, 0, False
    count += 1
    verdict = "ok" if count <= limit else ("quiet" if noticed else "notice")
    s.execute(_WRITE, {"key": name, "start": start, "count": count, "noticed": noticed or verdict == "notice",
                       "carried": carried})
    return verdict


def count(s: Session, user_id: int | None, sender: str, settings) -> str:
    """Count one mail from a person: against the key's owner when it came through a valid key of
    `user_id`, else against the unproven sender and the site's unproven mail. A verdict of `spend`;
    over an unproven budget always 'quiet' (nobody proven to tell)."""
    if user_id is not None:
        return spend(s, of_key(user_id), settings.mail_rate_per_hour)
    own = spend(s, of_sender(sender), settings.mail_rate_per_hour)
    site = spend(s, UNPROVEN, settings.mail_unproven_per_hour)
    return "ok" if own == site == "ok" else "quiet"


def may_answer(s: Session, address: str) -> tuple[bool, int]:
    """Whether an answer that an unproven mail causes may go to the registered `address` now (one an
    ANSWER_PERIOD), and if so how many such answers were dropped since the last one that went."""
    name = answers_to(address)
    start, dropped, noticed, carried = _read(s, name)
    now = utcnow()
    if start is not None and now - start < ANSWER_PERIOD:
        s.execute(_WRITE, {"key": name, "start": start, "count": dropped + 1, "noticed": noticed,
                           "carried": carried})
        return False, 0
    s.execute(_WRITE, {"key": name, "start": now, "count": 0, "noticed": noticed, "carried": dropped})
    return True, dropped
