"""The personal channel, ``GET /api/me/ws``: a socket on any node that carries the
player's notices (docs/protocol.md, section 10).  The handshake is a table socket's (the
same ``hello``, the same socket counts), then the server writes notices and pings; the
client sends only pings and pongs."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from ...accounts.service import Caller
from ...errors import ErrorCode
from ...protocol import ClientMessage, Error, Welcome
from ...tables import Client
from ...tables.lobby import Quota
from ..deps import AccountsDep, AddressDep, CommunityDep, LobbyDep, SocketSettingsDep
from .ws import Connection, admit, end, serve, start

router = APIRouter()


@router.websocket("/me/ws")
async def personal_socket(websocket: WebSocket, settings: SocketSettingsDep, lobby: LobbyDep,
                          accounts: AccountsDep, community: CommunityDep,
                          address: AddressDep) -> None:
    await websocket.accept()
    client: Client | None = None
    caller: Caller | None = None
    tasks: list[asyncio.Task[None]] = []
    held: list[tuple[Quota, str]] = []
    notices = community.notices
    present = False  # counted online: to be counted out at the end
    try:
        caller = await admit(websocket, settings, lobby, accounts, address, held)
        if caller is None:
            return
        player = caller.player
        client = Client(player, settings.ws_outbox)
        accounts.watch(caller, client)
        await websocket.send_text(
            Welcome(player={"id": player.id, "name": player.name}).model_dump_json())
        connection = Connection(settings)
        tasks = start(websocket, client, connection)
        present = True  # before the await: opened() counts the socket in at once
        await notices.opened(client, caller.kind == "account")
        await serve(websocket, client, connection, tasks, _nothing_else(client))
    except WebSocketDisconnect:
        pass
    finally:
        if caller is not None and client is not None:
            accounts.unwatch(caller, client)
            if present:
                notices.closed(client, caller.kind == "account")
        await end(websocket, held, tasks)


def _nothing_else(client: Client) -> Callable[[ClientMessage], None]:
    """This socket takes pings alone: anything else is answered ``bad_message``."""

    def refuse(request: ClientMessage) -> None:
        client.send(Error(code=ErrorCode.BAD_MESSAGE,
                          message=f"a personal socket takes no {request.type}").model_dump_json())

    return refuse
