"""Moves per second through pbem.games.submit, next to a bare insert-and-commit on the same database.

Usage: python bench/service.py [--moves N] [--game NAME] [--postgres-url URL]
Prints `name: value unit` lines for SQLite and (when reachable) PostgreSQL:
  <db>_submit_moves_per_s, <db>_bare_insert_commit_per_s, <db>_submit_to_bare_ratio,
  <db>_submit_p50, <db>_submit_p99.
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
from pbem import config, games, jobs, migrate  # noqa: E402
from pbem.db import Database  # noqa: E402
from pbem.models import Game  # noqa: E402

PREFERRED = ("tongiaki", "discovery", "tapaono")


def pick_game(name: str | None) -> str:
    if name is None:
        name = next((c for c in PREFERRED if c in engine.names()), "counters")
    if name == "counters":
        from tests.engine import toygame  # the platform's own test game

        engine.register(toygame.RULES)
    return name


def bare_rate(db: Database, count: int) -> float:
    """Single-row INSERT plus COMMIT, one transaction each, through the same engine settings."""
    table = Table("bench_rows", MetaData(), Column("id", Integer, primary_key=True), Column("payload", String(200)))
    table.create(db.engine, checkfirst=True)
    payload = "x" * 120
    start = time.perf_counter()
    for _ in range(count):
        with db.engine.begin() as connection:
            connection.execute(insert(table).values(payload=payload))
    return count / (time.perf_counter() - start)


def submit_rate(db: Database, title: str, moves: int) -> tuple[float, list[float], float]:
    rules = engine.get(title)
    chooser = random.Random(7)
    users = [games.ensure_user(db, f"bench{i}@example.org") for i in range(rules.min_players)]
    latencies: list[float] = []
    total = 0.0
    cpu = 0.0
    while len(latencies) < moves:
        game_id = games.create_game(db, title, users[0], rules.min_players)
        for user in users[1:]:
            games.join_game(db, game_id, user)  # full: starts
        seats = games.view(db, game_id)["seats"]
        by_seat = {seat["seat"]: users[int(seat["name"].removeprefix("bench"))] for seat in seats}
        with db.sessions() as s:
            state = rules.state_from_json(json.loads(s.get(Game, game_id).state))
        version = 0
        while rules.to_move(state) is not None and len(latencies) < moves:
            seat = rules.to_move(state)
            move = chooser.choice(rules.legal_moves(state))
            text = rules.notation(state, move)
            c0, t0 = time.process_time(), time.perf_counter()
            games.submit(db, game_id, text, user_id=by_seat[seat], source="api", expected_version=version,
                         key=f"bench-{game_id}-{version}")
            elapsed = time.perf_counter() - t0
            cpu += time.process_time() - c0
            latencies.append(elapsed)
            total += elapsed
            state = rules.apply(state, move)
            version += 1
    jobs.flush()  # the jobs of the last commits are posted too
    return len(latencies) / total, sorted(latencies), cpu / len(latencies)


def run(label: str, url: str, title: str, moves: int) -> None:
    migrate.upgrade(url)
    db = Database(url)
    try:
        bare_rate(db, 50)  # warm up
        rate, latencies, cpu = submit_rate(db, title, moves)
        bare = bare_rate(db, moves)
    finally:
        db.dispose()
    p50 = latencies[len(latencies) // 2] * 1000
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000
    print(f"{label}_game: {title}")
    print(f"{label}_submit_moves_per_s: {rate:.1f} moves/s")
    print(f"{label}_bare_insert_commit_per_s: {bare:.1f} rows/s")
    print(f"{label}_submit_to_bare_ratio: {rate / bare:.2f} ratio")
    print(f"{label}_submit_p50: {p50:.2f} ms")
    print(f"{label}_submit_p99: {p99:.2f} ms")
    print(f"{label}_submit_cpu: {cpu * 1000:.2f} ms/move")  # this process's CPU, the job poster thread's included
    sys.stdout.flush()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=1000)
    parser.add_argument("--game")
    parser.add_argument("--postgres-url", default="postgresql+psycopg://postgres@127.0.0.1:5432/postgres")
    args = parser.parse_args()
    title = pick_game(args.game)
    scratch = tempfile.TemporaryDirectory()
    os.environ.setdefault("PBEM_DATA_DIR", scratch.name)  # the embedded broker, unless PBEM_BROKER_URL says
    print(f"broker: {config.broker_url().split('://')[0]}")
    with tempfile.TemporaryDirectory() as folder:
        run("sqlite", f"sqlite:///{folder}/bench.sqlite3", title, args.moves)
    admin = sqlalchemy.create_engine(args.postgres_url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            connection.exec_driver_sql("DROP DATABASE IF EXISTS pbem_bench WITH (FORCE)")
            connection.exec_driver_sql("CREATE DATABASE pbem_bench")
    except sqlalchemy.exc.OperationalError as error:
        print(f"postgresql: not reachable ({str(error).splitlines()[0]})", file=sys.stderr)
        return
    try:
        run("postgresql", args.postgres_url.rsplit("/", 1)[0] + "/pbem_bench", title, args.moves)
    finally:
        with admin.connect() as connection:
            connection.exec_driver_sql("DROP DATABASE IF EXISTS pbem_bench WITH (FORCE)")
        admin.dispose()


if __name__ == "__main__":
    main()
