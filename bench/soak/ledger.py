"""What the soak keeps while it runs, for the checks and the report to read afterwards.

The ledger: every submission a bot made (a move, a resignation, an illegal or a stale move)
and what the door said of it; everything a bot wrote at a table (a message to the table or to
one seat, a note) with its marker and who may read it; the answers no bot expected; the
samples of the bot jobs posted and not done (issue 37, taken by the run from the database). The
capture: the bytes of every mail, API answer and page, with the time each arrived and who
read it, to be searched for hidden information and private talk. The dice: the bots' seeded
random choices, one source shared by every thread. Nothing here talks to the service.
"""

from __future__ import annotations

import collections
import random
import threading
from dataclasses import dataclass, field
from pathlib import Path

from bench.soak.world import now


@dataclass
class Sent:
    """One submission by a bot: a move, a resignation, an illegal or a stale move."""

    door: str
    kind: str  # move | resign | illegal | stale
    game_id: int
    user_id: int
    key: str | None  # the idempotency key as the server stores it (moves only)
    text: str
    at: float = field(default_factory=now)
    outcome: str | None = None  # applied | duplicate | refused
    reason: str = ""
    answers: int = 0  # mail: answers received for this Message-ID
    message_id: str | None = None
    copies: str = ""  # duplicate injected: "sequential" or "concurrent"
    copy_outcome: str = ""  # what the door said to the second copy


@dataclass
class Talk:
    """One thing a bot wrote at a table (issue 34): a message to the table, to one other seat, or a note.

    Its text carries `marker`, found nowhere else; `to` holds the recipients of a private message
    (user id -> address; empty for the table or a note). Written into the ledger before it is sent,
    so that a marker found anywhere is known."""

    door: str
    kind: str  # public | private | note
    way: str  # how it went: api, web, say (a /say or /note mail), under_move (a turn reply), reply (to a message mail)
    game_id: int
    marker: str
    text: str
    sender: tuple[int, str]  # user id, address
    to: dict[int, str] = field(default_factory=dict)
    at: float = field(default_factory=now)
    message_id: str | None = None  # mail: the Message-ID its answer comes back to
    outcome: str | None = None  # posted | refused
    reason: str = ""

    def readers(self) -> dict[int, str] | None:
        """Who may read it (user id -> address): the sender and the recipients; None: the whole table."""
        return None if self.kind == "public" else {self.sender[0]: self.sender[1], **self.to}


class Ledger:
    """Every submission and what became of it; what the bots said at their tables; the answers they did
    not expect."""

    def __init__(self):
        self.lock = threading.Lock()
        self.sent: list[Sent] = []
        self.by_message: dict[str, Sent] = {}
        self.talk: list[Talk] = []
        self.talk_by_marker: dict[str, Talk] = {}
        self.talk_by_message: dict[str, Talk] = {}
        self.applied = 0
        self.applied_by_door = collections.Counter()
        self.errors: list[str] = []  # answers a bot did not expect
        self.bot_queue: list[tuple[float, int]] = []  # (time, bot jobs posted and not done) once a second

    def sample_bot_queue(self, jobs: int) -> None:
        """One sample of the bot jobs posted and not done (pbem.players.bot_seats.queued)."""
        with self.lock:
            self.bot_queue.append((now(), jobs))

    def bot_queue_max(self) -> int:
        """The most bot jobs posted and not done in any sample (0 without samples)."""
        with self.lock:
            return max((n for _t, n in self.bot_queue), default=0)

    def add(self, item: Sent) -> Sent:
        with self.lock:
            self.sent.append(item)
            if item.message_id:
                self.by_message[item.message_id] = item
        return item

    def add_talk(self, item: Talk) -> Talk:
        with self.lock:
            self.talk.append(item)
            self.talk_by_marker[item.marker] = item
            if item.message_id:
                self.talk_by_message[item.message_id] = item
        return item

    def settle_talk(self, item: Talk, outcome: str, reason: str = "") -> None:
        """Record the door's first word on a message or a note: posted, or refused and why."""
        with self.lock:
            if item.outcome is None:
                item.outcome, item.reason = outcome, reason

    def messages_posted(self, doors) -> collections.Counter:
        """Messages (not notes) posted through each of `doors` (0 when it posted none)."""
        with self.lock:
            posted = collections.Counter(x.door for x in self.talk if x.outcome == "posted" and x.kind != "note")
        return collections.Counter({door: posted[door] for door in doors})

    def settle(self, item: Sent, outcome: str, reason: str = "") -> None:
        """Record the door's first word on a submission (later ones do not change it)."""
        with self.lock:
            if item.outcome is None and outcome == "applied" and item.kind == "move":
                self.applied += 1
                self.applied_by_door[item.door] += 1
            if item.outcome is None:
                item.outcome, item.reason = outcome, reason

    def error(self, text: str) -> None:
        with self.lock:
            if len(self.errors) < 200:
                self.errors.append(text)


class Capture:
    """Append-only files of captured bytes with an index (time, kind, offset, length, label).

    A label names who read the bytes: a mail its recipients' addresses (comma-separated), a
    request the bot that made it (`... by user <id>`) or nobody (`... by anonymous`)."""

    KINDS = ("mail", "api", "page")

    def __init__(self, folder: Path):
        self.folder = folder
        self.lock = threading.Lock()
        self.files = {kind: open(folder / f"captured-{kind}.bin", "wb") for kind in self.KINDS}
        self.index: list[tuple[float, str, int, int, str]] = []

    def add(self, kind: str, data: bytes, label: str, at: float | None = None) -> None:
        with self.lock:
            handle = self.files[kind]
            offset = handle.tell()
            handle.write(data)
            self.index.append((now() if at is None else at, kind, offset, len(data), label))

    def close(self) -> None:
        with self.lock:
            for handle in self.files.values():
                handle.close()

    def items(self):
        """(time, kind, label, bytes) of everything captured, in the order it arrived."""
        handles = {kind: open(self.folder / f"captured-{kind}.bin", "rb") for kind in self.files}
        try:
            for t, kind, offset, length, label in self.index:
                handle = handles[kind]
                handle.seek(offset)
                yield t, kind, label, handle.read(length)
        finally:
            for handle in handles.values():
                handle.close()


class Dice:
    """The run's random choices (`--seed`), safe to use from every bot thread."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.lock = threading.Lock()

    def choice(self, items):
        with self.lock:
            return self.rng.choice(items)

    def chance(self, p: float) -> bool:
        with self.lock:
            return self.rng.random() < p

    def random(self) -> float:
        with self.lock:
            return self.rng.random()
