"""Problems from one's own mistakes (issue #35): positions of analysed matches where a
decision lost at least a mistake's worth, and each player's attempts at them.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-15
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "problems",
        sa.Column("id", sa.String(16), nullable=False),
        sa.Column("match_id", sa.String(64), nullable=False),
        sa.Column("deal", sa.SmallInteger(), nullable=False),
        sa.Column("step", sa.SmallInteger(), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("seat", sa.SmallInteger(), nullable=False),
        sa.Column("player_id", sa.String(64), nullable=True),
        sa.Column("public", sa.Boolean(), nullable=False),
        sa.Column("variant", sa.String(16), nullable=False),
        sa.Column("position", sa.JSON(), nullable=False),
        sa.Column("answer", sa.JSON(), nullable=False),
        sa.Column("played_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["match_id"], ["matches.id"], ondelete="CASCADE",
                                name="fk_problems_match_id_matches"),
        sa.PrimaryKeyConstraint("id", name="pk_problems"),
    )
    op.create_index("ix_problems_player", "problems", ["player_id", "played_at", "id"])
    op.create_index("ix_problems_public", "problems", ["public", "played_at", "id"])
    op.create_table(
        "problem_attempts",
        sa.Column("problem_id", sa.String(16), nullable=False),
        sa.Column("player_id", sa.String(64), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("solved", sa.Boolean(), nullable=False),
        sa.Column("last_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["problem_id"], ["problems.id"], ondelete="CASCADE",
                                name="fk_problem_attempts_problem_id_problems"),
        sa.PrimaryKeyConstraint("problem_id", "player_id", name="pk_problem_attempts"),
    )


def downgrade() -> None:
    op.drop_table("problem_attempts")
    op.drop_index("ix_problems_public", table_name="problems")
    op.drop_index("ix_problems_player", table_name="problems")
    op.drop_table("problems")
