"""From raw bytes to the lines a player wrote: MIME parsing with limits, HTML and quote removal.

The parser is Python's `email` package. HTML-only mails lose their quote blocks (Gmail's
gmail_quote, Outlook's divRplyFwdMsg, Thunderbird's and Apple's blockquote type=cite)
with lxml before inscriptis turns them into text. In the text, what the player wrote is
found by pbem.mail.quotes (quote headers, forward headers, signatures and phone footers of
fifteen languages). What this module does not do: decide what the lines mean (see commands.py).
"""

from __future__ import annotations

import email.errors
import itertools
from email import policy
from email.header import decode_header, make_header
from email.message import Message
from email.parser import BytesParser

from pbem.i18n import N_
from pbem.mail import quotes
from pbem.reasons import Refusal

MAX_PARTS = 64  # a game mail has 1 to 4; more is a MIME bomb or a mail with many attachments
MAX_DEPTH = 8
MAX_TEXT_CHARS = 100_000
# Every header's value is cut to this before anything reads it (RFC 2047 decoding and address
# parsing cost more than linear time: 50,000 encoded words took 11 s to decode); a real header is
# far shorter, a long References header of a thread included.
MAX_HEADER_CHARS = 4_000
MAX_HEADER_FIELDS = 1_000  # in all parts together; a mail has 20 to 200 (every Received and DKIM line)
# Of an HTML part only this much is parsed: what a player wrote stands at the top, and parsing with
# the removal of quotes costs about 0.2 s of CPU per megabyte (an 8.5 MB mail took 9 s before a cap).
MAX_HTML_CHARS = 100_000
# Of what is left of the HTML once the quoted mail is removed, inscriptis lays out at most this many
# elements (about 10 microseconds each): a reply has tens, our own turn mail quoted a handful.
MAX_HTML_ELEMENTS = 500
# Elements that hold quoted mail or signatures in the HTML of common clients (by tag, class or id),
# and the markers after which the client puts the quote (the marker and what follows it in the same
# parent is dropped). One XPath union: one walk of the tree, not one per form.
_TAIL_MARKERS = ("divRplyFwdMsg", "appendonsend", "mail-editor-reference-message-container", "stopSpelling")
_HTML_QUOTES = "|".join((
    "//blockquote",
    "//*[@class and (" + " or ".join(f"contains(@class, '{name}')" for name in (
        "gmail_quote", "gmail_signature", "moz-cite-prefix", "moz-signature", "yahoo_quoted", "protonmail_quote",
        "protonmail_signature_block")) + ")]",
    "//*[" + " or ".join(f"@id='{name}'" for name in ("Signature", "ms-outlook-mobile-signature", *_TAIL_MARKERS))
    + "]",
))


class MalformedMailError(Refusal):
    """A message that cannot be read as mail, or one over the limits; the message says which (in
    the reader's language: `error.text(language)`)."""


class _BoundedHeaders(policy.Compat32):
    """compat32 (headers stay raw strings until asked for; policy.default parses every header on each
    access, which costs more than the rest of the reading together), with every header's value cut
    to MAX_HEADER_CHARS where the parser stores it, so no decoder or address parser ever reads more,
    and with the parsing stopped at the first field over MAX_HEADER_FIELDS (in all parts together)
    when `fields_read` counts them: each parse clones the policy with a counter of its own."""

    fields_read: list[int] | None = None

    def header_source_parse(self, sourcelines):
        if self.fields_read is not None:
            self.fields_read[0] += 1
            if self.fields_read[0] > MAX_HEADER_FIELDS:
                raise MalformedMailError(N_("The message has too many header fields (the limit is %(most)d)."),
                                         most=MAX_HEADER_FIELDS)
        name, value = super().header_source_parse(sourcelines)
        return name, value[:MAX_HEADER_CHARS]


_POLICY = _BoundedHeaders()


def parse(raw: bytes) -> Message:
    """Parse a message, refusing MIME bombs (too many or too deeply nested parts) and a flood of header fields."""
    if raw.count(b"\n--") > 4 * MAX_PARTS:
        raise MalformedMailError(N_("The message has too many MIME parts (the limit is %(most)d)."), most=MAX_PARTS)
    try:
        message = BytesParser(policy=_POLICY.clone(fields_read=[0])).parsebytes(raw)
    except (RecursionError, ValueError, TypeError) as error:
        raise MalformedMailError(N_("The message could not be read as mail (%(error)s)."),
                                 error=type(error).__name__) from None
    parts = 0

    def walk(part: Message, depth: int) -> None:
        nonlocal parts
        parts += 1
        if parts > MAX_PARTS:
            raise MalformedMailError(N_("The message has too many MIME parts (the limit is %(most)d)."), most=MAX_PARTS)
        if depth > MAX_DEPTH:
            raise MalformedMailError(N_("The message nests MIME parts too deeply (the limit is %(most)d)."),
                                     most=MAX_DEPTH)
        if part.is_multipart():
            for child in part.get_payload():
                walk(child, depth + 1)

    walk(message, 0)
    return message


def parse_headers(raw: bytes) -> Message:
    """Only the first MAX_HEADER_FIELDS lines of the headers (of an over-size or unreadable message), each
    field cut as `parse` cuts them."""
    end = -1
    for _ in range(MAX_HEADER_FIELDS):
        end = raw.find(b"\n", end + 1)
        if end < 0:
            break
    return BytesParser(policy=_POLICY).parsebytes(raw if end < 0 else raw[:end + 1], headersonly=True)


def header_text(message: Message | None, name: str) -> str:
    """A header as text, with RFC 2047 encoded words decoded ('' when absent or unreadable)."""
    value = message.get(name) if message is not None else None
    if value is None:
        return ""
    try:
        return " ".join(str(make_header(decode_header(str(value)))).split())
    except (LookupError, UnicodeError, ValueError, email.errors.HeaderParseError):
        return " ".join(str(value).split())


def _decode(part: Message) -> str:
    payload = part.get_payload(decode=True) or b""
    charset = part.get_content_charset() or "utf-8"
    for candidate in (charset, "utf-8", "cp1252"):
        try:
            return payload.decode(candidate)
        except (LookupError, UnicodeDecodeError):
            continue
    return payload.decode("latin-1")


def _text_parts(message: Message) -> tuple[str | None, str | None]:
    """The first inline text/plain and text/html parts (attachments and forwarded mails skipped)."""
    plain, html = _text_part_messages(message)
    return (_decode(plain) if plain is not None else None), (_decode(html) if html is not None else None)


def _text_part_messages(message: Message) -> tuple[Message | None, Message | None]:
    """The parts `_text_parts` decodes (the HTML one is decoded only when the plain text is empty)."""
    plain = html = None
    for part in message.walk():
        if part.is_multipart() or part.get_content_maintype() != "text":
            continue
        if part.get_content_disposition() == "attachment":
            continue
        kind = part.get_content_subtype()
        if kind == "plain" and plain is None:
            plain = part
        elif kind == "html" and html is None:
            html = part
    return plain, html


def _keep_first(tree, most: int) -> None:
    """Drop every element after the first `most` of the tree, in the order they are written."""
    past = next(itertools.islice(tree.iter(), most, None), None)
    if past is None:
        return
    node = past
    while node.getparent() is not None:
        parent = node.getparent()
        del parent[parent.index(node) + 1:]
        node = parent
    past.getparent().remove(past)


def html_to_text(html: str) -> str:
    """The text of an HTML mail without its quoted part and signature: of its first MAX_HTML_CHARS, the
    first MAX_HTML_ELEMENTS elements that are left once those are removed."""
    import lxml.html
    from inscriptis import Inscriptis
    from inscriptis.model.config import ParserConfig

    try:
        tree = lxml.html.fromstring(html[:MAX_HTML_CHARS])
    except Exception:  # lxml raises several types for empty or broken documents
        return ""
    for element in tree.xpath(_HTML_QUOTES):
        parent = element.getparent()
        if parent is None:
            continue
        if element.get("id") in _TAIL_MARKERS:
            del parent[parent.index(element) + 1:]
        parent.remove(element)
    for element in tree.xpath("//style|//script|//head"):
        if element.getparent() is not None:
            element.getparent().remove(element)
    _keep_first(tree, MAX_HTML_ELEMENTS)
    return Inscriptis(tree, ParserConfig(display_images=False, display_links=False)).get_text()


def strip_reply(text: str) -> str:
    """The newest part of a reply: no quoted mail, no forward, no "-- " signature, no phone footer."""
    return "\n".join(quotes.written(text[:MAX_TEXT_CHARS])).strip()


def reply_text(message: Message) -> str | None:
    """What the sender wrote in this message, or None when it has no readable text part."""
    plain_part, html_part = _text_part_messages(message)
    plain = _decode(plain_part) if plain_part is not None else None
    if plain is not None and plain.strip():
        return strip_reply(plain)
    if html_part is not None:
        return strip_reply(html_to_text(_decode(html_part)))
    if plain is not None:
        return ""
    return None
