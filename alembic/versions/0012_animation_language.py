"""An animated replay per language (issue 24): its captions and legend are in its viewer's language.

Revision ID: 0012
Revises: 0011

`animations` is keyed by (game, language). Its rows are a cache (each GIF is drawn again from
the stored snapshots when someone asks for it), so the table is made anew rather than altered
in place: a primary key changes in SQLite only by copying the table, and the GIFs drawn before
would all be English anyway. The first request for each finished game's animation after the
upgrade draws it again (bounded as before: pbem.boards).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def _create(keyed_by_language: bool) -> None:
    columns = [sa.Column("game_id", sa.Integer(), nullable=False)]
    if keyed_by_language:
        columns.append(sa.Column("language", sa.String(length=8), nullable=False, server_default="en"))
    op.create_table(
        "animations",
        *columns,
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=True),
        sa.Column("gif", sa.LargeBinary(), nullable=True),
        sa.Column("frames", sa.Integer(), nullable=False),
        sa.Column("claimed_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("game_id", "language") if keyed_by_language else sa.PrimaryKeyConstraint("game_id"),
    )
    op.create_index(op.f("ix_animations_sha256"), "animations", ["sha256"], unique=False)


def _drop() -> None:
    op.drop_index(op.f("ix_animations_sha256"), table_name="animations")
    op.drop_table("animations")


def upgrade() -> None:
    _drop()
    _create(keyed_by_language=True)


def downgrade() -> None:
    _drop()
    _create(keyed_by_language=False)
