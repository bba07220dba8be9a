"""The migrations build exactly the schema of the models, on both databases."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory

from pbem import migrate
from pbem.models import Base


def test_migrations_match_the_models(db):
    with db.engine.connect() as connection:
        diff = compare_metadata(MigrationContext.configure(connection), Base.metadata)
    assert diff == []
    head = ScriptDirectory.from_config(migrate.alembic_config(db.url)).get_current_head()
    assert migrate.current(db.url) == head
