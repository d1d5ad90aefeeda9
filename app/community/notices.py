"""Each player's own channel (``GET /api/me/ws``): the personal sockets open on this node,
and the notices told to a player whichever node its sockets are on.

A notice is published on the shared state's ``notices`` channel as ``"<player id>
<notice JSON>"`` (this process's listeners alone, or every node's through Redis pub/sub);
each node hands it to the player's sockets it holds.  Pub/sub keeps nothing, so a notice
of the :data:`KEPT_KINDS` told while the player has no socket open anywhere (presence,
:mod:`.presence`, says so) is kept in the database instead (app/db/kept_notices.py) and
sent, with its ``id``, on each socket the player opens until it is dismissed.  The
others (a friend online, a table the queue made) are for now or never."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from ..cancelled import pause, stop_tasks
from ..db import kept_notices
from ..db.session import Database
from ..events import NOTICES, FriendOnlineNotice, Notice, Someone
from ..shared import UNREACHABLE, Listener, Shared, nothing_missed
from ..storage import StorageError
from ..tables import Client
from .presence import RENEW, Presence

log = logging.getLogger(__name__)

FriendsOf = Callable[[str], Awaitable[set[str]]]
KEPT_KINDS = frozenset({"friend_request", "invitation", "queue_partner"})


class Notices:
    """``friends_of``: a player's friends, told when it comes online or goes offline."""

    def __init__(self, shared: Shared, presence: Presence, friends_of: FriendsOf,
                 database: Database) -> None:
        self._shared, self.presence, self._friends_of = shared, presence, friends_of
        self._db = database
        self._sockets: dict[str, set[Client]] = {}
        self._listener: Listener | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._leaving: set[asyncio.Task[None]] = set()

    def start(self) -> None:
        self._listener = self._shared.subscribe(self._shared.keys.notices, self._heard,
                                                nothing_missed, "notices")
        self._tasks.append(asyncio.create_task(self._renew(), name="presence-renew"))

    async def close(self) -> None:
        await stop_tasks([*self._tasks, *self._leaving], "notices")
        if self._listener is not None:
            await self._listener.close()

    async def tell(self, player_id: str, notice: Notice) -> None:
        """Send ``notice`` to every personal socket of the player, on any node; keep it
        for later if it is worth keeping and the player has none open."""
        text = notice.model_dump_json(exclude_none=True)
        if notice.kind in KEPT_KINDS and not await self._online(player_id):
            try:
                await kept_notices.keep(self._db, player_id, text)
            except StorageError as exc:
                log.warning("notices: a %s notice not kept: %s", notice.kind, exc)
            return
        try:
            await self._shared.publish(self._shared.keys.notices, f"{player_id} {text}")
        except UNREACHABLE as exc:
            log.warning("notices: a %s notice not sent, Redis: %s", notice.kind, exc)

    async def _online(self, player_id: str) -> bool:
        """Whether the player has a socket open anywhere; not known (Redis out of
        reach): not, so that the notice is kept rather than lost."""
        try:
            return bool(await self.presence.online([player_id]))
        except UNREACHABLE:
            return False

    async def kept(self, player_id: str) -> list[Notice]:
        """The notices kept for the player, oldest first, each with its ``id``."""
        return [NOTICES.validate_json(row.body).model_copy(update={"id": row.id})
                for row in await kept_notices.unread(self._db, player_id)]

    async def dismiss(self, player_id: str, notice_id: int) -> None:
        await kept_notices.dismiss(self._db, player_id, notice_id)

    async def _heard(self, message: str) -> None:
        player_id, _, text = message.partition(" ")
        for client in list(self._sockets.get(player_id, ())):
            client.send(text)

    async def opened(self, client: Client, account: bool) -> None:
        """A personal socket is ready: it is sent the notices kept meanwhile (read once
        the player counts as online, so that none told in between is missed), and an
        account's friends hear it came online."""
        player = client.player
        self._sockets.setdefault(player.id, set()).add(client)
        try:
            arrived = await self.presence.arrive(player.id)
        except UNREACHABLE as exc:
            log.warning("presence: %s not marked online, Redis: %s", player.id, exc)
            arrived = False
        try:
            for notice in await self.kept(player.id):
                client.send(notice.model_dump_json(exclude_none=True))
        except StorageError as exc:
            log.warning("notices: the kept ones of %s not read: %s", player.id, exc)
        if arrived and account:
            await self._tell_friends(player.id, player.name, True)

    def closed(self, client: Client, account: bool) -> None:
        """A personal socket closed; an account's friends hear it went offline if that was
        its last one.  Not awaited (a socket's end may be cancelled): done in a task."""
        player = client.player
        held = self._sockets.get(player.id, set())
        held.discard(client)
        if not held:
            self._sockets.pop(player.id, None)
        task = asyncio.create_task(self._left(player.id, player.name, len(held), account),
                                   name="presence-left")
        self._leaving.add(task)
        task.add_done_callback(self._leaving.discard)

    async def _left(self, player_id: str, name: str, here: int, account: bool) -> None:
        try:
            gone = await self.presence.leave(player_id, here)
        except UNREACHABLE as exc:
            log.warning("presence: %s not marked offline, Redis: %s", player_id, exc)
            return
        if gone and account:
            await self._tell_friends(player_id, name, False)

    async def _tell_friends(self, player_id: str, name: str, online: bool) -> None:
        notice = FriendOnlineNotice(player=Someone(id=player_id, name=name), online=online)
        try:
            friends = await self._friends_of(player_id)
        except StorageError:  # the database away: nobody is told, nothing else fails
            log.warning("notices: %s's friends unknown, not told", player_id, exc_info=True)
            return
        for friend in friends:
            await self.tell(friend, notice)

    async def _renew(self) -> None:
        """Vouch for the players whose sockets are here (a cluster's presence expires)."""
        while True:
            try:
                await self.presence.renew(list(self._sockets))
            except UNREACHABLE as exc:
                log.warning("presence: not renewed, Redis: %s", exc)
            except Exception:
                log.exception("presence: not renewed")
            await pause(RENEW)
