"""Schema changes of the worker issue (#8).

Revision ID: 0003
Revises: 0002

A migration must keep working with the code of the release before it (expand first,
contract in a later release), so a deploy can run it while old workers still run.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("weekdays", sa.String(length=7), nullable=True))
        batch_op.add_column(sa.Column("resign_after", sa.Integer(), nullable=False, server_default="3"))
        batch_op.add_column(sa.Column("turn_started_at", sa.DateTime(), nullable=True))
        batch_op.add_column(sa.Column("turn_seq", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("reminded_seq", sa.Integer(), nullable=True))
    op.create_table(
        "game_events",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("detail", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("game_events", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_game_events_game_id"), ["game_id"], unique=False)
    op.create_table(
        "absences",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("starts_at", sa.DateTime(), nullable=False),
        sa.Column("ends_at", sa.DateTime(), nullable=False),
        sa.Column("source", sa.String(length=16), nullable=False),
        sa.Column("note", sa.String(length=200), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("absences", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_absences_user_id"), ["user_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("absences", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_absences_user_id"))
    op.drop_table("absences")
    with op.batch_alter_table("game_events", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_game_events_game_id"))
    op.drop_table("game_events")
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_column("reminded_seq")
        batch_op.drop_column("turn_seq")
        batch_op.drop_column("turn_started_at")
        batch_op.drop_column("resign_after")
        batch_op.drop_column("weekdays")
