"""The ``analyses`` rows (issue #17): a job's status, progress and result, shared by every
node through the database, so that any node's GET reads what any node's worker wrote."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import case, distinct, func, insert, select, text, update
from sqlalchemy.ext.asyncio import AsyncConnection

from . import models
from .session import Database, StorageError

QUEUED, RUNNING, DONE, FAILED = "queued", "running", "done", "failed"
PENDING = (QUEUED, RUNNING)
# PostgreSQL's advisory lock that new jobs take, one at a time across the cluster.
ADMISSION_LOCK = 1_720_290_029
# Who asked is kept while the job is pending, for the queue's shares: an address is
# personal, and an ended job holds no share.
_FORGET_REQUESTER: dict[str, Any] = {"requested_by": None, "requested_from": None}


@dataclass(frozen=True, slots=True)
class AnalysisRow:
    match_id: str
    status: str
    progress: float
    seed: int
    samples: int
    attempts: int
    result: dict[str, Any] | None
    error: str | None


@dataclass(frozen=True, slots=True)
class Requester:
    """Who asks for a new job: its player (None: no token) and address (None: unknown)."""

    player_id: str | None
    address: str | None


@dataclass(frozen=True, slots=True)
class Held:
    """One requester's pending jobs, and how many requesters of its kind (players, or
    addresses) hold any, itself included if it does."""

    jobs: int
    holders: int


@dataclass(frozen=True, slots=True)
class Pending:
    """The jobs queued or running when a new one is asked for: all of them, and the
    requester's player's and address's (None where the requester has none)."""

    total: int
    player: Held | None
    address: Held | None


Admit = Callable[[Pending], None]  # raises to refuse a new job


def _now() -> datetime:
    return datetime.now(UTC)


_COLUMNS = (models.Analysis.match_id, models.Analysis.status, models.Analysis.progress,
            models.Analysis.seed, models.Analysis.samples, models.Analysis.attempts,
            models.Analysis.result, models.Analysis.error)


async def match_over(db: Database, match_id: str) -> bool | None:
    """Whether the match is over; None if there is no such match."""
    async with db.read() as session:
        row = (await session.execute(select(models.Match.finished_at)
                                     .where(models.Match.id == match_id))).first()
    return None if row is None else row[0] is not None


async def get(db: Database, match_id: str) -> AnalysisRow | None:
    async with db.read() as session:
        row = (await session.execute(
            select(*_COLUMNS).where(models.Analysis.match_id == match_id))).first()
    return None if row is None else AnalysisRow(*row)


async def create(db: Database, match_id: str, seed: int, samples: int, requester: Requester,
                 admit: Admit) -> tuple[AnalysisRow, bool]:
    """The match's job, queued now unless there was one: (its row, whether it is new).
    A new one is counted and inserted in one transaction, one at a time (PostgreSQL: an
    advisory lock, across the cluster; SQLite: its one writer), so that ``admit``, which
    may refuse it, sees every job inserted before it, and requests at once cannot pass
    the queue's bounds together."""
    a = models.Analysis
    async with db.write() as conn:
        if conn.dialect.name == "postgresql":
            await conn.execute(text("SELECT pg_advisory_xact_lock(:key)"),
                               {"key": ADMISSION_LOCK})
        created = await conn.scalar(select(a.match_id).where(a.match_id == match_id)) is None
        if created:
            admit(await _pending(conn, requester))
            await conn.execute(insert(a), {
                "match_id": match_id, "status": QUEUED, "progress": 0.0, "seed": seed,
                "samples": samples, "attempts": 0, "created_at": _now(),
                "requested_by": requester.player_id, "requested_from": requester.address})
    row = await get(db, match_id)
    if row is None:  # deleted with its match meanwhile
        raise StorageError(f"no analysis of {match_id!r} after its insert")
    return row, created


async def _pending(conn: AsyncConnection, requester: Requester) -> Pending:
    """The pending jobs, read by the admitting transaction in one statement."""
    a = models.Analysis
    total, player_jobs, players, address_jobs, addresses = (await conn.execute(select(
        func.count(),
        func.count(case((a.requested_by == requester.player_id, 1))),
        func.count(distinct(a.requested_by)),
        func.count(case((a.requested_from == requester.address, 1))),
        func.count(distinct(a.requested_from)),
    ).select_from(a).where(a.status.in_(PENDING)))).one()
    return Pending(total, None if requester.player_id is None else Held(player_jobs, players),
                   None if requester.address is None else Held(address_jobs, addresses))


async def start(db: Database, match_id: str) -> bool:
    """Mark the job running (one more attempt, from the beginning: progress 0); False if
    it is done, failed or gone."""
    a = models.Analysis
    async with db.write() as conn:
        hit = await conn.execute(
            update(a).where(a.match_id == match_id, a.status.in_(PENDING))
            .values(status=RUNNING, attempts=a.attempts + 1, progress=0.0, started_at=_now()))
    return hit.rowcount > 0


async def set_progress(db: Database, match_id: str, progress: float) -> None:
    a = models.Analysis
    async with db.write() as conn:
        await conn.execute(update(a).where(a.match_id == match_id, a.status == RUNNING)
                           .values(progress=progress))


async def finish(db: Database, match_id: str, result: dict[str, Any]) -> bool:
    """Store the review, unless another worker stored one first: it is stored once."""
    a = models.Analysis
    async with db.write() as conn:
        hit = await conn.execute(
            update(a).where(a.match_id == match_id, a.status.in_(PENDING))
            .values(status=DONE, progress=1.0, result=result, finished_at=_now(),
                    **_FORGET_REQUESTER))
    return hit.rowcount > 0


async def fail(db: Database, match_id: str, error: str) -> None:
    a = models.Analysis
    async with db.write() as conn:
        await conn.execute(update(a).where(a.match_id == match_id, a.status.in_(PENDING))
                           .values(status=FAILED, error=error[:200], finished_at=_now(),
                            **_FORGET_REQUESTER))


async def pending(db: Database) -> list[str]:
    """Jobs queued or running, oldest first: a restarted server takes them up again."""
    a = models.Analysis
    async with db.read() as session:
        rows = await session.scalars(
            select(a.match_id).where(a.status.in_(PENDING)).order_by(a.created_at))
    return list(rows)
