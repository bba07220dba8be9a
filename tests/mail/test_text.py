"""pbem.mail.text: the reading of a reply's newest part, the fast header search against the plain one."""

from __future__ import annotations

import random
from pathlib import Path

from pbem.mail import text

DATA = Path(__file__).resolve().parent.parent / "data" / "mail"
LINES = ["On Mon, 3 Jan 2026 at 10:00, Bob <bob@example.org> wrote:", "> On Tue, Bob wrote:", "From: Bob",
         "Sent: Monday", "To: Ann", "Subject: your turn", "*From:* Bob", "> From: a", "Von: Bob", "Gesendet: x",
         "-----Original Message-----", "Am 3. Jan. 2026 schrieb Bob <bob@example.org>:", "Le lun. 3 janv. a écrit :",
         "De : Bob", "Od: Bob", "Data: wtorek", "A: Ann", "El lun, Bob escribió:", "take 1", "> take 2", "> ",
         "", " ", "__________", "-- ", "A player", "Draw", "\u017fent: Monday", "\u00c0 : Ann", "Envoy\u00e9 : lundi",
         "  : x", "**From:** Bob", ">> From: Bob", "> > Sent: x", "Wys\u0142ano: x", "ON MON, BOB WROTE:", "dw: x",
         "Dnia 3 stycznia Bob napisa\u0142(a):", "Il giorno Bob ha scritto:", "Op ma, Bob schreef:", "\tFrom: x"]


def texts() -> list[str]:
    found = []
    for path in sorted(DATA.glob("*.eml")):
        plain, html = text._text_parts(text.parse(path.read_bytes()))
        found += [t for t in (plain, html and text.html_to_text(html)) if t]
    rng = random.Random(20261122)
    for _ in range(3000):
        found.append(rng.choice(["", "\n", "\r\n"]).join(rng.choice(LINES) for _ in range(rng.randint(0, 14)))
                     + rng.choice(["", "\n", "x"]))
    return found


def test_the_header_search_finds_what_the_plain_findall_finds():
    fast = text._SPLITTER_PATTERNS["_header_regex"]
    assert isinstance(fast, text._LineStartFindall)  # the pattern is the one checked; else see _splitter_patterns
    for sample in texts():
        for variant in (sample, "\n".join(line.strip() for line in sample.replace("\r\n", "\n").split("\n"))):
            assert fast.findall(variant) == fast.pattern.findall(variant), variant


def test_a_pattern_not_checked_is_left_to_the_plain_findall(monkeypatch):
    monkeypatch.setattr(text, "_CHECKED_HEADER_PATTERN", "0" * 64)
    patterns = text._splitter_patterns()
    assert not isinstance(patterns["_header_regex"], text._LineStartFindall)
    assert patterns["_header_regex"].findall("On Mon, Bob wrote:\n")


def test_the_shared_patterns_read_replies_as_fresh_ones_do():
    from mailparser_reply.parser import EmailMessage

    for sample in texts()[:400]:
        sample = sample.replace("\r\n", "\n")
        fresh = EmailMessage(text=sample, languages=list(text.LANGUAGES), keep_hyphen_lists=True).read().replies
        shared = EmailMessage(text=sample, languages=list(text.LANGUAGES), keep_hyphen_lists=True,
                              **text._SPLITTER_PATTERNS).read().replies
        assert [(r.content, r.headers, r.signatures, r.disclaimers, r.body) for r in fresh] == \
            [(r.content, r.headers, r.signatures, r.disclaimers, r.body) for r in shared]
