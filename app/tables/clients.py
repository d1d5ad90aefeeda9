"""A socket as the table sees it: a player and an outbox, so the actor never touches I/O."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from ..auth import Player
from ..protocol import CloseCode


@dataclass(frozen=True, slots=True)
class Close:
    """Put in an outbox: the socket's writer closes the socket with this code."""

    code: CloseCode
    reason: str


class Client:
    """One socket's end of a table: who is there, and the queue the socket's writer drains.

    Messages are queued already encoded, each built for this client alone.  A client that
    stops reading is closed rather than allowed to grow the server's memory.
    """

    def __init__(self, player: Player, limit: int) -> None:
        self.player = player
        self.seat: int | None = None
        self.outbox: asyncio.Queue[str | Close] = asyncio.Queue()
        self.closed = False
        self._limit = limit

    def send(self, text: str) -> None:
        if self.closed:
            return
        if self.outbox.qsize() >= self._limit:
            self.close(CloseCode.TOO_SLOW, "too many unread messages")
        else:
            self.outbox.put_nowait(text)

    def close(self, code: CloseCode, reason: str) -> None:
        if not self.closed:
            self.closed = True
            self.outbox.put_nowait(Close(code, reason))
