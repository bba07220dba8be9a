"""The service's three doors as the bots use them: the JSON API, the web pages, mail over SMTP.

A `Client` makes one request or sends one mail the way a program, a browser or a mail client
would, times it (the `client.*` figures) and captures every answer for the hidden-information
and talk checks, labelled with who read it (the bot whose token or session made the request,
or anonymous). Reading a page is done as a browser shows it: the hidden inputs of a form, the flash
messages, the move error. What to send and when is the bots' business (drivers).
"""

from __future__ import annotations

import collections
import html
import http.client
import json
import re
import smtplib
import threading
import time
from dataclasses import dataclass, field
from urllib.parse import urlencode

from tests.support.mail import client_mail

PASSWORD = "soak password 1"
BOT_DOMAIN = "bots.example.org"
HTTP_TIMEOUT = 120
SMTP_TIMEOUT = 120
QUOTED_LINES = 60  # of the original, below a reply

_INPUT = re.compile(r"<input([^>]*)>", re.I)
_ATTR = re.compile(r'([\w-]+)="([^"]*)"')
_OPTION = re.compile(r'<option[^>]*value="([^"]*)"', re.I)
_FLASH = re.compile(r'<p class="flash[^"]*" role="status">(.*?)</p>', re.S)
_MOVE_ERROR = re.compile(r'<p class="error" role="alert" id="move-error">(.*?)</p>', re.S)


@dataclass
class Bot:
    """A bot player: its user, the door it plays through and what that door needs (token, session)."""

    door: str
    email: str
    user_id: int
    name: str = ""  # the display name, as a table names its seat
    token: str | None = None
    cookie: str = ""
    lock: threading.Lock = field(default_factory=threading.Lock)
    logged_in: bool = False


def reader_label(bot: Bot | None) -> str:
    """Who made a request, as a capture's label ends: `user <id>` or `anonymous` (checks.reader_of reads it)."""
    return f"user {bot.user_id}" if bot is not None else "anonymous"


def form_fields(page: str, action: str) -> dict | None:
    """The hidden inputs of the form posting to `action` (None when the page has no such form)."""
    start = page.find(f'action="{action}"')
    if start < 0:
        return None
    end = page.find("</form>", start)
    chunk = page[start:end]
    fields = {}
    for tag in _INPUT.findall(chunk):
        attrs = dict(_ATTR.findall(tag))
        if attrs.get("type") == "hidden" and "name" in attrs:
            fields[attrs["name"]] = html.unescape(attrs.get("value", ""))
    fields["_options"] = [html.unescape(v) for v in _OPTION.findall(chunk)]
    return fields


def flashes(page: str) -> list[str]:
    """The flash messages a page shows."""
    return [html.unescape(re.sub(r"<[^>]+>", "", m)).strip() for m in _FLASH.findall(page)]


def move_error(page: str) -> str:
    """Why the move form was refused, as the page says it ("" when it does not)."""
    found = _MOVE_ERROR.search(page)
    return html.unescape(found.group(1)).strip() if found else ""


class Client:
    """Requests to gunicorn and mails to the SMTP listener of `world`, timed and captured."""

    def __init__(self, world, capture):
        self.world = world
        self.capture = capture
        self.latency: dict[str, list[float]] = collections.defaultdict(list)  # seconds, per kind of request
        self.lock = threading.Lock()

    def timed(self, what: str, seconds: float) -> None:
        with self.lock:
            self.latency[what].append(seconds)

    # ------------------------------------------------------------------ HTTP

    def http(self, method: str, path: str, body: bytes | None = None, headers: dict | None = None,
             kind: str = "page", reader: Bot | None = None) -> tuple[int, dict, bytes]:
        """One request, made by the bot `reader` (None: anonymous); returns status, headers (lower-case
        names; set-cookie as a list) and body."""
        conn = http.client.HTTPConnection("127.0.0.1", self.world.web_port, timeout=HTTP_TIMEOUT)
        started = time.perf_counter()
        try:
            conn.request(method, path, body=body, headers=headers or {})
            response = conn.getresponse()
            data = response.read()
            result = (response.status, {k.lower(): v for k, v in response.getheaders()}, data)
            cookies = [v for k, v in response.getheaders() if k.lower() == "set-cookie"]
        finally:
            conn.close()
        self.timed(f"{method} {re.sub(r'/[0-9]+', '/<id>', path.split('?')[0])}", time.perf_counter() - started)
        if cookies:
            result[1]["set-cookie"] = cookies
        self.capture.add(kind, data, f"{method} {path} {result[0]} by {reader_label(reader)}")
        return result

    def api(self, bot: Bot, method: str, path: str, payload: dict | None = None) -> tuple[int, dict]:
        """One call of the JSON API with the bot's bearer token; returns status and the decoded answer."""
        headers = {"Authorization": f"Bearer {bot.token}"}
        body = None
        if payload is not None:
            body = json.dumps(payload).encode()
            headers["Content-Type"] = "application/json"
        status, _, data = self.http(method, "/api/v1" + path, body, headers, kind="api", reader=bot)
        try:
            return status, json.loads(data) if data else {}
        except ValueError:
            return status, {"raw": data[:200].decode("latin-1")}

    def web(self, bot: Bot, method: str, path: str, fields: dict | None = None) -> tuple[int, str, str]:
        """One request with the bot's session cookie; returns status, Location and the page."""
        headers = {"Cookie": bot.cookie} if bot.cookie else {}
        body = None
        if fields is not None:
            body = urlencode({k: v for k, v in fields.items() if not k.startswith("_")}).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        status, response_headers, data = self.http(method, path, body, headers, reader=bot)
        for value in response_headers.get("set-cookie", []):
            if value.startswith("session="):
                bot.cookie = value.split(";", 1)[0]
        return status, response_headers.get("location", ""), data.decode("utf-8", "replace")

    def login(self, bot: Bot) -> None:
        """Log a web bot in through the login form, once."""
        if bot.logged_in:
            return
        _, _, page = self.web(bot, "GET", "/login")
        fields = form_fields(page, "/login") or {}
        fields.update(email=bot.email, password=PASSWORD)
        status, _, _ = self.web(bot, "POST", "/login", fields)
        if status != 302:
            raise RuntimeError(f"login of {bot.email} answered {status}")
        bot.logged_in = True

    # ------------------------------------------------------------------ mail

    def smtp_send(self, sender: str, recipient: str, raw: bytes) -> None:
        """Hand one mail to the service's SMTP listener."""
        started = time.perf_counter()
        with smtplib.SMTP("127.0.0.1", self.world.smtp_port, timeout=SMTP_TIMEOUT) as client:
            client.sendmail(sender, [recipient], raw)
        self.timed("SMTP " + ("reply" if "+" in recipient else "command"), time.perf_counter() - started)

    @staticmethod
    def mail_out(bot: Bot, to: str, subject: str, body: str, reply_to=None) -> tuple[str, bytes]:
        """One mail as a mail client writes it (a reply quotes the original); returns its Message-ID and bytes."""
        return client_mail(bot.email, to, subject, body, BOT_DOMAIN, reply_to=reply_to, quote_lines=QUOTED_LINES)
