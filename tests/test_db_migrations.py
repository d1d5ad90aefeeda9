"""Alembic on both databases: empty to head, the models equal the migrations, and back."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from alembic import command
from sqlalchemy import inspect, select

from app.db.migrate import ALEMBIC_INI, alembic_config
from app.db.models import Base, Match, RatingChange, UTCDateTime
from app.db.storage import DatabaseStorage
from app.matchlog import MatchEnd
from app.vocabulary import EndReason
from tests.test_db_support import opened

from .test_accounts import becomes_account, fill, rows_of
from .test_db_support import run

pytest_plugins = ["tests.test_db_support"]  # empty_url: a database not migrated yet

OLD_MATCHES = sa.table(  # the matches table as revision 0001 made it
    "matches", sa.column("id", sa.String), sa.column("variant", sa.String),
    sa.column("options", sa.JSON), sa.column("meta", sa.JSON),
    sa.column("started_at", UTCDateTime()), sa.column("total0", sa.Integer),
    sa.column("total1", sa.Integer),
)


async def table_names(url: str) -> set[str]:
    async with opened(url) as db, db.engine.connect() as conn:
        return set(await conn.run_sync(lambda c: inspect(c).get_table_names()))


def test_upgrade_check_downgrade(empty_url: str) -> None:
    config = alembic_config(empty_url)
    command.upgrade(config, "head")
    tables = set(Base.metadata.tables)
    assert run(table_names(empty_url)) == tables | {"alembic_version"}
    command.check(config)  # raises if autogenerate finds any difference with the models
    command.downgrade(config, "base")
    assert run(table_names(empty_url)) == {"alembic_version"}
    command.upgrade(config, "head")
    command.check(config)


def test_run_command_migrates_the_database_of_database_url(empty_url: str) -> None:
    """``alembic upgrade head`` as the run command calls it: URL from the environment."""
    env = {**os.environ, "DATABASE_URL": empty_url}
    subprocess.run([sys.executable, "-m", "alembic", "upgrade", "head"], cwd=ALEMBIC_INI.parent,
                   env=env, check=True, capture_output=True, timeout=60)
    assert run(table_names(empty_url)) == set(Base.metadata.tables) | {"alembic_version"}


async def insert_old_matches(url: str, metas: dict[str, dict[str, Any]]) -> None:
    async with opened(url) as db, db.write() as conn:
        await conn.execute(sa.insert(OLD_MATCHES), [
            {"id": match_id, "variant": "bulgarian", "options": {}, "meta": meta,
             "started_at": datetime(2026, 1, 1, tzinfo=UTC), "total0": 0, "total1": 0}
            for match_id, meta in metas.items()])


async def private_flags(url: str) -> dict[str, bool]:
    async with opened(url) as db, db.read() as session:
        rows = await session.execute(select(Match.id, Match.private))
        return {match_id: private for match_id, private in rows}


def test_private_is_filled_in_from_meta(empty_url: str) -> None:
    """Matches logged before revision 0002 get their table's privacy from ``meta``."""
    config = alembic_config(empty_url)
    command.upgrade(config, "0001")
    run(insert_old_matches(empty_url, {
        "hidden": {"seed": 1, "table": {"name": "t", "private": True}},
        "open": {"seed": 2, "table": {"name": "t", "private": False}},
        "bare": {},
    }))
    command.upgrade(config, "head")
    assert run(private_flags(empty_url)) == {"hidden": True, "open": False, "bare": False}


async def rate_old_match(url: str) -> list[tuple[Any, ...]]:
    """Rate the upgraded database's old match as if it had been rated: the new tables
    take rows that point at the old ones."""
    async with opened(url) as db:
        async with db.write() as conn:
            await conn.execute(sa.update(Match).where(Match.id == "M1").values(
                end_reason=None, meta={"seed": 1, "table": {"rated": True}}))
        await DatabaseStorage(db).repo.finish_match(
            "M1", MatchEnd(EndReason.WON, (151, 80), 0))
        async with db.read() as session:
            rows = await session.execute(select(
                RatingChange.match_id, RatingChange.player_id, RatingChange.matches))
            return [tuple(row) for row in rows]


def test_0005_keeps_every_guests_and_accounts_history(empty_url: str) -> None:
    """From revision 0004 with a guest's match and an account, up through 0005: every row
    as it was, and the old match's player can then be rated; down again, still whole."""
    config = alembic_config(empty_url)
    command.upgrade(config, "0004")
    run(fill(empty_url))
    run(becomes_account(empty_url))
    before = run(rows_of(empty_url))
    command.upgrade(config, "0005")
    assert run(rows_of(empty_url)) == before
    assert run(rate_old_match(empty_url)) == [("M1", "g-ana", 1)]
    command.downgrade(config, "0004")
    after = run(rows_of(empty_url))
    assert after["players"] == before["players"]
    assert after["match_seats"] == before["match_seats"]
    assert run(table_names(empty_url)) >= {"accounts", "sessions", "matches", "players"}
