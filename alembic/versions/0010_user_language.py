"""Each user's language (issue 24), and the browser's language of a pending sign-up.

Revision ID: 0010
Revises: 0009

Adds columns that have a server default ("en"), so the code of the release before keeps
working on it: it never names them, and every row it writes gets English.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("language", sa.String(length=8), nullable=False, server_default="en"))
    with op.batch_alter_table("pending_signups") as batch:
        batch.add_column(sa.Column("language", sa.String(length=8), nullable=False, server_default="en"))


def downgrade() -> None:
    with op.batch_alter_table("pending_signups") as batch:
        batch.drop_column("language")
    with op.batch_alter_table("users") as batch:
        batch.drop_column("language")
