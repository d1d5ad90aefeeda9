"""The FastAPI application: REST under ``/api``, sockets under ``/api/tables/{id}/ws``,
the browser client at ``/``.  Shared services live on ``app.state`` for the routes."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles

from .api.routes import guests, history, server, tables, ws
from .auth import Tokens
from .bots import BotRunner
from .config import Settings, get_settings
from .db.migrate import check_schema
from .db.session import Database
from .db.storage import DatabaseStorage
from .monitor import LagMonitor
from .storage import Storage
from .tables import Lobby, TableError

STATIC = Path(__file__).parent / "static"


def create_app(settings: Settings | None = None, storage: Storage | None = None) -> FastAPI:
    """The app on ``settings.database_url``; tables log to ``storage`` instead when given
    (tests), while the history API still reads the database."""
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        database = Database(settings.database_url)
        try:
            if storage is None:
                await check_schema(database)
            bots = BotRunner(settings)
            monitor = LagMonitor()
            app.state.settings = settings
            app.state.tokens = Tokens(settings.secret_key, settings.token_max_age)
            app.state.database = database
            app.state.storage = storage or DatabaseStorage(database)
            app.state.lobby = Lobby(settings, bots, app.state.storage)
            app.state.monitor = monitor
            await bots.start()
            monitor.start()
            try:
                await app.state.lobby.restore()
                yield
            finally:
                # uvicorn has stopped accepting; close tables (sockets get 1012), then executors.
                await app.state.lobby.stop()
                await monitor.stop()
                await bots.close()
        finally:
            await database.dispose()

    app = FastAPI(
        title="Belote server",
        version="0.1.0",
        summary="Authoritative tables for Bulgarian Belot and classic Belote, with bots.",
        lifespan=lifespan,
    )
    app.include_router(guests.router, prefix="/api")
    app.include_router(tables.router, prefix="/api")
    app.include_router(ws.router, prefix="/api")
    app.include_router(server.router, prefix="/api")
    app.include_router(history.router)  # its own prefix, /api

    @app.exception_handler(TableError)
    async def table_error(request: Request, exc: TableError) -> JSONResponse:
        return JSONResponse(
            {"detail": {"code": exc.code, "message": str(exc)}}, status_code=exc.status
        )

    app.mount("/", StaticFiles(directory=STATIC, html=True), name="client")
    return app


def server_config(settings: Settings, app: FastAPI | None = None) -> uvicorn.Config:
    """uvicorn as ``python -m app`` runs it; tests and the load benchmark use it too."""
    return uvicorn.Config(
        app or create_app(settings),
        host=settings.host,
        port=settings.port,
        ws_max_size=settings.ws_max_message,
        ws_ping_interval=None,  # liveness is the protocol's own ping (docs/protocol.md)
        timeout_graceful_shutdown=5,
        log_level=settings.log_level,
    )
