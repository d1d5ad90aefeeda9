"""Alembic on both databases: empty to head, the models equal the migrations, and back."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import inspect

from app.db.migrate import ALEMBIC_INI, alembic_config, scratch_database
from app.db.models import Base
from app.db.session import Database

from .test_db_support import BACKENDS, PG_SERVER, run


@pytest.fixture(params=BACKENDS)
def empty_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A database nobody has migrated yet (its directory missing, for SQLite)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'data' / 'belote.db'}"
        return
    with scratch_database(PG_SERVER, "belote_test") as url:
        yield url


async def table_names(url: str) -> set[str]:
    db = Database(url)
    try:
        async with db.engine.connect() as conn:
            return set(await conn.run_sync(lambda c: inspect(c).get_table_names()))
    finally:
        await db.dispose()


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
                   env=env, check=True, capture_output=True)
    assert run(table_names(empty_url)) == set(Base.metadata.tables) | {"alembic_version"}
