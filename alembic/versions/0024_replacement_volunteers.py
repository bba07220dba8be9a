"""Volunteers for abandoned seats (issue 37 item 3): who asked to be offered seats to take over, at which titles,
and which offers were mailed to whom.

Revision ID: 0024
Revises: 0023

- `replacement_volunteers`: a user who asked (on the settings page) to be offered the seats handed to a bot at
  games of a title; one row per (user, title).
- `seat_offer_mails`: a seat offered to a volunteer by mail (pbem.notify.seat_offers), one row per (user, game,
  seat): at most one mail per volunteer per seat, and the rows of the last day count against the per-day cap.

The code of the release before keeps working on this schema: it never names the new tables.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0024"
down_revision = "0023"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "replacement_volunteers",
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("title", sa.String(40), primary_key=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_replacement_volunteers_title", "replacement_volunteers", ["title"])
    op.create_table(
        "seat_offer_mails",
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("game_id", sa.Integer(), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seat", sa.Integer(), primary_key=True),
        sa.Column("sent_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_seat_offer_mails_sent_at", "seat_offer_mails", ["sent_at"])


def downgrade() -> None:
    op.drop_index("ix_seat_offer_mails_sent_at", table_name="seat_offer_mails")
    op.drop_table("seat_offer_mails")
    op.drop_index("ix_replacement_volunteers_title", table_name="replacement_volunteers")
    op.drop_table("replacement_volunteers")
