"""Player tallies (issue #15's profile at scale): each player's finished matches, wins,
points and contracts per variant, and its record with and against each bot level, kept
as counters that grow as each match ends (app/db/tallies.py) instead of being summed
from the whole history at every read.  Two new tables, filled here from the history that
is already there (the same sums the reads made until now); nothing existing changes.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | None = None
depends_on: str | None = None

# A player's seat (s) in a finished match (m): the rows every sum below runs over.
SEATS = "FROM match_seats s JOIN matches m ON m.id = s.match_id"
FINISHED = "WHERE s.player_id IS NOT NULL AND m.finished_at IS NOT NULL"
WON = "CASE WHEN m.winner = s.seat % 2 THEN 1 ELSE 0 END"


def _contracts(outcome: str) -> str:
    return (f"SUM((SELECT COUNT(*) FROM deals d WHERE d.match_id = m.id "
            f"AND d.bidder = s.seat AND d.outcome = '{outcome}'))")


def upgrade() -> None:
    op.create_table(
        "player_tallies",
        sa.Column("player_id", sa.String(64), nullable=False),
        sa.Column("variant", sa.String(16), nullable=False),
        sa.Column("private", sa.Boolean(), nullable=False),
        sa.Column("matches", sa.Integer(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.Column("points_for", sa.Integer(), nullable=False),
        sa.Column("points_against", sa.Integer(), nullable=False),
        sa.Column("contracts_made", sa.Integer(), nullable=False),
        sa.Column("contracts_failed", sa.Integer(), nullable=False),
        sa.Column("contracts_hanging", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"], ondelete="CASCADE",
                                name="fk_player_tallies_player_id_players"),
        sa.PrimaryKeyConstraint("player_id", "variant", "private", name="pk_player_tallies"),
    )
    op.create_table(
        "player_bot_tallies",
        sa.Column("player_id", sa.String(64), nullable=False),
        sa.Column("variant", sa.String(16), nullable=False),
        sa.Column("private", sa.Boolean(), nullable=False),
        sa.Column("level", sa.String(16), nullable=False),
        sa.Column("side", sa.String(8), nullable=False),
        sa.Column("played", sa.Integer(), nullable=False),
        sa.Column("won", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"], ondelete="CASCADE",
                                name="fk_player_bot_tallies_player_id_players"),
        sa.PrimaryKeyConstraint("player_id", "variant", "private", "level", "side",
                                name="pk_player_bot_tallies"),
    )
    op.execute(f"""
        INSERT INTO player_tallies (player_id, variant, private, matches, wins, points_for,
            points_against, contracts_made, contracts_failed, contracts_hanging)
        SELECT s.player_id, m.variant, m.private, COUNT(*), SUM({WON}),
            SUM(CASE WHEN s.seat % 2 = 0 THEN m.total0 ELSE m.total1 END),
            SUM(CASE WHEN s.seat % 2 = 0 THEN m.total1 ELSE m.total0 END),
            {_contracts("made")}, {_contracts("failed")}, {_contracts("hanging")}
        {SEATS} {FINISHED}
        GROUP BY s.player_id, m.variant, m.private
    """)
    # One row per (seat, level, side) that had such a bot, however many sat there.
    op.execute(f"""
        INSERT INTO player_bot_tallies (player_id, variant, private, level, side, played, won)
        SELECT player_id, variant, private, level, side, COUNT(*), SUM(won)
        FROM (
            SELECT DISTINCT s.player_id, m.variant, m.private, b.level,
                CASE WHEN b.seat % 2 = s.seat % 2 THEN 'with' ELSE 'against' END AS side,
                m.id AS match_id, {WON} AS won
            {SEATS} JOIN match_seats b
                ON b.match_id = m.id AND b.kind = 'bot' AND b.level IS NOT NULL
            {FINISHED}
        ) AS sides
        GROUP BY player_id, variant, private, level, side
    """)


def downgrade() -> None:
    op.drop_table("player_bot_tallies")
    op.drop_table("player_tallies")
