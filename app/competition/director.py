"""The director: the task of each node that runs the tournaments it holds (docs/tournaments.md,
"A director per tournament"), and the leagues' season job (app/competition/seasons.py).
Every ``TICK`` seconds it reads the tournaments that are due or running, takes the lease of
each (in a cluster: one node at a time runs one, and another takes it over when that node
dies), and moves each one on from its rows alone: starts it at its time, begins a round
(pairing, fillers, tables), makes and seats each round table, decides at the time limit the
matches still on, and ends the tournament after its last round (or when no entry is left
to pair); its players are told each step (:mod:`.news`).  Each step is a conditional write,
so a step two nodes race for happens once; a node that dies between steps leaves rows the
next pass picks up.  Every node's pass also keeps the round tables it holds to the rows
(:mod:`.held`), whichever node directs their tournament.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from datetime import UTC, datetime, timedelta
from typing import Any

from ai import Level
from engine import Options

from ..auth import Player
from ..cancelled import pause, stop_tasks
from ..cluster import Cluster
from ..cluster.leases import Leases
from ..db.session import Database
from ..db.tournaments import Entry, RoundTable, Tournament, result_values
from ..names import MAX_NAME
from ..shared import UNREACHABLE, RedisShared, Shared
from ..storage import StorageError
from ..tables import AddBot, Lobby, SitDown, StartMatch, Table, TableConfig, TableError
from ..tables.commands import Expire
from ..vocabulary import TableStatus
from . import held, store
from .models import Status, Teams
from .news import News, Tell
from .seasons import keep_seasons
from .standings import standings
from .swiss import field_size, pair

log = logging.getLogger(__name__)

TICK = 1.0  # seconds between two passes
STALE = 30.0  # seconds a made table may take to begin its match before it is made again
# (at once if no node holds it: its maker died before the match began)


def now() -> datetime:
    return datetime.now(UTC)


def bot_member(level: str) -> dict[str, Any]:
    return {"level": level, "name": f"Bot ({level})"}


def deserted(entries: list[Entry]) -> bool:
    """Every entry with a player withdrew: no round is paired for bots alone then (a
    tournament of bot entries only runs to its end)."""
    played = [e for e in entries if any(m.get("player_id") for m in e.members)]
    return bool(played) and all(e.withdrawn for e in played)


class Director:
    """Runs the tournaments this node holds; ``cluster`` None: a server alone holds all."""

    def __init__(self, database: Database, lobby: Lobby, cluster: Cluster | None,
                 shared: Shared, lease_seconds: float, season_days: float,
                 tell: Tell) -> None:
        self.db, self.lobby, self.cluster = database, lobby, cluster
        self.season_days = season_days
        self.news = News(tell)
        self._leases: Leases | None = None
        if cluster is not None and isinstance(shared, RedisShared):
            self._leases = Leases(shared, cluster.node_id, lease_seconds, shared.keys.director)
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._loop(), name="tournament-director")

    async def close(self) -> None:
        if self._task is not None:
            await stop_tasks([self._task], "tournament director")

    async def _loop(self) -> None:
        while True:
            try:
                await self.tick()
            except (StorageError, *UNREACHABLE) as exc:
                log.warning("tournaments wait: %s", exc)
            except Exception:
                log.exception("tournaments: a pass failed; trying again")
            await pause(TICK)

    async def tick(self) -> None:
        """One pass: the leagues' season kept (closed at its end, the next opened), this
        node's round tables kept to the rows, then the tournaments that are due or running
        and held here."""
        await keep_seasons(self.db, self.season_days, now())
        await held.keep(self.db, self.lobby)
        upcoming, running = await store.due(self.db, now())
        holding = await self._hold([*upcoming, *running])
        self.news.keep_only(set(holding))
        for tournament_id in holding:
            try:
                if tournament_id in upcoming:
                    await store.start(self.db, tournament_id, None)
                await self.advance(tournament_id)
            except TableError as exc:  # one tournament's refusal stops no other
                log.warning("tournament %s: %s", tournament_id, exc)

    async def _hold(self, ids: list[str]) -> list[str]:
        """The tournaments of ``ids`` this node holds (or takes) the lease of."""
        if self._leases is None or not ids:
            return ids
        others = set(await self._leases.renew(ids))
        return [i for i in ids if i not in others]

    async def advance(self, tournament_id: str) -> None:
        """Move a running tournament on by what its rows say."""
        loaded = await store.load(self.db, tournament_id)
        if loaded is None or loaded.tournament.status != "running":
            return
        t = loaded.tournament
        await self.news.read(loaded)
        open_ = [rt for rt in loaded.round_tables(t.round) if rt.ended_at is None]
        if open_:
            await self._tend(loaded, open_)
        elif t.round >= t.rounds or deserted(loaded.entries):
            await store.finish(self.db, t.id, now())
            await self.news.read(loaded, Status.FINISHED)
            log.info("tournament %s finished", t.id)
        else:
            await self._begin(loaded, t.round + 1)

    async def _begin(self, loaded: store.Loaded, round_: int) -> None:
        """Pair round ``round_`` on the standings, bots filling the field, and write it."""
        t = loaded.tournament
        active = [e.entry for e in loaded.entries if not e.withdrawn]
        ranked = standings(active, loaded.played(), t.format == "duplicate")
        members = 2 if t.teams == Teams.FIXED else 1
        fillers = [[bot_member(t.bot_level)] * members
                   for _ in range(field_size(len(active), t.teams) - len(active))]
        first_new = max((e.entry for e in loaded.entries), default=0) + 1
        ranked += standings(range(first_new, first_new + len(fillers)), [], False)
        seed = secrets.randbits(63)
        seats = pair(ranked, t.teams, round_, seed)
        duplicate = t.format == "duplicate"
        tables = [(s, seed if duplicate else secrets.randbits(63)) for s in seats]
        ends_at = now() + timedelta(seconds=t.round_seconds)
        if await store.begin_round(self.db, t.id, round_, ends_at, tables, fillers):
            log.info("tournament %s: round %d, %d tables", t.id, round_, len(tables))

    async def _tend(self, loaded: store.Loaded, open_: list[RoundTable]) -> None:
        """Make the round's tables not made yet; past the time limit, decide those on."""
        t = loaded.tournament
        made = [rt.table_id for rt in open_ if rt.table_id is not None]
        begun = await store.matches_of(self.db, made)
        late = t.round_ends_at is not None and now() >= t.round_ends_at
        for rt in open_:
            if rt.table_id is None:
                await self._make(loaded, rt)
            elif late:
                await self._decide(t, rt, begun.get(rt.table_id) or store.Begun([], []))
            elif rt.table_id not in begun and await self._lost(rt.table_id, rt.made_at):
                await store.made(self.db, t.id, rt.round, rt.idx, None, now())  # made again

    async def _lost(self, table_id: str, made_at: datetime | None) -> bool:
        """Whether a round table made but whose match has not begun is lost: not here,
        and (alone) nowhere else, or (in a cluster) leased by no node, its maker dead;
        STALE seconds after it was made in any case (its maker stuck)."""
        if table_id in self.lobby.tables:
            return False
        if made_at is None or now() - made_at > timedelta(seconds=STALE):
            return True
        if self.cluster is None:
            return True
        [owner] = await self.cluster.leases.owners([table_id])
        return owner is None

    async def _make(self, loaded: store.Loaded, rt: RoundTable) -> None:
        """Create a round table, note it, seat its entries (a bot for a seat a player
        cannot take) and start its match with the round's seed."""
        t = loaded.tournament
        name = f"{t.name} · {rt.round}.{rt.idx + 1}"
        config = TableConfig(name=name[:MAX_NAME], options=Options.make(t.variant, **t.options),
                             turn_seconds=t.turn_seconds, private=False,
                             timeout_forfeits=False, rated=t.rated,
                             seated_only=t.format == "duplicate")
        owner = held.owner_of(t.id, rt.round, rt.idx, t.name[:MAX_NAME])
        table = self.lobby.create(owner, config)
        try:
            if self.cluster is not None:
                await self.cluster.own(table)
            noted = await store.made(self.db, t.id, rt.round, rt.idx, table.id, now())
        except BaseException:  # Redis or the database out of reach: made again next pass
            table.post(Expire(TableStatus.WAITING))
            raise
        if not noted:
            table.post(Expire(TableStatus.WAITING))
            return
        table.seed = rt.seed  # a duplicate round's tables deal the same decks
        try:
            await _seat(table, owner, t, {e.entry: e for e in loaded.entries}, rt.seats)
            await table.submit(StartMatch(owner, house=True))
        except TableError as exc:  # the log is down, say: made again on a later pass
            log.warning("tournament %s: table %d.%d not started: %s", t.id, rt.round, rt.idx,
                        exc)
            table.post(Expire(TableStatus.WAITING))

    async def _decide(self, t: Tournament, rt: RoundTable, match: store.Begun) -> None:
        """The round's time is up and this match is on: decided on its finished deals'
        points and the leavers the log has (docs/tournaments.md, "The time limit"); its
        table closed at once if here, else by the node that holds it (:mod:`.held`)."""
        scores = match.scores
        totals = [sum(s[0] for s in scores), sum(s[1] for s in scores)]
        winner = None if totals[0] == totals[1] else int(totals[1] > totals[0])
        if await store.decide(self.db, t.id, rt.round, rt.idx, result_values(
                "time", totals, winner, match.left, scores, now())):
            log.info("tournament %s: table %d.%d decided at the time limit", t.id, rt.round,
                     rt.idx)
            table = self.lobby.tables.get(rt.table_id or "")
            if table is not None:
                table.post(Expire(TableStatus.PLAYING))


async def _seat(table: Table, owner: Player, t: Tournament, entries: dict[int, Entry],
                seats: list[int]) -> None:
    """Seat each seat's member: a fixed pair's first member at seats 0/1, its second at
    2/3; a bot for a bot, or a player the table refuses.  A player whose entry withdrew
    since the pairing sits too, and leaves at the next pass (:mod:`.held`): their team
    loses the round, as any withdrawn entry's at a table of the round."""
    for seat, number in enumerate(seats):
        entry = entries[number]
        member = entry.members[seat // 2 if t.teams == Teams.FIXED else 0]
        player_id = member.get("player_id")
        if player_id is not None:
            try:
                await table.submit(SitDown(Player(player_id, member["name"]), seat,
                                           arriving=True))
                continue
            except TableError as exc:
                log.warning("tournament %s: %s not seated: %s", t.id, player_id, exc)
        await table.submit(AddBot(owner, seat, Level(member.get("level") or t.bot_level)))
