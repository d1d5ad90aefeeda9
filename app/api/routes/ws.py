"""The table socket: handshake, then a reader, a writer and a heartbeat per connection.

The reader turns frames into table commands (never raising on bad input), the writer is
the only task that sends (so a close always follows the messages queued before it), and
the heartbeat pings and drops silent peers.  Everything is cleaned up in ``finally``.
The personal channel (:mod:`.me_ws`) is served by the same steps: :func:`admit`,
:func:`start`, :func:`serve`, :func:`end`.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from starlette.websockets import WebSocketState

from ...accounts.service import Accounts, Caller
from ...auth import InvalidToken
from ...errors import ErrorCode
from ...protocol import (
    PROTOCOL_VERSION,
    ActionRequest,
    ChatRequest,
    ClientMessage,
    CloseCode,
    Error,
    Hello,
    Ping,
    Pong,
    ProtocolError,
    Resume,
    ServerPing,
    ServerPong,
    Welcome,
    parse,
)
from ...ratelimit import TokenBucket
from ...sections import SocketSettings
from ...storage import StorageUnavailable
from ...tables import (
    Attach,
    Client,
    Close,
    Detach,
    PlayAction,
    Say,
    Table,
    TableError,
    TakeBack,
)
from ...tables.lobby import Lobby, Quota
from ..deps import AccountsDep, AddressDep, LobbyDep, SocketSettingsDep

router = APIRouter()
CLOSE_WAIT = 5.0  # seconds the writer gets to flush before a close


def _now_ms() -> int:
    return int(time.time() * 1000)


class Connection:
    """What the reader and the heartbeat share about one socket."""

    def __init__(self, settings: SocketSettings) -> None:
        self.settings = settings
        self.last_seen = time.monotonic()
        self.bucket = TokenBucket(settings.ws_rate, settings.ws_burst)


@router.websocket("/tables/{table_id}/ws")
async def table_socket(websocket: WebSocket, table_id: str, settings: SocketSettingsDep,
                       lobby: LobbyDep, accounts: AccountsDep, address: AddressDep) -> None:
    """One player's (or spectator's) socket at one table; docs/protocol.md."""
    await websocket.accept()
    client: Client | None = None
    caller: Caller | None = None
    tasks: list[asyncio.Task[None]] = []
    detach: Table | None = None
    held: list[tuple[Quota, str]] = []  # the socket counts this socket holds
    try:
        caller = await admit(websocket, settings, lobby, accounts, address, held)
        if caller is None:
            return
        player = caller.player
        try:
            table = lobby.get(table_id)
        except TableError as exc:
            await _refuse(websocket, _close_code(exc), exc.code, str(exc))
            return
        client = Client(player, settings.ws_outbox)
        accounts.watch(caller, client)  # closed with 4002 if its session ends
        await websocket.send_text(
            Welcome(player={"id": player.id, "name": player.name}).model_dump_json()
        )
        detach = table  # set before attaching: if this task is cancelled, still detach
        try:
            await table.submit(Attach(client))
        except TableError as exc:
            await _refuse(websocket, _close_code(exc), exc.code, str(exc))
            return
        connection = Connection(settings)
        tasks = start(websocket, client, connection)
        await serve(websocket, client, connection, tasks, _to_table(table, client))
    except WebSocketDisconnect:
        pass
    finally:
        # Detach and release first, before any await: this task may be cancelled here.
        if detach is not None and client is not None:
            detach.post(Detach(client))
        if caller is not None and client is not None:
            accounts.unwatch(caller, client)
        await end(websocket, held, tasks)


async def admit(websocket: WebSocket, settings: SocketSettings, lobby: Lobby,
                 accounts: Accounts, address: str | None,
                 held: list[tuple[Quota, str]]) -> Caller | None:
    """The socket's caller, within the sockets an address and a player may hold (counted
    in ``held``, for the release), after its hello; None once refused and closed."""
    if address is not None and not _hold(lobby.sockets_by_address, address, held):
        await _refuse(websocket, CloseCode.TOO_MANY, ErrorCode.TOO_MANY_SOCKETS,
                      "too many sockets open from your network address")
        return None
    caller = await _hello(websocket, settings, accounts)
    if caller is None:
        return None
    if not _hold(lobby.sockets_by_player, caller.player.id, held):
        await _refuse(websocket, CloseCode.TOO_MANY, ErrorCode.TOO_MANY_SOCKETS,
                      "you have too many sockets open")
        return None
    return caller


def _hold(quota: Quota, key: str, held: list[tuple[Quota, str]]) -> bool:
    """Count this socket against ``key``'s cap, noted in ``held`` for the release."""
    if not quota.take(key):
        return False
    held.append((quota, key))
    return True


def _close_code(refusal: TableError) -> CloseCode:
    """The close code for a socket the table refused: 1012 tells a client to come back."""
    codes = {ErrorCode.TOO_MANY_SPECTATORS: CloseCode.CROWDED,
             ErrorCode.SEATED_ONLY: CloseCode.CROWDED, ErrorCode.SHUTTING_DOWN: CloseCode.RESTART}
    return codes.get(refusal.code, CloseCode.NO_TABLE)


async def _refuse(websocket: WebSocket, code: CloseCode, error: ErrorCode,
                  message: str) -> None:
    """Say why in an ``error`` message, then close with ``code``."""
    await websocket.send_text(Error(code=error, message=message).model_dump_json())
    await websocket.close(code, error)


async def _hello(websocket: WebSocket, settings: SocketSettings,
                 accounts: Accounts) -> Caller | None:
    """The first frame must be a hello with our protocol version and a valid token (a
    guest's, or an account session's: app/accounts/service.py, as REST reads them)."""
    try:
        message = await asyncio.wait_for(websocket.receive(), settings.ws_hello_timeout)
    except TimeoutError:
        await _refuse(websocket, CloseCode.TIMEOUT, ErrorCode.HELLO_TIMEOUT, "no hello in time")
        return None
    if message["type"] == "websocket.disconnect":
        return None
    text = message.get("text")
    if text is None:
        await websocket.close(CloseCode.UNSUPPORTED, "text frames only")
        return None
    if len(text) > settings.ws_max_message:
        await websocket.close(CloseCode.TOO_BIG, "frame too large")
        return None
    try:
        hello = parse(text)
    except ProtocolError as exc:
        await _refuse(websocket, CloseCode.BAD_HELLO, exc.code, str(exc))
        return None
    if not isinstance(hello, Hello):
        await _refuse(websocket, CloseCode.BAD_HELLO, ErrorCode.HELLO_EXPECTED,
                      "the first message is hello")
        return None
    if hello.protocol != PROTOCOL_VERSION:
        await _refuse(websocket, CloseCode.BAD_HELLO, ErrorCode.PROTOCOL_VERSION,
                      f"this server speaks protocol {PROTOCOL_VERSION}")
        return None
    try:
        return await accounts.identify(hello.token)
    except InvalidToken:
        await _refuse(websocket, CloseCode.BAD_TOKEN, ErrorCode.BAD_TOKEN,
                      "invalid or expired token")
    except StorageUnavailable:
        await _refuse(websocket, CloseCode.TRY_AGAIN, ErrorCode.STORAGE_UNAVAILABLE,
                      "sessions cannot be read now, try again later")
    return None


async def _read(websocket: WebSocket, client: Client, connection: Connection,
                on_request: Callable[[ClientMessage], None]) -> Close | None:
    """Frames to requests until the peer leaves (None) or must be closed (the Close):
    pings answered here, a second hello refused, the others handed to ``on_request``."""
    settings = connection.settings
    while True:
        message = await websocket.receive()
        if message["type"] == "websocket.disconnect":
            return None
        connection.last_seen = time.monotonic()
        if not connection.bucket.take():
            return Close(CloseCode.POLICY, "rate limit exceeded")
        text = message.get("text")
        if text is None:
            return Close(CloseCode.UNSUPPORTED, "text frames only")
        if len(text) > settings.ws_max_message:
            return Close(CloseCode.TOO_BIG, "frame too large")
        try:
            request = parse(text)
        except ProtocolError as exc:
            client.send(Error(code=exc.code, message=str(exc)).model_dump_json())
            continue
        if isinstance(request, Ping):
            client.send(ServerPong(id=request.id, time=_now_ms()).model_dump_json())
        elif isinstance(request, Hello):
            client.send(Error(code=ErrorCode.BAD_MESSAGE,
                              message="already said hello").model_dump_json())
        elif not isinstance(request, Pong):  # a Pong only refreshes last_seen
            on_request(request)


def start(websocket: WebSocket, client: Client,
           connection: Connection) -> list[asyncio.Task[None]]:
    """The writer (first) and the heartbeat of an admitted socket."""
    return [asyncio.create_task(_write(websocket, client)),
            asyncio.create_task(_heartbeat(client, connection))]


async def serve(websocket: WebSocket, client: Client, connection: Connection,
                 tasks: list[asyncio.Task[None]],
                 on_request: Callable[[ClientMessage], None]) -> None:
    """Read until the peer leaves or must be closed; a close goes out after the messages
    queued before it, the writer (``tasks[0]``) given ``CLOSE_WAIT`` to send them."""
    closing = await _read(websocket, client, connection, on_request)
    if closing is not None:
        client.close(closing.code, closing.reason)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(tasks[0]), CLOSE_WAIT)


async def end(websocket: WebSocket, held: list[tuple[Quota, str]],
               tasks: list[asyncio.Task[None]]) -> None:
    """A socket's last step, whatever ended it: its counts released (before any await),
    its tasks stopped, the socket closed if still open."""
    for quota, key in held:
        quota.release(key)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    if websocket.application_state == WebSocketState.CONNECTED:
        with contextlib.suppress(Exception):
            await websocket.close()


def _to_table(table: Table, client: Client) -> Callable[[ClientMessage], None]:
    """A table socket's requests, as commands to its table."""

    def post(request: ClientMessage) -> None:
        if isinstance(request, ActionRequest):
            table.post(PlayAction(client, request.id, request.version, request.action))
        elif isinstance(request, Resume):
            table.post(TakeBack(client))
        elif isinstance(request, ChatRequest):
            table.post(Say(client, request.text, request.phrase))

    return post


async def _write(websocket: WebSocket, client: Client) -> None:
    """The only sender after the handshake: drains the outbox, ends with a close."""
    try:
        while True:
            item = await client.outbox.get()
            if isinstance(item, Close):
                await websocket.close(item.code, item.reason)
                return
            await websocket.send_text(item)
    except (WebSocketDisconnect, RuntimeError, OSError):
        return  # the peer is gone; the reader sees the disconnect


async def _heartbeat(client: Client, connection: Connection) -> None:
    settings = connection.settings
    while not client.closed:
        await asyncio.sleep(settings.ws_ping_interval)
        if time.monotonic() - connection.last_seen > settings.ws_idle_timeout:
            client.close(CloseCode.TIMEOUT, "silent for too long")
            return
        client.send(ServerPing(time=_now_ms()).model_dump_json())
