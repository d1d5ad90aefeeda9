"""Coinche's contracts (issue #31): a deal's row keeps its bid's value.

A Coinche contract is a value (80..160 by 10, capot ranking 250, générale 500), a strain,
a kind and a coinche level.  The strain is the ``contract`` column already (C D H S, and
SA = NT, TA = AT: the engine's contract ints); the level is the ``multiplier`` (1 plain,
2 coinched, 4 or 3 surcoinched); the kind follows from the value (250 capot, 500
générale, else a normal bid).  Only the value is new: ``value``, null for the other
variants' deals and for a deal thrown in.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-11
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.add_column("deals", sa.Column("value", sa.SmallInteger(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("deals") as batch:
        batch.drop_column("value")
