"""Reliability and pace (issue 35, item 4): `games.min_reliability`.

Revision ID: 0019
Revises: 0018

- `games.min_reliability`: the least reliability, in whole percent (1 to 100), a player needs to take a
  seat at the table, chosen at creation; NULL: anybody may. Every game before this revision has none,
  so every table open at the upgrade stays open to everybody.

The figures themselves (games finished and abandoned, deadlines missed per 100 turns, response times)
are read from what is kept already (seats, the moves' log, the games' event log): nothing is stored for
them (pbem.players.reliability).

The code of the release before keeps working on this schema: it never names the column, and the
column is nullable.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("games", sa.Column("min_reliability", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("min_reliability")
