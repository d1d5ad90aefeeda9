"""The engine, the session factory and the one place where driver errors become ours.

Tables must stop accepting actions when their log cannot be written, so every connection
failure surfaces as :class:`StorageUnavailable`, whatever the driver raised.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator
from typing import Any

from sqlalchemy import event, exc
from sqlalchemy.engine import URL
from sqlalchemy.ext.asyncio import (
    AsyncConnection,
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)

from ..metrics import DB_WRITE
from ..storage import StorageError as StorageError
from ..storage import StorageUnavailable as StorageUnavailable
from .url import async_url, ensure_sqlite_dir

# Seconds: PostgreSQL's connect timeout, SQLite's wait for a lock held by another process.
# A dead server must fail a write fast (StorageUnavailable), not hang a table.
CONNECT_TIMEOUT = 5.0


_UNAVAILABLE = (exc.OperationalError, exc.InterfaceError, OSError, TimeoutError)


@contextlib.contextmanager
def translate_errors() -> Iterator[None]:
    """Re-raise driver errors as StorageUnavailable / StorageError."""
    try:
        yield
    except _UNAVAILABLE as e:
        raise StorageUnavailable(f"database unavailable: {e}") from e
    except exc.DBAPIError as e:
        if e.connection_invalidated:
            raise StorageUnavailable(f"database connection lost: {e}") from e
        raise StorageError(f"database refused the write: {e.orig}") from e


def make_engine(url: URL, **kwargs: Any) -> AsyncEngine:
    """An async engine with each backend's settings for short, frequent writes."""
    if url.get_backend_name() == "sqlite":
        ensure_sqlite_dir(url)
        engine = create_async_engine(url, connect_args={"timeout": CONNECT_TIMEOUT}, **kwargs)
        event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
        return engine
    # pre_ping: a server restart leaves dead pooled connections; one should not stop a table.
    return create_async_engine(
        url, pool_pre_ping=True, connect_args={"timeout": CONNECT_TIMEOUT}, **kwargs
    )


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    # WAL: readers (history) never block the writer; NORMAL: no fsync per commit, still
    # durable across a process crash; foreign keys are off in SQLite unless asked.
    cursor = dbapi_connection.cursor()
    for pragma in ("journal_mode=WAL", "synchronous=NORMAL", "foreign_keys=ON"):
        cursor.execute(f"PRAGMA {pragma}")
    cursor.close()


class Database:
    """One engine for the process: writes through :meth:`write`, reads through sessions."""

    def __init__(self, database_url: str, **engine_kwargs: Any) -> None:
        self.url = async_url(database_url)
        self.engine = make_engine(self.url, **engine_kwargs)
        self.sessions = async_sessionmaker(self.engine, expire_on_commit=False)
        # SQLite takes one writer at a time; queueing here beats "database is locked".
        self._write_lock: contextlib.AbstractAsyncContextManager[Any] = (
            asyncio.Lock() if self.url.get_backend_name() == "sqlite" else contextlib.nullcontext()
        )

    @contextlib.asynccontextmanager
    async def write(self) -> AsyncIterator[AsyncConnection]:
        """One short transaction, committed on exit; driver errors become ours."""
        async with self._write_lock:
            with DB_WRITE.time(), translate_errors():
                async with self.engine.begin() as conn:
                    yield conn

    @contextlib.asynccontextmanager
    async def read(self) -> AsyncIterator[AsyncSession]:
        """A session for queries; connection failures become StorageUnavailable."""
        with translate_errors():
            async with self.sessions() as session:
                yield session

    async def dispose(self) -> None:
        await self.engine.dispose()
