"""Moves per second through pbem.games.submit, next to a bare insert-and-commit on the same database.

Usage: python bench/service.py [--moves N] [--rounds R] [--game NAME] [--postgres-url URL]
The N moves and N bare inserts run in R alternating blocks, so that both see the same machine.
Prints `name: value unit` lines for SQLite and (when reachable) PostgreSQL:
  <db>_submit_moves_per_s, <db>_bare_insert_commit_per_s, <db>_submit_to_bare_ratio,
  <db>_submit_p50, <db>_submit_p99, <db>_bare_insert_commit_p50, <db>_bare_insert_commit_p99,
  <db>_submit_cpu.
The figure that matters is the submit's p99 (a player's wait; the goal is under 5 ms on
PostgreSQL); the bare insert is there to show what the machine's disk and database give: its
p99 is the floor of any write that commits.
Each database is a scratch one, made and dropped by this script. Jobs go to PBEM_BROKER_URL, or
to the embedded SQLite broker in a scratch folder; `broker:` names the transport.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import sqlalchemy  # noqa: E402
from sqlalchemy import Column, Integer, MetaData, String, Table, insert  # noqa: E402

import engine  # noqa: E402
from pbem import accounts, config, games, jobs, migrate, wiring  # noqa: E402
from pbem.db import Database  # noqa: E402
from pbem.models import Game  # noqa: E402

PREFERRED = ("tongiaki", "discovery", "tapaono")



wiring.connect()  # the listeners of the game service, as every process of the service connects them

def pick_game(name: str | None) -> str:
    if name is None:
        name = next((c for c in PREFERRED if c in engine.names()), "counters")
    if name == "counters":
        from tests.engine import toygame  # the platform's own test game

        engine.register(toygame.RULES)
    return name


def bare_table(db: Database) -> Table:
    table = Table("bench_rows", MetaData(), Column("id", Integer, primary_key=True), Column("payload", String(200)))
    table.create(db.engine, checkfirst=True)
    return table


def bare_block(db: Database, table: Table, count: int, latencies: list[float]) -> float:
    """Seconds for `count` single-row INSERTs, each with its COMMIT, through the service's engine."""
    payload = "x" * 120
    start = time.perf_counter()
    for _ in range(count):
        t0 = time.perf_counter()
        with db.engine.begin() as connection:
            connection.execute(insert(table).values(payload=payload))
        latencies.append(time.perf_counter() - t0)
    return time.perf_counter() - start


def percentile(latencies: list[float], q: float) -> float:
    """The q-quantile of the latencies (sorted), in milliseconds."""
    return latencies[min(len(latencies) - 1, int(len(latencies) * q))] * 1000


class Mover:
    """Plays random legal moves through games.submit, game after game."""

    def __init__(self, db: Database, title: str) -> None:
        self.db = db
        self.rules = engine.get(title)
        self.title = title
        self.chooser = random.Random(7)
        self.users = [accounts.ensure_user(db, f"bench{i}@example.org") for i in range(self.rules.min_players)]
        self.state = None

    def _new_game(self) -> None:
        rules, users = self.rules, self.users
        self.game_id = games.create_game(self.db, self.title, users[0], rules.min_players)
        for user in users[1:]:
            games.join_game(self.db, self.game_id, user)  # full: starts
        seats = games.view(self.db, self.game_id)["seats"]
        self.by_seat = {seat["seat"]: users[int(seat["name"].removeprefix("bench"))] for seat in seats}
        with self.db.sessions() as s:
            self.state = rules.state_from_json(json.loads(s.get(Game, self.game_id).state))
        self.version = 0

    def block(self, count: int, latencies: list[float]) -> tuple[float, float]:
        """Submit `count` moves; returns (seconds inside submit, CPU seconds of this process)."""
        rules = self.rules
        total = cpu = 0.0
        for _ in range(count):
            if self.state is None or rules.to_move(self.state) is None:
                self._new_game()  # not timed
            seat = rules.to_move(self.state)
            move = self.chooser.choice(rules.legal_moves(self.state))
            text = rules.notation(self.state, move)
            c0, t0 = time.process_time(), time.perf_counter()
            games.submit(self.db, self.game_id, text, user_id=self.by_seat[seat], source="api",
                         expected_version=self.version, key=f"bench-{self.game_id}-{self.version}")
            elapsed = time.perf_counter() - t0
            cpu += time.process_time() - c0
            latencies.append(elapsed)
            total += elapsed
            self.state = rules.apply(self.state, move)
            self.version += 1
        return total, cpu


def run(label: str, url: str, title: str, moves: int, rounds: int) -> None:
    migrate.upgrade(url)
    db = Database(url)
    try:
        table = bare_table(db)
        mover = Mover(db, title)
        bare_block(db, table, 50, [])  # warm up both
        mover.block(50, [])
        latencies: list[float] = []
        bare_latencies: list[float] = []
        submit_s = bare_s = cpu = 0.0
        # Alternating blocks, so that both rates are measured under the same conditions (on a
        # shared virtual machine, the speed of the disk and the CPU drifts within a minute).
        for round_ in range(rounds):
            count = moves // rounds + (1 if round_ < moves % rounds else 0)
            spent, spent_cpu = mover.block(count, latencies)
            submit_s += spent
            cpu += spent_cpu
            bare_s += bare_block(db, table, count, bare_latencies)
        jobs.flush()  # the jobs of the last commits are posted too
    finally:
        db.dispose()
    rate, bare = moves / submit_s, moves / bare_s
    latencies.sort()
    bare_latencies.sort()
    cpu /= moves
    print(f"{label}_game: {title}")
    print(f"{label}_submit_moves_per_s: {rate:.1f} moves/s")
    print(f"{label}_bare_insert_commit_per_s: {bare:.1f} rows/s")
    print(f"{label}_submit_to_bare_ratio: {rate / bare:.2f} ratio")
    print(f"{label}_submit_p50: {percentile(latencies, 0.5):.2f} ms")
    print(f"{label}_submit_p99: {percentile(latencies, 0.99):.2f} ms")
    print(f"{label}_bare_insert_commit_p50: {percentile(bare_latencies, 0.5):.2f} ms")
    print(f"{label}_bare_insert_commit_p99: {percentile(bare_latencies, 0.99):.2f} ms")
    print(f"{label}_submit_cpu: {cpu * 1000:.2f} ms/move")  # this process's CPU, the job poster thread's included
    sys.stdout.flush()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=20, help="alternating blocks of submits and bare inserts")
    parser.add_argument("--game")
    parser.add_argument("--postgres-url", default="postgresql+psycopg://postgres@127.0.0.1:5432/postgres")
    args = parser.parse_args()
    title = pick_game(args.game)
    scratch = tempfile.TemporaryDirectory()
    os.environ.setdefault("PBEM_DATA_DIR", scratch.name)  # the embedded broker, unless PBEM_BROKER_URL says
    print(f"broker: {config.broker_url().split('://')[0]}")
    with tempfile.TemporaryDirectory() as folder:
        run("sqlite", f"sqlite:///{folder}/bench.sqlite3", title, args.moves, args.rounds)
    admin = sqlalchemy.create_engine(args.postgres_url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            connection.exec_driver_sql("DROP DATABASE IF EXISTS pbem_bench WITH (FORCE)")
            connection.exec_driver_sql("CREATE DATABASE pbem_bench")
    except sqlalchemy.exc.OperationalError as error:
        print(f"postgresql: not reachable ({str(error).splitlines()[0]})", file=sys.stderr)
        return
    try:
        run("postgresql", args.postgres_url.rsplit("/", 1)[0] + "/pbem_bench", title, args.moves, args.rounds)
    finally:
        with admin.connect() as connection:
            connection.exec_driver_sql("DROP DATABASE IF EXISTS pbem_bench WITH (FORCE)")
        admin.dispose()


if __name__ == "__main__":
    main()
