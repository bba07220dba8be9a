"""A board picture per language (issue 24): the pictures' words are in their viewer's language.

Revision ID: 0011
Revises: 0010

Adds `boards.language` with a server default ("en") and makes the picture unique per
(game, move, viewer, language). The pictures stored before are English, which the default
says. The code of the release before never names the column and writes English pictures;
while both releases run, its lookup by game, move and viewer may find another language's
picture of the same position (the same board, other words).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("boards") as batch:
        batch.add_column(sa.Column("language", sa.String(length=8), nullable=False, server_default="en"))
        batch.drop_constraint("uq_board", type_="unique")
        batch.create_unique_constraint("uq_board", ["game_id", "seq", "viewer", "language"])


def downgrade() -> None:
    op.execute(sa.text("DELETE FROM boards WHERE language <> 'en'"))
    with op.batch_alter_table("boards") as batch:
        batch.drop_constraint("uq_board", type_="unique")
        batch.create_unique_constraint("uq_board", ["game_id", "seq", "viewer"])
        batch.drop_column("language")
