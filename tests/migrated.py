"""Scratch PostgreSQL databases at the newest schema, copied from a migrated template.

Migrating a new database runs every revision's DDL, each committed: seconds on a loaded
server, for every cluster test and server test.  ``CREATE DATABASE ... TEMPLATE`` copies
a migrated one in a fraction of that.  The template is made once per server and schema:
its name carries a digest of the migrations, so a changed revision makes a new one.  The
older ones stay (branches of other schemas may be testing on the same server at once):
dropping any ``belote_template_*`` database is safe, the next run makes it again.  It is
built under another name and renamed when migrated, so that a run killed midway leaves
no half-made template; an advisory lock lets one of xdist's workers build it while the
others wait.
tests/test_db_migrations.py migrates empty databases itself: it tests the migrations."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
from collections.abc import Iterator
from pathlib import Path

import asyncpg  # type: ignore[import-untyped]
from sqlalchemy.engine import make_url

from app.db.migrate import ADMIN_TIMEOUT, scratch_database, upgrade

MIGRATIONS = Path(__file__).resolve().parents[1] / "migrations"
PREFIX = "belote_template_"
LOCK = 0x6265_6C6F_7465  # pg_advisory_lock's key for building a template ("belote")


def template_name() -> str:
    """The template's name for the migrations as they are now."""
    digest = hashlib.sha256()
    for path in sorted(MIGRATIONS.rglob("*.py")):
        digest.update(path.relative_to(MIGRATIONS).as_posix().encode() + b"\0")
        digest.update(path.read_bytes())
    return PREFIX + digest.hexdigest()[:16]


def _plain(server_url: str) -> str:
    return make_url(server_url).set(drivername="postgresql").render_as_string(
        hide_password=False)


async def _ensure_template(server_url: str, name: str) -> None:
    admin = await asyncpg.connect(_plain(server_url), timeout=ADMIN_TIMEOUT)
    try:
        await admin.execute("SELECT pg_advisory_lock($1)", LOCK)
        if await admin.fetchval("SELECT 1 FROM pg_database WHERE datname = $1", name):
            return
        building = f"{name}_building"  # left by a run killed while it built it
        await admin.execute(f'DROP DATABASE IF EXISTS "{building}" WITH (FORCE)')
        await admin.execute(f'CREATE DATABASE "{building}"')
        await asyncio.to_thread(upgrade, make_url(server_url).set(database=building)
                                .render_as_string(hide_password=False))
        await admin.execute(f'ALTER DATABASE "{building}" RENAME TO "{name}"')
    finally:
        await admin.close()  # the advisory lock goes with the session


@contextlib.contextmanager
def migrated_database(server_url: str, prefix: str) -> Iterator[str]:
    """A new database at the newest schema on the server of ``server_url``, dropped on
    exit; yields its plain URL (as :func:`app.db.migrate.scratch_database` does)."""
    template = template_name()
    asyncio.run(_ensure_template(server_url, template))
    with scratch_database(server_url, prefix, template) as url:
        yield url
