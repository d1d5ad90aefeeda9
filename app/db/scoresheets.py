"""The ``scoresheets`` rows (issue #35): a score keeper's sheets and the deal summaries
entered on them.  Scoring is not stored: :mod:`app.scoresheets` scores a sheet's summaries
again with the engine whenever it is read."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import delete, insert, select
from sqlalchemy.ext.asyncio import AsyncConnection

from . import models
from .session import Database


@dataclass(frozen=True, slots=True)
class SheetRow:
    id: str
    owner_id: str
    variant: str
    options: dict[str, Any]
    names: list[str]
    created_at: datetime
    summaries: list[dict[str, Any]]  # the deals as entered, in order


Check = Callable[[SheetRow], dict[str, Any]]  # a new deal's summary to store; raises to refuse


def _now() -> datetime:
    return datetime.now(UTC)


async def create(db: Database, sheet_id: str, owner_id: str, variant: str,
                 options: dict[str, Any], names: list[str]) -> SheetRow:
    row = SheetRow(sheet_id, owner_id, variant, options, names, _now(), [])
    async with db.write() as conn:
        await conn.execute(insert(models.ScoreSheet), {
            "id": sheet_id, "owner_id": owner_id, "variant": variant, "options": options,
            "names": names, "created_at": row.created_at})
    return row


async def get(db: Database, sheet_id: str, owner_id: str) -> SheetRow | None:
    """The owner's sheet with its deals; None for another player's or no sheet."""
    async with db.read() as session:
        conn = await session.connection()
        return await _read(conn, sheet_id, owner_id, lock=False)


async def add_deal(db: Database, sheet_id: str, owner_id: str, check: Check) -> SheetRow | None:
    """Append the summary ``check`` makes of the sheet as it is (None: no such sheet).  The
    sheet's row is locked meanwhile (PostgreSQL; SQLite has one writer), so that two
    entries at once are checked one after the other, each against the deals before it."""
    async with db.write() as conn:
        sheet = await _read(conn, sheet_id, owner_id, lock=True)
        if sheet is None:
            return None
        summary = check(sheet)
        await conn.execute(insert(models.ScoreSheetDeal), {
            "sheet_id": sheet_id, "number": len(sheet.summaries), "summary": summary,
            "created_at": _now()})
    return SheetRow(**{**_fields(sheet), "summaries": [*sheet.summaries, summary]})


async def drop_last(db: Database, sheet_id: str, owner_id: str) -> SheetRow | None:
    """The sheet without its last deal (an entry taken back); None: no such sheet."""
    async with db.write() as conn:
        sheet = await _read(conn, sheet_id, owner_id, lock=True)
        if sheet is None or not sheet.summaries:
            return sheet
        d = models.ScoreSheetDeal
        await conn.execute(delete(d).where(d.sheet_id == sheet_id,
                                           d.number == len(sheet.summaries) - 1))
    return SheetRow(**{**_fields(sheet), "summaries": sheet.summaries[:-1]})


async def list_of(db: Database, owner_id: str, limit: int) -> list[SheetRow]:
    """The owner's newest sheets with their deals, newest first."""
    s, d = models.ScoreSheet, models.ScoreSheetDeal
    async with db.read() as session:
        sheets = (await session.execute(
            select(s.id, s.owner_id, s.variant, s.options, s.names, s.created_at)
            .where(s.owner_id == owner_id).order_by(s.created_at.desc(), s.id.desc())
            .limit(limit))).all()
        ids = [row.id for row in sheets]
        deals: dict[str, list[dict[str, Any]]] = {i: [] for i in ids}
        for sheet_id, summary in await session.execute(
                select(d.sheet_id, d.summary).where(d.sheet_id.in_(ids))
                .order_by(d.sheet_id, d.number)):
            deals[sheet_id].append(summary)
    return [_sheet(row, deals[row.id]) for row in sheets]


async def _read(conn: AsyncConnection, sheet_id: str, owner_id: str,
                lock: bool) -> SheetRow | None:
    s, d = models.ScoreSheet, models.ScoreSheetDeal
    query = select(s.id, s.owner_id, s.variant, s.options, s.names, s.created_at).where(
        s.id == sheet_id, s.owner_id == owner_id)
    row = (await conn.execute(query.with_for_update() if lock else query)).first()
    if row is None:
        return None
    summaries = (await conn.scalars(
        select(d.summary).where(d.sheet_id == sheet_id).order_by(d.number))).all()
    return _sheet(row, list(summaries))


def _sheet(row: Any, summaries: list[dict[str, Any]]) -> SheetRow:
    return SheetRow(row.id, row.owner_id, row.variant, row.options, row.names, row.created_at,
                    summaries)


def _fields(sheet: SheetRow) -> dict[str, Any]:
    return {f: getattr(sheet, f) for f in SheetRow.__slots__}
