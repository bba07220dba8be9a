"""Player pages (issue 35 items 2 and 6): `users.page_hidden`.

Revision ID: 0022
Revises: 0021

- `users.page_hidden`: the player hid their page (`/players/<id>/<name>`) from everybody who never
  sat with them at a game that started (pbem.players.pages). Every user before this revision shows
  their page (server default false), as every page did before there was a choice.

The code of the release before keeps working on this schema: it never names the column, and the
column has a server default.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("users", sa.Column("page_hidden", sa.Boolean(), server_default=sa.false(), nullable=False))


def downgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.drop_column("page_hidden")
