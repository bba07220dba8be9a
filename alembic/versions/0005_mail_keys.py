"""Schema changes of the mail door (issue 19's mail items): command keys, claims, bounces once, raw kept for a time.

Revision ID: 0005
Revises: 0004

A migration must keep working with the code of the release before it (expand first,
contract in a later release), so a deploy can run it while old workers still run. Only
columns that may be empty are added (the user's mail nonce has the server default "":
keys of users made before it are signed with the empty nonce until /newkeys), and the raw
mail may now be empty, which the code before it never reads.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.add_column(sa.Column("mail_nonce", sa.String(length=32), nullable=False, server_default=""))
    with op.batch_alter_table("inbound_mail", schema=None) as batch_op:
        batch_op.alter_column("raw", existing_type=sa.LargeBinary(), nullable=True)
        batch_op.add_column(sa.Column("claim", sa.String(length=32), nullable=True))
        batch_op.add_column(sa.Column("claimed_at", sa.DateTime(), nullable=True))
        batch_op.create_index(batch_op.f("ix_inbound_mail_received_at"), ["received_at"], unique=False)
    with op.batch_alter_table("outbound_mail", schema=None) as batch_op:
        batch_op.add_column(sa.Column("bounced_at", sa.DateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("outbound_mail", schema=None) as batch_op:
        batch_op.drop_column("bounced_at")
    op.execute("UPDATE inbound_mail SET raw = '' WHERE raw IS NULL")
    with op.batch_alter_table("inbound_mail", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_inbound_mail_received_at"))
        batch_op.drop_column("claimed_at")
        batch_op.drop_column("claim")
        batch_op.alter_column("raw", existing_type=sa.LargeBinary(), nullable=False)
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.drop_column("mail_nonce")
