"""Mail keys: addresses that say who may do what, signed with the server secret (docs/security.md).

- A **turn key** `pbem+<game>.<seat>.<seq>.<mac>@<domain>` is the Reply-To of a turn mail:
  the seat it was sent to and the number of moves played when it was sent. It acts only on
  that game, that seat and that turn: every command through it is checked against `seq`.
- A **command key** `pbem+u<user>.<mac>@<domain>` is the user's own address for commands
  about their account and tables (shown in every mail pbem sends them).
- A **request key** `pbem+r<inbound id>.<user>.<mac>@<domain>` is the Reply-To of the answer
  to a mail without a key that asked for a change: replying to it runs that stored mail once.
- A **talk key** `pbem+m<message>.<user>.<mac>@<domain>` is the Reply-To of a message of the table
  talk (pbem.talk) mailed to a player: replying to it answers that conversation (the same readers),
  as that user; it moves nothing and reaches no turn.
- A **bounce address** `pbem-bounce+<outbox id>.<mac>@<domain>` (VERP) is the envelope sender
  of every mail we send, so a bounce names the mail that bounced.

Each mac is an HMAC-SHA256 (80 bits shown) over the key's purpose, its fields and the owner's
nonce (the seat's for a turn key, the user's for command and request keys), so changing a nonce
revokes every key made with it. Only lowercase letters, digits, dots and dashes are used, since
some mail servers change the case of the local part. This module only makes and reads keys;
what a key may do is decided by pbem.mail.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from email.utils import getaddresses

LOCAL = "pbem"
BOUNCE_LOCAL = "pbem-bounce"
MAC_HEX = 20  # 80 bits: far beyond guessing by mail

_REPLY = re.compile(r"^pbem\+(\d{1,12})\.(\d{1,3})\.(\d{1,9})\.([0-9a-f]{%d})$" % MAC_HEX)
_COMMAND = re.compile(r"^pbem\+u(\d{1,12})\.([0-9a-f]{%d})$" % MAC_HEX)
_REQUEST = re.compile(r"^pbem\+r(\d{1,12})\.(\d{1,12})\.([0-9a-f]{%d})$" % MAC_HEX)
_TALK = re.compile(r"^pbem\+m(\d{1,12})\.(\d{1,12})\.([0-9a-f]{%d})$" % MAC_HEX)
_BOUNCE = re.compile(r"^pbem-bounce\+(\d{1,12})\.([0-9a-f]{%d})$" % MAC_HEX)


@dataclass(frozen=True)
class ReplyToken:
    """A decoded turn key; `mac` is checked against the seat's nonce by `verify`."""

    game_id: int
    seat: int
    seq: int
    mac: str


@dataclass(frozen=True)
class CommandKey:
    """A decoded command key; `mac` is checked against the user's nonce by `verify_command`."""

    user_id: int
    mac: str


@dataclass(frozen=True)
class RequestKey:
    """A decoded request key: the stored mail it confirms and its user (`verify_request` checks it)."""

    inbound_id: int
    user_id: int
    mac: str


@dataclass(frozen=True)
class TalkKey:
    """A decoded talk key: the message its mail carried and the user it was mailed to (`verify_talk`)."""

    message_id: int
    user_id: int
    mac: str


Key = ReplyToken | CommandKey | RequestKey | TalkKey


def new_nonce() -> str:
    """A fresh nonce for a user's or a seat's keys."""
    return secrets.token_hex(16)


def _mac(secret: str, *parts: object) -> str:
    message = ".".join(str(p) for p in parts).encode()
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()[:MAC_HEX]


def encode_reply(secret: str, domain: str, game_id: int, seat: int, seq: int, nonce: str) -> str:
    """The turn key of one seat for the turn after `seq` moves."""
    mac = _mac(secret, "reply", game_id, seat, seq, nonce)
    return f"{LOCAL}+{game_id}.{seat}.{seq}.{mac}@{domain}"


def decode_reply(address: str, domain: str) -> ReplyToken | None:
    """The turn key in an address of ours, or None when the address carries none."""
    key = decode(address, domain)
    return key if isinstance(key, ReplyToken) else None


def verify(secret: str, token: ReplyToken, nonce: str) -> bool:
    """Whether the turn key was made by this server for this seat (constant-time comparison)."""
    expected = _mac(secret, "reply", token.game_id, token.seat, token.seq, nonce)
    return hmac.compare_digest(expected, token.mac)


def encode_command(secret: str, domain: str, user_id: int, nonce: str) -> str:
    """The command address of one user."""
    return f"{LOCAL}+u{user_id}.{_mac(secret, 'command', user_id, nonce)}@{domain}"


def verify_command(secret: str, key: CommandKey, nonce: str) -> bool:
    return hmac.compare_digest(_mac(secret, "command", key.user_id, nonce), key.mac)


def encode_request(secret: str, domain: str, inbound_id: int, user_id: int, nonce: str) -> str:
    """The address that confirms one stored mail of one user."""
    return f"{LOCAL}+r{inbound_id}.{user_id}.{_mac(secret, 'request', inbound_id, user_id, nonce)}@{domain}"


def verify_request(secret: str, key: RequestKey, nonce: str) -> bool:
    return hmac.compare_digest(_mac(secret, "request", key.inbound_id, key.user_id, nonce), key.mac)


def encode_talk(secret: str, domain: str, message_id: int, user_id: int, nonce: str) -> str:
    """The address that answers one conversation of the table talk, as one user."""
    return f"{LOCAL}+m{message_id}.{user_id}.{_mac(secret, 'talk', message_id, user_id, nonce)}@{domain}"


def verify_talk(secret: str, key: TalkKey, nonce: str) -> bool:
    return hmac.compare_digest(_mac(secret, "talk", key.message_id, key.user_id, nonce), key.mac)


def decode(address: str, domain: str) -> Key | None:
    """The key an address of ours carries (its form only: the mac is checked by the verify functions)."""
    local = _local_part(address, domain)
    if not local:
        return None
    match = _REPLY.match(local)
    if match:
        return ReplyToken(int(match[1]), int(match[2]), int(match[3]), match[4])
    match = _COMMAND.match(local)
    if match:
        return CommandKey(int(match[1]), match[2])
    match = _REQUEST.match(local)
    if match:
        return RequestKey(int(match[1]), int(match[2]), match[3])
    match = _TALK.match(local)
    if match:
        return TalkKey(int(match[1]), int(match[2]), match[3])
    return None


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
