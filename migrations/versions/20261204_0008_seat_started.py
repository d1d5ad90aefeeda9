"""A seat keeps its match's start (issue #15's profile at scale): a player's matches,
newest first, become one range of ``ix_match_seats_player`` (player, start, match), so a
page of a player's history reads its own rows only.  Before, it looked up every match
the player ever sat in to sort them by start: for the busiest players a thousand random
reads per profile.  The column is filled from the matches already there.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.add_column("match_seats", sa.Column("started_at", sa.DateTime(timezone=True)))
    # UPDATE ... FROM: one join on both databases (SQLite since 3.33), not a subquery a row.
    op.execute("UPDATE match_seats SET started_at = matches.started_at FROM matches "
               "WHERE matches.id = match_seats.match_id")
    # SQLite sets NOT NULL by copying the table (batch mode); PostgreSQL alters in place.
    with op.batch_alter_table("match_seats") as batch:
        batch.alter_column("started_at", existing_type=sa.DateTime(timezone=True),
                           nullable=False)
        batch.drop_index("ix_match_seats_player")
        batch.create_index("ix_match_seats_player", ["player_id", "started_at", "match_id"])


def downgrade() -> None:
    with op.batch_alter_table("match_seats") as batch:
        batch.drop_index("ix_match_seats_player")
        batch.create_index("ix_match_seats_player", ["player_id", "match_id"])
        batch.drop_column("started_at")
