"""Schema changes of the mail issue (#7).

Revision ID: 0002
Revises: 0001

A migration must keep working with the code of the release before it (expand first,
contract in a later release), so a deploy can run it while old workers still run.
"""

from __future__ import annotations

import sqlalchemy as sa  # noqa: F401
from alembic import op  # noqa: F401

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
