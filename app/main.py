"""The FastAPI application: REST under ``/api``, sockets under ``/api/tables/{id}/ws``,
the browser client at ``/``.  Shared services live on ``app.state`` for the routes."""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import socket
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

import uvicorn
from fastapi import FastAPI
from fastapi.responses import Response
from fastapi.staticfiles import StaticFiles
from starlette.types import ASGIApp, Scope

from .accounts.service import make_accounts
from .analysis import Analyses
from .api.errors import add_error_handlers
from .api.rest_limits import RATE_LIMITED, RestLimits
from .api.routes import (
    accounts,
    analysis,
    cluster,
    docs,
    guests,
    history,
    ops,
    play,
    players,
    server,
    tables,
    ws,
)
from .auth import Tokens
from .bots import BotRunner
from .cluster import Cluster
from .cluster.routing import Routing
from .config import Settings, get_settings
from .db.migrate import check_schema
from .db.ratings import RatingStore
from .db.session import Database
from .db.storage import DatabaseStorage
from .headers import SecurityHeaders
from .limiter import Limiter
from .logs import log_config
from .matchmaking import Matchmaker
from .monitor import LagMonitor
from .shared import RedisShared, make_shared
from .storage import Storage
from .tables import Lobby
from .tables.clock import Clock, LoopClock

STATIC = Path(__file__).parent / "static"
# Seconds the database connections get to close at shutdown, after the tables, the
# requests and the bot pool (app/bots.py: EXIT_TIMEOUT) had theirs.
DISPOSE_TIMEOUT = 1.0

logger = logging.getLogger(__name__)


def create_app(settings: Settings | None = None, storage: Storage | None = None,
               clock: Clock | None = None) -> FastAPI:
    """The app on ``settings.database_url``; tables log to ``storage`` instead when given
    (tests), while the history API still reads the database.  The tables' timers run on
    ``clock`` (the event loop's by default), so that tests move time instead of waiting."""
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        database = Database(settings.database_url, settings.database_timeout)
        shared = make_shared(settings)
        try:
            if storage is None:
                await check_schema(database)
            bots = BotRunner(settings)
            monitor = LagMonitor()
            app.state.settings = settings
            key = await asyncio.to_thread(settings.token_key)  # may create the file
            app.state.tokens = Tokens(key, settings.token_max_age)
            app.state.database = database
            app.state.storage = storage or DatabaseStorage(
                database, fencing=settings.redis_url is not None)
            app.state.lobby = Lobby(settings, bots, app.state.storage, clock,
                                    RatingStore(database))
            app.state.cluster = cluster = Cluster(
                settings, app.state.lobby, app.state.storage, key, shared,
            ) if isinstance(shared, RedisShared) else None
            app.state.matchmaker = Matchmaker.of(app.state.lobby, cluster, shared, settings,
                                                 clock or LoopClock())
            app.state.limiter = limiter = Limiter(shared.limits)
            app.state.accounts = await make_accounts(settings, database, app.state.tokens,
                                                     limiter, shared)
            app.state.monitor = monitor
            app.state.analyses = analyses = Analyses(settings, database, limiter, shared)
            await bots.start()
            monitor.start()
            try:
                await analyses.start()
                if cluster is None:
                    await app.state.lobby.restore()
                else:  # the other nodes hold their tables; orphans are taken over
                    await cluster.start()
                with frozen_heap():
                    yield
            finally:
                await analyses.close()
                await app.state.accounts.close()
                await app.state.matchmaker.close()
                # Server.shutdown stopped the tables already; not so under a TestClient.
                await app.state.lobby.stop(drain_time(settings))
                if cluster is not None:
                    await cluster.close()
                await monitor.stop()
                await bots.close()
        finally:
            await shared.close()
            await dispose(database)

    app = App(
        title="Belote server",
        version="0.1.0",
        summary="Authoritative tables for Bulgarian Belot and classic Belote, with bots.",
        lifespan=lifespan,
        docs_url=None,  # served by app/api/routes/docs.py, with its own policy
        redoc_url=None,
    )
    for router in (guests.router, accounts.router, tables.router, play.router, server.router,
                   cluster.router):
        app.include_router(router, prefix="/api", responses=RATE_LIMITED)
    app.include_router(ws.router, prefix="/api")
    for router in (history.router, players.router, analysis.router):  # their own /api
        app.include_router(router, responses=RATE_LIMITED)
    app.include_router(ops.router)  # /healthz, /readyz, /metrics
    app.include_router(docs.router)  # /docs

    add_error_handlers(app)
    app.add_middleware(Routing)  # a no-op unless app.state.cluster (REDIS_URL) is set
    app.add_middleware(RestLimits, settings=settings)  # outside Routing: counted where it came

    app.mount("/", ClientFiles(directory=STATIC, html=True), name="client")
    return app


class App(FastAPI):
    """FastAPI, with the security headers (app/headers.py) on every answer: outside the
    whole stack, since Starlette answers an unhandled error (a 500) from outside the
    middleware ``add_middleware`` installs."""

    def build_middleware_stack(self) -> ASGIApp:
        return SecurityHeaders(super().build_middleware_stack())


@contextmanager
def frozen_heap() -> Iterator[None]:
    """Keep what start-up made (modules, the app, SQLAlchemy's and pydantic's schemas:
    some 160,000 objects) out of the collector's passes while the server serves.  A full
    pass walks every tracked object and stops the event loop meanwhile: 60 ms and more,
    which every table and request waiting at that moment felt (docs/ratings.md).  No
    collection first: it would cost a full pass (75 ms a start in a test's process) to
    free the few cycles start-up left.  Thawed at the end, so that an app made again in
    the same process (tests) can be collected."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


class ClientFiles(StaticFiles):
    """The browser client's files.  They have no build step and so no hashed names:
    browsers revalidate each one (ETag) so that a deploy reaches them at once."""

    def file_response(self, full_path: str | os.PathLike[str], stat_result: os.stat_result,
                      scope: Scope, status_code: int = 200) -> Response:
        response = super().file_response(full_path, stat_result, scope, status_code)
        response.headers["Cache-Control"] = "no-cache"
        return response


async def dispose(database: Database) -> None:
    """Close the pooled connections, giving up after DISPOSE_TIMEOUT: closing one waits
    for the server's goodbye (asyncpg: up to 5 s each, one after the other), and a stalled
    database must not keep the process alive.  The exit closes the sockets anyway."""
    try:
        await asyncio.wait_for(database.dispose(), DISPOSE_TIMEOUT)
    except TimeoutError:
        logger.warning("database connections not closed within %s s; leaving them",
                       DISPOSE_TIMEOUT)


def requests_time(settings: Settings) -> int:
    """Seconds of the shutdown for open requests to end (uvicorn's share)."""
    return settings.shutdown_timeout // 2


def drain_time(settings: Settings) -> int:
    """Seconds of the shutdown for tables to finish what they hold (the rest)."""
    return settings.shutdown_timeout - requests_time(settings)


class Server(uvicorn.Server):
    """uvicorn, stopping the tables before it closes the sockets.

    uvicorn's own shutdown closes every socket at once and only then runs the lifespan's;
    a table would see its players leave and let cover bots play their turns meanwhile.
    Stopping the lobby first drains each table, flushes its acknowledgements and closes
    its sockets with 1012 itself, and makes ``/readyz`` and new tables answer 503.
    """

    def __init__(self, config: uvicorn.Config, app: FastAPI) -> None:
        super().__init__(config)
        self.app = app

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        lobby: Lobby | None = getattr(self.app.state, "lobby", None)
        cluster: Cluster | None = getattr(self.app.state, "cluster", None)
        if cluster is not None:  # the tables stop here, and the other nodes take them over
            await cluster.hand_over(drain_time(self.app.state.settings))
        elif lobby is not None:  # None: the lifespan never started
            await lobby.stop(drain_time(self.app.state.settings))
        await super().shutdown(sockets)


def make_server(settings: Settings, app: FastAPI | None = None) -> Server:
    """The server as ``python -m app`` runs it."""
    app = app or create_app(settings)
    return Server(server_config(settings, app), app)


def server_config(settings: Settings, app: FastAPI) -> uvicorn.Config:
    """uvicorn's settings for ``app``."""
    return uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        ws_max_size=settings.ws_max_message,
        ws_ping_interval=None,  # liveness is the protocol's own ping (docs/protocol.md)
        # X-Forwarded-For is read from TRUSTED_PROXIES only, never from uvicorn's default
        # (127.0.0.1: any local client would pick its own address).
        proxy_headers=bool(settings.trusted_proxies),
        forwarded_allow_ips=settings.trusted_proxies,
        timeout_graceful_shutdown=requests_time(settings),
        log_config=log_config(settings),
        log_level=settings.log_level,
    )
