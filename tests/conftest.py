"""Fixtures shared by every test layer.

`db` runs a test on SQLite (the embedded default) and, in `make test-full` (CI), on PostgreSQL
too (both created by the Alembic migrations): the PostgreSQL half is marked `full`. Behaviour
that only PostgreSQL has (row locks, concurrent writers) is tested on it every day through
`pg_db`. Without a PostgreSQL server those tests skip, unless PBEM_REQUIRE_SERVICES=1 (as in
CI), where they fail instead.
"""

from __future__ import annotations

import os

import pytest
import sqlalchemy

import engine
from pbem import migrate, wiring
from pbem.db import Database
from pbem.models import Base
from tests.engine import toygame
from tests.support.databases import ScratchDatabase

# The small test game is registered for the whole run, so the platform can be tested on it too.
engine.register(toygame.TITLE)
# The listeners of the game service (mails, deadlines, pictures), as every process of the service connects them.
wiring.connect()

# Jobs posted after a commit go to an in-memory broker nobody reads, unless a test names a real one
# (tests/worker starts real brokers and workers); the work itself stays in the database.
os.environ.setdefault("PBEM_BROKER_URL", "memory://")

REQUIRE_SERVICES = os.environ.get("PBEM_REQUIRE_SERVICES") == "1"


def service_missing(what: str, error: Exception):
    message = f"{what} is not reachable ({type(error).__name__}: {str(error).splitlines()[0][:120]})"
    if REQUIRE_SERVICES:
        pytest.fail(message + "; PBEM_REQUIRE_SERVICES=1 says it must be", pytrace=False)
    pytest.skip(message)


@pytest.fixture(scope="session")
def sqlite_url(tmp_path_factory):
    url = f"sqlite:///{tmp_path_factory.mktemp('db') / 'test.sqlite3'}"
    migrate.upgrade(url)
    return url


@pytest.fixture(scope="session")
def postgresql_url(worker_id):
    scratch = ScratchDatabase(f"pbem_test_{worker_id}_{os.getpid()}")
    try:
        scratch.create()
    except sqlalchemy.exc.OperationalError as error:
        service_missing("PostgreSQL", error)
    migrate.upgrade(scratch.url)
    yield scratch.url
    scratch.drop()


@pytest.fixture(scope="session")
def worker_id(request):
    """The pytest-xdist worker name ('master' without xdist)."""
    return getattr(request.config, "workerinput", {}).get("workerid", "master")


def empty_database(db: Database) -> None:
    """Every table emptied (children first) and, on PostgreSQL, every id sequence started again.

    Rows are deleted rather than truncated: a test leaves a few rows, and PostgreSQL's TRUNCATE of
    30 tables costs a fixed 570 ms (new files for each) where DELETE and RESTART cost 11-33 ms
    (20 runs of each, in turn, on this 2-core machine): about 0.55 s a PostgreSQL test.
    """
    tables = [t.name for t in reversed(Base.metadata.sorted_tables)]
    with db.engine.begin() as connection:
        for table in tables:
            connection.exec_driver_sql(f"DELETE FROM {table}")
        if db.is_postgres:
            sequences = connection.exec_driver_sql(
                "SELECT sequencename FROM pg_sequences WHERE schemaname = current_schema()").scalars().all()
            for sequence in sequences:
                connection.exec_driver_sql(f'ALTER SEQUENCE "{sequence}" RESTART')


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.full)])
def db(request):
    """An empty, migrated database: each test runs on SQLite, and on PostgreSQL in the full run."""
    url = request.getfixturevalue(f"{request.param}_url")
    database = Database(url)
    empty_database(database)
    yield database
    database.dispose()


@pytest.fixture
def pg_db(postgresql_url):
    database = Database(postgresql_url)
    empty_database(database)
    yield database
    database.dispose()
