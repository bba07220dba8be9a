"""From raw bytes to the lines a player wrote: MIME parsing with limits, HTML and quote removal.

The parser is Python's `email` package. HTML-only mails lose their quote blocks (Gmail's
gmail_quote, Outlook's divRplyFwdMsg, Thunderbird's and Apple's blockquote type=cite)
with lxml before inscriptis turns them into text. In the text, what the player wrote is
what stands above the first quote header, forward header or phone footer:

- mail-parser-reply, used through its public constructor with the languages of
  `LIBRARY_LANGUAGES`, finds the headers it knows ("On ... wrote:", "Am ... schrieb",
  Outlook's "From:/Sent:" blocks in those languages, "-----Original Message-----");
- our own table, `QUOTE_HEADERS`, adds the forms that library does not know (Portuguese,
  Russian, Gmail's Dutch, Polish and Spanish, Apple's Dutch and Polish, Yahoo's German,
  "In data ... ha scritto:", the dashed "-------- Message d'origine --------" lines of every
  language, headers wrapped over two lines), and `FOOTERS` the lines phones and apps add
  ("Sent from my iPhone", "Outlook für iOS beziehen", "Sent from TypeApp", ...).
  mail-parser-reply offers no documented way to pass patterns of one's own, so they are
  applied here, after it, line by line.

A reply posted below the quote is read too: a quote header with nothing written above it,
followed by quoted (">") lines, is skipped with them. Signature detection of the library is
not used (its word lists, such as Danish "Tak" or Swedish "/name", would cut moves like
"take 1,-4" or "/resign"); a "-- " line and the footers end the reading, and friendly lines
above them ("Thanks!") are kept. What this module does not do: decide what the lines mean
(see commands.py).
"""

from __future__ import annotations

import email.errors
import re
from dataclasses import dataclass
from email import policy
from email.header import decode_header, make_header
from email.message import Message
from email.parser import BytesParser

from mailparser_reply import EmailMessage as ReplySplitter

from pbem.i18n import N_
from pbem.reasons import Refusal

MAX_PARTS = 64  # a game mail has 1 to 4; more is a MIME bomb or a mail with many attachments
MAX_DEPTH = 8
MAX_TEXT_CHARS = 100_000
# Of an HTML part only this much is parsed: what a player wrote stands at the top, and parsing
# costs about a second of CPU per megabyte (an 8.5 MB mail took 9 s before the cap).
MAX_HTML_CHARS = 200_000
# The header tables of mail-parser-reply used (Norwegian headers are read by the Danish one).
LIBRARY_LANGUAGES = ("en", "de", "fr", "es", "it", "nl", "pl", "da", "sv")
# Every language whose quote headers, forward headers and footers are recognised.
LANGUAGES = ("en", "nl", "de", "fr", "it", "es", "pt", "pl", "sv", "no", "da", "ru")

# Elements that hold quoted mail or signatures in the HTML of common clients; a match and
# everything after it in the same parent is dropped where the client puts the quote last.
_HTML_QUOTES = (
    "//blockquote",
    "//*[contains(concat(' ', normalize-space(@class), ' '), ' gmail_quote ')]",
    "//*[contains(concat(' ', normalize-space(@class), ' '), ' gmail_signature ')]",
    "//*[contains(concat(' ', normalize-space(@class), ' '), ' moz-cite-prefix ')]",
    "//*[contains(concat(' ', normalize-space(@class), ' '), ' moz-signature ')]",
    "//*[contains(concat(' ', normalize-space(@class), ' '), ' yahoo_quoted ')]",
    "//*[contains(concat(' ', normalize-space(@class), ' '), ' protonmail_quote ')]",
    "//*[@id='Signature']",
    "//*[contains(@class, 'protonmail_signature_block')]",
    "//*[@id='ms-outlook-mobile-signature']",
)
_HTML_TAIL_MARKERS = ("//*[@id='divRplyFwdMsg']", "//*[@id='appendonsend']", "//hr[@id='stopSpelling']",
                      "//*[@id='mail-editor-reference-message-container']")


@dataclass(frozen=True)
class LineForm:
    """One form of line that ends what a player wrote, with the clients that write it and an example."""

    language: str
    clients: str
    pattern: str  # matched, case-insensitively, against a whole line without its outer spaces
    example: str


# Quote and forward headers mail-parser-reply does not recognise. Every one ends with a colon or
# is a line of dashes, and begins with a word or holds a verb no move has, so no move matches.
QUOTE_HEADERS = (
    LineForm("all", "Outlook, Samsung Email, Thunderbird, Gmail (forward), Proton Mail",
             r"-{3,} ?[^-\s].*[^-\s] ?-{3,}", "-------- Message d'origine --------"),
    LineForm("all", "Outlook web and phone (the rule above the quoted header)", r"[_-]{8,}",
             "________________________________"),
    LineForm("en", "Apple Mail (forward)", r"begin forwarded message:", "Begin forwarded message:"),
    LineForm("nl", "Gmail, Yahoo, Apple Mail", r"op .+ (?:schreef|heeft .+ geschreven)(?: .+)?:",
             "Op 18 juli 2013 om 10:23 schreef Ann het volgende:"),
    LineForm("nl", "Apple Mail (forward)", r"begin doorgestuurd bericht:", "Begin doorgestuurd bericht:"),
    LineForm("de", "Yahoo", r"am .+ hat .+ folgendes geschrieben:",
             "Am Sonntag, 22. November 2026, 10:12:03 MEZ hat pbem <pbem@pbem.test> Folgendes geschrieben:"),
    LineForm("de", "Proton Mail, Gmail (wrapped)", r"am .+ schrieb(?: .+)?:",
             "Am Sonntag, 22. November 2026 um 10:12, pbem <pbem@pbem.test> schrieb:"),
    LineForm("de", "Apple Mail (forward)", r"anfang der weitergeleiteten (?:nachricht|e-mail):",
             "Anfang der weitergeleiteten Nachricht:"),
    LineForm("fr", "Gmail, Apple Mail (also wrapped: 'a écrit :' on the next line)", r"le .+ a [ée]crit ?:",
             "Le lun. 15 nov. 2021 à 10:00, Bob <bob@example.org> a écrit :"),
    LineForm("fr", "Apple Mail (forward)", r"d[ée]but du message r[ée]exp[ée]di[ée] ?:",
             "Début du message réexpédié :"),
    LineForm("it", "Apple Mail, Yahoo, Android", r"in data .+ ha scritto:",
             "In data 22 nov 2026, alle ore 10:12, pbem <pbem@pbem.test> ha scritto:"),
    LineForm("it", "Gmail, Thunderbird (also wrapped)", r"il .+ ha scritto:",
             "Il giorno dom 22 nov 2026 alle ore 10:12 pbem <pbem@pbem.test> ha scritto:"),
    LineForm("it", "Apple Mail (forward)", r"inizio messaggio inoltrato:", "Inizio messaggio inoltrato:"),
    LineForm("es", "Gmail, Apple Mail, Thunderbird, Yahoo", r"el .+ escribi[óo]:",
             "El dom, 22 nov 2026 a las 10:12, pbem (<pbem@pbem.test>) escribió:"),
    LineForm("es", "Apple Mail (forward)", r"inicio del mensaje reenviado:", "Inicio del mensaje reenviado:"),
    LineForm("pt", "Gmail, Apple Mail, Thunderbird (Brazil)", r"em .+ escreveu:",
             "Em dom., 22 de nov. de 2026 às 10:12, pbem <pbem@pbem.test> escreveu:"),
    LineForm("pt", "Gmail (Portugal)", r".+ escreveu (?:no dia|em) .+:",
             "pbem <pbem@pbem.test> escreveu no dia domingo, 22/11/2026 à(s) 10:12:"),
    LineForm("pt", "Apple Mail (forward)", r"in[íi]cio da mensagem (?:re)?encaminhada:",
             "Início da mensagem reencaminhada:"),
    LineForm("pl", "Gmail, Yahoo", r".+ napisał(?:\(a\)|a)?:",
             "niedz., 22 lis 2026 o 10:12 pbem <pbem@pbem.test> napisał(a):"),
    LineForm("pl", "Thunderbird", r"w dniu .+ pisze:", "W dniu 22.11.2026 o 10:12, pbem pisze:"),
    LineForm("pl", "Apple Mail", r"wiadomość napisana przez .+ w dniu .+:",
             "Wiadomość napisana przez pbem <pbem@pbem.test> w dniu 22.11.2026, o godz. 10:12:"),
    LineForm("pl", "Apple Mail (forward)", r"początek przekazywanej wiadomości:",
             "Początek przekazywanej wiadomości:"),
    LineForm("sv, no, da", "Gmail, Apple Mail, Thunderbird, Yahoo", r".+ skrev(?: .+)?:",
             "tir. 16. nov. 2021 kl. 10:00 skrev Bob <bob@example.org>:"),
    LineForm("sv, no, da", "Apple Mail (forward)",
             r"(?:vidarebefordrat|videresendt) (?:mejl|meddelande|melding|meddelelse|e-post):",
             "Vidarebefordrat mejl:"),
    LineForm("ru", "Gmail", r"(?:пн|вт|ср|чт|пт|сб|вс), .+ г\. в \d{1,2}:\d{2}, .+:",
             "ср, 30 апр. 2025 г. в 15:19, Bob <bob@example.org>:"),
    LineForm("ru", "Thunderbird, Apple Mail, Yahoo, Mail.ru", r".+ (?:написал|написала|написал\(а\)|пишет):",
             "22.11.2026 10:12, pbem пишет:"),
    LineForm("ru", "Yandex", r"\d{1,2}\.\d{1,2}\.\d{4}, \d{1,2}:\d{2}, .+:",
             "22.11.2026, 10:12, \"pbem\" <pbem@pbem.test>:"),
    LineForm("ru", "Outlook (a block of fields: 'От:' then 'Отправлено:', 'Дата:', 'Кому:' or 'Тема:')",
             r"\*?от:\*? ?.*", "От: pbem <pbem@pbem.test>"),
    LineForm("ru", "Apple Mail (forward)", r"начало переадресованного сообщения:",
             "Начало переадресованного сообщения:"),
)
# The second line an Outlook field block needs before its first line is taken for a header.
_FIELD_LINE = re.compile(r"\*?(?:отправлено|дата|кому|тема|копия):", re.IGNORECASE)
_FIELD_BLOCK_START = re.compile(r"\*?от:", re.IGNORECASE)

# Lines phones, apps and webmails add under what the player wrote; the reading stops there.
FOOTERS = (
    LineForm("en", "iPhone, Samsung, Yahoo, TypeApp, K-9, Proton Mail, Mail for Windows",
             r"sent (?:from|with|via|using) .*", "Sent from TypeApp"),
    LineForm("en", "Outlook, TypeApp, BlueMail (phone)", r"get (?:outlook|typeapp|bluemail) .*",
             "Get Outlook for iOS<https://aka.ms/o0ukef>"),
    LineForm("all", "Outlook (phone), in every language",
             r".*\boutlook (?:for|für|pour|per|para|voor|för|til|dla(?: systemu)?|для) (?:ios|android)\b.*",
             "Outlook für iOS<https://aka.ms/o0ukef> beziehen"),
    LineForm("de", "iPhone, Samsung, Yahoo, K-9, Proton Mail", r"(?:von .+ gesendet\.?|"
             r"gesendet (?:von|mit|über|aus|vom) .*|diese nachricht wurde von .* gesendet.*)",
             "Von meinem iPhone gesendet"),
    LineForm("nl", "iPhone, Samsung, Proton Mail", r"(?:verzonden|verstuurd) (?:vanaf|met|vanuit|via|van) .*",
             "Verstuurd vanaf mijn iPhone"),
    LineForm("fr", "iPhone, Samsung, Yahoo, K-9, Proton Mail",
             r"envoy[ée] (?:de|depuis|avec|par|à partir de|a partir de) .*", "Envoyé de mon iPhone"),
    LineForm("it", "iPhone, Samsung, Yahoo, Proton Mail", r"inviato (?:da|dal|dalla|dallo|con|tramite) .*",
             "Inviato da iPhone"),
    LineForm("es, pt", "iPhone, Samsung, Yahoo, Proton Mail",
             r"enviad[oa] (?:desde|con|de|do|da|com|pelo|pela|a partir) .*", "Enviado do meu iPhone"),
    LineForm("pl", "iPhone, Samsung, Proton Mail", r"wysłan[eoy] (?:z|ze|za|przez|pomocą) .*",
             "Wysłane z iPhone'a"),
    LineForm("sv", "iPhone, Samsung, Proton Mail", r"skickat (?:från|med|via) .*", "Skickat från min iPhone"),
    LineForm("no, da", "iPhone, Samsung, Proton Mail", r"sendt (?:fra|med|via) .*", "Sendt fra min iPhone"),
    LineForm("ru", "iPhone, Samsung, Mail.ru, Proton Mail", r"отправлено (?:с|со|из|через|при) .*",
             "Отправлено с iPhone"),
)
_SIGNATURE_DASHES = ("--", "-- ")  # RFC 3676's signature separator (and its trailing-space-less form)

_QUOTE_HEADER = re.compile("|".join(f"(?:{form.pattern})" for form in QUOTE_HEADERS), re.IGNORECASE)
_FOOTER = re.compile("|".join(f"(?:{form.pattern})" for form in FOOTERS), re.IGNORECASE)
# A quote header wrapped over two lines has its date on the first one (a time, or a year):
# only such a line is tried joined with the next, so that a move above a header is never joined to it.
_DATE = re.compile(r"\b\d{1,2}[:.]\d{2}\b|\b(?:19|20)\d{2}\b")


class MalformedMailError(Refusal):
    """A message that cannot be read as mail, or one over the limits; the message says which (in
    the reader's language: `error.text(language)`)."""


def parse(raw: bytes) -> Message:
    """Parse a message, refusing MIME bombs (too many or too deeply nested parts)."""
    if raw.count(b"\n--") > 4 * MAX_PARTS:
        raise MalformedMailError(N_("The message has too many MIME parts (the limit is %(most)d)."), most=MAX_PARTS)
    try:
        # compat32: headers stay raw strings until asked for (policy.default parses every
        # header on each access, which costs more than the rest of the reading together).
        message = BytesParser(policy=policy.compat32).parsebytes(raw)
    except (RecursionError, ValueError, TypeError) as error:
        raise MalformedMailError(N_("The message could not be read as mail (%(error)s)."),
                                 error=type(error).__name__) from None
    count = 0

    def walk(part: Message, depth: int) -> None:
        nonlocal count
        count += 1
        if count > MAX_PARTS:
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
    """The text of an HTML mail without its quoted part and signature (of its first MAX_HTML_CHARS)."""
    import lxml.html
    from inscriptis import Inscriptis
    from inscriptis.model.config import ParserConfig

    try:
        tree = lxml.html.fromstring(html[:MAX_HTML_CHARS])
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


def _header_lines(lines: list[str], at: int) -> int:
    """How many lines the quote header of our own table that begins at line `at` takes (0: none)."""
    line = lines[at]
    if _QUOTE_HEADER.fullmatch(line):
        if not _FIELD_BLOCK_START.match(line):
            return 1
        # "От:" alone could be a player's line: a header only with a second field under it.
        return 1 if at + 1 < len(lines) and _FIELD_LINE.match(lines[at + 1]) else 0
    # A header wrapped over two lines: its first line has the date; the second is no header alone.
    following = lines[at + 1] if at + 1 < len(lines) else ""
    if following and _DATE.search(line) and not _FIELD_BLOCK_START.match(line) \
            and not _QUOTE_HEADER.fullmatch(following) and _QUOTE_HEADER.fullmatch(f"{line} {following}"):
        return 2
    return 0


def _is_quoted(line: str) -> bool:
    """A line of a quote marked with '>' (the library has removed the spaces before it)."""
    return line.startswith(">")


def _written(lines: list[str], after_header: bool = False) -> list[str]:
    """The lines a player wrote, from the lines above mail-parser-reply's first header.

    `after_header`: the lines follow a quote header, so they are the player's only when
    they come after a quoted (">") block: a reply written below the quote.
    """
    if after_header:
        first = next((line for line in lines if line), "")
        if not _is_quoted(first):
            return []  # an unquoted quote under its header (Outlook): nothing was written
    written: list[str] = []
    at = 0
    while at < len(lines):
        line = lines[at]
        if _is_quoted(line):
            at += 1
            continue
        if line in _SIGNATURE_DASHES or _FOOTER.fullmatch(line):
            break
        span = _header_lines(lines, at)
        if span:
            if any(written):
                break
            return _written(lines[at + span:], after_header=True)
        written.append(line)
        at += 1
    return written


def strip_reply(text: str) -> str:
    """The newest part of a reply: no quoted mail, no forward, no "-- " signature, no phone footer."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\u00a0", " ")[:MAX_TEXT_CHARS]
    # Only the library's split at its headers is used, not the signatures it finds (see the module's docstring).
    replies = ReplySplitter(text=text, languages=list(LIBRARY_LANGUAGES)).read().replies
    first = replies[0]  # the library's lines have their outer spaces removed
    if first.headers:  # the text begins with a quote header the library knows: written below the quote?
        below = "\n".join([first.full_body] + [reply.content for reply in replies[1:]])
        lines = _written(below.split("\n"), after_header=True)
    else:
        lines = _written(first.content.split("\n"))
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
