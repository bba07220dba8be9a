"""Requests per second and p50/p99 latency of the web app under gunicorn (two workers) on PostgreSQL.

Usage: python bench/web.py [--clients 16] [--seconds 10] [--warmup 2] [--postgres-url URL] [--workers 2]
                           [--threads 1] [--client wrk|python] [--slow-stacks MS] [--form-moves 200]
Prints `name: value unit` lines:
  game_page_spectator_rps / _p50 / _p99   GET /games/<id>, not logged in
  game_page_player_rps / _p50 / _p99      GET /games/<id> for the logged-in player to move (with the move form)
  game_live_rps / _p50 / _p99             GET /games/<id>/live with If-None-Match (304): what every open game
                                          page asks every 1.5 s
  healthz_rps / _p50 / _p99               GET /healthz (no database, a 16-byte answer): what gunicorn, Flask
                                          and the machine at that moment allow any page
  move_submit_rps / _p50 / _p99           POST /api/v1/games/<id>/moves, one game per client, alternating players
  form_move_cpu / _submit_cpu / _beyond_submit_cpu
                                          a move by the game page's form (CSRF, the session's user, JSON answer),
                                          in this process: the request's CPU, that of pbem.games.submit inside
                                          it, and the difference (what the form adds to the move; goal <= 2 ms)
and for each of them the CPU time per request of the gunicorn processes (`_server_cpu`), of the
PostgreSQL backends serving this scratch database (`_db_cpu`) and of the load generator
(`_client_cpu`); for move_submit per submission, with the two GETs each client makes before
it. With everything on one machine, latency is mostly waiting for a core: the load average
is printed before and after.

The game pages are fetched by `wrk` (Debian's package, C: 16 keep-alive connections on two
threads, its latency histogram) when it is installed, else (or with --client python) by 16
Python threads, each with its own keep-alive connection (http.client), which cost the server
a good part of the machine. Move submissions always use the Python clients (each request
depends on the answer before it). Every page must answer 200 and set no cookie (the player's
session cookie is taken after a first visit, as a browser keeps it). Each page is fetched for
--warmup seconds before it is measured, so that both workers have opened their database
connections and compiled their templates. The database is a scratch one, made and dropped
by this script; the game is the first real title registered, six moves in.
The goal: p99 under 50 ms for the game page at 16 concurrent clients.
The game page's position-dependent part is rendered once per position and viewer and kept
per process (pbem.web.play), so these figures are of a page whose position has been seen.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import shutil
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
from pbem import accounts, games, migrate, wiring  # noqa: E402
from pbem.db import Database  # noqa: E402
from pbem.models import User  # noqa: E402

PREFERRED = ("tongiaki", "discovery", "tapaono")
PASSWORD = "bench password 1"
USER_AGENT = "pbem-bench"
TICK = os.sysconf("SC_CLK_TCK")

# wrk prints exact figures from its histogram at the end of a run (microseconds).
WRK_SCRIPT = """
done = function(summary, latency, requests)
  io.write(string.format("wrk_requests %d\\n", summary.requests))
  io.write(string.format("wrk_duration_us %d\\n", summary.duration))
  io.write(string.format("wrk_bad_status %d\\n", summary.errors.status))
  io.write(string.format("wrk_socket_errors %d\\n", summary.errors.connect + summary.errors.read
                                                    + summary.errors.write + summary.errors.timeout))
  io.write(string.format("wrk_p50_us %d\\n", latency:percentile(50)))
  io.write(string.format("wrk_p99_us %d\\n", latency:percentile(99)))
end
"""



wiring.connect()  # the listeners of the game service, as every process of the service connects them

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def user(db: Database, email: str) -> int:
    user_id = accounts.ensure_user(db, email)
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
        headers = {"User-Agent": USER_AGENT, **(headers or {})}
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
        self.set_cookie = None
        for name, value in response.getheaders():
            if name.lower() == "set-cookie" and value.startswith("session="):
                self.cookie = self.set_cookie = value.split(";", 1)[0]
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


def report(name: str, latencies: list[float], seconds: float, cpu: dict | None = None) -> None:
    print(f"{name}_rps: {len(latencies) / seconds:.0f} req/s")
    print(f"{name}_p50: {percentile(latencies, 0.50) * 1000:.1f} ms")
    print(f"{name}_p99: {percentile(latencies, 0.99) * 1000:.1f} ms")
    for part, used in (cpu or {}).items():
        print(f"{name}_{part}_cpu: {used * 1000 / max(1, len(latencies)):.2f} ms/req")


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of one process so far (0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICK


def children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(x) for x in (task / "children").read_text().split()]
        except OSError:
            pass
    return found


class CpuMeter:
    """CPU time used during one phase by gunicorn (master and workers), the database's backends and the client."""

    def __init__(self, server_pid: int, backends):
        self.server_pid = server_pid
        self.backends = backends  # a function giving the pids of this database's PostgreSQL backends

    def sample(self) -> dict:
        server = [self.server_pid, *children(self.server_pid)]
        return {"server": {p: cpu_seconds(p) for p in server}, "db": {p: cpu_seconds(p) for p in self.backends()},
                "client": time.process_time()}

    def __enter__(self):
        self.before = self.sample()
        self.used: dict = {}
        return self

    def __exit__(self, *exc) -> None:
        after = self.sample()
        for part in ("server", "db"):
            # a process that appeared during the phase counts from zero
            self.used[part] = sum(v - self.before[part].get(p, 0.0) for p, v in after[part].items())
        self.used["client"] = after["client"] - self.before["client"]


def run_wrk(port: int, path: str, clients: int, seconds: float, cookie: str = "",
            headers: dict | None = None) -> tuple[dict, float]:
    """wrk against one path: its figures and the CPU time it used."""
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(WRK_SCRIPT)
    command = ["wrk", "-t", str(min(2, clients)), "-c", str(clients), "-d", f"{seconds:g}s", "-s", script.name,
               "-H", f"User-Agent: {USER_AGENT}"]
    if cookie:
        command += ["-H", f"Cookie: {cookie}"]
    for name, value in (headers or {}).items():
        command += ["-H", f"{name}: {value}"]
    before = os.times()
    try:
        out = subprocess.run(command + [f"http://127.0.0.1:{port}{path}"], capture_output=True, text=True,
                             check=True).stdout
    finally:
        os.unlink(script.name)
    after = os.times()
    figures = {k: int(v) for k, v in re.findall(r"^wrk_(\w+) (\d+)$", out, re.M)}
    if figures.get("bad_status") or figures.get("socket_errors") or not figures.get("requests"):
        raise RuntimeError(f"wrk {path}: {out}")
    return figures, (after.children_user + after.children_system) - (before.children_user + before.children_system)


def report_wrk(name: str, figures: dict, cpu: dict) -> None:
    requests = figures["requests"]
    print(f"{name}_rps: {requests / (figures['duration_us'] / 1e6):.0f} req/s")
    print(f"{name}_p50: {figures['p50_us'] / 1000:.1f} ms")
    print(f"{name}_p99: {figures['p99_us'] / 1000:.1f} ms")
    for part, used in cpu.items():
        print(f"{name}_{part}_cpu: {used * 1000 / requests:.2f} ms/req")


def timed(client: Client, method: str, path: str, body=None, headers=None, expect=(200,)) -> float:
    start = time.perf_counter()
    status, data = client.request(method, path, body, headers)
    took = time.perf_counter() - start
    if status not in expect:
        raise RuntimeError(f"{method} {path}: {status} {data[:300]!r}")
    return took


def form_move_cost(env: dict, db: Database, ids: list[int], new_game, moves: int) -> None:
    """In this process (so that the CPU is the request's alone): `moves` moves by the game page's form
    (POST /games/<id>/move with the page's CSRF token, answered in JSON as the page's script asks),
    and the CPU of each request against that of pbem.games.submit inside it. Prints form_move_cpu,
    form_move_submit_cpu and form_move_beyond_submit_cpu (the goal: at most 2 ms)."""
    from pbem.web import create_app

    os.environ.update({name: env[name] for name in ("PBEM_DATABASE_URL", "PBEM_SECRET_KEY", "PBEM_BROKER_URL",
                                                    "PBEM_DATA_DIR", "PBEM_BASE_URL")})
    app = create_app({"DATABASE_URL": env["PBEM_DATABASE_URL"], "SECRET_KEY": env["PBEM_SECRET_KEY"],
                      "BASE_URL": env["PBEM_BASE_URL"]})
    inner = {"cpu": 0.0}
    real_submit = games.submit

    def counted_submit(*a, **kw):
        start = time.process_time()
        try:
            return real_submit(*a, **kw)
        finally:
            inner["cpu"] += time.process_time() - start

    clients = {}
    for u in ids:
        with db.sessions() as s:
            email = s.get(User, u).email
        client = app.test_client()
        token = re.search(r'name="csrf_token"[^>]*value="([^"]+)"', client.get("/login").get_data(as_text=True))
        answer = client.post("/login", data={"email": email, "password": PASSWORD, "csrf_token": token.group(1)})
        assert answer.status_code == 302, answer.status_code
        clients[u] = client
    game_id, total, done = new_game(), 0.0, 0
    games.submit = counted_submit  # only while measuring; the web module calls it as games.submit
    try:
        while done < moves:
            view = games.view(db, game_id)
            if view["status"] != "running":
                game_id = new_game()
                continue
            mover = next(u for u in ids if games.view(db, game_id, u)["my_seat"] == view["to_move"])
            client = clients[mover]
            page = client.get(f"/games/{game_id}").get_data(as_text=True)  # the page the player sees: not timed
            token = re.search(r'name="csrf_token"[^>]*value="([^"]+)"', page).group(1)
            move = games.view(db, game_id, mover)["legal_moves"][0]
            form = {"csrf_token": token, "text": move, "expected_version": str(view["version"]),
                    "key": f"bench-form-{game_id}-{view['version']}"}
            start = time.process_time()
            answer = client.post(f"/games/{game_id}/move", data=form, headers={"Accept": "application/json"})
            total += time.process_time() - start
            assert answer.status_code == 200 and answer.get_json()["ok"], answer.get_data(as_text=True)
            done += 1
    finally:
        games.submit = real_submit
        app.extensions["pbem_db"].dispose()
    print(f"form_move_cpu: {total / moves * 1000:.2f} ms/move")
    print(f"form_move_submit_cpu: {inner['cpu'] / moves * 1000:.2f} ms/move")
    print(f"form_move_beyond_submit_cpu: {(total - inner['cpu']) / moves * 1000:.2f} ms/move")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--warmup", type=float, default=2, help="seconds of unmeasured page requests first")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=1,
                        help="threads per worker: 1 = sync workers, as `pbem run` runs them; more = gthread workers")
    parser.add_argument("--broker-url", default="memory://")
    parser.add_argument("--form-moves", type=int, default=200,
                        help="moves by the page's form measured in this process (form_move_*)")
    parser.add_argument("--slow-stacks", type=float, metavar="MS",
                        help="write the stack of every request in flight longer than MS to slow-requests.log.<pid> "
                             "in the data folder (bench/slow_requests.py), and print how many there were")
    parser.add_argument("--client", choices=("wrk", "python"), default="wrk" if shutil.which("wrk") else "python",
                        help="what fetches the game pages (default: wrk when it is installed)")
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
        watchdog = []
        if args.slow_stacks:
            env.update(PBEM_SLOW_REQUEST_MS=str(args.slow_stacks),
                       PBEM_SLOW_REQUEST_LOG=str(Path(env["PBEM_DATA_DIR"]) / "slow-requests.log"))
            watchdog = ["--config", "python:bench.slow_requests"]
        server = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", *watchdog, "-w", str(args.workers), "--threads", str(args.threads), "--keep-alive", "30",
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
        print(f"page_client: {args.client}")
        print(f"gunicorn_workers: {args.workers}")
        print(f"gunicorn_threads_per_worker: {args.threads}")
        print(f"load_average_before: {os.getloadavg()[0]:.2f}")

        def backends() -> list[int]:
            with db.engine.connect() as c:
                return list(c.exec_driver_sql("SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
                                              "AND pid <> pg_backend_pid()").scalars())

        page = f"/games/{page_game}"

        def session_cookie(path: str, email: str | None) -> str:
            """The cookie a browser would hold after logging in and opening the page once; the page sets no other."""
            client = Client(port)
            if email:
                client.login(email)
            for _ in range(3):
                status, _ = client.request("GET", path)
                assert status == 200, status
            assert client.set_cookie is None, "the game page set a cookie on every visit"
            client.close()
            return client.cookie

        def measure_pages(name: str, path: str, email: str | None = None, headers: dict | None = None) -> None:
            cookie = session_cookie(path, email)

            def make(i):
                client = Client(port)
                client.cookie = cookie
                return {"client": client}

            def fetch(seconds: float):
                if args.client == "wrk":
                    return run_wrk(port, path, args.clients, seconds, cookie, headers)
                return run_clients(args.clients, seconds, make, lambda state: timed(
                    state["client"], "GET", path, headers=headers, expect=(200, 304)))

            if args.warmup > 0:
                fetch(args.warmup)
            with CpuMeter(server.pid, backends) as meter:
                if args.client == "wrk":
                    figures, wrk_cpu = fetch(args.seconds)
                else:
                    latencies = fetch(args.seconds)
            if args.client == "wrk":
                report_wrk(name, figures, {**meter.used, "client": wrk_cpu})
            else:
                report(name, latencies, args.seconds, meter.used)

        measure_pages("game_page_spectator", page)
        measure_pages("game_page_player", page, player_email)
        probe = Client(port)
        etag = json.loads(probe.request("GET", f"{page}/live")[1])["etag"]
        probe.close()
        measure_pages("game_live", f"{page}/live", headers={"If-None-Match": f'"{etag}"'})
        measure_pages("healthz", "/healthz")  # the same server and client on a route that does nothing

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

        with CpuMeter(server.pid, backends) as meter:
            latencies = run_clients(args.clients, args.seconds, move_client, submit)
        report("move_submit", latencies, args.seconds, meter.used)
        form_move_cost(env, db, ids, new_game, args.form_moves)
        print(f"load_average_after: {os.getloadavg()[0]:.2f}")
        if args.slow_stacks:
            logs = sorted(Path(env["PBEM_DATA_DIR"]).glob("slow-requests.log.*"))
            slow = sum(log.read_text().count("\n=== ") + log.read_text().startswith("=== ") for log in logs)
            print(f"slow_requests_over_{args.slow_stacks:g}ms: {slow} requests")
            print(f"slow_request_stacks: {' '.join(str(log) for log in logs)}", file=sys.stderr)
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
