"""Live standings on the personal channel (docs/tournaments.md, "Live standings"): each
player of a tournament's entries still in it, and its director, is sent a ``standings``
notice (app/events.py) whenever the tournament moves on: a round's table ended (the
standings changed), a round's tables were made, it finished.

The director's pass reads the tournament's rows anyway; it tells when what it read differs
from what this node told last.  Nothing else is kept, so a node that takes a tournament
over tells once more on its first pass (a notice twice rather than one missed), and a table
ended on any node is told by whichever node directs.  A notice that cannot be told is
logged and not tried again: it never holds the tournament up."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Hashable

from ..events import Notice, StandingsNotice
from ..shared import UNREACHABLE
from ..storage import StorageError
from .models import Format, Status
from .standings import standings
from .store import Loaded

log = logging.getLogger(__name__)

Tell = Callable[[str, Notice], Awaitable[None]]  # app/community/notices.py: Notices.tell


class News:
    def __init__(self, tell: Tell) -> None:
        self._tell = tell
        self._told: dict[str, Hashable] = {}  # tournament id -> the state told last

    def keep_only(self, held: set[str]) -> None:
        """Forget the tournaments this node no longer directs."""
        for tournament_id in self._told.keys() - held:
            del self._told[tournament_id]

    async def read(self, loaded: Loaded, status: Status | None = None) -> None:
        """Tell the tournament's players if it moved on since this node told them last;
        ``status``: the status it has now if the caller just changed it (finished)."""
        t = loaded.tournament
        now = Status(status or t.status)
        state = (now, t.round, tuple((rt.round, rt.idx, rt.table_id, rt.ended_at is not None)
                                     for rt in loaded.tables))
        if self._told.get(t.id) == state:
            return
        self._told[t.id] = state
        lines = {line.entry: line for line in standings(
            [e.entry for e in loaded.entries], loaded.played(), t.format == Format.DUPLICATE)}
        tables = {entry: rt.table_id for rt in loaded.round_tables(t.round)
                  if rt.ended_at is None and rt.table_id is not None for entry in rt.seats}
        players: dict[str, int | None] = {
            member["player_id"]: e.entry for e in loaded.entries if not e.withdrawn
            for member in e.members if member.get("player_id")}
        players.setdefault(t.director, None)
        for player_id, entry in players.items():
            line = None if entry is None else lines.get(entry)
            notice = StandingsNotice(
                tournament=t.id, name=t.name, status=now.value, round=t.round,
                rounds=t.rounds, entry=entry, rank=None if line is None else line.rank,
                points=None if line is None else line.points,
                table=tables.get(entry) if entry is not None and now == Status.RUNNING
                else None)
            try:
                await self._tell(player_id, notice)
            except (StorageError, *UNREACHABLE) as exc:  # told at most once: never held up
                log.warning("tournament %s: %s not told: %s", t.id, player_id, exc)
        if now == Status.FINISHED:
            del self._told[t.id]
