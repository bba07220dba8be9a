"""Where what a player wrote ends: quote headers, forward headers, signatures and phone footers.

A reply holds the player's lines and, above or below them, the mail they answer. This module
finds the player's lines in the text of a reply (`written`), line by line:

- a quote header ("On ... wrote:", "Am ... schrieb", "Le ... a écrit :", Outlook's block of
  "From:/Sent:/To:" fields, a forward header, in every language of `LANGUAGES`;
  `QUOTE_HEADERS`, `FIELDS`), also when a client wrapped it over up to three lines, ends what
  was written above it;
- a quote header with nothing written above it begins a reply written below the quote: the
  quoted (">") lines under it are skipped and what follows is read. Where no quoted line
  follows (Outlook's unquoted quote), what follows is read all the same: our own mail, quoted
  that way, begins with a line of prose, at which the reading of the commands stops
  (pbem.mail.turns);
- a "-- " line (RFC 3676's signature separator) and the lines phones and apps add
  ("Sent from my iPhone", `FOOTERS`) end the reading; friendly lines above them stay.

Every pattern here is matched by RE2 (google-re2), whose matching time is linear in the text
whatever the pattern, and only against lines of at most MAX_LINE_CHARS: a stranger's mail of
"Am schrieb schrieb ..." cannot cost more than any other mail of its size (issue 31; a
backtracking engine took seconds for 2,000 characters). Before matching, every Unicode space
(U+00A0, U+202F, ...) is read as a space and every dash as "-", as clients write them.

What this module does not do: MIME and HTML (pbem.mail.mime), or what the lines mean
(pbem.mail.commands). Signature words ("Best regards", Danish "Tak") are not signatures here:
they would cut moves like "take 1,-4"; only "-- " and the footers end a reply.
"""

from __future__ import annotations

from dataclasses import dataclass

import re2

MAX_LINE_CHARS = 1000  # a longer line is never a header or a footer (RFC 5322 allows 998 a line)
HEADER_LINES = 3  # a quote header wrapped by its client spans at most this many lines
MAX_FIELD_LINES = 10  # Outlook's block of fields has four to six
# Of the lines that are neither quoted nor empty, this many are read at most: a player's moves,
# commands and words fit many times over, and no mail costs more than its first lines.
MAX_READ_LINES = 500
# Every language whose quote headers, forward headers and footers are recognised.
LANGUAGES = ("en", "nl", "de", "fr", "it", "es", "pt", "pl", "sv", "no", "da", "fi", "hu", "ru", "uk")


@dataclass(frozen=True)
class LineForm:
    """One form of line that ends what a player wrote, with the clients that write it and an example."""

    language: str
    clients: str
    pattern: str  # RE2, matched case-insensitively against a whole line without its outer spaces
    example: str


# Every one ends with a colon, is a line of dashes or holds a date (a time or a year: the forms
# without a colon), and begins with a word or holds a verb no move has, so no move matches.
DATE = r"(?:\d{1,2}[:.]\d{2}|(?:19|20)\d{2})"  # a time ("10:12", Scandinavian "10.12") or a year
QUOTE_HEADERS = (
    LineForm("all", "Outlook, Samsung Email, Thunderbird, Gmail (forward), Proton Mail, Zoho Mail; "
             "between asterisks where a client turned bold into text",
             r"\** ?-{3,} ?[^-\s].*[^-\s] ?-{3,} ?\**", "*-------- Original Message --------*"),
    LineForm("all", "Outlook web and phone (the rule above the quoted header)", r"[_-]{8,}",
             "________________________________"),
    LineForm("all", "Gmail (until about 2017, in several languages: the date, then the sender)",
             r"(?:19|20)\d{2}-\d{2}-\d{2} \d{1,2}:\d{2} gmt[+-]\d{2}:\d{2} .+:",
             "2016-10-24 15:36 GMT+02:00 pbem <pbem@pbem.test>:"),
    LineForm("en", "Gmail, Apple Mail, Thunderbird, Yahoo, K-9", r"on .+ wrote ?:",
             "On Sun, Nov 22, 2026 at 10:12 AM pbem <pbem@pbem.test> wrote:"),
    # Without its colon only with a date, so that "On my turn I wrote" stays a line the player wrote.
    LineForm("en", "mail apps that write it without its colon", rf"on .*\b{DATE}\b.* wrote",
             "On Sun, Nov 22, 2026 at 10:12 AM, pbem <pbem@pbem.test> wrote"),
    LineForm("en", "Eudora (its time first)", r"at \d{1,2}:\d{2}\b.* wrote ?:",
             "At 10:12 AM 11/22/2026, you wrote:"),
    LineForm("en", "Apple Mail (forward)", r"begin forwarded message:", "Begin forwarded message:"),
    LineForm("nl", "Gmail, Yahoo, Apple Mail", r"op .+ (?:schreef|heeft .+ geschreven)(?: .+)?:",
             "Op 18 juli 2013 om 10:23 schreef Ann het volgende:"),
    LineForm("nl", "Apple Mail (forward)", r"begin doorgestuurd bericht:", "Begin doorgestuurd bericht:"),
    LineForm("de", "Yahoo", r"am .+ hat .+ folgendes geschrieben:",
             "Am Sonntag, 22. November 2026, 10:12:03 MEZ hat pbem <pbem@pbem.test> Folgendes geschrieben:"),
    LineForm("de", "Gmail, Thunderbird, Apple Mail, Proton Mail", r"am .+ schrieb(?: .+)?:",
             "Am Sonntag, 22. November 2026 um 10:12, pbem <pbem@pbem.test> schrieb:"),
    LineForm("de", "Apple Mail (forward)", r"anfang der weitergeleiteten (?:nachricht|e-mail):",
             "Anfang der weitergeleiteten Nachricht:"),
    LineForm("fr", "Gmail, Apple Mail, Thunderbird", r"le .+ a [ée]crit ?:",
             "Le lun. 15 nov. 2021 à 10:00, Bob <bob@example.org> a écrit :"),
    LineForm("fr", "Apple Mail (forward)", r"d[ée]but du message r[ée]exp[ée]di[ée] ?:",
             "Début du message réexpédié :"),
    # Above the block of "De : / A : / Objet :" fields. Only with a date: "Message du jour" is prose.
    LineForm("fr", "Orange and La Poste webmail",
             r"message du ?:? ?\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}(?: .*)?", "Message du 22/11/26 10:12"),
    LineForm("it", "Apple Mail, Yahoo, Android", r"in data .+ ha scritto:",
             "In data 22 nov 2026, alle ore 10:12, pbem <pbem@pbem.test> ha scritto:"),
    LineForm("it", "Gmail, Thunderbird", r"il .+ ha scritto:",
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
    LineForm("pl", "Gmail, Yahoo, Onet", r".+ (?:napisał(?:\(a\)|a)?|nadesłał):",
             "niedz., 22 lis 2026 o 10:12 pbem <pbem@pbem.test> napisał(a):"),
    LineForm("pl", "Thunderbird", r"w dniu .+ pisze:", "W dniu 22.11.2026 o 10:12, pbem pisze:"),
    LineForm("pl", "Apple Mail", r"wiadomość napisana przez .+ w dniu .+:",
             "Wiadomość napisana przez pbem <pbem@pbem.test> w dniu 22.11.2026, o godz. 10:12:"),
    LineForm("pl", "Apple Mail (forward)", r"początek przekazywanej wiadomości:",
             "Początek przekazywanej wiadomości:"),
    LineForm("sv, no, da", "Gmail, Apple Mail, Thunderbird, Yahoo", r".+ skrev(?: .+)?:",
             "tir. 16. nov. 2021 kl. 10:00 skrev Bob <bob@example.org>:"),
    LineForm("fi", "Gmail, Thunderbird, Apple Mail", r".+ kirjoitti(?: .+)?:",
             "su 22.11.2026 klo 10.12 pbem <pbem@pbem.test> kirjoitti:"),
    # Gmail's date in brackets after the verb: a line wrapped after "(időpont:" is no header alone.
    LineForm("hu", "Gmail, Thunderbird, Apple Mail", r".+ [ií]rta(?: \(.+\))?:",
             "pbem <pbem@pbem.test> ezt írta (időpont: 2026. nov. 22., V, 10:12):"),
    LineForm("sv, no, da", "Apple Mail (forward)",
             r"(?:vidarebefordrat|videresendt) (?:mejl|meddelande|melding|meddelelse|e-post):",
             "Vidarebefordrat mejl:"),
    LineForm("ru", "Gmail", r"(?:пн|вт|ср|чт|пт|сб|вс), .+ г\. в \d{1,2}:\d{2}, .+:",
             "ср, 30 апр. 2025 г. в 15:19, Bob <bob@example.org>:"),
    LineForm("ru", "Thunderbird, Apple Mail, Yahoo, Mail.ru", r".+ (?:написал|написала|написал\(а\)|пишет):",
             "22.11.2026 10:12, pbem пишет:"),
    LineForm("ru", "Yandex", r"\d{1,2}\.\d{1,2}\.\d{4}, \d{1,2}:\d{2}, .+:",
             "22.11.2026, 10:12, \"pbem\" <pbem@pbem.test>:"),
    LineForm("ru", "Apple Mail (forward)", r"начало переадресованного сообщения:",
             "Начало переадресованного сообщения:"),
    LineForm("uk", "Gmail, Thunderbird, Apple Mail", r".+ (?:пише|написав|написала|написав\(-?ла\)):",
             "нд, 22 лист. 2026 р. о 10:12 pbem <pbem@pbem.test> пише:"),
)

# The names of the fields of Outlook's header block ("From: ... / Sent: ... / To: ..."), by language.
# Two such lines one under the other are a quote header (one alone may be a line a player wrote).
FIELDS = {
    "en": ("from", "sent", "to", "cc", "subject", "date"),
    "nl": ("van", "verzonden", "aan", "cc", "onderwerp", "datum"),
    "de": ("von", "gesendet", "an", "cc", "betreff", "datum"),
    "fr": ("de", "envoyé", "envoyé le", "à", "a", "cc", "cci", "copie à", "objet", "date", "sujet", "pour"),
    "it": ("da", "mittente", "inviato", "a", "cc", "oggetto", "data"),
    "es": ("de", "enviado", "enviado el", "para", "cc", "asunto", "fecha"),
    "pt": ("de", "enviado", "enviada", "para", "cc", "assunto", "data"),
    "pl": ("od", "wysłano", "do", "dw", "temat", "data"),
    "sv": ("från", "skickat", "till", "kopia", "ämne", "datum"),
    "no": ("fra", "sendt", "til", "kopi", "emne", "dato"),
    "da": ("fra", "sendt", "til", "kopi", "cc", "emne", "dato"),
    "fi": ("lähettäjä", "lähetetty", "vastaanottaja", "kopio", "aihe", "päivämäärä", "päiväys"),
    "hu": ("feladó", "elküldve", "címzett", "másolatot kap", "másolat", "tárgy", "dátum"),
    "ru": ("от", "от кого", "отправлено", "кому", "копия", "тема", "дата"),
    "uk": ("від", "надіслано", "кому", "копія", "тема", "дата"),
}

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
    LineForm("fi", "iPhone, Samsung", r"lähetetty \S.*(?:sta|stä)\.?", "Lähetetty iPhonesta"),
    LineForm("hu", "iPhone, Samsung", r".+(?:ról|ről) küldve\.?", "Az iPhone-omról küldve"),
    LineForm("ru", "iPhone, Samsung, Mail.ru, Proton Mail", r"отправлено (?:с|со|из|через|при) .*",
             "Отправлено с iPhone"),
    LineForm("uk", "iPhone, Samsung", r"надіслано (?:з|із|зі|через) .*", "Надіслано з iPhone"),
)
SIGNATURE_DASHES = ("--", "-- ")  # RFC 3676's signature separator (and its trailing-space-less form)


def _union(forms) -> re2._Regexp:
    return re2.compile("(?i)" + "|".join(f"(?:{form.pattern})" for form in forms))


_QUOTE_HEADER = _union(QUOTE_HEADERS)
# The line under which a reply to a turn mail writes to the table (pbem.mail.conversation), in each language
# of pbem: a line of dashes around a word, like a quote header, that is the player's own.
TALK_WORDS = ("message", "nachricht", "bericht")
TALK_SEPARATOR = re2.compile("(?i) ?-{3,} ?(?:%s) ?-{3,} ?" % "|".join(TALK_WORDS))
_FOOTER = _union(FOOTERS)
_FIELD = re2.compile("(?i)\\*?(?:" + "|".join(sorted({re2.escape(name) for names in FIELDS.values()
                                                          for name in names}, key=len, reverse=True))
                     + ")\\*? ?:.*")
# A quote header wrapped over lines has its date (a time, or a year) or the sender's address on the
# first one: the forms that begin with the date, and those that begin with the sender (Hungarian and
# Portuguese Gmail: "pbem <pbem@pbem.test> ezt írta (időpont:" and the date on the next line). Only
# such a line is tried joined with the next ones; no move has a time, a year, "<" or "@", so a move
# above a header is never joined to it.
_WRAPPED_START = re2.compile(rf"\b{DATE}\b|[<@]")
# Gmail wraps a long header before the sender's address ("... 10:12 pbem" / "<pbem@pbem.test> пише:"):
# a line that begins with an address continues the line above it, even where it would be a header
# alone (any other such line is a header of its own, and the line above it is not joined to it).
_CONTINUED = re2.compile(r"<|[^\s<>@]+@")
# Unicode's spaces (category Zs) and dashes (Pd), as `unicodedata` of Python 3.11 lists them
# (tests/mail/test_quotes.py checks): a tab is a space too, a zero-width space or BOM nothing.
SPACES = (0x09, 0xA0, 0x1680, *range(0x2000, 0x200B), 0x202F, 0x205F, 0x3000)
DASHES = (0x58A, 0x5BE, 0x1400, 0x1806, *range(0x2010, 0x2016), 0x2E17, 0x2E1A, 0x2E3A, 0x2E3B, 0x2E40, 0x2E5D,
          0x301C, 0x3030, 0x30A0, 0xFE31, 0xFE32, 0xFE58, 0xFE63, 0xFF0D, 0x10EAD)
_AS_SPACES = {**dict.fromkeys(SPACES, " "), 0x200B: None, 0xFEFF: None}
_AS_DASHES = dict.fromkeys(DASHES, "-")


def written(text: str) -> list[str]:
    """The lines the player wrote in the text of a reply (outer spaces removed), in order; of
    the lines that are neither quoted nor empty, only the first MAX_READ_LINES are read."""
    shown = text.translate(_AS_SPACES).replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return _Reading([line.strip() for line in shown]).written()


class _Reading:
    """The lines of one reply and the tests on them."""

    def __init__(self, lines: list[str]):
        self.lines = lines
        self.probes: dict[int, str | None] = {}  # a line as its forms are matched, made when first needed

    def _probe(self, at: int) -> str | None:
        if at not in self.probes:
            line = self.lines[at] if at < len(self.lines) else None
            self.probes[at] = line.translate(_AS_DASHES) if line and len(line) <= MAX_LINE_CHARS else None
        return self.probes[at]

    def _matches(self, pattern, start: int, count: int = 1) -> bool:
        probes = [self._probe(at) for at in range(start, start + count)]
        if None in probes:
            return False
        joined = " ".join(probes)
        return len(joined) <= MAX_LINE_CHARS and pattern.fullmatch(joined) is not None

    def is_footer(self, at: int) -> bool:
        return self.lines[at] in SIGNATURE_DASHES or self._matches(_FOOTER, at)

    def header_lines(self, at: int) -> int:
        """How many lines the quote header that begins at line `at` takes (0: none)."""
        if self._matches(TALK_SEPARATOR, at):  # "--- message ---": what follows is the player's, to the table
            return 0
        if self._matches(_QUOTE_HEADER, at):
            return 1
        if self._matches(_FIELD, at) and self._matches(_FIELD, at + 1):
            span = 2
            while span < MAX_FIELD_LINES and self._matches(_FIELD, at + span):
                span += 1
            return span
        # A header wrapped over lines: its first line has the date or the address; no later line is a
        # header alone, unless it begins with the address.
        if self._probe(at) is None or not _WRAPPED_START.search(self._probe(at)):
            return 0
        for span in range(2, HEADER_LINES + 1):
            last = at + span - 1
            if self._probe(last) is None:
                return 0
            if not _CONTINUED.match(self._probe(last)) and (self._matches(_QUOTE_HEADER, last)
                                                             or self._matches(_FIELD, last)):
                return 0
            if self._matches(_QUOTE_HEADER, at, span):
                return span
        return 0

    def written(self) -> list[str]:
        """The lines the player wrote.

        A quote header with nothing written above it is passed over with what is quoted (">")
        under it: what follows is read, a reply written below the quote, or (no quoted line)
        the quote itself, our own mail, whose first line of prose ends the reading of commands.
        """
        lines, found, wrote, at, budget = self.lines, [], False, 0, MAX_READ_LINES
        while at < len(lines):
            line = lines[at]
            if not line:  # never a header or a footer
                found.append(line)
                at += 1
                continue
            if line.startswith(">"):
                at += 1
                continue
            budget -= 1
            if budget < 0 or self.is_footer(at):
                break
            span = self.header_lines(at)
            if span:
                if wrote:
                    break
                found, at = [], at + span
                continue
            found.append(line)
            wrote = True
            at += 1
        return found
