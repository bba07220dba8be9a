"""Database engines and sessions, the same code for SQLite and PostgreSQL.

SQLite runs in WAL mode with synchronous=FULL (a committed move survives a power cut) and
every transaction begins IMMEDIATE, so two writers queue on the lock instead of failing
half-way (the pysqlite recipe of SQLAlchemy's documentation: the driver's own transaction
handling off, BEGIN emitted by the "begin" event). PostgreSQL uses row locks
(SELECT ... FOR UPDATE) for the same effect, and its pool checks a connection before use.
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from sqlalchemy import create_engine, event
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError, TimeoutError as PoolTimeoutError
from sqlalchemy.orm import Session, sessionmaker

from pbem.config import normalize_database_url

SQLITE_BUSY_MS = 30_000


def make_engine(url: str, **kwargs) -> Engine:
    url = normalize_database_url(url)
    if not url.startswith("sqlite"):
        return create_engine(url, pool_pre_ping=True, **kwargs)
    path = url.split("///", 1)[-1]
    if path and path != ":memory:":
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url, connect_args={"timeout": SQLITE_BUSY_MS / 1000, "check_same_thread": False},
                           **kwargs)

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record):
        dbapi_connection.isolation_level = None  # SQLAlchemy's "begin" event issues BEGIN itself
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=FULL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_MS}")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection):
        connection.exec_driver_sql("BEGIN IMMEDIATE")

    return engine


def unavailable(error: BaseException) -> bool:
    """Whether `error` says that the database could not be reached or could not answer now (a fault that
    passes: the caller tries again later), rather than something about the work it was given."""
    if isinstance(error, (OperationalError, InterfaceError, PoolTimeoutError)):
        return True
    return isinstance(error, DBAPIError) and error.connection_invalidated


class Database:
    """One database, and the one way the service reaches it.

    - `transaction()`: a `Session` in one transaction, committed on success and rolled back on
      any error: everything that writes (ORM objects, and Core statements through
      `session.execute`), with the reads that must agree with what it writes;
    - `sessions()`: a `Session` for reading through the ORM; nothing commits it, so closing it
      rolls back whatever it did;
    - `read(statement, **params)`: the rows of one read-only statement, in autocommit.

    `engine` is there for the migrations and the tests' plumbing (pools, scratch tables): the
    service's code does not reach around these three to it (tests/service/test_db.py).
    """

    def __init__(self, url: str, **kwargs):
        self.url = normalize_database_url(url)
        self.engine = make_engine(self.url, **kwargs)
        self.sessions = sessionmaker(self.engine, expire_on_commit=False)

    @property
    def is_postgres(self) -> bool:
        return self.engine.dialect.name == "postgresql"

    def read(self, statement, **params) -> list:
        """The rows of one read-only statement, run in autocommit.

        A single statement sees one consistent snapshot by itself, so no BEGIN and ROLLBACK are
        sent around it (SQLAlchemy's documented per-connection isolation level). The reads that
        every page makes (the session's user, the game's position) go this way.
        """
        with self.engine.connect() as connection:
            return connection.execution_options(isolation_level="AUTOCOMMIT").execute(statement, params).all()

    @contextmanager
    def transaction(self) -> Iterator[Session]:
        """A session in one transaction: committed on success, rolled back on any error."""
        with self.sessions() as session:
            with session.begin():
                yield session

    def dispose(self) -> None:
        self.engine.dispose()
