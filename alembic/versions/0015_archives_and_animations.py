"""An archive is one game; animations are drawn by the worker within a budget (issue 31, item 6).

Revision ID: 0015
Revises: 0014

- `games.archive_sha256`: the SHA-256 of the content of the archive an imported game came from
  (pbem.games.archive.archive_digest). Its unique index makes the same archive, uploaded again or
  twice at the same moment, the one game it already is. Games played here have none, and so have
  games imported before this revision (their archives were not kept): the first upload of such an
  archive after the upgrade makes one more game, and every later one finds it.
- `animations.status` and `animations.claimed_at` get indexes: the sweep looks for the animations
  asked for and not drawn by their status, and the site's budget counts those of the last hour by
  their time, neither by reading the table (on SQLite, reading a row's `claimed_at` walks its GIF).

The code of the release before keeps working on this schema: it never names the new column (NULL,
which the unique index allows any number of times), and the indexes change no answer.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("games", sa.Column("archive_sha256", sa.String(length=64), nullable=True))
    op.create_index(op.f("ix_games_archive_sha256"), "games", ["archive_sha256"], unique=True)
    op.create_index(op.f("ix_animations_status"), "animations", ["status"], unique=False)
    op.create_index(op.f("ix_animations_claimed_at"), "animations", ["claimed_at"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_animations_claimed_at"), table_name="animations")
    op.drop_index(op.f("ix_animations_status"), table_name="animations")
    op.drop_index(op.f("ix_games_archive_sha256"), table_name="games")
    with op.batch_alter_table("games") as batch:  # SQLite drops a column by copying the table
        batch.drop_column("archive_sha256")
