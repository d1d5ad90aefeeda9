"""Calls and sockets for a table another node holds, passed on to that node (ASGI).

Every path under ``/api/tables/{id}`` goes through here first: a table this node holds
is served here; one another node holds is forwarded (REST) or relayed (socket) to it; one
nobody holds but whose match is on in the log is taken over here first.  A call relayed
by another node is answered here or refused for a retry, never passed on again."""

from __future__ import annotations

import re

import httpx2
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket

from ..api.errors import error_answer
from ..container import container_of
from ..errors import ErrorCode
from ..protocol import CloseCode
from ..shared import UNREACHABLE
from ..storage import StorageError
from .node import Unavailable
from .relay import RELAY, relayed

TABLE_PATH = re.compile(r"^/api/tables/([^/]+)(?:/|$)")
RETRY_AFTER = "1"  # seconds: a table moves within a lease (docs/cluster.md)


class Routing:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        found = TABLE_PATH.match(scope["path"]) if scope["type"] in ("http", "websocket") else None
        container = container_of(scope["app"]) if found else None
        cluster = None if container is None else container.cluster
        if cluster is None or found is None:
            await self.app(scope, receive, send)
            return
        table_id = found.group(1)
        try:
            url = await cluster.owner_url(table_id)
            if url is not None and relayed(Headers(scope=scope).get(RELAY), cluster.mark):
                # Passed on to this node, which Redis said held it, while it moved on again.
                raise Unavailable(f"table {table_id} is moving to another server")
        except (Unavailable, StorageError, *UNREACHABLE) as exc:
            await _moving(scope, receive, send, str(exc))
            return
        if url is None:
            await self.app(scope, receive, send)
        elif scope["type"] == "websocket":
            await cluster.relay.socket(WebSocket(scope, receive, send), url)
        else:
            try:
                response = await cluster.relay.forward(Request(scope, receive), url)
            except httpx2.TransportError as exc:  # the owner died mid-call
                await _moving(scope, receive, send, str(exc))
                return
            await response(scope, receive, send)


async def _moving(scope: Scope, receive: Receive, send: Send, why: str) -> None:
    """Try again in a moment: the table is between two nodes, or Redis is away."""
    message = f"the table is moving between servers; try again ({why})"
    if scope["type"] == "websocket":
        websocket = WebSocket(scope, receive, send)
        await websocket.accept()
        await websocket.close(CloseCode.TRY_AGAIN, message[:120])
        return
    await error_answer(ErrorCode.CLUSTER_UNAVAILABLE, message,
                       {"Retry-After": RETRY_AFTER})(scope, receive, send)
