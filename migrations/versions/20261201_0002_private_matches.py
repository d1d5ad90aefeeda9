"""Private matches: a column the history lists filter on, filled in from ``meta``.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | None = None
depends_on: str | None = None

matches = sa.table(
    "matches", sa.column("id", sa.String), sa.column("meta", sa.JSON),
    sa.column("private", sa.Boolean),
)


def upgrade() -> None:
    # Plain ALTERs, no batch copy: on SQLite, with foreign keys on, dropping the old
    # `matches` table would cascade to every deal and seat.
    op.add_column(
        "matches", sa.Column("private", sa.Boolean(), server_default=sa.false(), nullable=False)
    )
    bind = op.get_bind()
    private = [
        {"match_id": row.id}
        for row in bind.execute(sa.select(matches.c.id, matches.c.meta))
        if (row.meta or {}).get("table", {}).get("private") is True
    ]
    if private:
        bind.execute(
            matches.update().where(matches.c.id == sa.bindparam("match_id")).values(private=True),
            private,
        )


def downgrade() -> None:
    op.drop_column("matches", "private")
