"""Match analysis (issue #17): one row per analysed match, its status, progress and, once
done, the review.  A new table; nothing existing changes.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | None = None
depends_on: str | None = None

PENDING = "status IN ('queued', 'running')"


def upgrade() -> None:
    op.create_table(
        "analyses",
        sa.Column("match_id", sa.String(64), nullable=False),
        sa.Column("status", sa.String(8), nullable=False),
        sa.Column("progress", sa.Float(), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=False),
        sa.Column("samples", sa.Integer(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("error", sa.String(200), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["match_id"], ["matches.id"], ondelete="CASCADE",
                                name="fk_analyses_match_id_matches"),
        sa.PrimaryKeyConstraint("match_id", name="pk_analyses"),
    )
    op.create_index("ix_analyses_pending", "analyses", ["created_at"],
                    sqlite_where=sa.text(PENDING), postgresql_where=sa.text(PENDING))


def downgrade() -> None:
    op.drop_index("ix_analyses_pending", table_name="analyses")
    op.drop_table("analyses")
