"""Schema changes of the web's security work (issue 19): pending sign-ups, server-side sessions,
rate-limit counters and stored animated replays.

Revision ID: 0006
Revises: 0005

A migration must keep working with the code of the release before it (expand first,
contract in a later release): this one adds tables only. It also drops the password of
every account whose address was never confirmed: before this release a web sign-up stored
its password on the account at once, so such a password may have been set by someone
other than the owner of the address (issue 19, item 3). The owner sets one with "forgot
password", whose link goes to the address.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "pending_signups",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("email", sa.String(length=320), nullable=False),
        sa.Column("display_name", sa.String(length=80), nullable=False),
        sa.Column("password_hash", sa.String(length=255), nullable=False),
        sa.Column("nonce", sa.String(length=32), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("email"),
    )
    op.create_index(op.f("ix_pending_signups_created_at"), "pending_signups", ["created_at"], unique=False)
    op.create_table(
        "web_sessions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("key_hash", sa.String(length=64), nullable=False),
        sa.Column("user_agent", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("last_seen_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("key_hash"),
    )
    op.create_index(op.f("ix_web_sessions_user_id"), "web_sessions", ["user_id"], unique=False)
    op.create_table(
        "rate_limits",
        sa.Column("key", sa.String(length=255), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("expires_at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("key"),
    )
    op.create_index(op.f("ix_rate_limits_expires_at"), "rate_limits", ["expires_at"], unique=False)
    op.create_table(
        "animations",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=True),
        sa.Column("gif", sa.LargeBinary(), nullable=True),
        sa.Column("frames", sa.Integer(), nullable=False),
        sa.Column("claimed_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("game_id"),
    )
    op.create_index(op.f("ix_animations_sha256"), "animations", ["sha256"], unique=False)
    users = sa.table("users", sa.column("password_hash", sa.String), sa.column("email_verified", sa.Boolean))
    op.execute(users.update().where(users.c.email_verified.is_(False)).values(password_hash=None))


def downgrade() -> None:
    op.drop_index(op.f("ix_animations_sha256"), table_name="animations")
    op.drop_table("animations")
    op.drop_index(op.f("ix_rate_limits_expires_at"), table_name="rate_limits")
    op.drop_table("rate_limits")
    op.drop_index(op.f("ix_web_sessions_user_id"), table_name="web_sessions")
    op.drop_table("web_sessions")
    op.drop_index(op.f("ix_pending_signups_created_at"), table_name="pending_signups")
    op.drop_table("pending_signups")
