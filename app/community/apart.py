"""A block made or lifted during a match reaches the chat at once (issue #32): the tables
where both players sit read their blocks again, whichever node holds them.

The node that made the change tells its own tables before the call answers, then
publishes ``"<node> <one> <other>"`` on the shared state's ``blocks`` channel; every
other node tells its tables.  A node cut off from Redis meanwhile reads the blocks
again at the next sit-down, as before."""

from __future__ import annotations

import logging
import secrets

from ..shared import UNREACHABLE, Listener, Shared, nothing_missed
from ..tables import Lobby
from ..tables.commands import LoadBlocks

log = logging.getLogger(__name__)


class Apart:
    def __init__(self, shared: Shared, lobby: Lobby) -> None:
        self._shared, self._lobby = shared, lobby
        self._node = secrets.token_hex(6)  # its own messages come back: they are skipped
        self._listener: Listener | None = None

    def start(self) -> None:
        self._listener = self._shared.subscribe(self._shared.keys.blocks, self._heard,
                                                nothing_missed, "blocks")

    async def close(self) -> None:
        if self._listener is not None:
            await self._listener.close()

    async def changed(self, one: str, other: str) -> None:
        """``one`` blocked or unblocked ``other`` (written already)."""
        self._reread(one, other)
        try:
            await self._shared.publish(self._shared.keys.blocks, f"{self._node} {one} {other}")
        except UNREACHABLE as exc:
            log.warning("blocks: other nodes not told of a change, Redis: %s", exc)

    async def _heard(self, message: str) -> None:
        node, one, other = message.split(" ")
        if node != self._node:
            self._reread(one, other)

    def _reread(self, one: str, other: str) -> None:
        """Each table of this node where both sit reads its blocks again, on its actor
        (before any chat message posted after this)."""
        for table in list(self._lobby.tables.values()):
            seated = {held.player.id for held in table.seats if held.player is not None}
            if one in seated and other in seated:
                table.post(LoadBlocks())
