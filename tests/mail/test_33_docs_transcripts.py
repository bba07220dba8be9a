"""Issue 33, "Must show": docs/mail.md shows a whole turn of each title by mail as a player sees it,
with the answers, and one list of the mail commands; this keeps both true.

Each transcript is made by the real service: a scratch SQLite database (`pbem.migrate.upgrade`),
a seeded game of each title (`pbem.games`) walked to a turn with seeded random moves, the turn
mail as `pbem.mail.outbound.deliver` writes it, the player's reply as a mail client writes it
(the moves on top, a signature, the turn mail quoted with ">"), taken by
`pbem.mail.inbound.receive`, and the answer as it is sent. Dates, Message-IDs and keys would
vary: the secret key and the seats' and players' nonces are fixed (so the keys are the same at
every run), the Date and Message-ID headers are not shown, and a date in a text (the quote
header of the reply) is normalised by `trim`, the rule that also cuts a long mail down to the
parts a player acts on.

In docs/mail.md each transcript stands between `<!-- transcript: NAME -->` and
`<!-- /transcript -->`; the test fails when one differs from what the service writes now.
`python -m tests.mail.test_33_docs_transcripts --write` writes them again.
"""

from __future__ import annotations

import random
import re
import sys
import tempfile
from dataclasses import dataclass
from email import policy
from email.parser import BytesParser
from pathlib import Path
from typing import Callable

import pytest
from sqlalchemy import select

import engine
from pbem import config, games, migrate, wiring
from pbem.db import Database
from pbem.mail import commands, inbound, outbound
from pbem.models import OutboundMail, Seat
from tests.mail.conftest import verified_user
from tests.mail.test_33_judge import EXAMPLE_HEAD, Table, at_turn_start, example_of
from tests.support.mail import client_mail, text_of

DOC = Path(__file__).resolve().parents[2] / "docs" / "mail.md"
MARKED = re.compile(r"<!-- transcript: (?P<name>[\w-]+) -->\n(?P<body>.*?)<!-- /transcript -->", re.DOTALL)
PLAYERS = ("Ann", "Bea", "Cid")
SECRET_KEY = "docs-secret-key"
DOMAIN = "pbem.example"
# The rule that trims a mail for the doc: a paragraph longer than LONG lines keeps its first KEPT lines
# and then "[...]"; the turn mail's standing orders with their example, and "Since your last turn", stay whole.
LONG, KEPT = 10, 6
CUT = "[...]"
WHOLE_FIRST_LINES = ("Since your last turn:",)
RFC_DATE = re.compile(r"\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{1,2} \w{3} \d{4} \d\d:\d\d:\d\d [+-]\d{4}\b")
SHOWN_DATE = "Sat, 28 Nov 2026 10:00:00 +0000"
HEADERS = ("From", "To", "Subject", "Reply-To")
COMMANDS_HEAD = "| command | where it may be sent | what it does |"


# --------------------------------------------------------------------------------------
# The trimming rule


def trim(text: str) -> str:
    """A mail's text as docs/mail.md shows it: dates normalised, trailing blanks dropped (not the
    signature's "-- "), and each long paragraph cut to its start and a "[...]" line."""
    text = RFC_DATE.sub(SHOWN_DATE, text.replace("\r\n", "\n"))
    lines = [line if line == "-- " else line.rstrip() for line in text.strip("\n").split("\n")]
    paragraphs, current = [], []
    for line in lines + [""]:
        if line:
            current.append(line)
        elif current:
            paragraphs.append(_cut(current))
            current = []
    return "\n\n".join("\n".join(paragraph) for paragraph in paragraphs)


def _cut(paragraph: list[str]) -> list[str]:
    """A paragraph as shown: whole when short, or the example to copy, or the news; else its start."""
    if len(paragraph) <= LONG or EXAMPLE_HEAD in paragraph or paragraph[0] in WHOLE_FIRST_LINES:
        return paragraph
    indent = re.match(r"[>\s]*", paragraph[KEPT]).group(0)  # as deep as the first line left out
    return paragraph[:KEPT] + [indent + CUT]


def shown(message) -> str:
    """A mail as a player's client shows it: the headers a player reads, then the text, trimmed."""
    head = "\n".join(f"{name}: {message[name]}" for name in HEADERS if message[name] is not None)
    return trim(head + "\n\n" + text_of(message))


# --------------------------------------------------------------------------------------
# The service, its games and the turns shown


@dataclass(frozen=True)
class Scene:
    """One whole turn of a title: its game (players, seed), how many turns are played before it (by
    seeded random moves), and what the player writes (`reply(table, turn mail text)`)."""

    name: str
    title: str
    players: int
    seed: int
    turns: int
    reply: Callable[[Table, str], list[str]]


def paste_example(table: Table, text: str) -> list[str]:
    """The turn mail's "whole turn in one mail" example, pasted as it stands."""
    return example_of(text)


def place_and_deploy(table: Table, text: str) -> list[str]:
    """Discovery: a placement the mail lists, then the deployment the player chose for after it."""
    rules, state = table.rules, table.state
    moves = rules.legal_moves(state)
    place = moves[0]
    after = rules.apply(state, place)
    follow = [m for m in rules.legal_moves(after) if m.kind == "deploy"] or rules.legal_moves(after)
    return [rules.notation(state, place), rules.notation(after, follow[0])]


SCENES = (
    Scene("tongiaki", "tongiaki", 3, 2, 8, paste_example),
    Scene("discovery", "discovery", 3, 11, 7, place_and_deploy),
    Scene("tapaono", "tapaono", 2, 11, 6, paste_example),
)


class DocTable(Table):
    """A running game of a scene, its seats' nonces fixed (their keys are the same at every run), walked
    to the turn shown by seeded random legal moves."""

    def __init__(self, service: "Service", scene: Scene):
        self.db, self.settings, self.rules = service.db, service.settings, engine.get(scene.title)
        ids = list(service.users.values())[:scene.players]
        self.game_id = games.create_game(self.db, scene.title, ids[0], scene.players, {})
        for uid in ids[1:]:
            games.join_game(self.db, self.game_id, uid, seed=scene.seed)  # the last one starts it
        with self.db.transaction() as s:
            seats = list(s.scalars(select(Seat).where(Seat.game_id == self.game_id)))
            for seat in seats:
                seat.token_nonce = f"docs-{scene.name}-{seat.number}"
            self.by_seat = {seat.number: seat.user.email for seat in seats}
            self.nonces = {seat.number: seat.token_nonce for seat in seats}
        rnd, prior = random.Random(scene.seed), [self.seat()]
        for _ in range(scene.turns):
            assert self.walk(rnd, at_turn_start(self, prior)), f"{scene.name}: the game ended before the turn"


class Service:
    """The service on a scratch SQLite database in `folder`: a fixed secret key, the outbox folder as
    its SMTP server, and the players Ann, Bea and Cid (fixed nonces: their command keys are the same at
    every run)."""

    def __init__(self, folder: Path):
        wiring.connect()
        url = f"sqlite:///{folder / 'docs.sqlite3'}"
        migrate.upgrade(url)
        self.settings = config.load({"PBEM_DATA_DIR": str(folder), "PBEM_DATABASE_URL": url,
                                     "PBEM_SECRET_KEY": SECRET_KEY, "PBEM_MAIL_DOMAIN": DOMAIN,
                                     "PBEM_SMTP_URL": "outbox:", "PBEM_BASE_URL": "https://pbem.example",
                                     "PBEM_BROKER_URL": "memory://", "PBEM_MAIL_RATE_PER_HOUR": str(10**6)})
        self.db = Database(url)
        self.users = {name: verified_user(self.db, address(name), name, mail_nonce=f"docs-{name}")
                      for name in PLAYERS}

    def close(self) -> None:
        self.db.engine.dispose()

    def send(self, outbox_id: int):
        """Deliver one outbox row (into the outbox folder) and read it back as its recipient gets it."""
        assert outbound.deliver(self.db, outbox_id, self.settings) == "sent"
        raw = (self.settings.data_dir / "outbox" / f"{outbox_id:08d}.eml").read_bytes()
        return BytesParser(policy=policy.default).parsebytes(raw)

    def newest(self, game_id: int, kind: str, recipient: str) -> int:
        """The newest outbox row of a kind ("turn", "reply") written to `recipient` about the game."""
        with self.db.sessions() as s:
            return s.scalars(select(OutboundMail.id).where(
                OutboundMail.game_id == game_id, OutboundMail.kind == kind, OutboundMail.recipient == recipient)
                .order_by(OutboundMail.id.desc())).first()


def address(name: str) -> str:
    return f"{name.lower()}@example.org"


def play_scene(service: Service, scene: Scene) -> dict[str, str]:
    """The scene's turn mail, the player's reply and the service's answer, each as the doc shows it."""
    table = DocTable(service, scene)
    player = table.by_seat[table.seat()]
    turn = service.send(service.newest(table.game_id, "turn", player))
    lines = scene.reply(table, text_of(turn))
    signature = next(name for name in PLAYERS if address(name) == player)
    _, raw = client_mail(player, str(turn["Reply-To"]), f"Re: {turn['Subject']}",
                         "\n".join(lines) + f"\n\n-- \n{signature}", "example.org", reply_to=turn)
    received = inbound.receive(service.db, raw, service.settings)
    assert received.outcome == "done", (scene.name, received)
    answer = service.send(service.newest(table.game_id, "reply", player))
    reply = BytesParser(policy=policy.default).parsebytes(raw)
    return {f"{scene.name}-turn-mail": shown(turn), f"{scene.name}-reply": shown(reply),
            f"{scene.name}-answer": shown(answer)}


def transcripts(folder: Path) -> dict[str, str]:
    """Every transcript docs/mail.md shows, by its marker's name, made now by the service."""
    service = Service(folder)
    try:
        made = {}
        for scene in SCENES:
            made.update(play_scene(service, scene))
        return made
    finally:
        service.close()


# --------------------------------------------------------------------------------------
# The doc


def block(text: str) -> str:
    return f"```text\n{text}\n```\n"


def marked(doc: str) -> dict[str, str]:
    """The transcripts the doc shows now, by name."""
    return {found["name"]: found["body"] for found in MARKED.finditer(doc)}


def rewritten(doc: str, made: dict[str, str]) -> str:
    """The doc with each marked transcript replaced by what the service writes now."""
    return MARKED.sub(lambda found: f"<!-- transcript: {found['name']} -->\n{block(made[found['name']])}"
                      f"<!-- /transcript -->" if found["name"] in made else found[0], doc)


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    return transcripts(tmp_path_factory.mktemp("docs_transcripts"))


def test_33_must_show_docs_mail_marks_a_whole_turn_of_each_title(made):
    # Every title the site plays by mail with its board in words (the suite's own small games have none).
    assert {scene.title for scene in SCENES} == {title.name for title in engine.entries() if title.text_board}
    assert set(marked(DOC.read_text())) == set(made)


@pytest.mark.parametrize("name", [f"{scene.name}-{part}" for scene in SCENES
                                  for part in ("turn-mail", "reply", "answer")])
def test_33_must_show_the_transcripts_in_docs_mail_are_what_the_service_writes(made, name):
    shown_now = marked(DOC.read_text()).get(name)
    assert shown_now == block(made[name]), (
        f"docs/mail.md, transcript {name}, differs from what the service writes: run "
        f"`python -m tests.mail.test_33_docs_transcripts --write` and read the change")


# --------------------------------------------------------------------------------------
# The commands list


def commands_table(doc: str) -> list[tuple[str, str, str]]:
    """The rows (command, where it may be sent, what it does) of the doc's one commands table."""
    assert doc.count(COMMANDS_HEAD) == 1, "docs/mail.md has one commands table"
    rows = []
    for line in doc[doc.index(COMMANDS_HEAD):].split("\n")[2:]:
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", line)[1:-1]]
        assert len(cells) == 3, line
        rows.append((cells[0], cells[1], cells[2]))
    return rows


def package_commands() -> dict[str, commands.Spec]:
    """The registry's commands that are modules of pbem/mail/commands (not those a test registers)."""
    return {name: spec for name, spec in commands.registry().items()
            if spec.run.__module__.startswith(commands.__name__ + ".")}


def test_33_must_show_every_registered_command_has_a_row_in_the_commands_table_of_docs_mail():
    rows = commands_table(DOC.read_text())
    named = {name.lower() for command, _, _ in rows for name in re.findall(r"`/(\w+)", command)}
    registered = set(package_commands())
    assert not registered - named, f"commands without a row in docs/mail.md: {sorted(registered - named)}"
    assert not named - registered, f"rows for commands that do not exist: {sorted(named - registered)}"


def test_33_must_show_the_commands_table_says_where_each_command_is_taken_as_its_module_does():
    """A command of the turn doors says "turn mail" (or turn key); one of the account doors names the
    command address or pbem@, and there, whether it is answered at once or done once confirmed."""
    for command, where, _ in commands_table(DOC.read_text()):
        for name in re.findall(r"`/(\w+)", command):
            spec = package_commands()[name.lower()]
            assert (commands.TURN in spec.doors) == ("turn mail" in where or "turn key" in where), (name, where)
            account = commands.ACCOUNT in spec.doors
            assert account == ("command address" in where or "`pbem@" in where), (name, where)
            if account:
                assert ("confirm" in where) if spec.changes else ("at once" in where), (name, where)


def main(argv: list[str]) -> int:
    if argv != ["--write"]:
        print("usage: python -m tests.mail.test_33_docs_transcripts --write", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as folder:
        made = transcripts(Path(folder))
    doc = DOC.read_text()
    DOC.write_text(rewritten(doc, made))
    for name, text in made.items():
        print(f"{name}: {len(text.splitlines())} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
