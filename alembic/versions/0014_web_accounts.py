"""Log-ins and sign-ups that a stranger cannot spoil for the owner (issue 31, item 7).

Revision ID: 0014
Revises: 0013

- `pending_signups.email` is no longer unique: each sign-up's link stays valid until it is used
  or expires, so an address may have several pending sign-ups (at most
  accounts.MAX_PENDING_SIGNUPS); an index on the address replaces the unique constraint.
- `web_sessions.remember`: whether the login asked to stay logged in. A session without it ends
  after a day unused, one with it after 30 days. The sessions there are get `true`: they were
  made when every session lasted 30 days, and nobody is logged out by the upgrade. An index on
  (remember, last_seen_at) finds the sessions that ended by being idle.
- `login_links`: the one-time log-in links mailed to a user whose log-ins are throttled.

The code of the release before keeps working on this schema: it never names the new column (its
server default makes every session it starts one without "stay logged in") or the new table, and
it finds a pending sign-up by its address (with several, it may read another one than its link's
and refuse that link, until the upgrade of the code).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None

# SQLite reports the unique constraint of 0006 without a name: batch mode names it by this convention.
NAMES = {"uq": "uq_%(table_name)s_%(column_0_name)s"}


def upgrade() -> None:
    unique = next(c["name"] for c in sa.inspect(op.get_bind()).get_unique_constraints("pending_signups")
                  if c["column_names"] == ["email"])
    with op.batch_alter_table("pending_signups", naming_convention=NAMES) as batch:
        batch.drop_constraint(unique or "uq_pending_signups_email", type_="unique")
        batch.create_index(batch.f("ix_pending_signups_email"), ["email"], unique=False)
    with op.batch_alter_table("web_sessions") as batch:
        batch.add_column(sa.Column("remember", sa.Boolean(), nullable=False, server_default=sa.false()))
    sessions = sa.table("web_sessions", sa.column("remember", sa.Boolean))
    op.execute(sessions.update().values(remember=True))
    op.create_index("ix_web_sessions_idle", "web_sessions", ["remember", "last_seen_at"], unique=False)
    op.create_table(
        "login_links",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("key_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("key_hash"),
    )
    op.create_index(op.f("ix_login_links_user_id"), "login_links", ["user_id"], unique=False)
    op.create_index(op.f("ix_login_links_created_at"), "login_links", ["created_at"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_login_links_created_at"), table_name="login_links")
    op.drop_index(op.f("ix_login_links_user_id"), table_name="login_links")
    op.drop_table("login_links")
    op.drop_index("ix_web_sessions_idle", table_name="web_sessions")
    with op.batch_alter_table("web_sessions") as batch:
        batch.drop_column("remember")
    # One pending sign-up per address again: the newest of each stays.
    pending = sa.table("pending_signups", sa.column("id", sa.Integer), sa.column("email", sa.String))
    newer = pending.alias("newer")
    op.execute(pending.delete().where(sa.exists().where(newer.c.email == pending.c.email,
                                                        newer.c.id > pending.c.id)))
    with op.batch_alter_table("pending_signups") as batch:
        batch.drop_index(batch.f("ix_pending_signups_email"))
        batch.create_unique_constraint("pending_signups_email_key", ["email"])
