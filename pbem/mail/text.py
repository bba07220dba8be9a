"""From raw bytes to the lines a player wrote: MIME parsing with limits, HTML and quote removal.

The parser is Python's `email` package; quoted replies and signatures are cut with
mail-parser-reply (the "On ... wrote:" / "From: ... Sent:" headers of Gmail, Outlook,
Apple Mail, Thunderbird and phones, in several languages); HTML-only mails lose their
quote blocks (Gmail's gmail_quote, Outlook's divRplyFwdMsg, Thunderbird's and Apple's
blockquote type=cite) with lxml before inscriptis turns them into text. What this module
does not do: decide what the lines mean (see commands.py).
"""

from __future__ import annotations

import hashlib
import re
import email.errors
from email import policy
from email.header import decode_header, make_header
from email.message import Message
from email.parser import BytesParser

from mailparser_reply.parser import EmailMessage as ReplySplitter

MAX_PARTS = 64  # a game mail has 1 to 4; more is a MIME bomb or a mail with many attachments
MAX_DEPTH = 8
MAX_TEXT_CHARS = 100_000
LANGUAGES = ["en", "de", "fr", "es", "it", "nl", "pl"]  # "da" and "sv" cut lines that are moves

# Elements that hold quoted mail or signatures in the HTML of common clients; a match and
# everything after it in the same parent is dropped where the client puts the quote last.
_HTML_QUOTES = (
    "//blockquote",
    "//*[contains(concat(' ', normalize-space(@class), ' '), ' gmail_quote ')]",
    "//*[contains(concat(' ', normalize-space(@class), ' '), ' gmail_signature ')]",
    "//*[contains(concat(' ', normalize-space(@class), ' '), ' moz-cite-prefix ')]",
    "//*[contains(concat(' ', normalize-space(@class), ' '), ' moz-signature ')]",
    "//*[contains(concat(' ', normalize-space(@class), ' '), ' yahoo_quoted ')]",
    "//*[@id='Signature']",
    "//*[contains(@class, 'protonmail_signature_block')]",
    "//*[@id='ms-outlook-mobile-signature']",
)
_HTML_TAIL_MARKERS = ("//*[@id='divRplyFwdMsg']", "//*[@id='appendonsend']", "//hr[@id='stopSpelling']",
                      "//*[@id='mail-editor-reference-message-container']")
_SENT_FROM = re.compile(r"^\s*(sent from my|get outlook for|sent from (?:mail|yahoo|outlook)|sent with proton|"
                        r"von meinem .* gesendet|envoy[ée] de mon)", re.I)


_RULE = re.compile(r"\s*[_-]{8,}\s*")  # Outlook's rule above the quoted header


class _LineStartFindall:
    """`findall` of a pattern none of whose matches can begin inside a line, tried only where one can.

    mail-parser-reply's header pattern (15 alternatives: "On ... wrote:" and friends, which
    begin at a line start, and "From:/Sent:" blocks, which begin at a line start or at a
    newline) is otherwise tried at every character of the text, most of the reading's time.
    A match attempt at a line start or at a newline is exactly what `findall` tries there
    (`^` sees the real line starts when matching from a position), and every other position
    cannot match, so the result is the same. `maybe` is a cheap pattern that matches wherever
    `pattern` can (its alternatives' common beginning: an optional newline, quote marks,
    then one of the words that open an alternative), tried first. Used only for the pattern
    this was checked against (`_CHECKED_HEADER_PATTERN`); any other gets the plain `findall`.
    """

    def __init__(self, pattern: re.Pattern, maybe: re.Pattern):
        self.pattern = pattern
        self.maybe = maybe

    def findall(self, text: str) -> list:
        match, maybe, find, out = self.pattern.match, self.maybe.match, text.find, []
        pos, end = 0, len(text)
        while pos < end:
            found = match(text, pos) if maybe(text, pos) is not None else None
            if found is not None and found.end() > pos:  # (the pattern has no empty match)
                out.append(found.groups(""))
                pos = found.end()
            elif text[pos] == "\n":  # a newline: the next position is a line start
                pos += 1
            else:
                pos = find("\n", pos)
                if pos < 0:
                    break
        return out


# The header pattern _LineStartFindall was checked against (mail-parser-reply 1.36, LANGUAGES, en),
# and what any match of it begins with: "On ... wrote:" and its kin (a word and a space, after
# optional quote marks), a block of "From:"-like lines (optional newline, quote marks, stars or
# spaces, a field name and its colon), or "-----Original Message-----".
_CHECKED_HEADER_PATTERN = "d57d5b251b730e92208b23bb2cb7c394f3c352dbd94518f3e1633849a88f3b03"
_HEADER_BEGINNINGS = re.compile(
    r"\n?(?:> ?)*[* ]*(?:(?:On|Am|Le|El|Il|Op|Dnia)\s|-{5}|"
    r"(?:From|Sent|To|Subject|Date|Cc|Organization|Von|Gesendet|An|Betreff|Datum|Organisation|"
    r"De |Envoy\u00e9 |\u00C0 |Objet |  |Cc |De|Enviado|Para|Asunto|Fecha|CC|Organización|"
    r"Da|Inviato|A|Oggetto|Data|Van|Verzonden|Aan|Onderwerp|Od|Wysłano|Do|Temat|DW):)", re.IGNORECASE)


def _splitter_patterns() -> dict:
    """The splitter's three patterns, built once (each reply otherwise builds them again)."""
    template = ReplySplitter(text="", languages=list(LANGUAGES), keep_hyphen_lists=True)
    header = template.HEADER_REGEX
    checked = (hashlib.sha256(header.pattern.encode()).hexdigest() == _CHECKED_HEADER_PATTERN
               and header.flags & re.MULTILINE and header.groups > 1)
    return {"_header_regex": _LineStartFindall(header, _HEADER_BEGINNINGS) if checked else header,
            "_disclaimers_regex": template.DISCLAIMERS_REGEX, "_signature_regex": template.SIGNATURE_REGEX}


_SPLITTER_PATTERNS = _splitter_patterns()


class MalformedMailError(Exception):
    """A message that cannot be read as mail, or one over the limits; the message says which."""


def parse(raw: bytes) -> Message:
    """Parse a message, refusing MIME bombs (too many or too deeply nested parts)."""
    if raw.count(b"\n--") > 4 * MAX_PARTS:
        raise MalformedMailError(f"The message has too many MIME parts (the limit is {MAX_PARTS}).")
    try:
        # compat32: headers stay raw strings until asked for (policy.default parses every
        # header on each access, which costs more than the rest of the reading together).
        message = BytesParser(policy=policy.compat32).parsebytes(raw)
    except (RecursionError, ValueError, TypeError) as error:
        raise MalformedMailError(f"The message could not be read as mail ({type(error).__name__}).") from None
    count = 0

    def walk(part: Message, depth: int) -> None:
        nonlocal count
        count += 1
        if count > MAX_PARTS:
            raise MalformedMailError(f"The message has too many MIME parts (the limit is {MAX_PARTS}).")
        if depth > MAX_DEPTH:
            raise MalformedMailError(f"The message nests MIME parts too deeply (the limit is {MAX_DEPTH}).")
        if part.is_multipart():
            for child in part.get_payload():
                walk(child, depth + 1)

    walk(message, 0)
    return message


def parse_headers(raw: bytes) -> Message:
    """Only the headers (of an over-size or unreadable message)."""
    return BytesParser(policy=policy.compat32).parsebytes(raw, headersonly=True)


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


def html_to_text(html: str) -> str:
    """The text of an HTML mail without its quoted part and signature."""
    import lxml.html
    from inscriptis import Inscriptis
    from inscriptis.model.config import ParserConfig

    try:
        tree = lxml.html.fromstring(html)
    except Exception:  # lxml raises several types for empty or broken documents
        return ""
    for marker in _HTML_TAIL_MARKERS:
        for element in tree.xpath(marker):
            parent = element.getparent()
            if parent is None:
                continue
            for sibling in list(element.itersiblings()):
                parent.remove(sibling)
            parent.remove(element)
    for query in _HTML_QUOTES:
        for element in tree.xpath(query):
            if element.getparent() is not None:
                element.getparent().remove(element)
    for element in tree.xpath("//style|//script|//head"):
        if element.getparent() is not None:
            element.getparent().remove(element)
    return Inscriptis(tree, ParserConfig(display_images=False, display_links=False)).get_text()


def strip_reply(text: str) -> str:
    """The newest part of a reply: no quoted mail, no signature, no "Sent from my phone"."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\u00a0", " ")[:MAX_TEXT_CHARS]
    # keep_hyphen_lists: a line starting with '-' is not taken for a signature.
    replies = ReplySplitter(text=text, languages=list(LANGUAGES), keep_hyphen_lists=True,
                            **_SPLITTER_PATTERNS).read().replies
    body = replies[0].body if replies else text
    lines = []
    for line in body.split("\n"):
        if line.lstrip().startswith(">"):
            continue
        if line.strip() in ("--", "-- ") or _SENT_FROM.match(line):
            break
        if _RULE.fullmatch(line):
            break
        lines.append(line.rstrip())
    return "\n".join(lines).strip()


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
