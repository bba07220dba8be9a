"""Display names are unique and no look-alike of another's (issue 35, item 1).

Revision ID: 0017
Revises: 0016

- `users.name_key` and `users.name_skeleton`: the two keys of the user's display name, as
  `pbem.accounts.names.key` (the UTS #39 skeleton of the case-folded name) and
  `pbem.accounts.names.skeleton` (the UTS #39 skeleton of the name as written) compute them, each
  under a unique index: two users whose names differ only in case or by look-alike characters
  cannot both exist.
- Every user there is gets the keys of the name they have. Where names collide already, the user
  made first (the smallest id) keeps theirs; each later one gets the same name with the smallest
  free number after it ("Anna 2", "Anna 3"; cut to keep pbem.accounts.names.MAX_NAME characters
  when that name was that long or shorter), and their seats at open and running tables are
  renamed with them; finished and abandoned games keep the names they were played under. Names
  kept from before the rules that break them (too long, other characters) are not changed
  otherwise: their owners meet the rules when they rename. The downgrade drops the columns and
  their indexes but does not give the numbered users their old names back.

The keys are computed by this release's pbem.accounts.names (its confusables data): if a later
release changes them, it recomputes them too. The code of the release before keeps working on
this schema: it never names the columns, and the users it makes get NULLs, which the unique
indexes allow any number of times.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from pbem.accounts import names

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None

_LIVE = ("open", "running")


def _numbered(name: str, number: int) -> str:
    tail = f" {number}"
    most = names.MAX_NAME if len(name) <= names.MAX_NAME else 80  # 80: the column
    return name[:most - len(tail)].rstrip() + tail


def upgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("name_key", sa.String(length=255), nullable=True))
        batch.add_column(sa.Column("name_skeleton", sa.String(length=255), nullable=True))
    users = sa.table("users", sa.column("id", sa.Integer), sa.column("display_name", sa.String),
                     sa.column("name_key", sa.String), sa.column("name_skeleton", sa.String))
    seats = sa.table("seats", sa.column("user_id", sa.Integer), sa.column("game_id", sa.Integer),
                     sa.column("display_name", sa.String))
    games = sa.table("games", sa.column("id", sa.Integer), sa.column("status", sa.String))
    bind = op.get_bind()
    rows = bind.execute(sa.select(users.c.id, users.c.display_name).order_by(users.c.id)).all()
    keys, skeletons = set(), set()
    for user_id, name in rows:
        new_name, number = name, 1
        while names.key(new_name) in keys or names.skeleton(new_name) in skeletons:
            number += 1
            new_name = _numbered(name, number)
        keys.add(names.key(new_name))
        skeletons.add(names.skeleton(new_name))
        bind.execute(users.update().where(users.c.id == user_id).values(**names.columns(new_name)))
        if new_name != name:
            live = sa.select(games.c.id).where(games.c.status.in_(_LIVE))
            bind.execute(seats.update().where(seats.c.user_id == user_id, seats.c.game_id.in_(live))
                         .values(display_name=new_name))
    op.create_index(op.f("ix_users_name_key"), "users", ["name_key"], unique=True)
    op.create_index(op.f("ix_users_name_skeleton"), "users", ["name_skeleton"], unique=True)


def downgrade() -> None:
    op.drop_index(op.f("ix_users_name_skeleton"), table_name="users")
    op.drop_index(op.f("ix_users_name_key"), table_name="users")
    with op.batch_alter_table("users") as batch:
        batch.drop_column("name_skeleton")
        batch.drop_column("name_key")
