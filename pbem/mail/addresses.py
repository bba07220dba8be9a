"""What the mail layer knows of an address: its bounces and its confirmation code.

Only bounces that came back to a signed bounce address are counted (pbem.mail.inbound).
After HARD_BOUNCE_LIMIT hard bounces, notifications to an address stop (the outbox marks
them suppressed) until the player resumes them (the settings page or `/notify resume`,
both `resume`) or the sweep tries the address again after some days (`retry_suppressed`):
then one more hard bounce stops them again. The web page reads `mail_status`. The mails an
address sends are counted by pbem.mail.budgets.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from pbem.models import MailAddress, utcnow

HARD_BOUNCE_LIMIT = 3
VERIFY_RESEND = timedelta(hours=1)
CODE_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"  # no 0/o, 1/l/i to misread

def _row(s: Session, address: str, lock: bool = True) -> MailAddress:
    """The address's row, created if missing, locked for this transaction."""
    address = address.strip().lower()
    query = select(MailAddress).where(MailAddress.address == address)
    row = s.scalars(query.with_for_update() if lock else query).first()
    if row is None:
        try:
            with s.begin_nested():  # a savepoint: a concurrent first mail may insert the same row
                s.add(MailAddress(address=address, hard_bounces=0, soft_bounces=0, window_count=0,
                                  flood_noticed=False))
        except IntegrityError:
            pass
        row = s.scalars(query.with_for_update() if lock else query).first()
    return row


def record_bounce(s: Session, address: str, hard: bool, detail: str) -> bool:
    """Count one bounce of our mail to `address`; True when notifications to it stop now."""
    row = _row(s, address)
    row.last_bounce_at = utcnow()
    row.last_bounce = detail[:2000]
    if not hard:
        row.soft_bounces += 1
        return False
    row.hard_bounces += 1
    if row.hard_bounces >= HARD_BOUNCE_LIMIT and row.stopped_at is None:
        row.stopped_at = utcnow()
        return True
    return False


def retry_suppressed(s: Session, after: timedelta) -> list[str]:
    """Send notifications again to addresses stopped longer than `after` ago; returns them.

    The address keeps all but one of its hard bounces: the next one stops it again at once.
    """
    rows = list(s.scalars(select(MailAddress).where(MailAddress.stopped_at < utcnow() - after)
                          .with_for_update()))
    for row in rows:
        row.stopped_at = None
        row.hard_bounces = HARD_BOUNCE_LIMIT - 1
    return [row.address for row in rows]


def is_stopped(s: Session, address: str) -> bool:
    row = s.get(MailAddress, address.strip().lower())
    return row is not None and row.stopped_at is not None


def mail_status(s: Session, address: str, retry_after: timedelta | None = None) -> dict:
    """For the web page: whether mail to the address stopped, why, and (with `retry_after`, the
    setting PBEM_SUPPRESSION_RETRY_DAYS) when it is tried again by itself."""
    row = s.get(MailAddress, address.strip().lower())
    if row is None:
        return {"stopped": False, "hard_bounces": 0, "soft_bounces": 0, "last_bounce": None, "since": None,
                "retry": None}
    retry = row.stopped_at + retry_after if row.stopped_at is not None and retry_after is not None else None
    return {"stopped": row.stopped_at is not None, "hard_bounces": row.hard_bounces,
            "soft_bounces": row.soft_bounces, "last_bounce": row.last_bounce,
            "since": _stamp(row.stopped_at), "retry": _stamp(retry)}


def _stamp(at) -> str | None:
    return at.isoformat(timespec="seconds") + "Z" if at is not None else None


def resume(s: Session, address: str) -> None:
    """Send notifications to the address again (the player says it works now)."""
    row = _row(s, address)
    row.stopped_at = None
    row.hard_bounces = 0


def _hash(code: str) -> str:
    return hashlib.sha256(code.strip().lower().encode()).hexdigest()


def new_code(s: Session, address: str) -> str | None:
    """A fresh confirmation code for the address, or None if one was sent within the hour."""
    row = _row(s, address)
    now = utcnow()
    if row.verify_sent_at is not None and now - row.verify_sent_at < VERIFY_RESEND:
        return None
    code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(8))
    row.verify_hash, row.verify_sent_at = _hash(code), now
    return code


def check_code(s: Session, address: str, code: str) -> bool:
    """Whether `code` is the address's confirmation code (used once)."""
    row = _row(s, address)
    if row.verify_hash is None or not hmac.compare_digest(row.verify_hash, _hash(code)):
        return False
    row.verify_hash = None
    return True
