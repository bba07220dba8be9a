"""Rematch offers (issue 35 item 5): `rematch_offers`, `rematch_acceptances`.

Revision ID: 0020
Revises: 0019

- `rematch_offers`: one row per offer to play a finished game again (pbem.players.rematch): who
  proposed it, when it lapses, how it ended (started, declined, lapsed) and the game it started.
  `open_for` holds the game's id while the offer is open (NULL after): its unique constraint keeps a
  game to one open offer; the unique `new_game_id` keeps an offer to one new game.
- `rematch_acceptances`: the players who accepted an offer, one row each (its primary key).

The code of the release before keeps working on this schema: it names neither table.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "rematch_offers",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("game_id", sa.Integer(), sa.ForeignKey("games.id", ondelete="CASCADE"), nullable=False),
        sa.Column("open_for", sa.Integer(), nullable=True),
        sa.Column("proposed_by", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("lapses_at", sa.DateTime(), nullable=False),
        sa.Column("closed_at", sa.DateTime(), nullable=True),
        sa.Column("declined_by", sa.Integer(), sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
        sa.Column("new_game_id", sa.Integer(), sa.ForeignKey("games.id", ondelete="SET NULL"), nullable=True),
        sa.UniqueConstraint("open_for", name="uq_rematch_open"),
        sa.UniqueConstraint("new_game_id", name="uq_rematch_new_game"),
    )
    op.create_index("ix_rematch_offers_game_id", "rematch_offers", ["game_id"])
    op.create_table(
        "rematch_acceptances",
        sa.Column("offer_id", sa.Integer(), sa.ForeignKey("rematch_offers.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("accepted_at", sa.DateTime(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("rematch_acceptances")
    op.drop_index("ix_rematch_offers_game_id", table_name="rematch_offers")
    op.drop_table("rematch_offers")
