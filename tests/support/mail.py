"""Mail as a player handles it: the text of a mail, the moves it lists, a new mail or a reply.

The bots of tests/mail and of the soak read the service's mails the way a person does (the
plain text part, the list under "Your legal moves") and answer the way a mail client does
(Re: subject, In-Reply-To and References, the original quoted below). Sending is the
caller's: this module only composes bytes.
"""

from __future__ import annotations

from email import policy
from email.message import EmailMessage
from email.utils import make_msgid

from pbem.notify import wording


def text_of(message) -> str:
    """The plain text part of a parsed mail, with Unix line ends ("" when it has none)."""
    body = message.get_body(("plain",))
    return body.get_content().replace("\r\n", "\n") if body is not None else ""


def listed_moves(text: str) -> list[str]:
    """The moves a mail lists under 'Your legal moves', as a player would copy them."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith(wording.LEGAL_HEADER)), None)
    if start is None:
        return []
    moves = []
    for line in lines[start + 1:]:
        if not line.strip():
            break
        item = line.strip()
        if item.endswith(("moves):", "move):")) or item.startswith("..."):  # a group's heading
            continue
        moves.append(item)
    return moves


def client_mail(sender: str, to: str, subject: str, body: str, domain: str, reply_to=None,
                quote_lines: int | None = None) -> tuple[str, bytes]:
    """A mail as a mail client writes it, and its Message-ID (made up in `domain`).

    With `reply_to` (a parsed mail) it is a reply: threading headers, and the original's text
    quoted below the body (its first `quote_lines` lines, or all of it).
    """
    message = EmailMessage()
    message["From"] = sender
    message["To"] = to
    message["Subject"] = subject
    message_id = make_msgid(domain=domain)
    message["Message-ID"] = message_id
    text = body + "\n"
    if reply_to is not None:
        message["In-Reply-To"] = str(reply_to["Message-ID"])
        message["References"] = f"{reply_to['References'] or ''} {reply_to['Message-ID']}".strip()
        quoted = "\n".join("> " + line for line in text_of(reply_to).splitlines()[:quote_lines])
        text += f"\nOn {reply_to['Date']}, pbem <{to}> wrote:\n{quoted}\n"
    message.set_content(text)
    return message_id, message.as_bytes(policy=policy.SMTP)
