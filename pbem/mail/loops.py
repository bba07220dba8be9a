"""Mail that must never be answered: auto-replies, bounces, mailing-list traffic, forged senders.

Answering those is how mail loops start, so `classify` looks at every sign the common
senders give (RFC 3834 Auto-Submitted, Precedence, X-Autoreply and friends, an empty or
MAILER-DAEMON return path, delivery reports, out-of-office subjects). A bounce counts only
when it came back to a signed bounce address (pbem.mailkeys), which names the one mail and
recipient that bounced; `bounce_kind` says whether it failed for good because the mailbox is not
there (hard), for now (soft), or was refused for another reason (a policy, a spam filter), which
says nothing of the address and is reported rather than counted. `dmarc_failed`
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
import re2

from pbem.mail.mime import header_text

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


# RFC 3463's enhanced status codes: class.subject.detail. Matched with RE2 (linear, whatever a
# bounce's text holds: a backtracking "^\s*Status:" was quadratic in blank lines).
_DSN_STATUS = re2.compile(r"(?im)^[ \t]*Status:[ \t]*([245]\.\d{1,3}\.\d{1,3})")
_ANY_STATUS = re2.compile(r"\b([245]\.\d{1,3}\.\d{1,3})\b")
# Subjects of a permanent failure that say the mailbox is not there or cannot take mail: 5.1.x
# (bad destination address) and 5.2.x (mailbox status). Every other 5.x.x (a policy: 5.7.x, spam
# filters among them; content; the system or network of the receiving side) says nothing of the
# address, so it never stops the notifications to it: it is reported instead.
HARD_SUBJECTS = ("1", "2")


def bounce_status(message: Message) -> str | None:
    """The enhanced status code a bounce reports: its DSN's Status field, else the first such code in
    its text parts; None when it has none."""
    found = None
    for part in message.walk():
        if part.get_content_type() not in ("message/delivery-status", "text/plain"):
            continue
        payload = part.get_payload(decode=False)
        text = payload if isinstance(payload, str) else " ".join(str(p) for p in payload or [])
        match = _DSN_STATUS.search(text)
        if match:
            return match.group(1)
        if found is None:
            match = _ANY_STATUS.search(text)
            found = match.group(1) if match else None
    return found


def refusal_status(text: str) -> str | None:
    """The enhanced status code at the head of an SMTP server's refusal ("5.1.1 User unknown"), or None."""
    match = _ANY_STATUS.search(text[:200])
    return match.group(1) if match else None


def bounce_kind(status: str | None) -> str:
    """'hard' (5.1.x, 5.2.x: the mailbox is not there or cannot take mail), 'soft' (4.x.x: a delay) or
    'refused' (any other 5.x.x, or no status: a refusal that says nothing of the mailbox). Only a hard
    bounce counts toward stopping an address's notifications."""
    if status is None:
        return "refused"
    kind, subject = status.split(".")[:2]
    if kind != "5":
        return "soft"
    return "hard" if subject in HARD_SUBJECTS else "refused"
