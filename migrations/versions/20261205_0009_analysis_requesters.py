"""An analysis job keeps who asked for it while it is pending (issue #29): its player and
address, so that each holds a share of the queue, not all of it.  Two nullable columns;
the jobs already there have none, and count for the queue alone.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.add_column("analyses", sa.Column("requested_by", sa.String(64), nullable=True))
    op.add_column("analyses", sa.Column("requested_from", sa.String(64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("analyses") as batch:
        batch.drop_column("requested_from")
        batch.drop_column("requested_by")
