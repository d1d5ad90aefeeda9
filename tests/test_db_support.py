"""Shared fixtures and helpers of the database tests (this module holds no test itself).

Every storage test runs on SQLite and on PostgreSQL.  PostgreSQL is the server of
``BELOTE_TEST_POSTGRES`` (tests/services.py); each test session creates a database of its
own there, migrated to head, and drops it at the end.  An unreachable server fails the
run: it is never skipped.  The PostgreSQL half of each test carries the ``postgres``
marker, so that ``make test-fast`` runs the SQLite half alone (docs/testing.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pytest
from sqlalchemy import delete

from ai import Level
from app.db import models
from app.db.migrate import scratch_database, upgrade
from app.db.repository import Repository
from app.db.session import Database
from app.matchlog import LoggedAction, MatchEnd, Seat
from app.vocabulary import EndReason, SeatKind
from engine import Action, Match, Options, parse_action, write_record
from tests.migrated import migrated_database
from tests.services import postgres_url

PG_SERVER = postgres_url()
BACKENDS = ("sqlite", pytest.param("postgresql", marks=pytest.mark.postgres))
T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T]) -> T:
    """Run one test's coroutine on a loop of its own (engines are made inside it)."""
    return asyncio.run(coro)


@contextlib.asynccontextmanager
async def opened(url: str) -> AsyncIterator[Database]:
    """A database of its own for a test's few reads or writes, disposed after."""
    db = Database(url)
    try:
        yield db
    finally:
        await db.dispose()


@pytest.fixture(scope="session")
def migrated_sqlite(tmp_path_factory: pytest.TempPathFactory) -> str:
    """One SQLite file for the session, migrated to head."""
    url = f"sqlite:///{tmp_path_factory.mktemp('db') / 'belote.db'}"
    upgrade(url)
    return url


@pytest.fixture(scope="session")
def migrated_postgresql() -> Iterator[str]:
    """One PostgreSQL database for the session, migrated to head."""
    with migrated_database(PG_SERVER, "belote_test") as url:
        yield url


@pytest.fixture(scope="session")
def migrated_urls(migrated_sqlite: str, migrated_postgresql: str) -> dict[str, str]:
    """Both, by backend."""
    return {"sqlite": migrated_sqlite, "postgresql": migrated_postgresql}


async def _empty(url: str) -> None:
    async with opened(url) as db, db.write() as conn:
        for table in (models.Action, models.Deal, models.MatchSeat, models.Match,
                      models.Player):
            await conn.execute(delete(table))


@pytest.fixture(params=BACKENDS)
def empty_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A database nobody has migrated yet (its directory missing, for SQLite)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'data' / 'belote.db'}"
        return
    with scratch_database(PG_SERVER, "belote_test") as url:
        yield url


@pytest.fixture(params=BACKENDS)
def db_url(request: pytest.FixtureRequest) -> str:
    """The URL of an empty, migrated database: SQLite, then PostgreSQL (only then made)."""
    url: str = request.getfixturevalue(f"migrated_{request.param}")
    run(_empty(url))
    return url


SEATS = (
    Seat(SeatKind.HUMAN, "Ana", "p-ana"),
    Seat(SeatKind.BOT, "Bot", level=Level.HARD),
    Seat(SeatKind.HUMAN, "Ivo", "p-ivo"),
    Seat(SeatKind.BOT, "Bot", level=Level.EASY),
)


@dataclass
class LiveMatch:
    """An engine match played with random legal actions, logged as a table would."""

    id: str
    match: Match
    seats: tuple[Seat, ...] = SEATS

    def record(self, repo_record: dict[str, Any]) -> dict[str, Any]:
        """The live match's record with the stored record's extra keys, for comparing."""
        extra = {k: v for k, v in repo_record.items()
                 if k in ("id", "seats", "started_at", "finished_at")}
        return write_record(self.match, **extra)


async def play_logged(
    repo: Repository,
    match_id: str,
    options: Options,
    seed: int,
    *,
    stop_after: int | None = None,
    choose: Callable[[Match, random.Random], Action] = lambda m, rng: rng.choice(
        m.legal_actions()),
    seats: Sequence[Seat] = SEATS,
) -> LiveMatch:
    """Play a whole match (or ``stop_after`` actions), logging everything as it happens;
    ``choose`` picks each action (a random legal one unless a test needs some other)."""
    rng = random.Random(seed)
    match = Match(options, seed=seed, auto_deal=False)
    await repo.create_match(match_id, options.variant, options.changed(), seats)
    played = 0
    while not match.is_over and (stop_after is None or played < stop_after):
        deal = match.start_deal()
        index = len(match.deals) - 1
        await repo.start_deal(match_id, index, deal.dealer, deal.deck)
        while not deal.is_over and (stop_after is None or played < stop_after):
            seat = match.current_player()
            assert seat is not None
            action = choose(match, rng)
            seq = len(deal.history)
            match.apply_action(action, seat)
            await repo.append_action(match_id, index, seq, LoggedAction(seat, action, "bot"))
            played += 1
        if deal.is_over:
            await repo.finish_deal(match_id, index, match.results[index])
    if match.is_over:
        await repo.finish_match(match_id, MatchEnd(EndReason.WON, match.totals, match.winner))
    return LiveMatch(match_id, match)


def pass_the_first_deal(match: Match, rng: random.Random) -> Action:
    """Everyone passes the first deal (thrown in), then random legal play."""
    first = len(match.deals) == 1
    return parse_action("pass") if first else rng.choice(match.legal_actions())
