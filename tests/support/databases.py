"""Scratch PostgreSQL databases: one of a test run's or a soak's own, next to an admin URL.

The server is shared (tests run side by side, other work uses it): each run makes a database
under a name of its own and drops it at the end, and touches nothing else. Migrating it is the
caller's (pbem.migrate), as is deciding what a missing server means.
"""

from __future__ import annotations

import os

import sqlalchemy

POSTGRES_ADMIN_URL = os.environ.get("PBEM_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres")


class ScratchDatabase:
    """A database named `name` on the server of `admin_url`; `url` reaches it once `create()` made it."""

    def __init__(self, name: str, admin_url: str = POSTGRES_ADMIN_URL):
        self.name = name
        self.admin_url = admin_url
        self.url = admin_url.rsplit("/", 1)[0] + "/" + name

    def _admin(self, *statements: str) -> None:
        """Statements on the server's admin database (CREATE/DROP DATABASE need autocommit)."""
        admin = sqlalchemy.create_engine(self.admin_url, isolation_level="AUTOCOMMIT")
        try:
            with admin.connect() as connection:
                for sql in statements:
                    connection.exec_driver_sql(sql)
        finally:
            admin.dispose()

    def create(self) -> None:
        """Make the database empty (a leftover of the same name is dropped first).

        sqlalchemy.exc.OperationalError when the server cannot be reached.
        """
        self._admin(f'DROP DATABASE IF EXISTS "{self.name}"', f'CREATE DATABASE "{self.name}"')

    def drop(self) -> None:
        """Drop the database, closing the connections still open on it."""
        self._admin(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')
