"""Links put into mails: signed tokens, and the account mails that carry them.

A link is a signed token (itsdangerous, keyed with the server secret, salted with its
purpose): a sign-up token names the address and the pending row's nonce (`signup`), a reset
token the user and a digest of the password hash it replaces, so it works once
(`passwords`), and a log-in link's token the user and a random key whose SHA-256 is a
`LoginLink` row, deleted when the link is used (`sessions`). What the token proves is checked
by its module against the database; here it is only read (`load_token`), and a link that
expired or is not one of ours is an AccountError that says which. The mails go through the
outbox (kinds "verify", "reset" and "login", pbem.notify.outbox).
"""

from __future__ import annotations

from dataclasses import dataclass

from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer
from sqlalchemy.orm import Session

from pbem.accounts.users import AccountError
from pbem.i18n import N_
from pbem.notify import outbox


@dataclass(frozen=True)
class Links:
    """How to build the links put into mails: the site's base URL."""

    base_url: str


def serializer(secret: str, purpose: str) -> URLSafeTimedSerializer:
    """The signer of one purpose's links ("signup", "reset", "login"): a token of one purpose is no other's."""
    # The salt is in every link mailed so far: changing it would kill them all.
    return URLSafeTimedSerializer(secret, salt=f"pbem.accounts.{purpose}")


# What is wrong with a link, by its purpose: it expired (and what to do), or it is not one of ours.
LINK_EXPIRED = {"signup": N_("This sign-up link has expired; sign up again."),
                "reset": N_("This reset link has expired; ask for a new one."),
                "login": N_("This log-in link has expired; ask for a new one.")}
LINK_INVALID = {"signup": N_("This sign-up link is not valid."), "reset": N_("This reset link is not valid."),
                "login": N_("This log-in link is not valid.")}


def load_token(secret: str, purpose: str, token: str, max_age: int) -> dict:
    """The signed data of a link's token, or AccountError saying that it expired or is not valid."""
    try:
        data = serializer(secret, purpose).loads(token, max_age=max_age)
    except SignatureExpired:
        raise AccountError(LINK_EXPIRED[purpose]) from None
    except BadSignature:
        raise AccountError(LINK_INVALID[purpose]) from None
    if not isinstance(data, dict):
        raise AccountError(LINK_INVALID[purpose])
    return data


def queue_mail(s: Session, address: str, user_id: int | None, kind: str, subject: str, body: str,
               language: str) -> None:
    """Queue an account's mail in the caller's transaction: it goes out once that commits."""
    outbox.queue(s, kind=kind, recipient=address, user_id=user_id, subject=subject, body=body, language=language)
