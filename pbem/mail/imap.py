"""The IMAP door: read new mail from a mailbox people already have (IMAPClient).

`poll` takes every message not yet marked as taken, hands it to inbound.receive and then
marks it: with the keyword $PbemTaken where the server allows keywords, else \\Seen. A
message is marked only after it was stored, so a crash means it is read again, and the
Message-ID check makes that harmless. A mail that cannot be read is stored as such and
marked like any other, so it never stands in the way of the mail after it; only when the
database is away does the poll stop, leaving the rest for the next poll. URL: imap://user:password@host[:port]/FOLDER or
imaps://... (PBEM_IMAP_URL).
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from imapclient import IMAPClient

from pbem.db import Database
from pbem.mail import inbound

TAKEN = b"$PbemTaken"
BATCH = 50


@dataclass(frozen=True)
class ImapTarget:
    host: str
    port: int
    tls: bool
    user: str
    password: str
    folder: str


def parse_imap_url(url: str) -> ImapTarget:
    parts = urlsplit(url)
    if parts.scheme not in ("imap", "imaps") or not parts.hostname or not parts.username:
        raise ValueError(f"The IMAP URL is imap[s]://USER:PASSWORD@HOST[:PORT]/FOLDER, not {url!r}")
    tls = parts.scheme == "imaps"
    return ImapTarget(parts.hostname, parts.port or (993 if tls else 143), tls, unquote(parts.username),
                      unquote(parts.password or ""), unquote(parts.path.lstrip("/")) or "INBOX")


def poll(db: Database, settings, url: str, limit: int = 500) -> list[inbound.Received]:
    """Take the new messages of the mailbox once; returns what became of each."""
    target = parse_imap_url(url)
    context = ssl.create_default_context() if target.tls else None
    results = []
    with IMAPClient(target.host, port=target.port, ssl=target.tls, ssl_context=context, timeout=60) as client:
        client.login(target.user, target.password)
        selected = client.select_folder(target.folder)
        flags = selected.get(b"PERMANENTFLAGS", ())
        mark = TAKEN if b"\\*" in flags or TAKEN in flags else b"\\Seen"
        criteria = ["NOT", "KEYWORD", TAKEN.decode()] if mark == TAKEN else ["UNSEEN"]
        uids = client.search(criteria)[:limit]
        for start in range(0, len(uids), BATCH):
            chunk = uids[start:start + BATCH]
            for uid, data in client.fetch(chunk, ["BODY.PEEK[]"]).items():
                raw = data.get(b"BODY[]")
                if raw is None:
                    continue
                results.append(inbound.receive(db, raw, settings))
                client.add_flags([uid], [mark])
    return results
