"""Inbound mail processed per second, end to end, on PostgreSQL (goal: 100 per second on one worker).

Usage: python bench/mail.py [--messages N] [--postgres-url URL] [--profile FILE]
Each message is a real reply to a turn notification (Gmail-shaped: a move, the quoted
turn mail, a signature) through pbem.mail.inbound.receive: parse, strip the quote,
check the token and the sender, apply the move with pbem.games.submit, record the
outcome and write the outbox rows (the answer, the next player's turn mail). Prints
`name: value unit` lines: mail_inbound_per_s, mail_inbound_p50, mail_inbound_p99,
mail_outbox_rows_per_message, mail_inbound_cpu_per_message (this process's CPU time; the
rest of the wall time is spent waiting for PostgreSQL) and mail_inbound_calls_per_message
(Python calls, counted by cProfile over further messages after the timed ones: the figure
that does not vary with the machine's load), and mail_html_9mb_cpu: the CPU time of reading
a 9 MB HTML-only mail (issue 19: HTML is parsed only up to pbem.mail.mime.MAX_HTML_CHARS);
mail_poison_worst_cpu and mail_poison_worst_per_reply: the CPU time of the costliest of the mails
made to cost the door as much as possible (tests/support/poison.py), and how many of the timed
replies it is worth (issue 31: at most 10).
--profile FILE writes the counted messages' profile (CPU time) for `python -m pstats FILE`.
The database is a scratch one, made and dropped here.
"""

from __future__ import annotations

import argparse
import cProfile
import dataclasses
import os
import pstats
import statistics
import sys
import tempfile
import time
from email.message import EmailMessage
from email.policy import SMTP
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("PBEM_BROKER_URL", "memory://")  # no broker to post jobs to in a bench

import sqlalchemy  # noqa: E402
from sqlalchemy import func, select  # noqa: E402

import engine  # noqa: E402
from pbem import accounts, config, games, migrate, tokens, wiring  # noqa: E402
from pbem.db import Database  # noqa: E402
from pbem.mail import inbound, mime  # noqa: E402
from pbem.models import OutboundMail, Seat, User  # noqa: E402
from tests.engine import toygame  # noqa: E402  (the platform's own small game: 40 moves a table)
from tests.support import poison  # noqa: E402  (mails made to cost the door as much as possible: issue 31)

MOVES_PER_GAME = 36
CALLS_SAMPLE = 50  # messages whose Python calls are counted, after the timed ones
QUOTE = "\n".join("> " + line for line in (
    "It is your turn in game 1 (Counters), move 3.", "", "Your legal moves (4):", "  take 1", "  take 2",
    "  take 3", "  draw", "", "Players:", "  ann [blue]", "  bob [green] <- to move"))



wiring.connect()  # the listeners of the game service, as every process of the service connects them

def reply(sender: str, to: str, n: int) -> bytes:
    message = EmailMessage()
    message["From"] = sender
    message["To"] = to
    message["Subject"] = "Re: [pbem #1 Counters] your turn"
    message["Message-ID"] = f"<bench.{n}@example.org>"
    message.set_content(f"take 1\n\nOn Sun, 22 Nov 2026 at 10:12, pbem <{to}> wrote:\n{QUOTE}\n\n-- \nA player\n")
    message.add_alternative(f'<div dir="ltr">take 1</div><div class="gmail_quote"><blockquote>{QUOTE}'
                            f'</blockquote></div>', subtype="html")
    return message.as_bytes(policy=SMTP)


def setup(db: Database, settings, tables: int, first: int = 0) -> list[list[bytes]]:
    """`tables` running games (numbered from `first`), and for each the replies of its moves in order."""
    engine.register(toygame.RULES)
    per_game = []
    for t in range(first, first + tables):
        ids = []
        for name in ("ann", "bob"):
            with db.transaction() as s:
                user = accounts.get_or_create_user(s, f"{name}{t}@example.org")
                user.email_verified = True
                ids.append(user.id)
        game_id = games.create_game(db, "counters", ids[0], 2, {"pile": 40, "bonus": False})
        games.join_game(db, game_id, ids[1])
        with db.sessions() as s:
            seats = {seat.number: (seat.token_nonce, s.get(User, seat.user_id).email)
                     for seat in s.scalars(select(Seat).where(Seat.game_id == game_id))}
        mails = []
        for seq in range(MOVES_PER_GAME):
            nonce, email = seats[seq % 2]
            to = mailkeys.encode_reply(settings.secret_key, settings.mail_domain, game_id, seq % 2, seq, nonce)
            mails.append(reply(email, to, t * 1000 + seq))
        per_game.append(mails)
    return per_game


def html_cost() -> float:
    """CPU seconds to read what a player wrote in a 9 MB HTML-only mail (the move on top)."""
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = "ann@example.org", "pbem@pbem.test", "Re: your turn"
    message.set_content("<html><body><div>take 1</div>" + "<p>padding padding padding</p>\n" * 300_000
                        + "</body></html>", subtype="html", cte="8bit")
    raw = message.as_bytes(policy=SMTP)
    start = time.process_time()
    assert mime.reply_text(mime.parse(raw)).startswith("take 1")
    return time.process_time() - start


def poison_costs(db: Database, settings) -> list[tuple[float, str]]:
    """CPU seconds of each mail of tests/support/poison.py (from a stranger to the plain address; the least
    of three), worst first."""
    costs = []
    for name, make in poison.POISONS.items():
        best = None
        for _ in range(3):
            raw = make("stranger@example.net", f"pbem@{settings.mail_domain}")
            start = time.process_time()
            inbound.receive(db, raw, settings)
            spent = time.process_time() - start
            best = spent if best is None else min(best, spent)
        costs.append((best, name))
    return sorted(costs, reverse=True)


def run(url: str, messages: int, profile_path: str | None = None) -> None:
    data = Path(tempfile.mkdtemp(prefix="pbem-bench-mail-"))
    settings = dataclasses.replace(config.load({"PBEM_DATA_DIR": str(data), "PBEM_SECRET_KEY": "bench",
                                                "PBEM_DATABASE_URL": url}), mail_rate_per_hour=10**9)
    db = Database(url)
    try:
        tables = max(1, -(-messages // MOVES_PER_GAME))
        per_game = setup(db, settings, tables)
        order = [per_game[g][m] for m in range(MOVES_PER_GAME) for g in range(tables)][:messages]
        sample_games = setup(db, settings, 2, first=tables)
        sample = [sample_games[g][m] for m in range(MOVES_PER_GAME) for g in range(2)][:CALLS_SAMPLE]
        with db.sessions() as s:
            before = s.scalar(select(func.count()).select_from(OutboundMail))
        latencies = []
        cpu_start = time.process_time()
        start = time.perf_counter()
        for raw in order:
            t0 = time.perf_counter()
            result = inbound.receive(db, raw, settings)
            latencies.append(time.perf_counter() - t0)
            if result.outcome != "done":
                raise SystemExit(f"bench message not applied: {result}")
        elapsed = time.perf_counter() - start
        cpu = time.process_time() - cpu_start
        with db.sessions() as s:
            rows = s.scalar(select(func.count()).select_from(OutboundMail)) - before
        profile = cProfile.Profile(time.process_time)
        for raw in sample:
            profile.enable()
            result = inbound.receive(db, raw, settings)
            profile.disable()
            if result.outcome != "done":
                raise SystemExit(f"bench message not applied: {result}")
        calls = pstats.Stats(profile).total_calls / len(sample)
        if profile_path:
            profile.dump_stats(profile_path)
        latencies.sort()
        print(f"mail_inbound_per_s: {len(order) / elapsed:.1f} messages/s")
        print(f"mail_inbound_p50: {statistics.median(latencies) * 1000:.1f} ms")
        print(f"mail_inbound_p99: {latencies[int(len(latencies) * 0.99) - 1] * 1000:.1f} ms")
        print(f"mail_outbox_rows_per_message: {rows / len(order):.2f} rows")
        # This process's own CPU per message: the rest of the wall time is waiting for PostgreSQL.
        print(f"mail_inbound_cpu_per_message: {cpu / len(order) * 1000:.1f} ms")
        print(f"mail_inbound_calls_per_message: {calls:.0f} calls")
        print(f"mail_html_9mb_cpu: {html_cost():.2f} s")
        worst, name = poison_costs(db, settings)[0]
        print(f"mail_poison_worst_cpu: {worst * 1000:.1f} ms", file=sys.stdout)
        print(f"(the costliest poison: {name})", file=sys.stderr)
        print(f"mail_poison_worst_per_reply: {worst / (cpu / len(order)):.1f} replies")
    finally:
        db.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=500)
    parser.add_argument("--profile", metavar="FILE", help="write the profile of the counted messages here")
    parser.add_argument("--postgres-url", default=os.environ.get(
        "PBEM_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"))
    args = parser.parse_args()
    name = f"pbem_bench_mail_{os.getpid()}"
    admin = sqlalchemy.create_engine(args.postgres_url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
        url = args.postgres_url.rsplit("/", 1)[0] + "/" + name
        migrate.upgrade(url)
        run(url, args.messages, args.profile)
    finally:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()


if __name__ == "__main__":
    main()
