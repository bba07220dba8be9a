"""Fixtures of the web tests: an app on the `db` fixture's database, clients, signed-up users."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

import pytest
from argon2 import PasswordHasher, profiles
from sqlalchemy import select

from pbem import accounts, games
from pbem.models import OutboundMail, Seat
from pbem.web import create_app

PASSWORD = "correct horse battery"
SECRET = "test-secret-key"
CSRF_RE = re.compile(r'name="csrf_token"[^>]*value="([^"]+)"')


@pytest.fixture(autouse=True)
def cheap_argon2():
    """argon2id with its cheapest parameters: the same code path, a fraction of the CPU on a shared machine."""
    previous = accounts.use_hasher(PasswordHasher.from_parameters(profiles.CHEAPEST))
    yield
    accounts.use_hasher(previous)


@pytest.fixture
def app(db, monkeypatch):
    monkeypatch.setenv("PBEM_SECRET_KEY", SECRET)
    app = create_app({"DATABASE_URL": db.url, "TESTING": True, "SECRET_KEY": SECRET,
                      "BASE_URL": "http://pbem.test"})
    yield app
    app.extensions["pbem_db"].dispose()


@pytest.fixture
def client(app):
    return app.test_client()


@dataclass
class Player:
    id: int
    email: str
    client: object


def signup_token(db, email: str) -> str:
    """The token of the newest sign-up link mailed to this address."""
    with db.sessions() as s:
        mail = s.scalars(select(OutboundMail).where(OutboundMail.kind == "verify", OutboundMail.recipient == email)
                         .order_by(OutboundMail.id.desc())).first()
    assert mail is not None, f"no sign-up link mailed to {email}"
    return re.search(r"/verify/(\S+)", mail.body_text).group(1)


def make_user(db, email: str, name: str | None = None) -> int:
    """A user signed up through accounts.sign_up (argon2 password) and made by the mailed link."""
    accounts.sign_up(db, email, PASSWORD, name or email.split("@")[0], SECRET, accounts.Links("http://pbem.test"))
    return accounts.complete_sign_up(db, signup_token(db, email), PASSWORD, SECRET)


def csrf_of(client, path: str = "/login") -> str:
    page = client.get(path).get_data(as_text=True)
    match = CSRF_RE.search(page)
    assert match, f"no CSRF token on {path}"
    return match.group(1)


def login(client, email: str, password: str = PASSWORD):
    return client.post("/login", data={"email": email, "password": password, "csrf_token": csrf_of(client)})


def post(client, path: str, data: dict | None = None, page: str = "/", **kwargs):
    """A form post with the CSRF token a real page would have given."""
    return client.post(path, data={**(data or {}), "csrf_token": csrf_of(client, page)}, **kwargs)


@pytest.fixture
def players(app, db):
    """Three signed-up, confirmed, logged-in players, each with their own browser-like client."""
    out = []
    for n, name in enumerate(["ana", "ben", "cy"]):
        email = f"{name}@example.org"
        user_id = make_user(db, email, name.title())
        c = app.test_client()
        assert login(c, email).status_code == 302
        out.append(Player(user_id, email, c))
    return out


def seated(db, game_id: int) -> list[int]:
    """User ids by seat number."""
    with db.sessions() as s:
        return [x.user_id for x in s.scalars(select(Seat).where(Seat.game_id == game_id).order_by(Seat.number))]


def running_game(db, players, n: int = 2, options: dict | None = None, seed: int = 7) -> tuple[int, list]:
    """A counters game of the first n players started with a known seed; returns (game id, players by seat)."""
    game_id = games.create_game(db, "counters", players[0].id, n + 1, options or {})  # a spare seat: no auto-start
    for p in players[1:n]:
        games.join_game(db, game_id, p.id)
    games.start_game(db, game_id, players[0].id, seed=seed)
    by_id = {p.id: p for p in players}
    return game_id, [by_id[user_id] for user_id in seated(db, game_id)]


def finished_tapaono(db, players) -> int:
    """A short finished game of a title that has pictures and animated replays."""
    ana, ben, _ = players
    game_id = games.create_game(db, "tapaono", ana.id, 2, {"mode": "free", "markers": 3, "stars_to_win": 1})
    games.join_game(db, game_id, ben.id)
    chooser = random.Random(5)
    while (data := games.view(db, game_id))["status"] == "running":
        mover = ana if games.view(db, game_id, ana.id)["my_seat"] == data["to_move"] else ben
        games.submit(db, game_id, chooser.choice(games.view(db, game_id, mover.id)["legal_moves"]), user_id=mover.id)
    return game_id
