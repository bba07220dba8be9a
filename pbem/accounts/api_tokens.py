"""API tokens: bearer tokens for bots and scripts (the JSON API, pbem.web.api).

A token is shown once, when it is made, and stored only as its SHA-256; its owner lists and
revokes their own, and a password reset revokes all of them (`passwords.reset_password`).
"""

from __future__ import annotations

import hashlib
import secrets

from sqlalchemy import select

from pbem.accounts.users import delete_own
from pbem.db import Database
from pbem.models import ApiToken, utcnow

TOKEN_PREFIX = "pbem_"


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
    return delete_own(db, ApiToken, user_id, token_id)


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
