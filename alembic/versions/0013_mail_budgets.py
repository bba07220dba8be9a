"""Budgets of inbound mail that a stranger cannot spend for someone else (issue 31, item 3).

Revision ID: 0013
Revises: 0012

Mails were counted against the registered address that would be answered, whoever wrote them,
so forged mails could use up a player's budget. `mail_budgets` counts each budget under its own
name (pbem.mail.budgets). The rate columns of `mail_addresses` stay, unused, so that the code of
the release before still runs on this schema; a later migration drops them.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "mail_budgets",
        sa.Column("name", sa.String(length=400), nullable=False),
        sa.Column("window_start", sa.DateTime(), nullable=True),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("noticed", sa.Boolean(), nullable=False),
        sa.Column("carried", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("name"),
    )


def downgrade() -> None:
    op.drop_table("mail_budgets")
