"""Score sheets (issue #35): a score keeper for matches played with real cards, each deal
entered as a summary and scored by the engine (docs/protocol.md, "Score sheets").

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-11
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "scoresheets",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("owner_id", sa.String(64), nullable=False),
        sa.Column("variant", sa.String(16), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("names", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_scoresheets"),
    )
    op.create_index("ix_scoresheets_owner", "scoresheets", ["owner_id", "created_at", "id"])
    op.create_table(
        "scoresheet_deals",
        sa.Column("sheet_id", sa.String(32), nullable=False),
        sa.Column("number", sa.SmallInteger(), nullable=False),
        sa.Column("summary", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["sheet_id"], ["scoresheets.id"], ondelete="CASCADE",
                                name="fk_scoresheet_deals_sheet_id_scoresheets"),
        sa.PrimaryKeyConstraint("sheet_id", "number", name="pk_scoresheet_deals"),
    )


def downgrade() -> None:
    op.drop_table("scoresheet_deals")
    op.drop_index("ix_scoresheets_owner", table_name="scoresheets")
    op.drop_table("scoresheets")
