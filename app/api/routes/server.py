"""The server itself: liveness, figures for the load benchmark, the variants it plays."""

from __future__ import annotations

import resource
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request

from engine import Options
from engine.options import FLAGS, VARIANTS, max_target

from ..deps import LobbyDep
from ..errors import error_responses

router = APIRouter(tags=["server"])


@router.get("/health")
async def health() -> dict[str, str]:
    return {"status": "ok"}


@router.get("/stats", responses=error_responses({422: "`seconds` out of range"}))
async def stats(
    request: Request, lobby: LobbyDep, seconds: Annotated[float, Query(gt=0, le=60)] = 60
) -> dict[str, Any]:
    """Tables, sockets, event-loop lag over the last ``seconds``, peak memory."""
    tables = list(lobby.tables.values())
    counts: dict[str, int] = {}
    for table in tables:
        counts[table.status] = counts.get(table.status, 0) + 1
    return {
        "tables": counts,
        "connections": sum(table.connections for table in tables),
        "loop_lag_ms": request.app.state.monitor.percentiles(seconds),
        "max_rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
    }


@router.get("/variants")
async def variants() -> dict[str, dict[str, dict[str, Any]]]:
    """Each variant's house-rule flags (RULES.md §9): default and allowed values (none
    listed: an integer from 1 to ``max``), so a client builds its create form from the
    engine."""
    return {
        variant: {
            name: {"default": default, "values": list(FLAGS[name][1])}
            | ({"max": max_target(variant)} if name == "target_score" else {})
            for name, default in Options.make(variant).applicable().items()
        }
        for variant in VARIANTS
    }
