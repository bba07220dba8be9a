"""Mails made to cost the mail door as much as possible (issue 31, items 1 and 2).

Each maker returns the raw bytes of one mail from `sender` to `to`; `POISONS` names them all.
The kinds are those a hostile stranger tries: long lines of the words of every quote header
and phone footer the reader knows (a backtracking pattern is quadratic or worse in them), many
short lines, many quote headers, many RFC 2047 encoded words, addresses nested in comments,
long and many header fields, deep and wide MIME trees, HTML bombs and large attachments. The
door must read each of them in time linear in its size and never fail on it
(tests/mail/test_door_bounds.py; bench/mail.py prints the worst of them).
"""

from __future__ import annotations

import base64
import itertools
import re
from typing import Callable

from pbem.mail import quotes

SIZE = 64_000  # characters of text in the mails whose size is free (the worst was 32 KB)
_ids = itertools.count()


def mail(sender: str, to: str, headers: list[bytes] = (), body: bytes = b"take 1\r\n",
         content_type: bytes = b"text/plain; charset=utf-8") -> bytes:
    """A mail with the given extra header lines (each ending in CRLF) and body (its lines end in CRLF), and a
    new Message-ID."""
    top = [] if any(h.lower().startswith(b"from:") for h in headers) else [b"From: " + sender.encode() + b"\r\n"]
    top += [b"To: " + to.encode() + b"\r\n", b"Subject: Re: your turn\r\n",
            b"Message-ID: <poison.%d@example.net>\r\n" % next(_ids), b"MIME-Version: 1.0\r\n"]
    body = body.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")  # as SMTP carries it
    return b"".join(top + list(headers)) + b"Content-Type: " + content_type + b"\r\n\r\n" + body


def folded(name: bytes, words: list[bytes], width: int = 76) -> bytes:
    """A header field folded over lines of about `width` characters, as a client writes a long one."""
    lines, line = [], name + b":"
    for word in words:
        if len(line) + len(word) + 1 > width:
            lines.append(line)
            line = b""
        line += b" " + word
    return b"\r\n".join(lines + [line]) + b"\r\n"


def _words(example: str) -> str:
    return " " + " ".join(re.sub(r"[():,<>\"]", " ", example).split()[:3])


def _long_line(words: str) -> Callable[[str, str], bytes]:
    return lambda sender, to: mail(sender, to, body=(words * (SIZE // len(words)))[:SIZE].encode())


def _lines_of(words: str, width: int) -> Callable[[str, str], bytes]:
    """Lines of `width` characters, each beginning with the words (as a header begins its line)."""
    line = (words * (width // len(words) + 1))[:width].strip()
    return lambda sender, to: mail(sender, to, body="\n".join([line] * (SIZE // width)).encode())


def _nested(depth: int) -> Callable[[str, str], bytes]:
    def make(sender: str, to: str) -> bytes:
        body, content_type = b"take 1\r\n", b"text/plain"
        for level in range(depth):
            boundary = b"b%d" % level
            body = (b"--" + boundary + b"\r\nContent-Type: " + content_type + b"\r\n\r\n" + body + b"\r\n--"
                    + boundary + b"--\r\n")
            content_type = b"multipart/mixed; boundary=" + boundary
        return mail(sender, to, body=body, content_type=content_type)
    return make


def _attachment(size: int) -> Callable[[str, str], bytes]:
    return lambda sender, to: mail(sender, to, body=(
        b"--B\r\nContent-Type: text/plain\r\n\r\ntake 1\r\n--B\r\nContent-Type: image/png\r\n"
        b"Content-Transfer-Encoding: base64\r\n\r\n" + base64.encodebytes(b"\0" * size) + b"--B--\r\n"),
        content_type=b"multipart/mixed; boundary=B")


POISONS: dict[str, Callable[[str, str], bytes]] = {}
for _form in quotes.QUOTE_HEADERS + quotes.FOOTERS:
    _name = f"{_form.language}: {_words(_form.example).strip()}"
    POISONS[f"{_name} (one line)"] = _long_line(_words(_form.example))
    POISONS[f"{_name} (lines of 900)"] = _lines_of(_words(_form.example), 900)
POISONS.update({
    "quadratic in the old reader: op heeft": _long_line(" op heeft"),
    "cubic in the old reader: Am schrieb": _long_line(" Am schrieb"),
    # SMTP carries lines of 1,000 characters at most (RFC 5321): the same words as a client must send them.
    "cubic in the old reader: Am schrieb (lines of 900)": _lines_of(" Am schrieb", 900),
    "short lines": lambda sender, to: mail(sender, to, body=b"a\n" * (SIZE // 2)),
    "lines with a date": lambda sender, to: mail(sender, to, body=b"10:12 2026\n" * (SIZE // 11)),
    "a quote header and a quote, again and again": lambda sender, to: mail(
        sender, to, body=b"On 1 Nov 2026 10:12 x wrote:\n> a\n" * (SIZE // 30)),
    "Outlook's fields, again and again": lambda sender, to: mail(sender, to, body=b"From: a\nSent: b\n" * (SIZE // 16)),
    "a Subject of 50,000 encoded words": lambda sender, to: mail(
        sender, to, [folded(b"Subject", [b"=?utf-8?q?a?="] * 50_000)]),
    "encoded words in the From's name": lambda sender, to: mail(
        sender, to, [folded(b"From", [b"=?utf-8?b?w6k=?="] * 5_000 + [b"<" + sender.encode() + b">"])]),
    "a From of 600 nested comments": lambda sender, to: mail(sender, to, [b"From: " + b"(" * 600 + b"\r\n"]),
    "a From of 60,000 nested comments": lambda sender, to: mail(sender, to, [b"From: " + b"(" * 60_000 + b"\r\n"]),
    "5,000 addresses in Cc": lambda sender, to: mail(
        sender, to, [folded(b"Cc", [b"a%d@example.org," % i for i in range(5_000)])]),
    "8,000 header fields": lambda sender, to: mail(sender, to, [b"X-A: b\r\n"] * 8_000),
    "a References of 5,000 ids": lambda sender, to: mail(
        sender, to, [folded(b"References", [b"<%d@example.org>" % i for i in range(5_000)])]),
    "an Authentication-Results of 3,000 results": lambda sender, to: mail(
        sender, to, [folded(b"Authentication-Results", [b"mx;"] + [b"dmarc=fail (p=none) header.from=x;"] * 3_000)]),
    "a Content-Type of 20,000 parameters": lambda sender, to: mail(
        sender, to, content_type=b"text/plain" + b"; a=b" * 20_000),
    "a Content-Language of 20,000 tags": lambda sender, to: mail(
        sender, to, [folded(b"Content-Language", [b"de-DE,"] * 20_000)]),
    "MIME parts nested 7 deep": _nested(7),
    "MIME parts nested 200 deep": _nested(200),
    "60 MIME parts": lambda sender, to: mail(sender, to, body=b"".join(
        b"--B\r\nContent-Type: text/plain\r\n\r\nx\r\n" for _ in range(60)) + b"--B--\r\n",
        content_type=b"multipart/mixed; boundary=B"),
    # HTML is read up to pbem.mail.mime.MAX_HTML_CHARS (100,000 characters): these fill it.
    "HTML nested 10,000 deep": lambda sender, to: mail(
        sender, to, body=b"<div>" * 10_000 + b"take 1" + b"</div>" * 10_000, content_type=b"text/html"),
    "HTML of 12,500 elements": lambda sender, to: mail(sender, to, body=b"<b>x</b>" * 12_500,
                                                      content_type=b"text/html"),
    "HTML of 11,000 paragraphs": lambda sender, to: mail(sender, to, body=b"<p>x</p>\n" * 11_000,
                                                        content_type=b"text/html"),
    "a base64 attachment of 512 KB": _attachment(512_000),
    "quoted-printable soft line breaks": lambda sender, to: mail(
        sender, to, [b"Content-Transfer-Encoding: quoted-printable\r\n"], body=b"a=\r\n" * 30_000),
})
