"""The FastAPI application: REST under ``/api``, sockets under ``/api/tables/{id}/ws``,
the browser client at ``/``.  Its lifespan starts the services (app/container.py), which
the routes get through their dependencies (app/api/deps.py)."""

from __future__ import annotations

import gc
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

from .api.errors import add_error_handlers
from .api.rest_limits import RATE_LIMITED, RestLimits
from .api.routes import (
    accounts,
    analysis,
    cluster,
    community,
    docs,
    guests,
    history,
    leagues,
    me_ws,
    ops,
    play,
    players,
    problems,
    scoresheets,
    server,
    tables,
    tournaments,
    ws,
)
from .cluster.routing import Routing
from .config import Settings, get_settings
from .container import container_of, drain_time, keep, requests_time, started
from .headers import SecurityHeaders
from .logs import log_config
from .sections import ServerSettings
from .storage import Storage
from .tables.clock import Clock

STATIC = Path(__file__).parent / "static"


def create_app(settings: Settings | None = None, storage: Storage | None = None,
               clock: Clock | None = None) -> FastAPI:
    """The app on ``settings.database_url``; tables log to ``storage`` instead when given
    (tests), while the history API still reads the database.  The tables' timers run on
    ``clock`` (the event loop's by default), so that tests move time instead of waiting."""
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with started(settings, storage, clock) as container:
            keep(app, container)
            with frozen_heap():
                yield

    app = App(
        title="Belote server",
        version="0.1.0",
        summary="Authoritative tables for Bulgarian Belot and classic Belote, with bots.",
        lifespan=lifespan,
        docs_url=None,  # served by app/api/routes/docs.py, with its own policy
        redoc_url=None,
    )
    for router in (guests.router, accounts.router, tables.router, play.router, server.router,
                   cluster.router, tournaments.router, leagues.router):
        app.include_router(router, prefix="/api", responses=RATE_LIMITED)
    app.include_router(community.router, prefix="/api", responses=RATE_LIMITED)
    app.include_router(ws.router, prefix="/api")
    app.include_router(me_ws.router, prefix="/api")
    for router in (history.router, players.router, analysis.router,  # their own /api
                   scoresheets.router, problems.router):
        app.include_router(router, responses=RATE_LIMITED)
    app.include_router(ops.router)  # /healthz, /readyz, /metrics
    app.include_router(docs.router)  # /docs

    add_error_handlers(app)
    app.add_middleware(Routing)  # a no-op unless there is a cluster (REDIS_URL)
    app.add_middleware(RestLimits, rest=settings.rest)  # outside Routing: counted where it came

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
        container = container_of(self.app)
        if container is not None:  # None: the lifespan never started
            drain = drain_time(container.settings.shutdown_timeout)
            if container.cluster is not None:  # the other nodes take the tables over
                await container.cluster.hand_over(drain)
            else:
                await container.lobby.stop(drain)
        await super().shutdown(sockets)


def make_server(settings: Settings, app: FastAPI | None = None) -> Server:
    """The server as ``python -m app`` runs it."""
    app = app or create_app(settings)
    return Server(server_config(settings.server, app), app)


def server_config(server: ServerSettings, app: FastAPI) -> uvicorn.Config:
    """uvicorn's settings for ``app``."""
    return uvicorn.Config(
        app,
        host=server.host,
        port=server.port,
        ws_max_size=server.ws_max_message,
        ws_ping_interval=None,  # liveness is the protocol's own ping (docs/protocol.md)
        # X-Forwarded-For is read from TRUSTED_PROXIES only, never from uvicorn's default
        # (127.0.0.1: any local client would pick its own address).
        proxy_headers=bool(server.trusted_proxies),
        forwarded_allow_ips=server.trusted_proxies,
        timeout_graceful_shutdown=requests_time(server.shutdown_timeout),
        log_config=log_config(server),
        log_level=server.log_level,
    )
