"""pbem.mail.quotes: the tables it normalises by, and quote headers written with other spaces and dashes."""

from __future__ import annotations

import sys
import unicodedata

import pytest

from pbem.mail import quotes

QUOTE = "> It is your turn in game 7 (Counters), move 1.\n> take 1\n"


def test_its_spaces_and_dashes_are_unicodes():
    chars = [chr(c) for c in range(sys.maxunicode + 1)]
    assert set(quotes.SPACES) - {0x09} == {ord(c) for c in chars if unicodedata.category(c) == "Zs"} - {0x20}
    assert set(quotes.DASHES) == {ord(c) for c in chars if unicodedata.category(c) == "Pd"} - {0x2D}


@pytest.mark.parametrize("space", ["\u00a0", "\u202f", "\u2007", "\u2009", "\t"])
def test_a_quote_header_is_found_whatever_space_its_client_wrote(space):
    header = "ср, 30 апр. 2025 г. в 15:19, Bob <bob@example.org>:".replace(" ", space)
    assert quotes.written(f"take 1\n\n{header}\n{QUOTE}") == ["take 1", ""]
    forward = "\u2013\u2013\u2013\u2013\u2013 Original Message \u2014\u2014\u2014\u2014\u2014".replace(" ", space)
    assert quotes.written(f"take 1\n{forward}\n{QUOTE}") == ["take 1"]


def test_a_line_longer_than_the_limit_is_text_never_a_header():
    long_header = "On Sun, Nov 22, 2026 at 10:12 AM " + "x" * quotes.MAX_LINE_CHARS + " wrote:"
    assert quotes.written(f"take 1\n{long_header}\ndraw") == ["take 1", long_header, "draw"]


def test_only_the_first_lines_are_read():
    lines = [f"line {n}" for n in range(quotes.MAX_READ_LINES + 10)]
    read = [line for line in quotes.written("\n\n".join(lines)) if line]
    assert read == lines[:quotes.MAX_READ_LINES]
