"""Table talk and private notes (issue 34): messages, notes, mutes, reports, and the table's press options.

Revision ID: 0016
Revises: 0015

- `messages`: what players write to their table or to some of its players (pbem.talk). Not moves:
  outside the chain of moves, so `pbem verify` reads none of it. An operator's hiding is kept on the
  row (who, when, why).
- `notes`: a player's private notes on a game, read by their author only.
- `mutes`: who does not want to read whom; `message_reports`: messages reported to the operators.
- `games.press`, `press_spectators`, `press_after_end`, `press_late_blocked`: what the table allows,
  chosen at creation. Every game before this revision gets the defaults (full press, players only,
  talk after the end, late players not blocked).

The code of the release before keeps working on this schema: it names none of the new tables, and the
new columns have server defaults.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("games", sa.Column("press", sa.String(length=8), server_default="full", nullable=False))
    op.add_column("games", sa.Column("press_spectators", sa.Boolean(), server_default=sa.false(), nullable=False))
    op.add_column("games", sa.Column("press_after_end", sa.Boolean(), server_default=sa.true(), nullable=False))
    op.add_column("games", sa.Column("press_late_blocked", sa.Boolean(), server_default=sa.false(), nullable=False))
    op.create_table(
        "messages",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("game_id", sa.Integer(), sa.ForeignKey("games.id", ondelete="CASCADE"), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id"), nullable=True),
        sa.Column("to_seats", sa.JSON(), nullable=True),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("source", sa.String(length=8), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("hidden_at", sa.DateTime(), nullable=True),
        sa.Column("hidden_by", sa.Integer(), sa.ForeignKey("users.id"), nullable=True),
        sa.Column("hidden_reason", sa.String(length=200), nullable=True),
    )
    op.create_index("ix_messages_game_created", "messages", ["game_id", "created_at"])
    op.create_table(
        "notes",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("game_id", sa.Integer(), sa.ForeignKey("games.id", ondelete="CASCADE"), nullable=False),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_notes_game_user", "notes", ["game_id", "user_id"])
    op.create_table(
        "mutes",
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("muted_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    op.create_table(
        "message_reports",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("message_id", sa.Integer(), sa.ForeignKey("messages.id", ondelete="CASCADE"), nullable=False),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("reason", sa.String(length=500), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.UniqueConstraint("message_id", "user_id", name="uq_report_once"),
    )
    op.create_index(op.f("ix_message_reports_message_id"), "message_reports", ["message_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_message_reports_message_id"), table_name="message_reports")
    op.drop_table("message_reports")
    op.drop_table("mutes")
    op.drop_index("ix_notes_game_user", table_name="notes")
    op.drop_table("notes")
    op.drop_index("ix_messages_game_created", table_name="messages")
    op.drop_table("messages")
    with op.batch_alter_table("games") as batch:  # SQLite drops a column by copying the table
        batch.drop_column("press_late_blocked")
        batch.drop_column("press_after_end")
        batch.drop_column("press_spectators")
        batch.drop_column("press")
