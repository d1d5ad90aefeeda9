"""The community (issue #32): friend requests (both ways make friends), blocks, reports
kept for an operator, and each player's reputation (matches finished and left).  Four
new tables, empty at first: a reputation with no row is a new player's.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-11
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | None = None
depends_on: str | None = None

UTC_TIME = sa.DateTime(timezone=True)


def _pair(name: str, first: str, second: str) -> None:
    """A table of (first, second) pairs of players, with when, indexed both ways."""
    op.create_table(
        name,
        sa.Column(first, sa.String(64), nullable=False),
        sa.Column(second, sa.String(64), nullable=False),
        sa.Column("at", UTC_TIME, nullable=False),
        sa.ForeignKeyConstraint([first], ["players.id"], ondelete="CASCADE",
                                name=f"fk_{name}_{first}_players"),
        sa.ForeignKeyConstraint([second], ["players.id"], ondelete="CASCADE",
                                name=f"fk_{name}_{second}_players"),
        sa.PrimaryKeyConstraint(first, second, name=f"pk_{name}"),
    )
    op.create_index(f"ix_{name}_{second}", name, [second, first])


def upgrade() -> None:
    _pair("friend_requests", "asker", "asked")
    _pair("blocks", "blocker", "blocked")
    op.create_table(
        "reports",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("reporter", sa.String(64), nullable=False),
        sa.Column("player", sa.String(64), nullable=False),
        sa.Column("match", sa.String(64), nullable=True),
        sa.Column("reason", sa.String(16), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("at", UTC_TIME, nullable=False),
        sa.ForeignKeyConstraint(["reporter"], ["players.id"], ondelete="CASCADE",
                                name="fk_reports_reporter_players"),
        sa.ForeignKeyConstraint(["player"], ["players.id"], ondelete="CASCADE",
                                name="fk_reports_player_players"),
        sa.PrimaryKeyConstraint("id", name="pk_reports"),
    )
    op.create_index("ix_reports_at", "reports", ["at", "id"])
    op.create_table(
        "reputations",
        sa.Column("player_id", sa.String(64), nullable=False),
        sa.Column("finished", sa.Integer(), server_default="0", nullable=False),
        sa.Column("left", sa.Integer(), server_default="0", nullable=False),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"], ondelete="CASCADE",
                                name="fk_reputations_player_id_players"),
        sa.PrimaryKeyConstraint("player_id", name="pk_reputations"),
    )


def downgrade() -> None:
    op.drop_table("reputations")
    op.drop_index("ix_reports_at", table_name="reports")
    op.drop_table("reports")
    op.drop_index("ix_blocks_blocked", table_name="blocks")
    op.drop_table("blocks")
    op.drop_index("ix_friend_requests_asked", table_name="friend_requests")
    op.drop_table("friend_requests")
