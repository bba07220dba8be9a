"""Schema changes of the web issue (#9).

Revision ID: 0004
Revises: 0003

A migration must keep working with the code of the release before it (expand first,
contract in a later release), so a deploy can run it while old workers still run.
"""

from __future__ import annotations

import sqlalchemy as sa  # noqa: F401
from alembic import op  # noqa: F401

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
