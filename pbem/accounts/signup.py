"""Sign-up: a pending row and a mailed link; the account is made only when the link is opened.

A web sign-up is a pending row (address, name, password hash, nonce), not an account: the
account, with that password, is made only when the link mailed to the address is opened
and the password chosen at sign-up is typed again there. So confirming an address by mail
(`/confirm`, a reply with a key: pbem.mail) never activates a password set by someone else,
and a stranger who signs up with somebody's address gets nothing, even if the owner clicks
the link. Each pending sign-up's link stays valid until it is used or expires
(SIGNUP_MAX_AGE): a later sign-up for the same address, a stranger's perhaps, adds a row and
kills no earlier link; an address has at most MAX_PENDING_SIGNUPS of them. The account made
from one drops the others.

Signing up with an address that has an account does the same work and answers the same as
with one that has none (an argon2 hash on every sign-up); the owner of the account gets a
mail with a reset link instead. The sign-up's mail, to an address without an account, is in
the language of the browser that signed up, and the display name in it is quoted as data,
cleaned by `quoted_name` (whoever typed it may be a stranger; invitations quote names so too).

The name keeps the rules of pbem.accounts.names and must be free when the sign-up is made (a
DisplayNameError says why not, before anything is stored or hashed); a pending sign-up does not
hold it, so if another account took it (or one like it) before the link was opened, the account
gets it with a number after it ("Anna 2"), which the settings page changes.
"""

from __future__ import annotations

import re
import secrets
import unicodedata
from datetime import timedelta

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from pbem import i18n
from pbem.accounts import names
from pbem.accounts.links import LINK_EXPIRED, Links, load_token, queue_mail, serializer
from pbem.accounts.passwords import RESET_REASONS, check_password_rules, hash_password, password_matches, reset_mail
from pbem.accounts.users import AccountError, normalize_email
from pbem.db import Database
from pbem.i18n import N_
from pbem.models import PendingSignup, User, utcnow

SIGNUP_MAX_AGE = 24 * 3600
# Pending sign-ups one address may have at once: each link stays valid until used or expired, so a stranger's
# sign-ups cannot kill the owner's; this bounds the rows (sign-ups are also limited per address: pbem.web.ratelimit).
MAX_PENDING_SIGNUPS = 10
QUOTED_NAME_CHARS = 40  # a display name quoted in a mail to an address that may have no account
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
    with db.sessions() as s:  # the same check whether the address has an account or not
        name = names.valid_name(s, display_name)
    password_hash = hash_password(password)
    now = utcnow()
    with db.transaction() as s:
        user = s.scalars(select(User).where(User.email == address)).first()
        if user is not None:
            # An account's address is not open to sign-ups: pending ones made before the account are dropped.
            s.execute(delete(PendingSignup).where(PendingSignup.email == address))
            reset_mail(s, user, secret, links, RESET_REASONS["sign-up"])
            return
        s.execute(delete(PendingSignup).where(PendingSignup.created_at < now - timedelta(seconds=SIGNUP_MAX_AGE)))
        waiting = s.scalar(select(func.count()).select_from(PendingSignup).where(PendingSignup.email == address))
        t = i18n.texts(language)  # the browser's: the address has no account whose language could be asked
        if waiting >= MAX_PENDING_SIGNUPS:
            # The earlier links stay valid (a stranger's sign-ups must not kill the owner's): this one waits.
            queue_mail(s, address, None, "verify", "[pbem] " + t.gettext("your sign-up"),
                       t.gettext("Hello,\n\nsomeone (perhaps you) tried to sign up to pbem with this address, but "
                                 "%(most)d sign-ups with it are waiting for their links already, as many as we keep. "
                                 "If one of them is yours, open the link in its mail. A sign-up waits 24 hours at "
                                 "most; after that you can sign up again.", most=MAX_PENDING_SIGNUPS), language)
            return
        pending = PendingSignup(email=address, display_name=name, password_hash=password_hash, language=language,
                                nonce=secrets.token_hex(16), created_at=now)
        s.add(pending)
        s.flush()
        token = serializer(secret, "signup").dumps({"e": address, "n": pending.nonce})
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
        queue_mail(s, address, None, "verify", "[pbem] " + t.gettext("confirm your sign-up"), body, language)


def _pending_of(s: Session, token: str, secret: str) -> PendingSignup:
    data = load_token(secret, "signup", token, SIGNUP_MAX_AGE)
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
        if not password_matches(pending.password_hash, password):
            raise AccountError(N_("That is not the password chosen at sign-up."))
        user = s.scalars(select(User).where(User.email == pending.email)).first()
        if user is not None and user.password_hash:
            s.delete(pending)
            raise AccountError(N_("This address has an account with a password already: log in, or use 'forgot "
                                  "password'."))
        if user is None:
            # Free at sign-up; if it was taken since, with a number after it.
            user = User(email=pending.email, **names.columns(names.propose(s, pending.display_name,
                                                                           pending.email.split("@")[0])),
                        language=i18n.normalize(pending.language) or i18n.DEFAULT)
            s.add(user)
        user.password_hash = pending.password_hash
        user.email_verified = True  # the link came through the address
        # The address has an account now: no other pending sign-up can make one (a stranger's are dead).
        s.execute(delete(PendingSignup).where(PendingSignup.email == pending.email))
        s.flush()
        return user.id
