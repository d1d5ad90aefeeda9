"""The end of a match, heard by subscribers in the transaction that ends it.

:meth:`Repository.finish_match` builds one :class:`MatchEnded` when its write is the one
that sets the match's end, and hands it to each subscriber in turn on that write's
connection: what a subscriber writes commits or rolls back with the end itself, so it
happens exactly once per match whatever retries, restarts or takeovers write the end
again.  Which subscribers, in which order, is decided where the storage is built
(:mod:`app.db.storage`); docs/storage.md, "The end of a match", says what one may do.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from sqlalchemy.ext.asyncio import AsyncConnection

from ..matchlog import MatchEnd, Seat


@dataclass(frozen=True, slots=True)
class MatchEnded:
    """A match as it ended: what the rows that close it hold, read once for everyone."""

    match_id: str
    variant: str
    rated: bool  # its table was rated (ratings still judge whether it moves them)
    private: bool  # played at a private table: no list nor stats show it to strangers
    seats: Sequence[Seat]  # seats 0 to 3: players' ids, bots' levels
    left: Sequence[int]  # seats whose human left for good during it, in that order
    end: MatchEnd  # reason, totals, winning team, forfeit
    finished_at: datetime


class MatchEndSubscriber(Protocol):
    """Called once per match, by the write that sets its end, on that write's connection.
    Raising fails the whole write (the match stays on, nothing of it is kept) and the
    table retries it."""

    async def __call__(self, conn: AsyncConnection, ended: MatchEnded, /) -> None: ...
