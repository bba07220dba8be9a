"""The checks the soak makes once the bots stopped and the outbox drained; each prints one line.

`check NAME: PASS|FAIL - detail`, in this order: `pbem verify --all`; per door, every
submission applied or refused with a reason, against the move log by source and key, and
duplicates never applied twice; exactly one turn notification per turn; no outbox row left
unsent; no seed of a running game and no hidden order in anything captured or logged; every
private message and note read only by its writer and recipients, public ones only by the
table (and spectators where it lets them), each stored once, every door talking; no ERROR or
Traceback in the process logs other than those the faults provoke; no answer the bots did not
expect; every fault injected; the finished rated games rated once; the bot jobs posted and not
done never above the site's budget, every table with bots moved by its bots, and no bot's turn
left undone after the drain. docs/operations.md ("Soak") says what each looks for.

The checks read what the run left (the database, the ledger, the capture, the logs); they
change nothing and measure nothing (the report does).
"""

from __future__ import annotations

import collections
import email
import html
import json
import re
import subprocess
import sys
from datetime import datetime
from email import policy
from pathlib import Path

from sqlalchemy import func, select

from bench.soak.drivers import DOORS
from bench.soak.talk import MARKER
from bench.soak.world import ROOT, now, utc
from pbem.players import bot_seats
from pbem.models import BotTurn, Game, GameStatus, InboundMail, Message, MoveRecord, Note, OutboundMail, Rating, \
    RatingUpdate, Seat, Snapshot

HIDDEN_KEYS = {"tongiaki": ("pile",), "discovery": ("deck",), "tapaono": ("deck",)}  # orders no one may see
# How many consecutive items of a hidden order are searched for: enough that no public list matches
# by chance (Tapaono's deck holds only 8 kinds of card, so its windows are longer).
WINDOW = {"tongiaki": 8, "discovery": 8, "tapaono": 12}

# The log records the faults provoke: (fault kind, part, pattern of the record's first line). Pausing
# the broker makes the Celery processes' Redis connections time out: acknowledgements fail (the
# message stays unacknowledged in Redis and is handed out again later; the tasks are idempotent),
# the consumer reconnects, beat cannot post the sweep for a while.
EXPECTED_ERRORS = [
    ("broker_pause", "worker", re.compile(r"CRITICAL/MainProcess\] Couldn't ack '[0-9a-f-]+', "
                                          r"reason:network:(TimeoutError|ConnectionError)")),
    ("broker_pause", "worker", re.compile(r"ERROR/MainProcess\] consumer: (Connection to broker lost|Cannot "
                                          r"connect to redis)")),
    ("broker_pause", "beat", re.compile(r"ERROR/MainProcess\] beat: Connection error")),
]
LOG_HEAD = re.compile(r"^(\[\d{4}-\d\d-\d\d[ T]|\d+:[A-Z] \d)")  # Celery, gunicorn and redis log lines
LOG_BAD = re.compile(r"\b(ERROR|CRITICAL|FATAL)\b|Traceback \(most recent call last\)")
SOURCES = {"api": "api", "web": "web", "email": "mail"}  # a door, and the source its messages are stored with
CANARY_ADDRESS = "canary@nowhere.example"
BOT_DECISION_S = 5.0  # a bot's decision at the soak's level (1 s cap) and its job's way through a busy worker


def load_log(db) -> dict[int, list]:
    """The move log, by game, in order."""
    with db.sessions() as s:
        rows = s.execute(select(MoveRecord.game_id, MoveRecord.seq, MoveRecord.seat, MoveRecord.source,
                                MoveRecord.notation, MoveRecord.idempotency_key, MoveRecord.created_at)
                         .order_by(MoveRecord.game_id, MoveRecord.seq)).all()
    log = collections.defaultdict(list)
    for row in rows:
        log[row.game_id].append(row)
    return log


def searchable_mail_text(raw: bytes) -> str:
    """A mail's headers and decoded text parts (the board picture is not text and is left out)."""
    message = email.message_from_bytes(raw, policy=policy.default)
    parts = [str(message.items())]
    for part in message.walk():
        if part.get_content_maintype() == "text":
            try:
                parts.append(part.get_content())
            except Exception:  # noqa: BLE001 - an undecodable part is searched raw
                parts.append(part.get_payload(decode=True).decode("latin-1"))
    return "\n".join(parts)


def reader_of(kind: str, label: str) -> tuple[str, object]:
    """Who read a capture, from its label (bench.soak.doors.reader_label, the sink's recipients):
    ("mail", {addresses}), ("user", user id) or ("anonymous", None); a log line is ("log", None)."""
    if kind == "mail":
        return "mail", {address.strip().lower() for address in label.split(",") if address.strip()}
    found = re.search(r" by user (\d+)$", label)
    return ("user", int(found.group(1))) if found else ("anonymous", None)


def captured_text(kind: str, data: bytes) -> str:
    """What a reader of captured bytes reads: a mail's headers and text parts, a page or an answer unescaped."""
    return searchable_mail_text(data) if kind == "mail" else html.unescape(data.decode("utf-8", "replace"))


class TalkSearch:
    """The table talk's markers found in what was read, each judged by its reader (Checks.talk_judge): the
    leaks, the private markers found where they may be (with where first), the public ones."""

    def __init__(self, judge):
        self.judge = judge
        self.leaks: list[str] = []
        self.private: dict[str, str] = {}
        self.public: set[str] = set()

    def search(self, text: str, reader: tuple[str, object], where: str) -> None:
        for marker in set(MARKER.findall(text)):
            if reader[0] == "log" and marker.startswith("soak-pub-"):
                continue  # a public message in a log line tells no secret
            why = self.judge(marker, reader)
            if why is not None:
                self.leaks.append(f"{marker} ({why}) in {where}")
            elif marker.startswith("soak-pub-"):
                self.public.add(marker)
            else:
                self.private.setdefault(marker, where)

    def canaries(self, item) -> list[str]:
        """Plant the private message `item` where another bot, a stranger's mail, nobody and a log line read it
        (each must be a leak) and where its sender does (none must be); the readers misjudged, forgotten after."""
        if item is None:
            return ["(no private message posted to plant)"]
        outsider = next(uid for uid in range(10 ** 9, 10 ** 9 + 100) if uid not in item.readers())
        misjudged = []
        for reader, leak in ((("mail", {CANARY_ADDRESS}), True), (("user", outsider), True),
                             (("anonymous", None), True), (("log", None), True),
                             (("user", item.sender[0]), False), (("mail", {item.sender[1]}), False)):
            before = len(self.leaks)
            self.search(f"text {item.text} text", reader, "canary")
            if (len(self.leaks) > before) != leak:
                misjudged.append(f"{reader[0]} {reader[1]}")
            del self.leaks[before:]
        self.private.pop(item.marker, None)
        return misjudged


class Checks:
    """Runs every check on what `soak` (bench.soak.run.Soak) left; `results` holds (name, passed, detail)."""

    def __init__(self, soak):
        self.args = soak.args
        self.world = soak.world
        self.db = soak.world.db
        self.folder = soak.world.folder
        self.ledger = soak.ledger
        self.capture = soak.capture
        self.faults = soak.faults
        self.players = soak.players
        self.drained_at = soak.drained_at
        self.results: list[tuple[str, bool, str]] = []

    def run(self, log: dict[int, list]) -> list[str]:
        """Every check in turn; returns the names of those that failed."""
        self.check_verify()
        self.check_accounting(log)
        self.check_turn_mails(log)
        self.check_outbox()
        self.check_hidden(log)
        self.check_talk()
        self.check_logs()
        self.check_bots()
        self.check_faults()
        self.check_ratings()
        self.check_bots_budget(log)
        return [name for name, ok, _ in self.results if not ok]

    def check(self, name: str, ok: bool, detail: str) -> None:
        self.results.append((name, ok, detail))
        print(f"check {name}: {'PASS' if ok else 'FAIL'} - {detail}", flush=True)

    def check_verify(self) -> None:
        pbem = Path(sys.executable).parent / "pbem"
        command = [str(pbem)] if pbem.exists() else [sys.executable, "-m", "pbem.cli"]
        done = subprocess.run([*command, "verify", "--all"], cwd=ROOT, env=self.world.env, capture_output=True,
                              text=True, timeout=1800)
        (self.folder / "verify.log").write_text(done.stdout + done.stderr)
        last = (done.stdout.strip().splitlines() or ["(no output)"])[-1]
        self.check("verify", done.returncode == 0, f"pbem verify --all: {last}")

    def check_accounting(self, log: dict[int, list]) -> None:
        rows = [row for game in log.values() for row in game]
        with self.db.sessions() as s:
            mail_rows = collections.Counter(s.scalars(select(InboundMail.message_id)))
        for door in DOORS:
            source = door
            sent = [x for x in self.ledger.sent if x.door == door]
            by_kind = collections.Counter(x.kind for x in sent)
            applied = [x for x in sent if x.outcome in ("applied", "duplicate")]
            refused = [x for x in sent if x.outcome == "refused"]
            unanswered = [x for x in sent if x.outcome is None]
            no_reason = [x for x in refused if not x.reason.strip()]
            db_moves = {row.idempotency_key for row in rows
                        if row.source == source and row.notation != "resign" and row.idempotency_key}
            db_resigns = collections.Counter((row.game_id, row.seat) for row in rows
                                             if row.source == source and row.notation == "resign")
            told_moves = {x.key for x in applied if x.kind != "resign"}
            told_resigns = sum(1 for x in applied if x.kind == "resign")
            problems = []
            if len(sent) != len(applied) + len(refused) + len(unanswered):
                problems.append("ledger does not add up")
            if unanswered:
                problems.append(f"{len(unanswered)} never answered (e.g. {unanswered[0].kind} "
                                f"{unanswered[0].text!r} in game {unanswered[0].game_id})")
            if no_reason:
                problems.append(f"{len(no_reason)} refused without a reason")
            if told_moves != db_moves:
                problems.append(f"told applied but not in the log: {len(told_moves - db_moves)}; "
                                f"in the log but not told: {len(db_moves - told_moves)}")
            refused_in_log = {x.key for x in refused if x.key} & db_moves
            if refused_in_log:
                problems.append(f"{len(refused_in_log)} refused moves are in the log")
            if told_resigns != sum(db_resigns.values()):
                problems.append(f"resignations told {told_resigns}, in the log {sum(db_resigns.values())}")
            if any(n > 1 for n in db_resigns.values()):
                problems.append("a seat resigned twice")
            bad_refused = collections.Counter(x.kind for x in refused)
            unexpected = [x for x in sent if x.kind in ("illegal", "stale") and x.outcome != "refused"]
            if unexpected:
                problems.append(f"{len(unexpected)} illegal or stale submissions were not refused")
            legal_refused = [x for x in refused if x.kind in ("move", "resign")]
            if legal_refused:  # chosen from the legal moves of the position the bot was shown
                first = legal_refused[0]
                problems.append(f"{len(legal_refused)} legal moves or resignations refused, e.g. "
                                f"{first.text!r} in game {first.game_id}: {first.reason}")
            copies = [x for x in sent if x.copies]
            dup_problems = []
            for x in copies:
                if door == "web":
                    if not x.copy_outcome.startswith("303") or "not recognised" in x.copy_outcome:
                        dup_problems.append(f"second POST: {x.copy_outcome}")
                else:
                    if mail_rows.get(x.message_id, 0) != 1:
                        dup_problems.append(f"{x.message_id} stored {mail_rows.get(x.message_id, 0)} times")
                    if x.answers != 1:
                        dup_problems.append(f"{x.message_id} ({x.copies}) answered {x.answers} times")
            if dup_problems:
                problems.append(f"duplicates: {len(dup_problems)} problem(s), e.g. {dup_problems[0]}")
            if door == "email":
                answered_twice = [x for x in sent if x.answers > 1]
                if answered_twice:
                    problems.append(f"{len(answered_twice)} mails answered more than once")
            detail = (f"submitted {len(sent)} = applied {len(applied)} + refused with a reason {len(refused)} "
                      f"+ unanswered {len(unanswered)}; kinds {dict(by_kind)}; refused by kind {dict(bad_refused)}; "
                      f"log by source '{source}': {len(db_moves)} keyed moves, {sum(db_resigns.values())} "
                      f"resignations; duplicates injected {len(copies)}, applied twice 0 (unique key), "
                      f"recognised {len(copies) - len(dup_problems)}")
            if problems:
                detail += "; PROBLEMS: " + "; ".join(problems)
            self.check(f"accounting.{door}", not problems, detail)

    def expected_turns(self, log: dict[int, list]) -> set[tuple[int, int, int]]:
        """(game, seat, moves played) of every turn notification the log calls for.

        A change is one transaction: a player's move or resignation plus the automatic moves
        of resigned seats that follow it ('auto'). After it, the seat to move is the seat of
        the next change (bots act only on their own turn), or the game's current player. A
        turn notification is due when that seat differs from the one who acted.
        """
        with self.db.sessions() as s:
            current = {g.id: g for g in s.scalars(select(Game).where(Game.status.in_(("running", "finished"))))}
            bots = set(s.execute(select(Seat.game_id, Seat.number).where(Seat.bot_level.is_not(None))).all())
        expected = set()
        for game_id, game in current.items():
            entries = log.get(game_id, [])
            changes: list[list] = []
            for row in entries:
                if row.source == "auto" and changes:
                    changes[-1].append(row)
                else:
                    changes.append([row])
            first = changes[0][0].seat if changes else game.to_move
            if first is not None:
                expected.add((game_id, first, 0))
            for i, change in enumerate(changes):
                mover = change[0].seat
                after = change[-1].seq
                if i + 1 < len(changes):
                    nxt = changes[i + 1][0].seat
                elif game.status == "running":
                    nxt = game.to_move
                else:
                    nxt = None
                if nxt is not None and nxt != mover:
                    expected.add((game_id, nxt, after))
        return {turn for turn in expected if turn[:2] not in bots}  # a bot's seat gets no notices (issue 37)

    def check_turn_mails(self, log: dict[int, list]) -> None:
        expected = self.expected_turns(log)
        distinct = collections.defaultdict(set)
        copies = collections.Counter()
        for game_id, seat, seq, message_id, _t in self.players.turn_mails:
            distinct[(game_id, seat, seq)].add(message_id)
            copies[message_id] += 1
        got = set(distinct)
        missing = sorted(expected - got)
        extra = sorted(got - expected)
        several = {k: v for k, v in distinct.items() if len(v) > 1}
        killed = self.faults.sending_at_kill
        with self.db.sessions() as s:
            allowed = set(s.scalars(select(OutboundMail.message_id).where(OutboundMail.id.in_(killed)))) \
                if killed else set()
        repeated = {m for m, n in copies.items() if n > 1}
        unexplained = repeated - allowed
        ok = not missing and not extra and not several and not unexplained
        detail = (f"{len(expected)} turns, {len(got)} notified; missing {len(missing)} {missing[:5]}, "
                  f"unexpected {len(extra)} {extra[:5]}, turns with several notifications {len(several)}; "
                  f"the same message received twice {len(repeated)} (allowed only for the {len(allowed)} "
                  f"mail(s) being sent when the worker was killed: {len(unexplained)} others)")
        self.check("turn_notifications", ok, detail)

    def check_outbox(self) -> None:
        with self.db.sessions() as s:
            by_status = dict(s.execute(select(OutboundMail.status, func.count()).group_by(OutboundMail.status)).all())
            inbound = dict(s.execute(select(InboundMail.outcome, func.count()).group_by(InboundMail.outcome)).all())
        unsent = {k: v for k, v in by_status.items() if k != "sent"}
        self.check("outbox", not unsent, f"outbox rows by status {by_status}; inbound mail by outcome {inbound}")

    def secrets_by_game(self, log: dict[int, list]):
        """Each game's seed (three spellings) and every window of its hidden orders, with when each stops
        being secret."""
        never = datetime.max
        seeds: dict[str, tuple[int, datetime]] = {}
        windows: dict[tuple, tuple[int, datetime]] = {}
        with self.db.sessions() as s:
            played = list(s.execute(select(Game.id, Game.title, Game.seed, Game.status, Game.finished_at)
                                    .where(Game.seed.is_not(None))).all())
        for game_id, title, seed, status, finished_at in played:
            end = finished_at if status == "finished" and finished_at else never
            number = int(seed, 16)
            for text in (seed.lower(), format(number, "x"), str(number)):
                seeds[text] = (game_id, end)
            keys = HIDDEN_KEYS.get(title, ())
            size = WINDOW.get(title, 8)
            times = {row.seq: row.created_at for row in log.get(game_id, [])}
            alive: set[tuple] = set()
            with self.db.sessions() as s:
                states = s.execute(select(Snapshot.seq, Snapshot.state).where(Snapshot.game_id == game_id)
                                   .order_by(Snapshot.seq))
                for seq, state in states:
                    data = json.loads(state)
                    now_set = set()
                    for key in keys:
                        order = [str(x) for x in data.get(key) or []]
                        now_set |= {tuple(order[i:i + size]) for i in range(len(order) - size + 1)}
                    for gone in alive - now_set:
                        windows[gone] = (game_id, times.get(seq, never))
                    alive = now_set
            for still in alive:
                windows[still] = (game_id, end)
        return seeds, windows

    def check_hidden(self, log: dict[int, list]) -> None:
        seeds, windows = self.secrets_by_game(log)
        by_prefix: dict[str, list[str]] = collections.defaultdict(list)
        for text in seeds:
            by_prefix[text[:24]].append(text)
        leaks: list[str] = []
        searched = collections.Counter()
        sizes = sorted({len(w) for w in windows})

        def search(text: str, at: datetime, where: str) -> None:
            for run in re.findall(r"[0-9a-fA-F]{24,}|\d{24,}", text):
                run = run.lower()
                for i in range(len(run) - 23):
                    for candidate in by_prefix.get(run[i:i + 24], ()):
                        if run.startswith(candidate, i):
                            game_id, end = seeds[candidate]
                            if at < end:
                                leaks.append(f"seed of game {game_id} in {where}")
            for group in re.findall(r"[\[\(]([^\[\]\(\)]*)[\]\)]", text):
                items = [x.strip().strip("'\"") for x in group.split(",")]
                for size in sizes:
                    for i in range(len(items) - size + 1):
                        hit = windows.get(tuple(items[i:i + size]))
                        if hit is not None and at < hit[1]:
                            leaks.append(f"hidden order of game {hit[0]} in {where}")

        # The canary: the search must find a planted seed (each spelling) and a planted hidden order,
        # or this check could pass by being blind.
        canaries = []
        if seeds and windows:
            number_text = next(iter(seeds))
            number = int(number_text, 16) if len(number_text) == 32 else None
            window = next(iter(windows))
            if number is not None:
                canaries = [f"seed={number:032x}.", f"Rng(seed={number:x}, counter=3)", f"seed {number} x",
                            "state " + json.dumps({"deck": list(window)}), "deck=(" + ", ".join(window) + ")"]
        blind = []
        for text in canaries:
            before = len(leaks)
            search(text, datetime.min, "canary")
            if len(leaks) == before:
                blind.append(text)
            del leaks[before:]
        if not canaries or blind:
            leaks.append(f"the search is blind: it did not find the planted secrets {blind or '(none planted)'}")
        for t, kind, label, data in self.capture.items():
            searched[kind] += 1
            search(captured_text(kind, data), utc(t), f"{kind} {label}")
        for t, path, text in self.log_chunks():
            searched["log chunks"] += 1
            search(text, utc(t), f"log {path.name}")
        detail = (f"searched {dict(searched)} for {len({g for g, _ in seeds.values()})} seeds (32-digit hex, "
                  f"unpadded hex, decimal) and {len(windows)} windows of consecutive items of hidden orders "
                  f"({', '.join(f'{k}.{v[0]} by {WINDOW[k]}' for k, v in HIDDEN_KEYS.items())}), each before it "
                  f"stopped being secret (and {len(canaries)} planted canaries, all found); leaks {len(leaks)}")
        if leaks:
            detail += ": " + "; ".join(leaks[:5])
        self.check("hidden_information", not leaks, detail)

    def talk_rows(self):
        """The stored messages and notes that carry a marker, by marker; each game's players and whether
        spectators read its public messages."""
        stored = collections.defaultdict(list)
        with self.db.sessions() as s:
            seat_users = {(g, n): u for g, n, u in s.execute(select(Seat.game_id, Seat.number, Seat.user_id))}
            spectators = dict(s.execute(select(Game.id, Game.press_spectators)).all())
            for row in s.execute(select(Message.game_id, Message.seat, Message.user_id, Message.to_seats,
                                        Message.source, Message.body)):
                seats = None if row.to_seats is None else set(row.to_seats) | {row.seat}
                readers = None if seats is None else {seat_users.get((row.game_id, n)) for n in seats}
                for marker in MARKER.findall(row.body):
                    stored[marker].append((row.game_id, row.user_id, readers, row.source))
            for row in s.execute(select(Note.game_id, Note.user_id, Note.body)):
                for marker in MARKER.findall(row.body):
                    stored[marker].append((row.game_id, row.user_id, {row.user_id}, "note"))
        players = collections.defaultdict(set)
        for (game_id, _number), user_id in seat_users.items():
            players[game_id].add(user_id)
        return stored, players, spectators

    def talk_accounting(self, stored) -> list[str]:
        """Each thing written: what its door said, stored once if posted (never if refused), with the readers
        the ledger says, from the sender; messages are not moves (pbem verify sees none of them)."""
        problems = []
        for item in self.ledger.talk:
            rows = stored.get(item.marker, [])
            readers = item.readers()
            want = None if readers is None else set(readers)
            if item.outcome is None:
                problems.append(f"{item.kind} {item.marker} ({item.door}, {item.way}) never answered")
            elif item.outcome == "refused":
                problems.append(f"{item.kind} {item.marker} ({item.door}, {item.way}) refused: {item.reason!r}")
            if len(rows) != (1 if item.outcome == "posted" else 0):
                problems.append(f"{item.kind} {item.marker} ({item.outcome}) stored {len(rows)} times")
            for game_id, user_id, got, source in rows:
                if (game_id, user_id) != (item.game_id, item.sender[0]) or got != want or \
                        source != ("note" if item.kind == "note" else SOURCES[item.door]):
                    problems.append(f"{item.kind} {item.marker} stored as game {game_id} by user {user_id} from "
                                    f"{source} to {sorted(got) if got else 'the table'}; written at game "
                                    f"{item.game_id} by user {item.sender[0]} to "
                                    f"{sorted(want) if want else 'the table'}")
        return problems

    def talk_judge(self, players, spectators):
        """A function (marker, reader) -> None when that reader may read the marker, else why not."""
        address_of = {bot.user_id: bot.email.lower() for bots in self.players.bots.values() for bot in bots}
        by_marker = self.ledger.talk_by_marker

        def judge(marker: str, reader: tuple[str, object]) -> str | None:
            item = by_marker.get(marker)
            if item is None:
                return "a marker no bot wrote"
            how, who = reader
            readers = item.readers()
            if readers is None:  # to the table: its players, and anyone where spectators read the table's talk
                if spectators.get(item.game_id) and how != "log":
                    return None
                readers = {uid: address_of.get(uid, "") for uid in players.get(item.game_id, ())}
            if how == "mail" and who and who <= {address.lower() for address in readers.values()}:
                return None
            if how == "user" and who in readers:
                return None
            return f"{item.kind} of game {item.game_id} by user {item.sender[0]}, readers {sorted(readers)}"
        return judge

    def check_talk(self) -> None:
        stored, players, spectators = self.talk_rows()
        problems = self.talk_accounting(stored)
        found = TalkSearch(self.talk_judge(players, spectators))
        # The canary: the search must judge a planted private marker right, or it could pass by being blind.
        blind = found.canaries(next((x for x in self.ledger.talk if x.kind == "private" and x.outcome == "posted"),
                                    None))
        if blind:
            problems.append(f"the search is blind: a planted private marker was misjudged for {blind}")
        searched = collections.Counter()
        for _t, kind, label, data in self.capture.items():
            searched[kind] += 1
            if kind == "mail" or b"soak-" in data:
                found.search(captured_text(kind, data), reader_of(kind, label), f"{kind} {label}")
        for _t, path, text in self.log_chunks():
            searched["log chunks"] += 1
            found.search(text, ("log", None), f"log {path.name}")
        talk = self.ledger.talk
        posted = self.ledger.messages_posted(DOORS)
        silent = [door for door, n in posted.items() if not n]
        if silent:
            problems.append(f"no message posted through {', '.join(silent)}")
        examples = [f"{m} in {where}" for m, where in found.private.items() if m.startswith("soak-priv-")]
        if not examples:
            problems.append("no private message was found where its readers read it")
        detail = (f"written {dict(collections.Counter(x.kind for x in talk))} by way "
                  f"{dict(collections.Counter(f'{x.door}.{x.way}' for x in talk))}; messages posted by door "
                  f"{dict(posted)}, notes {sum(1 for x in talk if x.kind == 'note' and x.outcome == 'posted')}; "
                  f"each stored once with the readers written to; searched {dict(searched)}: "
                  f"{len(found.private)} private markers (messages and notes) found only where their readers read "
                  f"them (e.g. {'; '.join(examples[:2]) or 'none'}), {len(found.public)} public ones only at their "
                  f"tables or where spectators may read; planted canaries judged right; leaks {len(found.leaks)}")
        if found.leaks:
            detail += ": " + "; ".join(found.leaks[:5])
        if problems:
            detail += f"; PROBLEMS ({len(problems)}): " + "; ".join(problems[:5])
        self.check("talk", not found.leaks and not problems, detail)

    def log_chunks(self):
        """(time read, path, text) of every chunk of every process log, in the order they were read."""
        for t, path, start, end in self.world.meter.tail.chunks:
            with open(path, "rb") as handle:
                handle.seek(start)
                yield t, path, handle.read(end - start).decode("utf-8", "replace")

    def log_records(self):
        """The process logs cut into records (a log line with its traceback), each with when it was read.

        A record starts at a line with a timestamp (Celery, gunicorn, redis) or, in the logs that
        print bare lines (Python's last-resort handler in the mail listener), at any line that is not
        part of a traceback: indented lines, "Traceback", "During handling ...", "The above
        exception ...", blank lines and the exception line that ends a traceback belong to the record.
        """
        records = []
        for part in self.world.parts.values():
            for path in part.logs:
                chunks = [(t, e) for t, p, _s, e in self.world.meter.tail.chunks if p == path]  # in file order
                offset, k = 0, 0
                current = None
                in_traceback = False
                for raw_line in path.read_bytes().split(b"\n"):
                    line = raw_line.decode("utf-8", "replace")
                    while k < len(chunks) and chunks[k][1] <= offset:
                        k += 1
                    t = chunks[k][0] if k < len(chunks) else now()
                    offset += len(raw_line) + 1
                    continues = current is not None and not LOG_HEAD.match(line) and (
                        not line.strip() or line[0] in " \t" or line.startswith(
                            ("Traceback", "During handling", "The above exception")) or in_traceback)
                    if continues:
                        current["lines"].append(line)
                        if line.startswith("Traceback"):
                            in_traceback = True
                        elif line and line[0] not in " \t" and in_traceback:
                            in_traceback = False  # the exception line ends the traceback
                        continue
                    current = {"part": part.name, "log": path.name, "t": t, "lines": [line]}
                    in_traceback = line.startswith("Traceback")
                    records.append(current)
        return [r for r in records if any(LOG_BAD.search(line) for line in r["lines"])]

    def check_logs(self) -> None:
        records = self.log_records()
        expected, unexpected = [], []
        for record in records:
            head = record["lines"][0]
            explained = False
            for kind, part, pattern in EXPECTED_ERRORS:
                if not record["part"].startswith(part):
                    continue
                for fault in self.faults.windows:
                    if fault["kind"] == kind and fault["start"] - 1 <= record["t"] <= fault["end"] + \
                            self.args.fault_grace_s and pattern.search(head):
                        explained = True
            (expected if explained else unexpected).append(record)
        with open(self.folder / "log-errors.txt", "w") as handle:
            for record in records:
                handle.write(f"--- {record['part']} {record['log']} at {utc(record['t'])}\n")
                handle.write("\n".join(record["lines"]) + "\n")
        detail = (f"{len(records)} ERROR/Traceback records: {len(expected)} provoked by the faults, "
                  f"{len(unexpected)} not (all in {self.folder / 'log-errors.txt'})")
        if unexpected:
            first = unexpected[0]
            detail += f"; first: {first['part']}: {first['lines'][0][:200]}"
        self.check("logs", not unexpected, detail)

    def check_bots(self) -> None:
        errors = self.ledger.errors
        (self.folder / "bot-errors.txt").write_text("\n\n".join(errors))
        self.check("bots", not errors, f"{len(errors)} unexpected answers or failures seen by the bots"
                   + (f"; first: {errors[0][:300]}" if errors else ""))

    def check_ratings(self) -> None:
        """Every finished rated game changed its players' ratings exactly once (issue 35): one update a
        game, none for a game not finished, and each rating counts the updates that name its player."""
        with self.db.sessions() as s:
            finished = set(s.scalars(select(Game.id).where(Game.rated, Game.status == GameStatus.FINISHED.value)))
            updates = list(s.scalars(select(RatingUpdate)))
            ratings = {(r.user_id, r.title): r.games for r in s.scalars(select(Rating))}
        rated = collections.Counter(u.game_id for u in updates)
        counted = collections.Counter((int(user), u.title) for u in updates for user in u.changes)
        twice = [game for game, n in rated.items() if n > 1]
        missing, stray = finished - set(rated), set(rated) - finished
        wrong = [key for key in set(counted) | set(ratings) if counted[key] != ratings.get(key)]
        ok = bool(finished) and not (twice or missing or stray or wrong)
        self.check("ratings", ok, f"{len(finished)} finished rated games, {len(rated)} rating updates; "
                   f"twice {twice[:5]}, missing {sorted(missing)[:5]}, not finished {sorted(stray)[:5]}, "
                   f"ratings that do not count their updates {wrong[:5]}")

    def check_bots_budget(self, log: dict[int, list]) -> None:
        """Bot seats (issue 37): the bot jobs posted and not done, sampled every second, never above
        bot_seats.SITE_BUDGET; every table with bots that came to a bot's turn has moves with source "bot";
        after the drain, no running game waits on a bot longer than the sweep's delay (its bot_turns row)."""
        samples = self.ledger.bot_queue
        most = self.ledger.bot_queue_max()
        with self.db.sessions() as s:
            games = {g.id: g for g in s.scalars(select(Game).where(Game.id.in_(list(self.players.bot_games()))))}
            bots = set(s.execute(select(Seat.game_id, Seat.number).where(Seat.game_id.in_(list(games)),
                                                                         Seat.bot_level.is_not(None))).all())
            waiting = list(s.execute(select(BotTurn.game_id, BotTurn.version, BotTurn.posted_at, Game.started_at)
                                     .join(Game, Game.id == BotTurn.game_id)
                                     .where(Game.status == GameStatus.RUNNING.value)).all())
        problems = []
        if not samples:
            problems.append("the bot queue was never sampled")
        if most > bot_seats.SITE_BUDGET:
            at = next(t for t, n in samples if n == most)
            problems.append(f"{most} bot jobs posted and not done at {utc(at)}, above the budget "
                            f"{bot_seats.SITE_BUDGET}")
        started = [g for g in games.values() if g.started_at is not None]
        # A bot's turn came: a bot's seat moved or is to move, or the game ended (its player alone never resigns).
        due = [g for g in started if any((g.id, row.seat) in bots for row in log.get(g.id, []))
               or (g.id, g.to_move) in bots or g.to_move is None]
        still = [g.id for g in due if not any(row.source == "bot" for row in log.get(g.id, []))]
        if not started:
            problems.append("no table with bots started")
        if still:
            problems.append(f"tables with bots whose bots never moved: games {still[:5]}")
        # The sweep's delay: a turn waiting for a place in the budget is posted by the next sweeps; a posted job that
        # was lost (its post failed in the broker pause, its worker was killed) is posted again LOST_AFTER_S later.
        delay = 2 * self.args.sweep_every + BOT_DECISION_S
        undone = []
        for game_id, version, posted_at, started_at in waiting:  # since its position: the last move, or the start
            since = max((row.created_at for row in log.get(game_id, [])), default=started_at)
            allowed = delay + (bot_seats.LOST_AFTER_S if posted_at is not None else 0)
            waited = (utc(self.drained_at) - since).total_seconds()
            if waited > allowed:
                undone.append(f"game {game_id} at move {version} for {waited:.0f} s, longer than {allowed:.0f} s "
                              f"(posted {posted_at or 'not yet'})")
        if undone:
            problems.append(f"bot turns undone after the drain: {'; '.join(undone[:5])}")
        moves = sum(1 for g in games for row in log.get(g, []) if row.source == "bot")
        detail = (f"bot jobs posted and not done: at most {most} in {len(samples)} samples (budget "
                  f"{bot_seats.SITE_BUDGET}); {len(started)} tables with bots started, {len(due)} came to a bot's "
                  f"turn, {len(due) - len(still)} of them moved by their bots ({moves} bot moves); bot turns left "
                  f"after the drain {len(waiting)} (a lost job is posted again {bot_seats.LOST_AFTER_S:.0f} s "
                  f"after), undone {len(undone)}")
        if problems:
            detail += "; PROBLEMS: " + "; ".join(problems)
        self.check("bots_budget", not problems, detail)

    def check_faults(self) -> None:
        f = self.faults.counts
        doubles = f["web_double_sequential"] + f["web_double_concurrent"]
        dups = f["mail_duplicate_sequential"] + f["mail_duplicate_concurrent"]
        ok = f["worker_kills"] >= 1 and f["broker_pauses"] >= 1 and doubles >= 1 and dups >= 1
        self.check("faults_injected", ok, f"worker kills {f['worker_kills']}, broker pauses {f['broker_pauses']}, "
                   f"duplicate mails {dups}, double web submissions {doubles}")

