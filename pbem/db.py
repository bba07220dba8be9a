"""Database engines and transactions, the same code for SQLite and PostgreSQL.

SQLite runs in WAL mode with synchronous=FULL (a committed move survives a power cut) and
every transaction begins IMMEDIATE, so two writers queue on the lock instead of failing
half-way; PostgreSQL uses row locks (SELECT ... FOR UPDATE) for the same effect.
"""

from __future__ import annotations

import re
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator, NamedTuple, TypeVar

from sqlalchemy import create_engine, event, exc
from sqlalchemy.engine import Dialect, Engine
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.sql import ClauseElement

from pbem.config import normalize_database_url

SQLITE_BUSY_MS = 30_000
T = TypeVar("T")


def make_engine(url: str, **kwargs) -> Engine:
    url = normalize_database_url(url)
    if url.startswith("sqlite"):
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
    return create_engine(url, pool_pre_ping=True, **kwargs)


class Database:
    """One database: its engine and a factory of sessions.

    On PostgreSQL, moves (`run_plain`) take their connections from a second pool, `moves`, that
    does not ping a connection before each use as the service's pool does: that ping was a
    round trip of its own on every move. A connection the server has closed (a restart) is
    noticed by the move's first statement instead, before anything is written, and the move
    runs once more on a new connection.
    """

    def __init__(self, url: str, **kwargs):
        self.url = normalize_database_url(url)
        self.engine = make_engine(self.url, **kwargs)
        self.sessions = sessionmaker(self.engine, expire_on_commit=False)
        self.moves = create_engine(self.url, **kwargs) if self.engine.dialect.name == "postgresql" else self.engine

    @property
    def is_postgres(self) -> bool:
        return self.engine.dialect.name == "postgresql"

    @contextmanager
    def transaction(self) -> Iterator[Session]:
        """A session in one transaction: committed on success, rolled back on any error."""
        with self.sessions() as session:
            with session.begin():
                yield session

    def run_plain(self, work: Callable[[Plain], T]) -> T:
        """`work(tx)` in one `Plain` transaction on the moves pool: committed when it returns, rolled
        back if it raises; the `Plain.after_commit` listeners run after the commit.

        If the server had closed the connection (a restart), the first statement fails before
        anything is written: the pool is emptied and `work` runs once more. A connection lost
        later is not retried (the commit may have been done, its answer lost).
        """
        dialect = self.engine.dialect
        for attempt in (1, 2):
            try:
                connection = self.moves.raw_connection()
            except dialect.loaded_dbapi.Error as error:  # as Engine.connect() raises it
                raise exc.DBAPIError.instance(None, None, error, dialect.loaded_dbapi.Error, dialect=dialect,
                                              connection_invalidated=dialect.is_disconnect(error, None, None)
                                              ) from error
            tx = Plain(connection, dialect)
            try:
                tx.begin()
                result = work(tx)
                tx.commit()
            except BaseException as error:
                tx.abandon(error)
                if (attempt == 1 and isinstance(error, exc.DBAPIError) and error.connection_invalidated
                        and not tx.written):
                    self.moves.dispose()  # the other pooled connections went with the server
                    continue
                raise
            finally:
                connection.close()
            for listener in Plain.after_commit:
                listener(tx)
            return result
        raise AssertionError("unreachable")

    def dispose(self) -> None:
        self.engine.dispose()
        if self.moves is not self.engine:
            self.moves.dispose()


class _Compiled(NamedTuple):
    sql: str
    names: tuple[str, ...]  # the parameters, in their order in `sql` (positional styles) or by name
    processors: tuple[Callable[[Any], Any] | None, ...]  # the column types' conversions, per name
    positional: bool
    reads: bool  # a SELECT: its rows are fetched at once
    convert: tuple[tuple[int, Callable[[Any], Any]], ...]  # the result columns that need converting


class PlainResult:
    """The rows of one statement run by `Plain` (converted by their column types), as a list."""

    __slots__ = ("rows", "_key")

    def __init__(self, rows: list, key: tuple | None = None) -> None:
        self.rows = rows
        self._key = key

    @property
    def inserted_primary_key(self) -> tuple | None:
        """The new row's key (an INSERT on SQLite); not known for a write kept on PostgreSQL."""
        if self._key is _KEPT:
            raise RuntimeError("A write of a plain transaction on PostgreSQL is sent later (Plain.send): "
                               "its new key is not known.")
        return self._key

    def __iter__(self):
        return iter(self.rows)

    def all(self) -> list[tuple]:
        return self.rows

    def first(self) -> tuple | None:
        return self.rows[0] if self.rows else None

    def one(self) -> tuple:
        if len(self.rows) != 1:
            raise exc.NoResultFound("No row was found.") if not self.rows else exc.MultipleResultsFound(
                "More than one row was found.")
        return self.rows[0]

    def scalar_one(self) -> Any:
        return self.one()[0]


_KEPT = ("kept",)  # the key of a write kept for later (PostgreSQL)


_PLACEHOLDER = re.compile(r"%\(([A-Za-z0-9_]+)\)s")


class Plain:
    """One transaction on a pooled DBAPI connection, for the path every move takes.

    Statements are SQLAlchemy Core constructs, compiled by SQLAlchemy once per database and set
    of parameters, with the column types' conversions (JSON, dates, booleans); what is left out
    is SQLAlchemy's work around each execution, which cost a move more than the database did
    (bench/service.py). Only module-level statements belong here: each is compiled once and
    kept (up to `_MAX_COMPILED`). An INSERT must be given every column that has a default.
    Errors are SQLAlchemy's (`sqlalchemy.exc.IntegrityError` and the like), as through a Session.

    On PostgreSQL, after the first statement (a move's locked read: psycopg sends BEGIN before
    it), the transaction runs in psycopg's pipeline mode, so nothing more waits for the server
    but a read and the commit: a move is three round trips (BEGIN, the read, the writes with
    the COMMIT). Writes are kept and sent together as one statement (`send`), where the code
    calls `send`, before a read and with the commit. (Pipeline mode from the start saved the
    BEGIN's round trip but cost more CPU in psycopg than it saved: bench/service.py.)

    It answers the calls the move's code makes on a Session (`execute`, `connection`,
    `info`), so that code runs in either; jobs queued in `info` are posted by the
    `after_commit` listeners (pbem.jobs) once the commit is done.
    """

    after_commit: list[Callable[["Plain"], None]] = []
    _compiled: dict[tuple, _Compiled] = {}
    _combined: dict[tuple, str] = {}
    _MAX_COMPILED = 256

    def __init__(self, connection, dialect: Dialect) -> None:
        self.raw = connection
        self.dialect = dialect
        self.sqlite = dialect.name == "sqlite"
        self.cursor = connection.cursor()
        self.info: dict = {}
        self.written = False  # a write was executed (on PostgreSQL: kept or queued, perhaps not yet sent)
        self._kept: list[tuple[_Compiled, list]] = []  # PostgreSQL: writes not yet sent (see send)
        self._pipeline: ExitStack | None = None

    def begin(self) -> None:
        try:
            if self.sqlite:  # as the engine's "begin" listener does: take the write lock now
                self.cursor.execute("BEGIN IMMEDIATE")
        except self.dialect.loaded_dbapi.Error as error:
            raise self._wrap("BEGIN", {}, error) from error

    def commit(self) -> None:
        self.send()
        try:
            self.raw.commit()  # on PostgreSQL: the statements not yet sent, then COMMIT, in one round trip
            if self._pipeline is not None:
                self._pipeline.close()
        except self.dialect.loaded_dbapi.Error as error:
            raise self._wrap("COMMIT", {}, error) from error

    def abandon(self, error: BaseException) -> None:
        """Roll back after `error`; a connection left in doubt is closed, not given back to the pool."""
        self.info.clear()
        if isinstance(error, exc.DBAPIError) and error.connection_invalidated:
            self.raw.invalidate()  # the server went away: the pool makes a new connection
            return
        try:
            if self._pipeline is not None:
                pipeline, self._pipeline = self._pipeline, None
                pipeline.__exit__(type(error), error, error.__traceback__)
            self.raw.rollback()
        except Exception:
            self.raw.invalidate()

    def connection(self) -> "Plain":
        return self

    def execute(self, statement: ClauseElement, params: dict | None = None) -> PlainResult:
        """Run one statement. On PostgreSQL a write is kept until `send`, the next read or the
        commit, and then sent with the writes kept before it as one statement (pipeline mode:
        without waiting for it): its errors surface at the commit, and its new key
        (`inserted_primary_key`) is not known."""
        params = params or {}
        key = (statement, self.dialect.name, tuple(params))
        compiled = self._compiled.get(key) or self._compile(key, statement, params)
        values = [params[name] if convert is None else convert(params[name])
                  for name, convert in zip(compiled.names, compiled.processors)]
        if not compiled.reads:
            self.written = True
        if not self.sqlite:
            if not compiled.reads:
                if self._kept and not self._kept[-1][0].sql.startswith("INSERT"):
                    self.send()  # only INSERTs go before another write: no row is changed twice in one statement
                self._kept.append((compiled, values))
                return PlainResult([], _KEPT)
            self.send()
        cursor = self.cursor
        try:
            cursor.execute(compiled.sql, values if compiled.positional else dict(zip(compiled.names, values)))
            rows = cursor.fetchall() if compiled.reads else []
        except self.dialect.loaded_dbapi.Error as error:
            raise self._wrap(compiled.sql, params, error) from error
        if compiled.convert and rows:
            rows = [list(row) for row in rows]
            for row in rows:
                for i, convert in compiled.convert:
                    if row[i] is not None:
                        row[i] = convert(row[i])
        if self._pipeline is None and not self.sqlite:  # after the first read: pipeline mode (see the class)
            self._pipeline = ExitStack()
            self._pipeline.enter_context(self.raw.driver_connection.pipeline())
        return PlainResult(rows, (cursor.lastrowid,) if self.sqlite and statement.is_insert else None)

    def send(self) -> None:
        """Send the writes kept so far (PostgreSQL; nothing to do on SQLite), without waiting for
        them: one alone, or several as one statement, the others as data-modifying WITH queries
        of the last (they see the same snapshot: none depends on another, and none changes a row
        another one changes, see execute)."""
        kept, self._kept = self._kept, []
        if not kept:
            return
        if len(kept) == 1:
            sql, params = kept[0][0].sql, dict(zip(kept[0][0].names, kept[0][1]))
        else:
            shape = tuple(compiled.sql for compiled, _ in kept)
            sql = self._combined.get(shape) or self._combine(shape)
            params = {f"w{i}_{name}": value for i, (compiled, values) in enumerate(kept)
                      for name, value in zip(compiled.names, values)}
        try:
            self.cursor.execute(sql, params)
        except self.dialect.loaded_dbapi.Error as error:
            raise self._wrap(sql, params, error) from error

    def _combine(self, shape: tuple[str, ...]) -> str:
        parts = [_PLACEHOLDER.sub(lambda m, i=i: f"%(w{i}_{m.group(1)})s", sql) for i, sql in enumerate(shape)]
        sql = "WITH " + ", ".join(f"w{i} AS ({part})" for i, part in enumerate(parts[:-1])) + " " + parts[-1]
        if len(self._combined) < self._MAX_COMPILED:
            self._combined[shape] = sql
        return sql

    def _wrap(self, sql: str, params: dict, error: Exception) -> exc.DBAPIError:
        return exc.DBAPIError.instance(
            sql, params, error, self.dialect.loaded_dbapi.Error, dialect=self.dialect,
            connection_invalidated=self.dialect.is_disconnect(error, self.raw.driver_connection, self.cursor))

    def _compile(self, key: tuple, statement: ClauseElement, params: dict) -> _Compiled:
        dialect = self.dialect
        compiled = statement.compile(dialect=dialect, column_keys=list(params) if statement.is_dml else None)
        if compiled.escaped_bind_names:
            raise ValueError(f"Plain statements take plain parameter names: {compiled.string}")
        names = tuple(compiled.positiontup) if compiled.positional else tuple(compiled.binds)
        missing = [name for name in names if name not in params]
        if missing:  # a column default or a bindparam nobody gave: SQLAlchemy would fill in, this does not
            raise ValueError(f"Give every parameter of a Plain statement; missing: {', '.join(missing)}")
        processors = tuple(compiled.binds[name].type.dialect_impl(dialect).bind_processor(dialect)
                           for name in names)
        columns = statement.selected_columns if statement.is_select else []
        convert = tuple((i, f) for i, f in enumerate(column.type.dialect_impl(dialect).result_processor(dialect, None)
                                                     for column in columns) if f is not None)
        entry = _Compiled(compiled.string, names, processors, compiled.positional, statement.is_select, convert)
        if len(self._compiled) < self._MAX_COMPILED:  # statements built per call would pile up
            self._compiled[key] = entry
        return entry
