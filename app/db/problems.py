"""The ``problems`` rows (issue #35): positions of analysed matches where a decision lost
at least a mistake's worth (made by :mod:`app.problems`), and each player's attempts."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import insert, select, update

from ..problems import Draft
from ..vocabulary import SeatKind
from . import models
from .problem_models import Problem, ProblemAttempt
from .session import Database

_P = Problem
_A = ProblemAttempt


@dataclass(frozen=True, slots=True)
class ProblemRow:
    id: str
    match_id: str
    deal: int
    kind: str
    seat: int
    player_id: str | None
    public: bool
    variant: str
    position: dict[str, Any]
    answer: dict[str, Any]
    played_at: datetime


@dataclass(frozen=True, slots=True)
class Tries:
    """One player's attempts at one problem."""

    attempts: int
    solved: bool


NO_TRIES = Tries(0, False)
_COLUMNS = (_P.id, _P.match_id, _P.deal, _P.kind, _P.seat, _P.player_id, _P.public,
            _P.variant, _P.position, _P.answer, _P.played_at)


async def store(db: Database, match_id: str, drafts: Sequence[Draft]) -> int:
    """Keep the match's problems, each for the player of its seat (a bot's, in a match
    that is not private: for everyone); those kept already stay.  How many are new."""
    m, s = models.Match, models.MatchSeat
    async with db.write() as conn:
        match = (await conn.execute(select(m.variant, m.private, m.finished_at)
                                    .where(m.id == match_id))).first()
        if match is None or match.finished_at is None or not drafts:
            return 0
        seats = {row.seat: row for row in await conn.execute(
            select(s.seat, s.kind, s.player_id).where(s.match_id == match_id))}
        kept = set(await conn.scalars(select(_P.id).where(_P.id.in_([d.id for d in drafts]))))
        new = []
        for d in drafts:
            seat = seats.get(d.seat)
            if d.id in kept or seat is None:
                continue
            bot = seat.kind == SeatKind.BOT
            new.append({"id": d.id, "match_id": match_id, "deal": d.deal, "step": d.step,
                        "kind": d.kind, "seat": d.seat,
                        "player_id": None if bot else seat.player_id,
                        "public": bot and not match.private, "variant": match.variant,
                        "position": d.position, "answer": d.answer,
                        "played_at": match.finished_at})
        if new:
            await conn.execute(insert(_P), new)
    return len(new)


async def page(db: Database, *, player_id: str | None, limit: int, offset: int
               ) -> list[ProblemRow]:
    """Newest first: the player's own problems, or (``player_id`` None) the public set."""
    where = _P.player_id == player_id if player_id is not None else _P.public.is_(True)
    async with db.read() as session:
        rows = await session.execute(select(*_COLUMNS).where(where)
                                     .order_by(_P.played_at.desc(), _P.id)
                                     .limit(limit).offset(offset))
        return [ProblemRow(*row) for row in rows]


async def get(db: Database, problem_id: str) -> ProblemRow | None:
    async with db.read() as session:
        row = (await session.execute(select(*_COLUMNS).where(_P.id == problem_id))).first()
    return None if row is None else ProblemRow(*row)


async def tries(db: Database, player_id: str, problem_ids: Sequence[str]
                ) -> dict[str, Tries]:
    """The player's attempts at each of the problems it tried."""
    if not problem_ids:
        return {}
    async with db.read() as session:
        rows = await session.execute(select(_A.problem_id, _A.attempts, _A.solved).where(
            _A.player_id == player_id, _A.problem_id.in_(problem_ids)))
        return {row.problem_id: Tries(row.attempts, row.solved) for row in rows}


async def attempt(db: Database, problem_id: str, player_id: str, right: bool) -> Tries:
    """Count one attempt.  The problem's row is locked meanwhile (PostgreSQL; SQLite has
    one writer), so that two attempts at once both count."""
    now = datetime.now(UTC)
    async with db.write() as conn:
        await conn.execute(select(_P.id).where(_P.id == problem_id).with_for_update())
        hit = await conn.execute(
            update(_A).where(_A.problem_id == problem_id, _A.player_id == player_id)
            .values(attempts=_A.attempts + 1, last_at=now, **({"solved": True} if right else {}))
            .returning(_A.attempts, _A.solved))
        row = hit.first()
        if row is not None:
            return Tries(row.attempts, row.solved)
        await conn.execute(insert(_A), {"problem_id": problem_id, "player_id": player_id,
                                        "attempts": 1, "solved": right, "last_at": now})
    return Tries(1, right)
