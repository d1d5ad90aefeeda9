"""The lobby's list (``GET /api/tables``) with many open tables: CPU per request and bytes.

In process, through the ASGI app (FastAPI's routing and serialization included, no
sockets): opens ``--tables`` public waiting tables of distinct guests, then times
``--requests`` requests, as the lobby's polling clients make them, and prints figures;
asserts nothing.  For the server before paging, whose answer was a bare list, run this
same file from a checkout of that commit (``git archive <commit> | tar -x -C DIR``).

    .venv/bin/python bench/lobby.py --tables 5000 --requests 200
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import httpx2

ROOT = Path.cwd()  # the checkout measured: run from its root
sys.path.insert(0, str(ROOT))

from app.auth import Player  # noqa: E402
from app.config import Settings  # noqa: E402
from app.container import running  # noqa: E402
from app.main import create_app  # noqa: E402
from app.storage import MemoryStorage  # noqa: E402
from app.tables import TableConfig  # noqa: E402
from engine import Options  # noqa: E402


def settings(tables: int, cache_seconds: float) -> Settings:
    values: dict[str, Any] = {
        "secret_key": "lobby-benchmark-secret-key-0123456789",
        "database_url": "sqlite:///:memory:",
        "log_level": "warning",
        "max_tables": tables + 1,
        "lobby_cache_seconds": cache_seconds,  # ignored by a server without it
    }
    return Settings(**values)


async def measure(tables: int, requests: int, cache_seconds: float) -> dict[str, float]:
    """CPU milliseconds per request (p50, p99, mean), the first one's (which makes the
    page's JSON, or the whole list before paging), and bytes."""
    app = create_app(settings(tables, cache_seconds), MemoryStorage())
    async with app.router.lifespan_context(app):
        config = TableConfig("A table name of ordinary length", Options.make("bulgarian"),
                             30, False, False)
        for i in range(tables):
            running(app).lobby.create(Player(f"guest-{i}", f"Guest {i}"), config)
        await asyncio.sleep(0.1)  # every table's actor task starts: not timed
        transport = httpx2.ASGITransport(app=app)
        async with httpx2.AsyncClient(transport=transport, base_url="http://bench") as http:
            await http.get("/api/health")  # the stack's own first-request costs, not timed
            gc.collect()  # the garbage of creating the tables, not timed either
            cpu: list[float] = []
            size = 0
            for _ in range(requests + 1):
                began = time.process_time()
                response = await http.get("/api/tables")
                cpu.append((time.process_time() - began) * 1000)
                size = len(response.content)
                assert response.status_code == 200, response.text
        first, rest = cpu[0], sorted(cpu[1:])
        return {"first": first, "p50": rest[len(rest) // 2],
                "p99": rest[min(len(rest) - 1, int(0.99 * len(rest)))],
                "mean": statistics.fmean(rest), "bytes": size}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=5000)
    parser.add_argument("--requests", type=int, default=200)
    args = parser.parse_args()
    if not 0 < args.tables <= 20_000 or not 0 < args.requests <= 10_000:
        parser.error("at most 20,000 tables and 10,000 requests")
    print(f"{args.tables} public waiting tables; GET /api/tables (default page), "
          f"{args.requests} requests after a first one; CPU time of the process per request")
    runs = [("cached (LOBBY_CACHE_SECONDS=1)", 1.0),
            ("rebuilt every request (LOBBY_CACHE_SECONDS=0)", 0.0)]
    if "lobby_cache_seconds" not in Settings.model_fields:
        runs = [("before paging (every open table, built per request)", 0.0)]
    for label, cache in runs:
        figures = asyncio.run(measure(args.tables, args.requests, cache))
        print(f"{label}: first {figures['first']:.2f} ms, p50 {figures['p50']:.3f} ms, "
              f"p99 {figures['p99']:.3f} ms, mean {figures['mean']:.3f} ms; "
              f"{figures['bytes']:,.0f} bytes a response")


if __name__ == "__main__":
    main()
