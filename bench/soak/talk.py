"""The bots' table talk (issue 34): what they write at their tables and where they read it, through their doors.

At a bot's decision, with the chance --talk-rate, it writes: to the whole table, privately to
one other seat, or a note for itself. Each text carries a marker found nowhere else
(`soak-pub-<hex>`, `soak-priv-<hex>`, `soak-note-<hex>`), and the ledger keeps, before it is
sent, the game, the sender and the recipients (user ids and addresses): the `talk` check looks
for every marker in everything captured and asks whether its reader was allowed to read it.

An API bot posts to `/messages` or `/notes`; a web bot posts the talk panel's form or the notes
form (with their CSRF tokens); a mail bot writes under its move after a `--- message ---` line,
or mails `/say GAME [@name] text` or `/note GAME text` to its command address, and with the same
chance answers a message mail it got (to its Reply-To, the talk key: the same readers). What
became of each (posted, or refused and why) is what the door said: an API status, a flash or
an error on the page, the answer mail.

With the same chance a bot also reads, through its door, its table's conversation and notes and
another table's conversation (a logged-in outsider); at the peeks (drivers.PEEK_RATE) a
spectator reads the conversation anonymously; when a table ends, one of its API or web players,
a bot of another table and nobody download its archive. Half of the tables let spectators read
their public messages (`Table.spectators`).
"""

from __future__ import annotations

import html
import re
import secrets

from bench.soak.doors import flashes, form_fields
from bench.soak.ledger import Talk

SHORT = {"public": "pub", "private": "priv", "note": "note"}
MARKER = re.compile(r"soak-(?:pub|priv|note)-[0-9a-f]{16}")
WORDS = {"public": "good luck to the table", "private": "shall we work together, just you and me?",
         "note": "remember to watch the others"}
NOTE_SHARE, PRIVATE_SHARE = 0.15, 0.45  # of the things written; the rest go to the whole table
UNDER_MOVE_SHARE = 0.5  # of a mail bot's messages: written under its move (else a /say or /note mail)
_CHECKBOX = re.compile(r'<input type="checkbox" name="talk-to" value="(\d+)">\s*([^<]*)</label>')
_PAGE_ERROR = re.compile(r'<p class="error" role="alert">(.*?)</p>', re.S)
_POSTED = re.compile(r"Your (?:message|answer) went to |Your note on game \d+ is kept")
_NOT_SENT = re.compile(r"Your (?:message|answer) in game \d+ was not sent: ([^\n]*)")
_FAILED = "Failed (reading stopped here):"


def seat_in_view(view: dict, bot) -> int:
    """The seat number of `bot` in a game as the API shows it (its seats by name)."""
    for seat in view.get("seats") or []:
        if seat.get("name") == bot.name:
            return seat["seat"]
    raise RuntimeError(f"game {view.get('id')} has no seat named {bot.name!r}")


def seat_on_page(page: str, bot) -> int:
    """The seat number of `bot` among the talk form's check boxes ("name (colour)")."""
    for number, label in _CHECKBOX.findall(page):
        if html.unescape(label).strip().rsplit(" (", 1)[0] == bot.name:
            return int(number)
    raise RuntimeError(f"the talk form has no box for {bot.name!r}")


class Talkers:
    """The talk of every bot of `players` (bench.soak.drivers.Players): writing, reading, and what came of it."""

    def __init__(self, players):
        self.players = players
        self.client = players.client
        self.ledger = players.ledger
        self.dice = players.dice
        self.rate = players.args.talk_rate

    def due(self) -> bool:
        return self.rate > 0 and self.dice.chance(self.rate)

    def writes(self, table) -> bool:
        """Whether a bot writes at this decision: not at a table with bot seats (issue 37), where nobody would read it
        and a player alone with quick bots makes so many decisions that it would meet the site's limit of messages
        per hour."""
        return not table.bot_seats and self.due()

    def choose(self, bot, table, notes: bool = True):
        """What to write and to whom: ("note", None), ("private", another bot of the table) or ("public", None)."""
        others = [b for b in table.bots if b is not bot]
        x = self.dice.random()
        if notes and x < NOTE_SHARE:
            return "note", None
        if others and x < NOTE_SHARE + PRIVATE_SHARE:
            return "private", self.dice.choice(others)
        return "public", None

    def new(self, bot, game_id: int, kind: str, to: dict[int, str], way: str) -> Talk:
        """A message or note with a fresh marker (not yet in the ledger: the caller adds it before sending)."""
        marker = f"soak-{SHORT[kind]}-{secrets.token_hex(8)}"
        return Talk(bot.door, kind, way, game_id, marker, f"{marker} {WORDS[kind]}", (bot.user_id, bot.email),
                    dict(to))

    def other_table(self, table):
        """Another table with a game, for a bot to look at as an outsider (None when there is none)."""
        with self.players.tables_lock:
            others = [t for t in self.players.tables if t is not table and t.game_id is not None]
        return self.dice.choice(others) if others else None

    # ------------------------------------------------------------------ the API

    def api_turn(self, bot, table, view: dict) -> None:
        """At an API bot's decision: maybe write, maybe read."""
        if self.writes(table):
            self.post_api(bot, table, view)
        if self.due():
            self.read_api(bot, table)

    def post_api(self, bot, table, view: dict) -> None:
        kind, other = self.choose(bot, table)
        game_id = table.game_id
        body = {}
        if other is not None:
            body["to"] = [seat_in_view(view, other)]
        item = self.new(bot, game_id, kind, {other.user_id: other.email} if other else {}, "api")
        body["text"] = item.text
        self.ledger.add_talk(item)
        status, data = self.client.api(bot, "POST", f"/games/{game_id}/{'notes' if kind == 'note' else 'messages'}",
                                       body)
        if status == 201:
            self.ledger.settle_talk(item, "posted")
        elif 400 <= status < 500:
            self.ledger.settle_talk(item, "refused", data.get("message", "") or str(data)[:200])
        else:
            raise RuntimeError(f"POST {kind} to game {game_id} answered {status}: {data}")

    def read_api(self, bot, table) -> None:
        """The bot's table's conversation and its notes, and another table's conversation, through the API."""
        self.client.api(bot, "GET", f"/games/{table.game_id}/messages")
        self.client.api(bot, "GET", f"/games/{table.game_id}/notes")
        other = self.other_table(table)
        if other is not None:
            self.client.api(bot, "GET", f"/games/{other.game_id}/messages")

    def peek_api(self, table) -> None:
        """What a spectator without a token reads of the conversation."""
        self.client.http("GET", f"/api/v1/games/{table.game_id}/messages", kind="api")

    # ------------------------------------------------------------------ the web pages

    def web_turn(self, bot, table) -> None:
        """At a web bot's decision (the caller holds the bot's lock, logged in): maybe write, maybe read."""
        if self.writes(table):
            self.post_web(bot, table)
        if self.due():
            self.read_web(bot, table)

    def post_web(self, bot, table) -> None:
        """The talk page's message form (to the table or one box ticked) or its notes form, then the flash."""
        client = self.client
        kind, other = self.choose(bot, table)
        game_id = table.game_id
        path = f"/games/{game_id}/talk"
        _, _, page = client.web(bot, "GET", path)
        action = f"/games/{game_id}/notes" if kind == "note" else path
        fields = form_fields(page, action)
        if fields is None:
            raise RuntimeError(f"no form posting to {action} on {path}")
        item = self.new(bot, game_id, kind, {other.user_id: other.email} if other else {}, "web")
        fields["note-text" if kind == "note" else "talk-text"] = item.text
        if other is not None:
            fields["talk-to"] = str(seat_on_page(page, other))
        self.ledger.add_talk(item)
        status, _, answer = client.web(bot, "POST", action, fields)
        if status == 303:
            _, _, page = client.web(bot, "GET", path)
            said = flashes(page)
            if not any(s.startswith(("Your message was sent.", "Your note is kept")) for s in said):
                raise RuntimeError(f"{kind} posted to game {game_id}: 303 without its flash: {said}")
            self.ledger.settle_talk(item, "posted")
        elif 400 <= status < 500:
            found = _PAGE_ERROR.search(answer)
            self.ledger.settle_talk(item, "refused", html.unescape(found.group(1)).strip() if found else answer[:200])
        else:
            raise RuntimeError(f"POST {action} answered {status}: {answer[:300]!r}")

    def read_web(self, bot, table) -> None:
        """The talk panel of the bot's table (its conversation and notes) and of another table."""
        self.client.web(bot, "GET", f"/games/{table.game_id}/talk?part=1")
        other = self.other_table(table)
        if other is not None:
            self.client.web(bot, "GET", f"/games/{other.game_id}/talk?part=1")

    def peek_web(self, table) -> None:
        """What a spectator who is not logged in reads of the conversation."""
        self.client.http("GET", f"/games/{table.game_id}/talk")

    # ------------------------------------------------------------------ mail

    def mail_turn(self, bot, table, line: str) -> tuple[str, Talk | None]:
        """At a mail bot's move: maybe a message under it (returned with the body, for the caller to put in
        the ledger with the mail's Message-ID), maybe a /say or /note mail of its own."""
        if not self.writes(table):
            return line, None
        if not self.dice.chance(UNDER_MOVE_SHARE):
            self.players.submit(self.say_mail, bot, table)
            return line, None
        kind, other = self.choose(bot, table, notes=False)
        item = self.new(bot, table.game_id, kind, {other.user_id: other.email} if other else {}, "under_move")
        names = f"@{other.name} " if other is not None else ""
        return f"{line}\n\n--- message ---\n{names}{item.text}", item

    def say_mail(self, bot, table) -> None:
        """A /say or /note mail to the bot's command address."""
        kind, other = self.choose(bot, table)
        game_id = table.game_id
        item = self.new(bot, game_id, kind, {other.user_id: other.email} if other else {}, "say")
        names = f"@{other.name} " if other is not None else ""
        command = f"/note {game_id} {item.text}" if kind == "note" else f"/say {game_id} {names}{item.text}"
        to = self.players.command_address(bot)
        item.message_id, raw = self.client.mail_out(bot, to, "talk", command)
        self.ledger.add_talk(item)
        self.client.smtp_send(bot.email, to, raw)

    def on_message_mail(self, bot, message, text: str) -> None:
        """A message mail reached a bot: a mail bot may answer it."""
        if bot.door == "email" and self.players.playing and self.due():
            self.players.submit(self.answer_mail, bot, message, text)

    def answer_mail(self, bot, message, text: str) -> None:
        """Reply to a message mail (its Reply-To is a talk key): to the whole table, or to the same readers."""
        original = next((self.ledger.talk_by_marker[m] for m in MARKER.findall(text)
                         if m in self.ledger.talk_by_marker), None)
        if original is None:
            return
        readers = original.readers()
        kind = "public" if readers is None else "private"
        to = {} if readers is None else {uid: address for uid, address in readers.items() if uid != bot.user_id}
        item = self.new(bot, original.game_id, kind, to, "reply")
        reply_to = str(message["Reply-To"])
        item.message_id, raw = self.client.mail_out(bot, reply_to, "Re: " + str(message["Subject"]), item.text,
                                                    reply_to=message)
        self.ledger.add_talk(item)
        self.client.smtp_send(bot.email, reply_to, raw)

    def on_answer(self, answer_to: str, text: str) -> bool:
        """The service's answer to a mail that talked: settle what it said (True when the mail talked)."""
        item = self.ledger.talk_by_message.get(answer_to)
        if item is None:
            return False
        refused = _NOT_SENT.search(text)
        if _POSTED.search(text):
            self.ledger.settle_talk(item, "posted")
        elif refused:
            self.ledger.settle_talk(item, "refused", refused.group(1).strip())
        elif _FAILED in text:
            lines = text.split(_FAILED, 1)[1].strip().splitlines()
            self.ledger.settle_talk(item, "refused", lines[1].strip() if len(lines) > 1 else "")
        else:
            self.ledger.error(f"an answer to a {item.kind} message ({item.way}) I cannot read: {text[:300]!r}")
        return True

    # ------------------------------------------------------------------ archives

    def read_archive(self, table) -> None:
        """A game that ended: its archive as one of its API or web players, a bot of another table and nobody
        download it."""
        game_id = table.game_id
        players = self.players
        seated = [b for b in table.bots if b.door in ("api", "web")]
        outsiders = [b for door in ("api", "web") for b in players.bots[door] if b not in table.bots]
        readers = [self.dice.choice(group) for group in (seated, outsiders) if group]
        for bot in readers:
            if bot.door == "api":
                self.client.api(bot, "GET", f"/games/{game_id}/archive")
            else:
                with bot.lock:
                    self.client.login(bot)
                    self.client.web(bot, "GET", f"/games/{game_id}/archive.json")
        self.client.http("GET", f"/games/{game_id}/archive.json")
