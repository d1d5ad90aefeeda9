"""Alembic environment: metadata from the models, URL from the settings (DATABASE_URL).

The URL goes through :func:`app.db.url.async_url` like the server's own, so
``sqlite:///...`` and ``postgresql://...`` both work, and migrations run on the async
engine through ``run_sync``.  A caller may set ``sqlalchemy.url`` (tests, bench) instead.
"""

from __future__ import annotations

import asyncio
from logging.config import fileConfig
from typing import Any

from alembic import context
from sqlalchemy import pool, text
from sqlalchemy.engine import Connection

from app.config import get_settings
from app.db import leagues, tournaments  # noqa: F401  (their tables join Base's metadata)
from app.db.models import Base
from app.db.session import make_engine
from app.db.url import async_url

config = context.config
if config.config_file_name is not None and config.attributes.get("configure_logger", True):
    fileConfig(config.config_file_name, disable_existing_loggers=False)

target_metadata = Base.metadata
url = async_url(config.get_main_option("sqlalchemy.url") or get_settings().database_url)


def configure(**kwargs: Any) -> None:
    # Batch mode: SQLite alters a table by copying it, which later migrations will need.
    context.configure(
        target_metadata=target_metadata,
        render_as_batch=url.get_backend_name() == "sqlite",
        compare_type=True,
        **kwargs,
    )


def run_migrations_offline() -> None:
    """Print the SQL instead of running it (``alembic upgrade head --sql``)."""
    configure(url=url, literal_binds=True, dialect_opts={"paramstyle": "named"})
    with context.begin_transaction():
        context.run_migrations()


def do_run_migrations(connection: Connection) -> None:
    configure(connection=connection)
    with context.begin_transaction():
        if connection.dialect.name == "postgresql":
            # One `alembic upgrade` at a time per database: replicas that all migrate at
            # start queue here; the next one finds the schema at head and does nothing.
            connection.execute(text("SELECT pg_advisory_xact_lock(7428310561)"))
        context.run_migrations()


async def run_async_migrations() -> None:
    # No bound per statement: a migration may rewrite or fill whole tables (0007 sums a
    # million matches' history), where the server's bound is for a table's short writes.
    engine = make_engine(url, statement_timeout=None, poolclass=pool.NullPool)
    try:
        async with engine.connect() as connection:
            await connection.run_sync(do_run_migrations)
    finally:
        await engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    asyncio.run(run_async_migrations())
