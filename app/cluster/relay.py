"""A REST call or a socket for a table another node owns, passed on to that node.

The client may land on any node (a plain round-robin balancer, no sticky sessions): the
node it reached forwards the call, or relays the socket frame by frame both ways, to the
owner's own address.  The owner sees the relay's mark (a key only the nodes share) and
then takes the client's address from it, for its per-address limits, and never passes
the call on again."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import logging

import httpx2
from starlette.requests import Request
from starlette.responses import Response
from starlette.websockets import WebSocket, WebSocketDisconnect
from websockets import ConnectionClosed, InvalidHandshake
from websockets.asyncio.client import ClientConnection, connect

from ..api.errors import error_answer
from ..errors import ErrorCode
from ..protocol import CloseCode

log = logging.getLogger(__name__)

RELAY, CLIENT = "x-belote-relay", "x-belote-client"  # headers between nodes
MAX_FORWARD_BODY = 64 * 1024  # bytes: a table's REST calls carry a few small fields
FORWARD_TIMEOUT = 5.0  # seconds for the owner's answer to a forwarded call
# A relayed socket pings the owner this often and gives up as long without a pong: an
# owner paused or cut off is noticed, and the client reconnects to whoever holds it next.
PING_SECONDS = 3.0
# Seconds the owner gets to answer a close (after a ping that went unanswered, or when the
# client leaves) before the connection is dropped: a paused owner never answers, and
# websockets' default (10 s) kept the client waiting that much longer.
CLOSE_SECONDS = 1.0
# Not passed on: hop-by-hop headers, and those the client's HTTP stack sets again.
_DROPPED = frozenset({"host", "connection", "keep-alive", "transfer-encoding", "upgrade",
                      "content-length", RELAY, CLIENT, "sec-websocket-key",
                      "sec-websocket-version", "sec-websocket-extensions"})


def relay_mark(key: str) -> str:
    """The mark of a call relayed by a node of this cluster (all share the secret key)."""
    return hmac.new(key.encode(), b"belote-relay", hashlib.sha256).hexdigest()


def relayed(value: str | None, mark: str) -> bool:
    """Whether a call's relay header (``value``) is this cluster's mark."""
    return value is not None and hmac.compare_digest(value, mark)


class Relay:
    def __init__(self, mark: str) -> None:
        self._mark = mark
        self._http = httpx2.AsyncClient(timeout=FORWARD_TIMEOUT)

    async def close(self) -> None:
        await self._http.aclose()

    def _headers(self, headers: list[tuple[str, str]], address: str | None) -> dict[str, str]:
        passed = {k: v for k, v in headers if k.lower() not in _DROPPED}
        passed[RELAY] = self._mark
        if address is not None:
            passed[CLIENT] = address
        return passed

    async def forward(self, request: Request, owner_url: str) -> Response:
        """The owner's answer to ``request``, as it gave it."""
        address = request.client.host if request.client else None
        body = bytearray()
        async for chunk in request.stream():  # read up to a bound, not whatever is sent
            body += chunk
            if len(body) > MAX_FORWARD_BODY:
                return error_answer(ErrorCode.TOO_LARGE,
                                    f"a table's calls take at most {MAX_FORWARD_BODY} bytes")
        answer = await self._http.request(
            request.method, owner_url + request.url.path, params=request.url.query,
            headers=self._headers(list(request.headers.items()), address), content=bytes(body),
        )
        kept = {k: v for k, v in answer.headers.items() if k.lower() not in _DROPPED
                and k.lower() != "content-encoding"}
        return Response(answer.content, answer.status_code, headers=kept)

    async def socket(self, websocket: WebSocket, owner_url: str) -> None:
        """Relay ``websocket`` to the owner until either side closes; the close code and
        reason go through.  An owner that cannot be reached, or dies in the handshake, ends
        the socket with 1013; one that dies, or stops answering pings, later with 1012.
        After either the client reconnects (to whichever node)."""
        address = websocket.client.host if websocket.client else None
        url = "ws" + owner_url.removeprefix("http") + websocket.url.path
        await websocket.accept()
        try:
            upstream = await connect(url, open_timeout=FORWARD_TIMEOUT, compression=None,
                                     ping_interval=PING_SECONDS, ping_timeout=PING_SECONDS,
                                     close_timeout=CLOSE_SECONDS, max_size=None,
                                     additional_headers=self._headers(
                                         list(websocket.headers.items()), address))
        except (OSError, TimeoutError, ConnectionClosed, InvalidHandshake, ValueError) as exc:
            # InvalidHandshake: the owner died (or stopped) with the handshake under way.
            log.info("relay to %s failed: %r", owner_url, exc)
            await websocket.close(CloseCode.TRY_AGAIN, "the table's server is out of reach")
            return
        async with upstream:
            down = asyncio.create_task(_downstream(upstream, websocket))
            try:
                while True:
                    message = await websocket.receive()
                    if message["type"] == "websocket.disconnect":
                        break
                    if message.get("text") is not None:
                        await upstream.send(message["text"])
                    elif message.get("bytes") is not None:
                        await upstream.send(message["bytes"])
            except (WebSocketDisconnect, ConnectionClosed):
                pass
            finally:
                down.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await down


async def _downstream(upstream: ClientConnection, websocket: WebSocket) -> None:
    """Frames from the owner to the client; the owner's close, passed on."""
    code, reason = CloseCode.RESTART.value, "the table's server went away"
    try:
        async for frame in upstream:
            if isinstance(frame, str):
                await websocket.send_text(frame)
            else:
                await websocket.send_bytes(frame)
        if upstream.close_code is not None and upstream.close_code != 1006:
            code, reason = upstream.close_code, upstream.close_reason or ""
    except ConnectionClosed as closed:
        if closed.rcvd is not None:
            code, reason = closed.rcvd.code, closed.rcvd.reason
    with contextlib.suppress(Exception):
        await websocket.close(code, reason)
