"""``DATABASE_URL`` as users write it, turned into the async URL SQLAlchemy needs.

Users (and ``.env`` files, and hosting platforms) write ``sqlite:///data/belote.db`` or
``postgresql://user:pass@host/db``; the server only ships async drivers, so the driver is
chosen here, once, for the app, Alembic, the tests and the bench alike.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.engine import URL, make_url

_DRIVERS = {"sqlite": "sqlite+aiosqlite", "postgresql": "postgresql+asyncpg"}
_ALIASES = {"postgres": "postgresql"}  # Heroku-style scheme


def async_url(raw: str) -> URL:
    """The async form of ``raw``; ValueError for a database other than SQLite or PostgreSQL."""
    url = make_url(raw)
    backend = _ALIASES.get(url.get_backend_name(), url.get_backend_name())
    if backend not in _DRIVERS:
        raise ValueError(f"unsupported database {backend!r}: use sqlite or postgresql")
    url = url.set(drivername=_DRIVERS[backend])
    if backend == "postgresql" and "sslmode" in url.query:
        # libpq spells it sslmode; asyncpg takes the same values as ``ssl``.
        query = dict(url.query)
        query["ssl"] = query.pop("sslmode")
        url = url.set(query=query)
    return url


def sqlite_path(url: URL) -> Path | None:
    """The file of a file-backed SQLite URL, else None (PostgreSQL, ``:memory:``)."""
    if url.get_backend_name() != "sqlite" or url.database in (None, "", ":memory:"):
        return None
    return Path(url.database)


def ensure_sqlite_dir(url: URL) -> None:
    """Create the directory of a SQLite file: ``data/`` does not exist on a fresh checkout."""
    path = sqlite_path(url)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
