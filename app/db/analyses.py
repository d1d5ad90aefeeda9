"""The ``analyses`` rows (issue #17): a job's status, progress and result, shared by every
node through the database, so that any node's GET reads what any node's worker wrote."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import func, insert, select, update

from . import models
from .session import Database, StorageError

QUEUED, RUNNING, DONE, FAILED = "queued", "running", "done", "failed"
PENDING = (QUEUED, RUNNING)


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


async def create(db: Database, match_id: str, seed: int,
                 samples: int) -> tuple[AnalysisRow, bool]:
    """The match's job, queued now unless there was one: (its row, whether it is new).
    Two requests at once insert one row: the key decides, the loser reads the winner's."""
    try:
        async with db.write() as conn:
            await conn.execute(insert(models.Analysis), {
                "match_id": match_id, "status": QUEUED, "progress": 0.0, "seed": seed,
                "samples": samples, "attempts": 0, "created_at": _now()})
        created = True
    except StorageError:
        created = False
    row = await get(db, match_id)
    if row is None:  # the insert was refused for another reason than the key
        raise StorageError(f"no analysis of {match_id!r} after its insert")
    return row, created


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
            .values(status=DONE, progress=1.0, result=result, finished_at=_now()))
    return hit.rowcount > 0


async def fail(db: Database, match_id: str, error: str) -> None:
    a = models.Analysis
    async with db.write() as conn:
        await conn.execute(update(a).where(a.match_id == match_id, a.status.in_(PENDING))
                           .values(status=FAILED, error=error[:200], finished_at=_now()))


async def count_pending(db: Database) -> int:
    a = models.Analysis
    async with db.read() as session:
        return int(await session.scalar(
            select(func.count()).select_from(a).where(a.status.in_(PENDING))) or 0)


async def pending(db: Database) -> list[str]:
    """Jobs queued or running, oldest first: a restarted server takes them up again."""
    a = models.Analysis
    async with db.read() as session:
        rows = await session.scalars(
            select(a.match_id).where(a.status.in_(PENDING)).order_by(a.created_at))
    return list(rows)
