"""Where the queue lives: :class:`Queue`, what the matchmaker needs of it, and
:class:`MemoryQueue`, the queue of a server running alone.  A cluster's queue is in
Redis (:mod:`.redis_store`); tests/test_matchmaking_queue.py runs the same tests on both."""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Sequence
from typing import Protocol

from .lines import ALIVE, SETTLED_TTL, Apart, Entry, groups


class Queue(Protocol):
    """Every call is atomic: :meth:`pop` takes each entry it returns out of the queue in
    the same step as it reads it.  A "variant" here is a :func:`~.lines.line`: rated
    players of a variant wait apart from the others."""

    async def join(self, entry: Entry) -> Entry:
        """Put ``entry`` in its variant's queue and return it, or the entry the player
        has already if it waits for that variant (its place kept) or is being seated."""
        ...

    async def touch(self, player_id: str, now: float) -> Entry | None:
        """The player's entry, marked seen at ``now`` if waiting; None if none."""
        ...

    async def leave(self, player_id: str) -> Entry | None:
        """Take the player out if waiting (or failed): None then; else the entry that
        stays (``forming`` or ``seated``: too late to leave)."""
        ...

    async def pop(self, variant: str, now: float, apart: Apart = ()) -> list[list[Entry]]:
        """Take the groups that can sit now out of ``variant``'s queue, in order of arrival
        (:func:`~.lines.groups`, never two players of a pair in ``apart`` together).
        Players not seen since ``now - ALIVE`` are dropped."""
        ...

    async def settle(self, group: Sequence[Entry]) -> None:
        """Record the outcome of popped entries (``seated`` or ``failed``)."""
        ...

    async def waiting(self, variant: str) -> int:
        """How many players wait for ``variant``."""
        ...

    async def waiting_ids(self, variant: str) -> list[str]:
        """The ids of the players in ``variant``'s queue (some may have gone)."""
        ...


class MemoryQueue:
    """The event loop makes each call atomic: none awaits anything."""

    def __init__(self) -> None:
        self._entries: dict[str, Entry] = {}
        self._arrivals: dict[str, int] = {}  # the queue's order
        self._arrived = itertools.count()
        self._settled: deque[Entry] = deque()  # forgotten SETTLED_TTL after their last poll

    async def join(self, entry: Entry) -> Entry:
        held = self._entries.get(entry.player_id)
        if held is not None and (held.status == "forming" or (
                held.status == "waiting" and held.line == entry.line)):
            return held
        self._entries[entry.player_id] = entry
        self._arrivals[entry.player_id] = next(self._arrived)
        return entry

    async def touch(self, player_id: str, now: float) -> Entry | None:
        held = self._entries.get(player_id)
        if held is not None and held.status == "waiting":
            held.seen = now
        return held

    async def leave(self, player_id: str) -> Entry | None:
        held = self._entries.get(player_id)
        if held is not None and held.status in ("forming", "seated"):
            return held
        self._entries.pop(player_id, None)
        self._arrivals.pop(player_id, None)
        return None

    async def pop(self, variant: str, now: float, apart: Apart = ()) -> list[list[Entry]]:
        while self._settled and self._settled[0].seen < now - SETTLED_TTL:
            settled = self._settled.popleft()
            if self._entries.get(settled.player_id) is settled:
                del self._entries[settled.player_id], self._arrivals[settled.player_id]
        queue = sorted((e for e in self._entries.values()
                        if e.status == "waiting" and e.line == variant),
                       key=lambda e: self._arrivals[e.player_id])
        ready = []
        for entry in queue:
            if entry.seen < now - ALIVE:
                del self._entries[entry.player_id], self._arrivals[entry.player_id]
            else:
                ready.append(entry)
        made = groups(ready, now, apart)
        for group in made:
            for entry in group:
                self._entries[entry.player_id].status = entry.status = "forming"
        return made

    async def settle(self, group: Sequence[Entry]) -> None:
        for entry in group:
            self._entries[entry.player_id] = entry
            self._settled.append(entry)

    async def waiting(self, variant: str) -> int:
        return sum(e.status == "waiting" and e.line == variant
                   for e in self._entries.values())

    async def waiting_ids(self, variant: str) -> list[str]:
        return [e.player_id for e in self._entries.values()
                if e.status == "waiting" and e.line == variant]
