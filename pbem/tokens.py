"""Reply addresses: who may act in which game at which move, signed with the server secret.

A turn notification's Reply-To is `pbem+<game>.<seat>.<seq>.<mac>@<domain>`: the seat it
was sent to, the number of moves played when it was sent (so a late reply cannot act on a
later position) and an HMAC over those and the seat's nonce (so a changed nonce revokes
every token of the seat). Bounces come back to `pbem-bounce+<outbox id>.<mac>@<domain>`
(VERP), which names the notification that bounced. Only lowercase letters, digits, dots
and dashes are used, since some mail servers change the case of the local part.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from dataclasses import dataclass
from email.utils import getaddresses

LOCAL = "pbem"
BOUNCE_LOCAL = "pbem-bounce"
MAC_HEX = 20  # 80 bits: far beyond guessing by mail

_REPLY = re.compile(r"^pbem\+(\d{1,12})\.(\d{1,3})\.(\d{1,9})\.([0-9a-f]{%d})$" % MAC_HEX)
_BOUNCE = re.compile(r"^pbem-bounce\+(\d{1,12})\.([0-9a-f]{%d})$" % MAC_HEX)


@dataclass(frozen=True)
class ReplyToken:
    """A decoded reply address; `mac` is checked against the seat's nonce by `verify`."""

    game_id: int
    seat: int
    seq: int
    mac: str


def _mac(secret: str, *parts: object) -> str:
    message = ".".join(str(p) for p in parts).encode()
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()[:MAC_HEX]


def encode_reply(secret: str, domain: str, game_id: int, seat: int, seq: int, nonce: str) -> str:
    """The reply address of one seat for the turn after `seq` moves."""
    mac = _mac(secret, "reply", game_id, seat, seq, nonce)
    return f"{LOCAL}+{game_id}.{seat}.{seq}.{mac}@{domain}"


def decode_reply(address: str, domain: str) -> ReplyToken | None:
    """The token in a reply address of ours, or None when the address carries none."""
    local = _local_part(address, domain)
    match = _REPLY.match(local) if local else None
    if match is None:
        return None
    return ReplyToken(int(match[1]), int(match[2]), int(match[3]), match[4])


def verify(secret: str, token: ReplyToken, nonce: str) -> bool:
    """Whether the token was made by this server for this seat (constant-time comparison)."""
    expected = _mac(secret, "reply", token.game_id, token.seat, token.seq, nonce)
    return hmac.compare_digest(expected, token.mac)


def encode_bounce(secret: str, domain: str, outbox_id: int) -> str:
    """The envelope sender of one outgoing mail, so that its bounce names it."""
    return f"{BOUNCE_LOCAL}+{outbox_id}.{_mac(secret, 'bounce', outbox_id)}@{domain}"


def decode_bounce(secret: str, address: str, domain: str) -> int | None:
    """The outbox id a bounce address names, if its signature is ours."""
    local = _local_part(address, domain)
    match = _BOUNCE.match(local) if local else None
    if match is None or not hmac.compare_digest(_mac(secret, "bounce", match[1]), match[2]):
        return None
    return int(match[1])


def _local_part(address: str, domain: str) -> str | None:
    address = (address or "").strip().strip("<>").lower()
    local, at, host = address.rpartition("@")
    if not at or host != domain.lower():
        return None
    return local


def is_ours(address: str, domain: str) -> bool:
    """Whether mail to this address is for us: pbem, pbem+anything or pbem-bounce+anything at our domain."""
    local = _local_part(address, domain)
    if local is None:
        return False
    return local == LOCAL or local.startswith(LOCAL + "+") or local.startswith(BOUNCE_LOCAL + "+")


def plain_address(domain: str) -> str:
    return f"{LOCAL}@{domain}"


def find_addresses(values: list[str]) -> list[str]:
    """Every address in a list of header values or envelope addresses, lowercased."""
    return [addr.strip().lower() for _name, addr in getaddresses([v for v in values if v]) if "@" in addr]
