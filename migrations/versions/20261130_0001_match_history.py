"""Match history: players, matches and their seats, deals with results, the action log.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | None = None
depends_on: str | None = None

UNFINISHED = sa.text("finished_at IS NULL")


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("id", sa.String(64), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_players")),
    )
    op.create_table(
        "matches",
        sa.Column("id", sa.String(64), nullable=False),
        sa.Column("variant", sa.String(16), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("meta", sa.JSON(), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("end_reason", sa.String(16), nullable=True),
        sa.Column("total0", sa.Integer(), nullable=False),
        sa.Column("total1", sa.Integer(), nullable=False),
        sa.Column("winner", sa.SmallInteger(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_matches")),
    )
    op.create_index("ix_matches_started", "matches", ["started_at", "id"])
    op.create_index("ix_matches_variant_started", "matches", ["variant", "started_at", "id"])
    op.create_index(
        "ix_matches_unfinished", "matches", ["started_at", "id"],
        sqlite_where=UNFINISHED, postgresql_where=UNFINISHED,
    )
    op.create_table(
        "match_seats",
        sa.Column("match_id", sa.String(64), nullable=False),
        sa.Column("seat", sa.SmallInteger(), nullable=False),
        sa.Column("player_id", sa.String(64), nullable=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("level", sa.String(16), nullable=True),
        sa.ForeignKeyConstraint(
            ["match_id"], ["matches.id"],
            name=op.f("fk_match_seats_match_id_matches"), ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_match_seats_player_id_players")
        ),
        sa.PrimaryKeyConstraint("match_id", "seat", name=op.f("pk_match_seats")),
    )
    op.create_index("ix_match_seats_player", "match_seats", ["player_id", "match_id"])
    op.create_table(
        "deals",
        sa.Column("match_id", sa.String(64), nullable=False),
        sa.Column("idx", sa.SmallInteger(), nullable=False),
        sa.Column("dealer", sa.SmallInteger(), nullable=False),
        sa.Column("deck", sa.String(96), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("outcome", sa.String(12), nullable=True),
        sa.Column("contract", sa.SmallInteger(), nullable=True),
        sa.Column("bidder", sa.SmallInteger(), nullable=True),
        sa.Column("multiplier", sa.SmallInteger(), nullable=True),
        sa.Column("card_points0", sa.SmallInteger(), nullable=True),
        sa.Column("card_points1", sa.SmallInteger(), nullable=True),
        sa.Column("declarations0", sa.SmallInteger(), nullable=True),
        sa.Column("declarations1", sa.SmallInteger(), nullable=True),
        sa.Column("belot0", sa.SmallInteger(), nullable=True),
        sa.Column("belot1", sa.SmallInteger(), nullable=True),
        sa.Column("valat", sa.SmallInteger(), nullable=True),
        sa.Column("score0", sa.Integer(), nullable=True),
        sa.Column("score1", sa.Integer(), nullable=True),
        sa.Column("hanging", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["match_id"], ["matches.id"],
            name=op.f("fk_deals_match_id_matches"), ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("match_id", "idx", name=op.f("pk_deals")),
    )
    op.create_index("ix_deals_bidder", "deals", ["match_id", "bidder", "outcome"])
    op.create_table(
        "actions",
        sa.Column("match_id", sa.String(64), nullable=False),
        sa.Column("deal_idx", sa.SmallInteger(), nullable=False),
        sa.Column("seq", sa.SmallInteger(), nullable=False),
        sa.Column("seat", sa.SmallInteger(), nullable=False),
        sa.Column("action", sa.SmallInteger(), nullable=False),
        sa.Column("actor", sa.String(8), nullable=True),
        sa.Column("version", sa.Integer(), nullable=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["match_id", "deal_idx"], ["deals.match_id", "deals.idx"],
            name=op.f("fk_actions_match_id_deal_idx_deals"), ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("match_id", "deal_idx", "seq", name=op.f("pk_actions")),
    )


def downgrade() -> None:
    op.drop_table("actions")
    op.drop_table("deals")
    op.drop_table("match_seats")
    op.drop_table("matches")
    op.drop_table("players")
