"""Accounts and their sessions: two new tables, beside ``players``, so that a guest who
signs up keeps its player id and every match it sat in; nothing existing changes.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("player_id", sa.String(64), nullable=False),
        sa.Column("username", sa.String(24), nullable=False),
        sa.Column("username_key", sa.String(24), nullable=False),
        sa.Column("password_hash", sa.String(255), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("password_changed_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"], ondelete="CASCADE",
                                name="fk_accounts_player_id_players"),
        sa.PrimaryKeyConstraint("player_id", name="pk_accounts"),
        sa.UniqueConstraint("username_key", name="uq_accounts_username_key"),
    )
    op.create_table(
        "sessions",
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("player_id", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["player_id"], ["accounts.player_id"], ondelete="CASCADE",
                                name="fk_sessions_player_id_accounts"),
        sa.PrimaryKeyConstraint("token_hash", name="pk_sessions"),
    )
    op.create_index("ix_sessions_player", "sessions", ["player_id"])


def downgrade() -> None:
    op.drop_index("ix_sessions_player", table_name="sessions")
    op.drop_table("sessions")
    op.drop_table("accounts")
