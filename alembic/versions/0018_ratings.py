"""Ratings per player and title (issue 35, item 3): `ratings`, `rating_updates`, `games.rated`.

Revision ID: 0018
Revises: 0017

- `games.rated`: the table was made rated at creation; every game before this revision is not
  (server default false), so no game finished before it changes a rating, and `pbem ratings
  rebuild` finds none of them.
- `ratings`: one row per (user, title): openskill's Plackett-Luce mu and sigma, the ordinal
  (mu - 3 sigma) the tables sort by, the number of rated games and when the last finished.
- `rating_updates`: one row per rated game that changed ratings (unique game), with each player's
  values before and after: a game changes ratings once, and the players' sets of recent games give
  the diminishing weight of games among the same players (pbem.players.ratings).

The code of the release before keeps working on this schema: it names neither table, and the new
column has a server default.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("games", sa.Column("rated", sa.Boolean(), server_default=sa.false(), nullable=False))
    op.create_table(
        "ratings",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("title", sa.String(length=40), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("ordinal", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.UniqueConstraint("user_id", "title", name="uq_rating_user_title"),
    )
    op.create_index("ix_ratings_title_ordinal", "ratings", ["title", "ordinal"])
    op.create_table(
        "rating_updates",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("game_id", sa.Integer(), sa.ForeignKey("games.id", ondelete="CASCADE"), nullable=False),
        sa.Column("title", sa.String(length=40), nullable=False),
        sa.Column("players", sa.String(length=255), nullable=False),
        sa.Column("finished_at", sa.DateTime(), nullable=False),
        sa.Column("weight", sa.Float(), nullable=False),
        sa.Column("changes", sa.JSON(), nullable=False),
        sa.UniqueConstraint("game_id", name="uq_rating_update_game"),
    )
    op.create_index("ix_rating_updates_players", "rating_updates", ["title", "players", "finished_at"])


def downgrade() -> None:
    op.drop_index("ix_rating_updates_players", table_name="rating_updates")
    op.drop_table("rating_updates")
    op.drop_index("ix_ratings_title_ordinal", table_name="ratings")
    op.drop_table("ratings")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("rated")
