"""Probes and metrics for orchestrators, at the root like most tools expect them:
``/healthz`` (the process answers), ``/readyz`` (worth sending players to), ``/metrics``."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Response
from fastapi.responses import JSONResponse
from sqlalchemy import text

from ...db.session import CONNECT_TIMEOUT
from ...errors import ErrorCode
from ...metrics import exposition
from ..deps import ClusterDep, DatabaseDep, LobbyDep

router = APIRouter(tags=["operations"])


@router.get("/healthz")
async def healthz() -> dict[str, str]:
    """Alive: the event loop answers.  Says nothing of the database, on purpose: a
    database outage must not get a healthy process restarted (tables hold and retry)."""
    return {"status": "ok"}


@router.get("/readyz", responses={503: {"description": "Not ready, with the reason"}})
async def readyz(lobby: LobbyDep, database: DatabaseDep, cluster: ClusterDep) -> JSONResponse:
    """Ready: not shutting down, the database answers a trivial query, and in a cluster
    Redis answered this node's last round (docs/cluster.md)."""
    if lobby.stopping:
        return _unready(ErrorCode.SHUTTING_DOWN, "the server is shutting down")
    try:
        async with asyncio.timeout(CONNECT_TIMEOUT), database.read() as session:
            await session.execute(text("SELECT 1"))
    except Exception as exc:  # whatever the driver raised: not ready, and why
        return _unready(ErrorCode.DATABASE_UNAVAILABLE, f"{type(exc).__name__}: {exc}")
    if cluster is not None and not cluster.available:
        return _unready(ErrorCode.REDIS_UNAVAILABLE, "Redis does not answer: this node "
                        "cannot find or hand over tables")
    return JSONResponse({"status": "ready"})


def _unready(code: ErrorCode, message: str) -> JSONResponse:
    return JSONResponse({"status": "unready", "code": code, "message": message},
                        status_code=503)


@router.get("/metrics", response_class=Response)
async def metrics(lobby: LobbyDep) -> Response:
    """Prometheus text exposition (app/metrics.py lists what is measured)."""
    tables = list(lobby.tables.values())
    body, content_type = exposition(len(tables), sum(table.connections for table in tables))
    return Response(body, media_type=content_type)
