"""Tournaments and leagues (issue #33): tournaments, their entries, the players entered
(one entry each), and each round's tables with their results; the leagues' seasons, each
player's line of a season and the division they start the next in (docs/tournaments.md).

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-14
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | None = None
depends_on: str | None = None


def _of_tournament(name: str) -> sa.ForeignKeyConstraint:
    """A row of a tournament's, deleted with it."""
    return sa.ForeignKeyConstraint(["tournament_id"], ["tournaments.id"], name=op.f(name),
                                   ondelete="CASCADE")


def upgrade() -> None:
    op.create_table("tournaments",
    sa.Column("id", sa.String(length=16), nullable=False),
    sa.Column("name", sa.String(length=64), nullable=False),
    sa.Column("variant", sa.String(length=16), nullable=False),
    sa.Column("options", sa.JSON(), nullable=False),
    sa.Column("format", sa.String(length=10), nullable=False),
    sa.Column("teams", sa.String(length=10), nullable=False),
    sa.Column("rounds", sa.SmallInteger(), nullable=False),
    sa.Column("rated", sa.Boolean(), nullable=False),
    sa.Column("turn_seconds", sa.Float(), nullable=False),
    sa.Column("round_seconds", sa.Integer(), nullable=False),
    sa.Column("max_entries", sa.SmallInteger(), nullable=False),
    sa.Column("bot_level", sa.String(length=16), nullable=False),
    sa.Column("director", sa.String(length=64), nullable=False),
    sa.Column("director_name", sa.String(length=64), nullable=False),
    sa.Column("status", sa.String(length=10), nullable=False),
    sa.Column("round", sa.SmallInteger(), nullable=False),
    sa.Column("round_ends_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("starts_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
    sa.PrimaryKeyConstraint("id", name=op.f("pk_tournaments"))
    )
    with op.batch_alter_table("tournaments", schema=None) as batch_op:
        batch_op.create_index("ix_tournaments_status", ["status", "created_at", "id"], unique=False)

    op.create_table("tournament_entries",
    sa.Column("tournament_id", sa.String(length=16), nullable=False),
    sa.Column("entry", sa.SmallInteger(), nullable=False),
    sa.Column("members", sa.JSON(), nullable=False),
    sa.Column("withdrawn", sa.Boolean(), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    _of_tournament("fk_tournament_entries_tournament_id_tournaments"),
    sa.PrimaryKeyConstraint("tournament_id", "entry", name=op.f("pk_tournament_entries"))
    )
    op.create_table("tournament_players",
    sa.Column("tournament_id", sa.String(length=16), nullable=False),
    sa.Column("player_id", sa.String(length=64), nullable=False),
    sa.Column("entry", sa.SmallInteger(), nullable=False),
    _of_tournament("fk_tournament_players_tournament_id_tournaments"),
    sa.PrimaryKeyConstraint("tournament_id", "player_id", name=op.f("pk_tournament_players"))
    )
    op.create_table("tournament_tables",
    sa.Column("tournament_id", sa.String(length=16), nullable=False),
    sa.Column("round", sa.SmallInteger(), nullable=False),
    sa.Column("idx", sa.SmallInteger(), nullable=False),
    sa.Column("seats", sa.JSON(), nullable=False),
    sa.Column("seed", sa.BigInteger(), nullable=False),
    sa.Column("table_id", sa.String(length=64), nullable=True),
    sa.Column("made_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("reason", sa.String(length=16), nullable=True),
    sa.Column("total0", sa.Integer(), nullable=False),
    sa.Column("total1", sa.Integer(), nullable=False),
    sa.Column("winner", sa.SmallInteger(), nullable=True),
    sa.Column("left", sa.JSON(), nullable=False),
    sa.Column("scores", sa.JSON(), nullable=False),
    _of_tournament("fk_tournament_tables_tournament_id_tournaments"),
    sa.PrimaryKeyConstraint("tournament_id", "round", "idx", name=op.f("pk_tournament_tables"))
    )
    with op.batch_alter_table("tournament_tables", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_tournament_tables_table_id"), ["table_id"],
                              unique=False)
    op.create_table(
        "league_lines",
        sa.Column("variant", sa.String(length=16), nullable=False),
        sa.Column("season", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.String(length=64), nullable=False),
        sa.Column("division", sa.SmallInteger(), nullable=False),
        sa.Column("grp", sa.SmallInteger(), nullable=False),
        sa.Column("points", sa.Integer(), nullable=False),
        sa.Column("matches", sa.Integer(), nullable=False),
        sa.Column("joined_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("variant", "season", "player_id", name=op.f("pk_league_lines")),
    )
    with op.batch_alter_table("league_lines", schema=None) as batch_op:
        batch_op.create_index("ix_league_lines_group",
                              ["variant", "season", "division", "grp", "points"], unique=False)
    op.create_table(
        "league_places",
        sa.Column("player_id", sa.String(length=64), nullable=False),
        sa.Column("variant", sa.String(length=16), nullable=False),
        sa.Column("division", sa.SmallInteger(), nullable=False),
        sa.PrimaryKeyConstraint("player_id", "variant", name=op.f("pk_league_places")),
    )
    op.create_table(
        "league_seasons",
        sa.Column("season", sa.Integer(), nullable=False),
        sa.Column("starts_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ends_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("closed_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("season", name=op.f("pk_league_seasons")),
    )


def downgrade() -> None:
    op.drop_table("league_seasons")
    op.drop_table("league_places")
    with op.batch_alter_table("league_lines", schema=None) as batch_op:
        batch_op.drop_index("ix_league_lines_group")
    op.drop_table("league_lines")
    with op.batch_alter_table("tournament_tables", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_tournament_tables_table_id"))

    op.drop_table("tournament_tables")
    op.drop_table("tournament_players")
    op.drop_table("tournament_entries")
    with op.batch_alter_table("tournaments", schema=None) as batch_op:
        batch_op.drop_index("ix_tournaments_status")

    op.drop_table("tournaments")
