"""Ratings (issue #15): each player's current rating per variant, and the rating after
every rated match.  Two new tables; nothing existing changes, so every guest's and
account's history stays as it was, and players start unrated (app/ratings.NEW).

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "ratings",
        sa.Column("player_id", sa.String(64), nullable=False),
        sa.Column("variant", sa.String(16), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("value", sa.Integer(), nullable=False),
        sa.Column("matches", sa.Integer(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.Column("ranked", sa.Boolean(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"], ondelete="CASCADE",
                                name="fk_ratings_player_id_players"),
        sa.PrimaryKeyConstraint("player_id", "variant", name="pk_ratings"),
    )
    op.create_index("ix_ratings_board", "ratings", ["variant", "ranked", "value", "player_id"])
    op.create_table(
        "rating_history",
        sa.Column("match_id", sa.String(64), nullable=False),
        sa.Column("player_id", sa.String(64), nullable=False),
        sa.Column("variant", sa.String(16), nullable=False),
        sa.Column("seat", sa.SmallInteger(), nullable=False),
        sa.Column("mu_before", sa.Float(), nullable=False),
        sa.Column("sigma_before", sa.Float(), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("value", sa.Integer(), nullable=False),
        sa.Column("matches", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["match_id"], ["matches.id"], ondelete="CASCADE",
                                name="fk_rating_history_match_id_matches"),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"], ondelete="CASCADE",
                                name="fk_rating_history_player_id_players"),
        sa.PrimaryKeyConstraint("match_id", "player_id", name="pk_rating_history"),
    )
    op.create_index("ix_rating_history_player", "rating_history",
                    ["player_id", "variant", "at", "match_id"])


def downgrade() -> None:
    op.drop_index("ix_rating_history_player", table_name="rating_history")
    op.drop_table("rating_history")
    op.drop_index("ix_ratings_board", table_name="ratings")
    op.drop_table("ratings")
