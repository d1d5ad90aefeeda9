"""Recovery speed: how long a restarted server takes to bring back N unfinished tables.

Fills a scratch database (PostgreSQL: a new database on ``--postgres``, dropped at the
end; SQLite: a temporary file) with N matches cut mid-match and mid-deal, logged as
tables log them (``DatabaseStorage.create_match`` / ``start_deal`` / ``append_action`` /
``finish_deal``),
then times ``Lobby.restore()`` of a fresh lobby until every table answers ``info()`` and
has its turn scheduled (a bot thinking or a human's timer running), several times, and
prints the median with where it went.  Asserts nothing.

    python bench/recovery.py [--tables 500 2000] [--backend sqlite postgresql] [--profile]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import pstats
import random
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ai import LEVELS  # noqa: E402
from app.bots import BotRunner  # noqa: E402
from app.config import Settings  # noqa: E402
from app.db.match_log import MatchLog  # noqa: E402
from app.db.migrate import scratch_database, upgrade  # noqa: E402
from app.db.repository import Repository  # noqa: E402
from app.db.session import Database  # noqa: E402
from app.db.storage import DatabaseStorage  # noqa: E402
from app.matchlog import LoggedAction, MatchMeta, Owner, Seat, TableMeta  # noqa: E402
from app.storage import StoredMatch  # noqa: E402
from app.tables import Lobby, Table  # noqa: E402
from app.vocabulary import SeatKind  # noqa: E402
from engine import Action, Match, Options  # noqa: E402

START_VERSION = 5  # a table's version when its match starts: seats taken, bots added
FILL_AT_ONCE = 16  # tables logging at the same time while the database is filled


# ---------------------------------------------------------------- filling the log


def cut_match(rng: random.Random, options: Options, seed: int) -> list[tuple[int, Action]]:
    """Random legal (seat, action)s of a match, stopped after 0 to 4 whole deals and
    somewhere in the next one, and always before the match is won: a table the restart
    must bring back."""
    match = Match(options, seed=seed)
    deals, extra = rng.randrange(5), rng.randrange(36)
    played: list[tuple[int, Action]] = []
    while len(match.results) < deals or in_deal(match) < extra:
        seat = match.current_player()
        assert seat is not None
        actions = match.legal_actions()
        action = actions[int(rng.random() * len(actions))]
        match.apply_action(action, seat)
        if match.is_over:  # this action wins it: the table would not be unfinished
            break
        played.append((seat, action))
    return played


def in_deal(match: Match) -> int:
    """Actions taken so far in the deal being played."""
    return 0 if match.deal is None else len(match.deal.history)


def table_meta(rng: random.Random, number: int) -> MatchMeta:
    """What ``Table`` logs at the start of a match: a human at seat 0, bots elsewhere."""
    variant = "bulgarian" if rng.random() < 0.7 else "classic"
    seats = [Seat(SeatKind.HUMAN, f"Guest {number}", f"p{number}")]
    seats += [Seat(SeatKind.BOT, "Bot", level=rng.choice(LEVELS)) for _ in range(3)]
    return MatchMeta(
        variant=variant, seed=rng.getrandbits(63), seats=seats, version=START_VERSION,
        table=TableMeta(name=f"table {number}", turn_seconds=30, private=False,
                        timeout_forfeits=False),
        owner=Owner(id=f"p{number}", name=f"Guest {number}"),
    )


async def log_table(storage: DatabaseStorage, number: int, rng: random.Random) -> int:
    """Log one cut match as a table does; returns the number of actions logged."""
    table_id, meta = f"t{number:05d}", table_meta(rng, number)
    options = meta.match_options()
    await storage.create_match(table_id, meta)
    match = Match(options, seed=meta.seed)
    await log_deal(storage, table_id, match, 0)
    version = START_VERSION
    for seat, action in cut_match(rng, options, meta.seed):
        finished, dealt = len(match.results), len(match.deals)
        place = dealt - 1, in_deal(match)
        match.apply_action(action, seat)
        version += 1
        by = "player" if seat == 0 else "bot"
        await storage.append_action(table_id, *place, LoggedAction(seat, action, by, version))
        for index in range(finished, len(match.results)):
            await storage.finish_deal(table_id, index, match.results[index])
        for index in range(dealt, len(match.deals)):
            await log_deal(storage, table_id, match, index)
    return version - START_VERSION


async def log_deal(storage: DatabaseStorage, table_id: str, match: Match, index: int) -> None:
    deal = match.deals[index]
    await storage.start_deal(table_id, index, deal.dealer, deal.deck)


async def fill(url: str, first: int, count: int) -> tuple[int, float]:
    """Log tables ``first`` .. ``first + count - 1``, a few at a time; (actions, seconds)."""
    db = Database(url)
    storage = DatabaseStorage(db)
    start = time.perf_counter()
    actions = 0
    try:
        for low in range(first, first + count, FILL_AT_ONCE):
            numbers = range(low, min(low + FILL_AT_ONCE, first + count))
            logged = await asyncio.gather(
                *(log_table(storage, n, random.Random(n)) for n in numbers))
            actions += sum(logged)
    finally:
        await db.dispose()
    return actions, time.perf_counter() - start


# ---------------------------------------------------------------- restoring


@dataclass
class Phases:
    """Seconds of one restore, by phase (wall clock, one event loop)."""

    total: float = 0.0
    load: float = 0.0  # the log's queries and rows (Repository.load_unfinished/finished)
    storage_rest: float = 0.0  # the rest of DatabaseStorage.load_*: each match replayed once
    tables: float = 0.0  # Table built, resume (no replay of its own), turn scheduled, indexed


class TimedRepository(Repository):
    """The server's repository, timing its loads."""

    def __init__(self, db: Database, phases: Phases) -> None:
        super().__init__(db)
        self.phases = phases

    async def load_unfinished(self) -> list[MatchLog]:
        with timed(self.phases, "load"):
            return await super().load_unfinished()

    async def load_finished(self, since: datetime) -> list[MatchLog]:
        with timed(self.phases, "load"):
            return await super().load_finished(since)


class TimedStorage(DatabaseStorage):
    """The server's storage, timing its replays and what it hands to the lobby."""

    def __init__(self, db: Database, phases: Phases) -> None:
        super().__init__(db)
        self.repo = TimedRepository(db, phases)
        self.phases = phases

    async def load_unfinished(self) -> list[StoredMatch]:
        with timed(self.phases, "storage_rest"):
            return await super().load_unfinished()

    async def load_finished(self, since: float) -> list[StoredMatch]:
        with timed(self.phases, "storage_rest"):
            return await super().load_finished(since)


@contextmanager
def timed(phases: Phases, name: str) -> Iterator[None]:
    start = time.perf_counter()
    try:
        yield
    finally:
        setattr(phases, name, getattr(phases, name) + time.perf_counter() - start)


def playable(table: Table) -> bool:
    """Back and playable: ``info()`` answers and the turn is on, a bot about to think or
    the human's timer running."""
    table.info()
    return table.status == "playing" and table.turns.pending


async def restore(url: str, settings: Settings, bots: BotRunner, count: int,
                  profile: cProfile.Profile | None = None) -> Phases:
    """One restart's ``Lobby.restore()``, from a fresh database engine, timed by phase."""
    phases = Phases()
    db = Database(url)
    lobby = Lobby(settings.tables, bots, TimedStorage(db, phases))
    try:
        if profile is not None:
            profile.enable()
        start = time.perf_counter()
        await lobby.restore()
        back = sum(playable(t) for t in lobby.tables.values())
        phases.total = time.perf_counter() - start
        if profile is not None:
            profile.disable()
        if back != count:
            raise SystemExit(f"{back} tables of {count} came back playable")
        phases.storage_rest -= phases.load
        phases.tables = phases.total - phases.load - phases.storage_rest
    finally:
        await lobby.stop(timeout=2)
        await db.dispose()
    return phases


def bench_settings() -> Settings:
    """Bots that would wait an hour before acting, so nothing moves while measured."""
    return Settings(bot_delay=3600, bot_processes=1, log_level="warning",
                    secret_key="recovery-bench-secret-0123456789")


async def measure(url: str, count: int, runs: int, profile: bool) -> list[Phases]:
    settings = bench_settings()
    bots = BotRunner(settings.bots)
    try:
        results = [await restore(url, settings, bots, count) for _ in range(runs)]
        if profile:
            profiler = cProfile.Profile()
            await restore(url, settings, bots, count, profiler)
            print_profile(profiler)
    finally:
        await bots.close()
    return results


def print_profile(profiler: cProfile.Profile) -> None:
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("cumulative").print_stats(30)
    stats.sort_stats("tottime").print_stats(20)
    print(out.getvalue())


def report(backend: str, count: int, actions: int, filled: float, runs: list[Phases]) -> None:
    """The median restore, with its own phases (so that they add up to its total)."""
    median = sorted(runs, key=lambda r: r.total)[len(runs) // 2]
    totals = " ".join(f"{r.total:.2f}" for r in runs)
    print(f"{backend} {count} tables ({actions} actions, filled in {filled:.0f} s): "
          f"restore {median.total:.2f} s, the median of {len(runs)} ({totals}), "
          f"{count / median.total:.0f} tables/s")
    for name, what in (("load", "load the logs (queries, rows)"),
                       ("storage_rest", "storage: replay each match once, StoredMatch"),
                       ("tables", "build tables (resume, schedule turn, index)")):
        print(f"  {what:46} {getattr(median, name):6.2f} s")


def run_backend(url: str, backend: str, counts: list[int], runs: int, profile: bool) -> None:
    """Fill up to each count in turn (the smaller log is part of the larger) and measure."""
    upgrade(url)
    logged, actions, filled = 0, 0, 0.0
    for count in sorted(counts):
        more, seconds = asyncio.run(fill(url, logged, count - logged))
        logged, actions, filled = count, actions + more, filled + seconds
        phases = asyncio.run(measure(url, count, runs, profile and count == max(counts)))
        report(backend, count, actions, filled, phases)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, nargs="+", default=[500, 2000])
    parser.add_argument("--backend", nargs="+", choices=("sqlite", "postgresql"),
                        default=["sqlite", "postgresql"])
    parser.add_argument("--postgres", default="postgresql://postgres@127.0.0.1:5432/postgres",
                        help="the server where the scratch database is made")
    parser.add_argument("--runs", type=int, default=3,
                        help="restores per count; the middle one is reported")
    parser.add_argument("--profile", action="store_true",
                        help="one more restore of the largest count under cProfile")
    args = parser.parse_args()
    if "sqlite" in args.backend:
        with tempfile.TemporaryDirectory() as folder:
            url = f"sqlite:///{folder}/belote.db"
            run_backend(url, "sqlite", args.tables, args.runs, args.profile)
    if "postgresql" in args.backend:
        with scratch_database(args.postgres, "belote_recovery") as url:
            run_backend(url, "postgresql", args.tables, args.runs, args.profile)


if __name__ == "__main__":
    main()
