"""Players' tallies: counters per player and variant, grown in the transaction that ends a
match, so that a player's stats and record with and against the bots are read from a few
rows however long their history (docs/ratings.md, "At scale").  Migration 0007 filled
them from the history that was there before.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncConnection

from engine.scoring import FAILED, HANGING, MADE

from ..vocabulary import SeatKind
from . import models
from .match_end import MatchEnded
from .session import dialect_insert

CONTRACTS = {MADE: "contracts_made", FAILED: "contracts_failed", HANGING: "contracts_hanging"}


async def tally_match(conn: AsyncConnection, ended: MatchEnded) -> None:
    """Count a match that ``conn``'s transaction is closing (a subscriber to its end:
    :mod:`app.db.match_end`) in each of its players' tallies."""
    d = models.Deal
    contracts = Counter((bidder, outcome) for bidder, outcome in await conn.execute(
        select(d.bidder, d.outcome).where(d.match_id == ended.match_id,
                                          d.outcome.in_(CONTRACTS))))
    key = {"variant": ended.variant, "private": ended.private}
    for seat, sitting in enumerate(ended.seats):
        if sitting.player_id is None:
            continue
        team = seat % 2
        won = int(ended.end.winner == team)
        own, other = ended.end.totals if team == 0 else ended.end.totals[::-1]
        await _add(conn, models.PlayerTally, {
            "player_id": sitting.player_id, **key, "matches": 1, "wins": won,
            "points_for": own, "points_against": other,
            **{column: contracts[seat, outcome] for outcome, column in CONTRACTS.items()}})
        sides = {(bot.level.value, "with" if i % 2 == team else "against")
                 for i, bot in enumerate(ended.seats)
                 if bot.kind == SeatKind.BOT and bot.level is not None}
        for level, side in sorted(sides):
            await _add(conn, models.BotTally, {
                "player_id": sitting.player_id, **key, "level": level, "side": side,
                "played": 1, "won": won})


async def _add(conn: AsyncConnection, model: Any, row: dict[str, Any]) -> None:
    """Insert the row, or add its counts to the row already there."""
    table = model.__table__
    keys = [c.name for c in table.primary_key]
    stmt = dialect_insert(conn)(table).values(**row)
    await conn.execute(stmt.on_conflict_do_update(
        index_elements=keys,
        set_={k: table.c[k] + stmt.excluded[k] for k in row if k not in keys}))
