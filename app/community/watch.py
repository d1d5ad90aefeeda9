"""The public matches in progress (the Watch list, ``GET /api/tables?status=playing``)
and which of them a player sits at: this node's lobby alone, or every node's list in a
cluster (app/cluster/listing.py)."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from ..cluster import Cluster
from ..cluster.listing import Entry, Page, page_of
from ..tables import Lobby


class Watch:
    def __init__(self, lobby: Lobby, cluster: Cluster | None) -> None:
        self._lobby, self._cluster = lobby, cluster

    async def _entries(self) -> Sequence[Entry]:
        if self._cluster is None:
            return self._lobby.live()
        return await self._cluster.live_tables()

    async def page(self, before: int | None, limit: int, first: Collection[str] = ()) -> Page:
        """Newest first, from cursor ``before`` (:func:`page_of`), except that the tables
        where any of ``first`` (the caller's friends) sits open the first page, and the
        pages after it list the others."""
        entries = await self._entries()
        wanted = set(first)
        theirs = [e for e in entries if wanted.intersection(e[2])]
        others = [e for e in entries if not wanted.intersection(e[2])]
        if before is not None:
            page, _, cursor = page_of(others, before, limit)
            return page, len(entries), cursor
        head = [entry[1].encode() for entry in theirs[:limit]]
        if len(head) == limit:
            return head, len(entries), others[0][0] + 1 if others else None
        rest, _, cursor = page_of(others, None, limit - len(head))
        return head + rest, len(entries), cursor

    async def tables_of(self, player_ids: Collection[str]) -> dict[str, str]:
        """The public match in progress each of ``player_ids`` sits at, if any."""
        wanted = set(player_ids)
        found: dict[str, str] = {}
        if not wanted:
            return found
        for entry in await self._entries():
            for player_id in wanted.intersection(entry[2]):
                found[player_id] = _table_id(entry[1])
        return found


def _table_id(text: str) -> str:
    """A listed table's id, from its JSON's first field (``{"id":"..."``)."""
    return text[len('{"id":"'):text.index('"', len('{"id":"'))]
