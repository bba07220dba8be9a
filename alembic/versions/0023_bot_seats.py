"""Seats for bots and abandoned seats (issue 37 items 2 and 3): `seats.bot_level`, `bot_turns`, the abandoned
seats' policy and the seats' holders.

Revision ID: 0023
Revises: 0022

- `seats.bot_level`: the level (bots.LEVELS: easy, medium, hard) of a seat a bot plays; such a seat
  has no user. NULL: a person's seat, as every seat before this revision is.
- `bot_turns`: a game waiting for a bot's decision, one row per game (pbem.players.bot_seats): the
  position it is for and when its job was posted (NULL: waiting for a place in the site's budget).
- `games.replace_after`, `games.bot_level`: the table's policy for abandoned seats (after N missed deadlines
  in a row, or on leaving, a bot of that level plays the seat until a replacement takes it); NULL: none.
- `seats.open_since`: the seat is offered to a replacement since then; NULL: not offered.
- `seat_holders`: who held a seat from which move on, once it changed hands (never changed).

The code of the release before keeps working on this schema: it never names the new column (nullable)
or the new table.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0023"
down_revision = "0022"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("seats", sa.Column("bot_level", sa.String(16), nullable=True))
    op.create_table(
        "bot_turns",
        sa.Column("game_id", sa.Integer(), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("posted_at", sa.DateTime(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_bot_turns_posted_at", "bot_turns", ["posted_at"])
    op.add_column("games", sa.Column("replace_after", sa.Integer(), nullable=True))
    op.add_column("games", sa.Column("bot_level", sa.String(16), nullable=True))
    op.add_column("seats", sa.Column("open_since", sa.DateTime(), nullable=True))
    op.create_table(
        "seat_holders",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("game_id", sa.Integer(), sa.ForeignKey("games.id", ondelete="CASCADE"), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("from_seq", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
        sa.Column("bot_level", sa.String(16), nullable=True),
        sa.Column("display_name", sa.String(80), nullable=False),
        sa.Column("reason", sa.String(16), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_seat_holders_game_id", "seat_holders", ["game_id"])


def downgrade() -> None:
    op.drop_index("ix_seat_holders_game_id", table_name="seat_holders")
    op.drop_table("seat_holders")
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("open_since")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("bot_level")
        batch.drop_column("replace_after")
    op.drop_index("ix_bot_turns_posted_at", table_name="bot_turns")
    op.drop_table("bot_turns")
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("bot_level")
