"""The engine, the session factory and the one place where driver errors become ours.

Tables must stop accepting actions when their log cannot be written, so every failure
that says "not now" surfaces as :class:`StorageUnavailable`, whatever the driver raised:
the database is decided by what it said (its SQLSTATE), not by the driver's class.
Every statement is bounded in time, so a stalled server is unavailable, not a hang.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event, exc
from sqlalchemy.dialects import postgresql, sqlite
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
from .group import GroupCommit
from .url import async_url, ensure_sqlite_dir, sqlite_path

# Seconds: PostgreSQL's connect timeout, SQLite's wait for a lock held by another process.
# A dead server must fail a write fast (StorageUnavailable), not hang a table.
CONNECT_TIMEOUT = 5.0
# Seconds one PostgreSQL statement (BEGIN and COMMIT included) may take before it is
# cancelled: a stalled server or connection must not hang a table silently.  The
# default of ``Database(statement_timeout=...)`` (the server's: DATABASE_TIMEOUT).
STATEMENT_TIMEOUT = 5.0

# SQLSTATEs that mean "not now": connection exceptions (class 08), insufficient
# resources (53), operator intervention (57: shutting down, starting up, a statement
# cancelled by its timeout), system errors (58), and a transaction that lost a
# serialization race, a deadlock or a lock wait.  Anything else the server said (a
# duplicate key, a bad value, a missing table) will be said again: refused.
_TRANSIENT_CLASSES = frozenset({"08", "53", "57", "58"})
_TRANSIENT_STATES = frozenset({"40001", "40P01", "55P03"})
# Errors without a SQLSTATE that mean the server could not be reached or answer in time;
# SQLite says "locked", "busy" or "disk I/O" through OperationalError.
_UNREACHABLE = (exc.OperationalError, exc.InterfaceError, exc.TimeoutError, OSError,
                TimeoutError)


def unavailable(error: BaseException) -> bool:
    """Whether ``error`` says the database cannot do it now (retry), not that it never will."""
    if isinstance(error, exc.DBAPIError):
        if error.connection_invalidated:
            return True
        state = getattr(error.orig, "sqlstate", None)
        if isinstance(state, str) and state:
            return state[:2] in _TRANSIENT_CLASSES or state in _TRANSIENT_STATES
    return isinstance(error, _UNREACHABLE)


def _dropped(error: BaseException) -> bool:
    """Whether ``error`` says the connection itself was lost (the server restarted or
    closed it), not that the server refused or could not do the work."""
    return (isinstance(error, exc.DBAPIError) and error.connection_invalidated) or isinstance(
        error, exc.InterfaceError | ConnectionError)


@contextlib.contextmanager
def translate_errors() -> Iterator[None]:
    """Re-raise driver errors as StorageUnavailable / StorageError."""
    try:
        yield
    except (exc.SQLAlchemyError, OSError, TimeoutError) as e:
        if unavailable(e):
            raise StorageUnavailable(f"database unavailable: {e}") from e
        raise StorageError(f"database refused the write: {getattr(e, 'orig', e)}") from e


def dialect_insert(conn: AsyncConnection) -> Any:
    """The connection's dialect's ``insert``, the one with ``on_conflict_do_*``: both have it."""
    return backend_insert(conn.dialect.name)


def backend_insert(backend: str) -> Any:
    """The ``insert`` of ``backend`` ("postgresql" or "sqlite"), for statements built once."""
    return (postgresql if backend == "postgresql" else sqlite).insert


def make_engine(url: URL, statement_timeout: float | None = STATEMENT_TIMEOUT,
                **kwargs: Any) -> AsyncEngine:
    """An async engine with each backend's settings for short, frequent writes
    (``statement_timeout`` None: statements unbounded, for migrations)."""
    if url.get_backend_name() == "sqlite":
        ensure_sqlite_dir(url)
        engine = create_async_engine(url, connect_args={"timeout": CONNECT_TIMEOUT}, **kwargs)
        event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
        return engine
    # pre_ping: a server restart leaves dead pooled connections; one should not stop a table.
    # command_timeout bounds every statement on the client's side, which also catches a
    # server that stopped answering (its own statement_timeout would not).
    return create_async_engine(
        url, pool_pre_ping=True,
        connect_args={"timeout": CONNECT_TIMEOUT, "command_timeout": statement_timeout},
        **kwargs,
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

    def __init__(self, database_url: str, statement_timeout: float = STATEMENT_TIMEOUT,
                 **engine_kwargs: Any) -> None:
        self.url = async_url(database_url)
        self.engine = make_engine(self.url, statement_timeout, **engine_kwargs)
        self.sessions = async_sessionmaker(self.engine, expire_on_commit=False)
        # SQLite takes one writer at a time; queueing here beats "database is locked".
        self._write_lock: contextlib.AbstractAsyncContextManager[Any] = (
            asyncio.Lock() if self.url.get_backend_name() == "sqlite" else contextlib.nullcontext()
        )
        # A SQLite file's log transactions run whole in a thread of their own (one hand-off
        # each, where aiosqlite makes six, every one a turn of a loop that may be busy).
        self._log_engine: Engine | None = None
        self._log_thread: ThreadPoolExecutor | None = None
        self._log_thread_connection: Connection | None = None  # used in that thread only
        if sqlite_path(self.url) is not None:
            self._log_engine = create_engine(self.url.set(drivername="sqlite"),
                                             connect_args={"timeout": CONNECT_TIMEOUT})
            event.listen(self._log_engine, "connect", _sqlite_pragmas)
            self._log_thread = ThreadPoolExecutor(1, thread_name_prefix="log-writer")
        # Elsewhere (PostgreSQL) they run on a connection the log keeps: a pooled one's
        # checkout pings the server first, a round trip and a turn of the loop each batch.
        self._log_connection: AsyncConnection | None = None
        self._keeps_connection = self.url.get_backend_name() == "postgresql"
        self._log_loop: asyncio.AbstractEventLoop | None = None  # the kept connection's
        # The match log's writes, every table's gathered into one transaction at a time.
        self.log = GroupCommit(self.transaction)

    @property
    def engines(self) -> tuple[Engine, ...]:
        """The engines that write: the app's, and the log's own where it has one."""
        own = () if self._log_engine is None else (self._log_engine,)
        return (self.engine.sync_engine, *own)

    @contextlib.asynccontextmanager
    async def write(self) -> AsyncIterator[AsyncConnection]:
        """One short transaction, committed on exit; driver errors become ours."""
        async with self._write_lock:
            with DB_WRITE.time(), translate_errors():
                async with self.engine.begin() as conn:
                    yield conn

    async def transaction(self, work: Callable[[Connection], None]) -> None:
        """``work`` in one short transaction, committed after it; driver errors become ours.
        Synchronous work, so that a SQLite file's runs whole in the log's thread."""
        if self._keeps_connection:
            async with self._write_lock:
                with DB_WRITE.time(), translate_errors():
                    await self._kept_transaction(work)
            return
        if self._log_thread is None:  # SQLite in memory (tests)
            async with self.write() as conn:
                await conn.run_sync(work)
            return
        async with self._write_lock:
            with DB_WRITE.time(), translate_errors():
                await asyncio.get_running_loop().run_in_executor(self._log_thread, self._run,
                                                                 work)

    async def _kept_transaction(self, work: Callable[[Connection], None]) -> None:
        """``work`` in a transaction on the log's own connection (one transaction at a
        time: the group commit's).  A refusal (a fenced match, a write the database
        refuses) is rolled back and the connection kept; any other failure closes it, so
        the next batch takes a fresh one, pinged on checkout.  A kept connection that the
        server dropped meanwhile (a restart) is found out by the batch, which then runs
        once more on a fresh one: every log write is idempotent, and each table is
        answered only after a commit."""
        loop = asyncio.get_running_loop()
        if self._log_loop is not loop:  # a connection of a loop that has stopped (tests)
            self._log_connection, self._log_loop = None, loop
        for attempt in range(2):
            conn, fresh = self._log_connection, False
            if conn is None:
                conn, fresh = await self.engine.connect(), True
                self._log_connection = conn
            try:
                async with conn.begin():
                    await conn.run_sync(work)
                return
            except Exception as exc:
                if not unavailable(exc):
                    raise  # rolled back: the connection is as good as before
                self._log_connection = None
                with contextlib.suppress(Exception):
                    await conn.invalidate()
                if fresh or attempt or not _dropped(exc):
                    raise
            except BaseException:  # cancelled mid-transaction: its state is unknown
                self._log_connection = None
                with contextlib.suppress(Exception):
                    await asyncio.shield(conn.invalidate())
                raise

    def _run(self, work: Callable[[Connection], None]) -> None:
        """In the log's thread: ``work`` in a transaction on the connection that thread
        keeps: no pool checkout and reset around each batch.  A failure other than a
        refusal closes it; the next batch opens another."""
        assert self._log_engine is not None
        conn = self._log_thread_connection
        if conn is None:
            conn = self._log_thread_connection = self._log_engine.connect()
        try:
            with conn.begin():
                work(conn)
        except BaseException as exc:
            if not isinstance(exc, Exception) or unavailable(exc):
                self._log_thread_connection = None
                with contextlib.suppress(Exception):
                    conn.invalidate()
            raise

    def _close_log_thread(self) -> None:
        """In the log's thread, which made them: its connection and engine closed."""
        assert self._log_engine is not None
        conn, self._log_thread_connection = self._log_thread_connection, None
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.close()
        self._log_engine.dispose()

    @contextlib.asynccontextmanager
    async def read(self) -> AsyncIterator[AsyncSession]:
        """A session for queries; connection failures become StorageUnavailable."""
        with translate_errors():
            async with self.sessions() as session:
                yield session

    async def dispose(self) -> None:
        await self.log.close()
        kept, self._log_connection = self._log_connection, None
        if kept is not None and self._log_loop is asyncio.get_running_loop():
            with contextlib.suppress(Exception):
                await kept.close()
        await self.engine.dispose()
        if self._log_thread is not None and self._log_engine is not None:
            # SQLite's connections are closed by the thread that made them.
            await asyncio.get_running_loop().run_in_executor(self._log_thread,
                                                             self._close_log_thread)
            self._log_thread.shutdown()
