"""Mail that must never be answered: auto-replies, bounces, mailing-list traffic, forged senders.

Answering those is how mail loops start, so `classify` looks at every sign the common
senders give (RFC 3834 Auto-Submitted, Precedence, X-Autoreply and friends, an empty or
MAILER-DAEMON return path, delivery reports, out-of-office subjects). A bounce counts only
when it came back to a signed bounce address (pbem.tokens), which names the one mail and
recipient that bounced; `is_hard` says whether it failed for good or for now. `dmarc_failed`
reads the verdict the receiving MTA wrote into the topmost Authentication-Results header
(with authres, the RFC 8601 parser): a mail whose From failed DMARC was forged, and an
answer would go to the forged address.
"""

from __future__ import annotations

import re
from email.message import Message
from email.utils import parseaddr

import authres
import authres.dmarc  # noqa: F401 - registers the dmarc method with the parser

from pbem.mail.text import header_text

_OUT_OF_OFFICE = re.compile(
    r"^\s*(auto(matic)?[ -]?(reply|response|antwort)|auto:|out of (the )?office|ooo\b|abwesenheit|"
    r"(r[ée]ponse|message) automatique|absence|away from (my|the) (desk|office)|on vacation|vacation|"
    r"urlaub|risposta automatica|respuesta autom[áa]tica|automatisch antwoord|autosvar|i am (currently )?"
    r"(out|away))", re.I)
_DAEMONS = ("mailer-daemon", "postmaster", "mail-daemon", "mailerdaemon")


def _is_daemon(address: str) -> bool:
    return address.split("@", 1)[0].lower() in _DAEMONS


def classify(message: Message, envelope_from: str | None = None) -> str | None:
    """'bounce', 'auto_reply' or 'list' for mail that must not be answered; None for a person's mail."""
    content_type = message.get_content_type()
    return_path = message.get("Return-Path")
    sender = parseaddr(str(message.get("From") or ""))[1]
    if content_type == "multipart/report" or message.get("X-Failed-Recipients"):
        return "bounce"
    if envelope_from is not None and envelope_from.strip("<> ") == "" or _is_daemon(envelope_from or "x@"):
        return "bounce"
    if return_path is not None and (str(return_path).strip("<> \t") == "" or _is_daemon(
            parseaddr(str(return_path))[1] or "x@")):
        return "bounce"
    if sender and _is_daemon(sender):
        return "bounce"
    auto = str(message.get("Auto-Submitted") or "").strip().lower()
    if auto and auto != "no":
        return "auto_reply"
    for header in ("X-Autoreply", "X-Autorespond", "X-Auto-Reply"):
        if message.get(header) is not None:
            return "auto_reply"
    if str(message.get("X-Auto-Response-Suppress") or "").strip().lower() in ("oof", "all") and \
            _OUT_OF_OFFICE.match(header_text(message, "Subject")):
        return "auto_reply"
    precedence = str(message.get("Precedence") or "").strip().lower()
    if precedence in ("bulk", "junk", "list", "auto_reply"):
        return "list" if precedence == "list" else "auto_reply"
    if message.get("List-Id") is not None or message.get("List-Post") is not None:
        return "list"
    if _OUT_OF_OFFICE.match(header_text(message, "Subject")):
        return "auto_reply"
    return None


def dmarc_failed(message: Message) -> bool:
    """Whether the topmost Authentication-Results header (the one our own MTA added) says dmarc=fail.

    The MTA in front of pbem checks SPF, DKIM and DMARC and removes such headers that come
    from outside (docs/security.md); a header it cannot parse says nothing.
    """
    value = message.get("Authentication-Results")
    if value is None:
        return False
    try:
        header = authres.AuthenticationResultsHeader.parse_value(" ".join(str(value).split()))
    except authres.AuthResError:
        return False
    return any(result.method == "dmarc" and str(result.result).lower() == "fail" for result in header.results)


_STATUS = re.compile(r"^\s*Status:\s*([245])\.\d{1,3}\.\d{1,3}", re.I | re.M)


def is_hard(message: Message) -> bool:
    """A permanent failure (DSN status 5.x.x, or no status at all) rather than a delay (4.x.x)."""
    for part in message.walk():
        if part.get_content_type() in ("message/delivery-status", "text/plain"):
            payload = part.get_payload(decode=False)
            text = payload if isinstance(payload, str) else " ".join(str(p) for p in payload or [])
            match = _STATUS.search(text)
            if match:
                return match[1] == "5"
    return True
