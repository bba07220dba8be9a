"""Requests per second and p50/p99 latency of the web app under gunicorn (two workers) on PostgreSQL.

Usage: python bench/web.py [--clients 16] [--seconds 10] [--postgres-url URL] [--workers 2] [--threads 4]
Prints `name: value unit` lines:
  game_page_spectator_rps / _p50 / _p99   GET /games/<id>, not logged in
  game_page_player_rps / _p50 / _p99      GET /games/<id> for the logged-in player to move (with the move form)
  move_submit_rps / _p50 / _p99           POST /api/v1/games/<id>/moves, one game per client, alternating players
Each client is a thread with its own keep-alive connection (http.client). The database is
a scratch one, made and dropped by this script; the game is the first real title registered.
The goal: p99 under 50 ms for the game page at 16 concurrent clients.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import sqlalchemy  # noqa: E402

import engine  # noqa: E402
from pbem import accounts, games, migrate  # noqa: E402
from pbem.db import Database  # noqa: E402
from pbem.models import User  # noqa: E402

PREFERRED = ("tongiaki", "discovery", "tapaono")
PASSWORD = "bench password 1"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def user(db: Database, email: str) -> int:
    user_id = games.ensure_user(db, email)
    with db.transaction() as s:
        row = s.get(User, user_id)
        row.password_hash = accounts.hash_password(PASSWORD)
        row.email_verified = True
    return user_id


class Client:
    """One keep-alive connection with a cookie jar of one session cookie."""

    def __init__(self, port: int):
        self.port = port
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.cookie = ""

    def request(self, method: str, path: str, body: bytes | None = None, headers: dict | None = None):
        headers = dict(headers or {})
        if self.cookie:
            headers["Cookie"] = self.cookie
        try:
            self.conn.request(method, path, body=body, headers=headers)
            response = self.conn.getresponse()
        except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
            # The server closed an idle keep-alive connection: open a new one and send again.
            self.conn.close()
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
            self.conn.request(method, path, body=body, headers=headers)
            response = self.conn.getresponse()
        data = response.read()
        for name, value in response.getheaders():
            if name.lower() == "set-cookie" and value.startswith("session="):
                self.cookie = value.split(";", 1)[0]
        return response.status, data

    def login(self, email: str) -> None:
        _, page = self.request("GET", "/login")
        token = re.search(rb'name="csrf_token"[^>]*value="([^"]+)"', page).group(1).decode()
        body = urlencode({"email": email, "password": PASSWORD, "csrf_token": token}).encode()
        status, _ = self.request("POST", "/login", body, {"Content-Type": "application/x-www-form-urlencoded"})
        assert status == 302, status

    def close(self) -> None:
        self.conn.close()


def run_clients(n: int, seconds: float, make, step) -> list[float]:
    """n threads: each makes its state with make(i), then calls step(state) until the time is up."""
    latencies: list[list[float]] = [[] for _ in range(n)]
    ready = threading.Barrier(n + 1)
    stop = time.perf_counter() + 3600

    def work(i: int) -> None:
        state = make(i)
        ready.wait()
        while time.perf_counter() < stop:
            took = step(state)
            if took is not None:
                latencies[i].append(took)
        state["client"].close()

    threads = [threading.Thread(target=work, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    ready.wait()
    stop = time.perf_counter() + seconds
    for t in threads:
        t.join()
    return [x for per in latencies for x in per]


def report(name: str, latencies: list[float], seconds: float) -> None:
    print(f"{name}_rps: {len(latencies) / seconds:.0f} req/s")
    print(f"{name}_p50: {percentile(latencies, 0.50) * 1000:.1f} ms")
    print(f"{name}_p99: {percentile(latencies, 0.99) * 1000:.1f} ms")


def timed(client: Client, method: str, path: str, body=None, headers=None, expect=(200,)) -> float:
    start = time.perf_counter()
    status, data = client.request(method, path, body, headers)
    took = time.perf_counter() - start
    if status not in expect:
        raise RuntimeError(f"{method} {path}: {status} {data[:300]!r}")
    return took


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=4, help="threads per worker (gthread); 1 = sync workers")
    parser.add_argument("--broker-url", default="memory://")
    parser.add_argument("--postgres-url", default=os.environ.get("PBEM_TEST_POSTGRES_URL",
                                                                 "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"))
    args = parser.parse_args()
    title = next((t for t in PREFERRED if t in engine.names()), None)
    if title is None:
        sys.exit("no real game is registered")
    name = f"pbem_bench_web_{os.getpid()}"
    admin = sqlalchemy.create_engine(args.postgres_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.exec_driver_sql(f'CREATE DATABASE "{name}"')
    url = args.postgres_url.rsplit("/", 1)[0] + "/" + name
    db = None
    server = None
    try:
        migrate.upgrade(url)
        db = Database(url)
        rules = engine.get(title)
        players = max(2, rules.min_players)
        ids = [user(db, f"bench{i}@example.org") for i in range(players)]
        tokens = {u: accounts.create_api_token(db, u, "bench") for u in ids}

        def new_game() -> int:
            game_id = games.create_game(db, title, ids[0], players)
            for u in ids[1:]:
                games.join_game(db, game_id, u)
            return game_id

        page_game = new_game()
        for _ in range(6):  # a few moves in: a log and a board that are not empty
            data = games.view(db, page_game)
            mover = [u for u in ids if games.view(db, page_game, u)["my_seat"] == data["to_move"]][0]
            games.submit(db, page_game, games.view(db, page_game, mover)["legal_moves"][0], user_id=mover)
        to_move = games.view(db, page_game)["to_move"]
        page_player = [u for u in ids if games.view(db, page_game, u)["my_seat"] == to_move][0]
        with db.sessions() as s:
            player_email = s.get(User, page_player).email

        port = free_port()
        # Jobs after a move go to an in-memory broker (no worker): this measures the web and the
        # database, not a broker; --broker-url names a real one (redis://127.0.0.1:6379/15).
        env = {**os.environ, "PBEM_DATABASE_URL": url, "PBEM_SECRET_KEY": "bench-secret",
               "PBEM_BROKER_URL": args.broker_url, "PBEM_DATA_DIR": tempfile.mkdtemp(prefix="pbem-bench-web-"),
               "PBEM_BASE_URL": f"http://127.0.0.1:{port}"}
        server = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-w", str(args.workers), "--threads", str(args.threads), "--keep-alive", "30",
             "-b", f"127.0.0.1:{port}", "--log-level", "warning", "pbem.web:create_app()"], cwd=ROOT, env=env)
        deadline = time.time() + 60
        while True:
            try:
                probe = Client(port)
                if probe.request("GET", "/healthz")[0] == 200:
                    probe.close()
                    break
            except OSError:
                if time.time() > deadline:
                    raise
                time.sleep(0.2)
        print(f"game: {title}")
        print(f"clients: {args.clients}")
        print(f"gunicorn_workers: {args.workers}")
        print(f"gunicorn_threads_per_worker: {args.threads}")

        def page_client(i):
            return {"client": Client(port)}

        def get_page(state):
            return timed(state["client"], "GET", f"/games/{page_game}")

        report("game_page_spectator", run_clients(args.clients, args.seconds, page_client, get_page), args.seconds)

        def player_client(i):
            client = Client(port)
            client.login(player_email)
            return {"client": client}

        report("game_page_player", run_clients(args.clients, args.seconds, player_client, get_page), args.seconds)

        games_for = [new_game() for _ in range(args.clients)]
        seat_of = {}
        for game_id in games_for:
            for u in ids:
                seat_of[(game_id, games.view(db, game_id, u)["my_seat"])] = u

        def move_client(i):
            return {"client": Client(port), "game": games_for[i]}

        def submit(state):
            client = state["client"]
            game_id = state["game"]
            status, body = client.request("GET", f"/api/v1/games/{game_id}")
            view = json.loads(body)
            if view["status"] != "running":
                state["game"] = new_game()
                for u in ids:
                    seat_of[(state["game"], games.view(db, state["game"], u)["my_seat"])] = u
                return None
            auth = {"Authorization": f"Bearer {tokens[seat_of[(game_id, view['to_move'])]]}",
                    "Content-Type": "application/json"}
            _, legal = client.request("GET", f"/api/v1/games/{game_id}/legal-moves", headers=auth)
            move = json.loads(legal)["moves"][0]
            body = json.dumps({"move": move, "expected_version": view["version"],
                               "key": f"bench-{game_id}-{view['version']}"}).encode()
            return timed(client, "POST", f"/api/v1/games/{game_id}/moves", body, auth, expect=(201,))

        report("move_submit", run_clients(args.clients, args.seconds, move_client, submit), args.seconds)
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=30)
        if db is not None:
            db.dispose()
        with admin.connect() as c:
            c.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()


if __name__ == "__main__":
    main()
