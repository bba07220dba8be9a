"""Schema changes of the mail issue (#7): per-address mail state, and claims on outbox rows.

Revision ID: 0002
Revises: 0001

A migration must keep working with the code of the release before it (expand first,
contract in a later release), so a deploy can run it while old workers still run:
this one only adds a table and a nullable column.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "mail_addresses",
        sa.Column("address", sa.String(length=320), nullable=False),
        sa.Column("hard_bounces", sa.Integer(), nullable=False),
        sa.Column("soft_bounces", sa.Integer(), nullable=False),
        sa.Column("last_bounce_at", sa.DateTime(), nullable=True),
        sa.Column("last_bounce", sa.Text(), nullable=True),
        sa.Column("stopped_at", sa.DateTime(), nullable=True),
        sa.Column("window_start", sa.DateTime(), nullable=True),
        sa.Column("window_count", sa.Integer(), nullable=False),
        sa.Column("flood_noticed", sa.Boolean(), nullable=False),
        sa.Column("verify_hash", sa.String(length=64), nullable=True),
        sa.Column("verify_sent_at", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("address"),
    )
    with op.batch_alter_table("outbound_mail", schema=None) as batch_op:
        batch_op.add_column(sa.Column("claimed_at", sa.DateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("outbound_mail", schema=None) as batch_op:
        batch_op.drop_column("claimed_at")
    op.drop_table("mail_addresses")
