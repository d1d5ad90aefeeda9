"""Alembic from code, and scratch PostgreSQL databases for the tests and the benchmark.

``alembic upgrade head`` is the run command's step; :func:`upgrade` is the same thing for
a given URL, without the settings (tests, bench, or a server that migrates itself).
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import Iterator
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.pool import NullPool

from .session import Database, translate_errors

ALEMBIC_INI = Path(__file__).resolve().parents[2] / "alembic.ini"


def alembic_config(database_url: str) -> Config:
    """The project's Alembic configuration aimed at ``database_url`` (plain form)."""
    config = Config(str(ALEMBIC_INI))
    config.set_main_option("sqlalchemy.url", database_url)
    config.attributes["configure_logger"] = False
    return config


def upgrade(database_url: str) -> None:
    """Bring the database to the newest schema; call it outside a running event loop."""
    command.upgrade(alembic_config(database_url), "head")


class SchemaNotReady(RuntimeError):
    """The database is not at the newest schema: the server must not start on it."""


async def check_schema(db: Database) -> None:
    """Refuse to serve on a database the run command has not migrated."""
    head = ScriptDirectory.from_config(Config(str(ALEMBIC_INI))).get_current_head()
    with translate_errors():
        async with db.engine.connect() as conn:
            current = await conn.run_sync(
                lambda sync: MigrationContext.configure(sync).get_current_revision()
            )
    if current != head:
        where = db.url.render_as_string(hide_password=True)
        raise SchemaNotReady(
            f"the database {where} is at schema revision {current or 'none'}, not {head}: "
            "run `alembic upgrade head` (as `make run` does) before starting the server"
        )


ADMIN_TIMEOUT = 60.0  # seconds: DROP DATABASE ... WITH (FORCE) waits for its backends to end


async def _admin(server_url: str, sql: str) -> None:
    # CREATE and DROP DATABASE cannot run inside a transaction, and on a busy server they
    # take longer than a table's statements may.
    db = Database(server_url, ADMIN_TIMEOUT, isolation_level="AUTOCOMMIT", poolclass=NullPool)
    try:
        async with db.engine.connect() as conn:
            await conn.execute(text(sql))
    finally:
        await db.dispose()


@contextlib.contextmanager
def scratch_database(server_url: str, prefix: str = "belote_scratch",
                     template: str | None = None) -> Iterator[str]:
    """A new, empty PostgreSQL database on the server of ``server_url`` (a copy of the
    database ``template``, if given), dropped on exit; yields its plain URL.  Fails
    (never skips) when the server cannot be reached."""
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    copy = f' TEMPLATE "{template}"' if template else ""
    asyncio.run(_admin(server_url, f'CREATE DATABASE "{name}"{copy}'))
    try:
        yield make_url(server_url).set(database=name).render_as_string(hide_password=False)
    finally:
        asyncio.run(_admin(server_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
