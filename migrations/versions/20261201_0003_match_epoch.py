"""The fencing token of a cluster: each node that takes a match over raises ``epoch``, and
its owner's writes check it in their transaction (docs/cluster.md).

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.add_column("matches", sa.Column("epoch", sa.Integer(), server_default="0", nullable=False))


def downgrade() -> None:
    op.drop_column("matches", "epoch")
