"""Rating integrity (issue #29): each rating row counts the account's wins at rated tables,
whether or not they moved its rating, and those the other team gave by leaving or timing
out, so that an operator can list the accounts whose wins are mostly such walkovers
(``python -m app.admin flagged``; docs/ratings.md, "Integrity").

The counts are filled from the history already there: until now every such match was
rated, so the wins are ``wins``, and a walkover win is a rated forfeit or abandoned match
after which the player's mu rose (a win in OpenSkill never lowers it, a loss never
raises it).

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-10
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.add_column("ratings", sa.Column("table_wins", sa.Integer(), server_default="0",
                                       nullable=False))
    op.add_column("ratings", sa.Column("forfeit_wins", sa.Integer(), server_default="0",
                                       nullable=False))
    op.execute(
        "UPDATE ratings SET table_wins = wins, forfeit_wins = ("
        "SELECT count(*) FROM rating_history JOIN matches ON matches.id = rating_history.match_id "
        "WHERE rating_history.player_id = ratings.player_id "
        "AND rating_history.variant = ratings.variant "
        "AND matches.end_reason IN ('forfeit', 'abandoned') "
        "AND rating_history.mu > rating_history.mu_before)")


def downgrade() -> None:
    with op.batch_alter_table("ratings") as batch:
        batch.drop_column("forfeit_wins")
        batch.drop_column("table_wins")
