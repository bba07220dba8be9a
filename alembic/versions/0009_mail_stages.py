"""The stages of a mail's way out (issue 22): when a sender first took the row, when its picture was ready.

Revision ID: 0009
Revises: 0007

Adds nullable columns only, so the code of the release before keeps working on it.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("outbound_mail") as batch:
        batch.add_column(sa.Column("picked_at", sa.DateTime(), nullable=True))
        batch.add_column(sa.Column("drawn_at", sa.DateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("outbound_mail") as batch:
        batch.drop_column("drawn_at")
        batch.drop_column("picked_at")
