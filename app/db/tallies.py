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

from . import models

CONTRACTS = {MADE: "contracts_made", FAILED: "contracts_failed", HANGING: "contracts_hanging"}


async def tally_match(conn: AsyncConnection, match_id: str, insert: Any) -> None:
    """Count a match that ``conn``'s transaction is closing (called once per match: by the
    write that set its end) in each of its players' tallies.  ``insert``: the dialect's,
    with ``on_conflict_do_update``."""
    m, s, d = models.Match, models.MatchSeat, models.Deal
    variant, private, winner, total0, total1 = (await conn.execute(
        select(m.variant, m.private, m.winner, m.total0, m.total1).where(m.id == match_id)
    )).one()
    seats = (await conn.execute(select(s.seat, s.player_id, s.kind, s.level)
                                .where(s.match_id == match_id))).all()
    contracts = Counter((bidder, outcome) for bidder, outcome in await conn.execute(
        select(d.bidder, d.outcome).where(d.match_id == match_id, d.outcome.in_(CONTRACTS))))
    key = {"variant": variant, "private": private}
    for seat, player, _, _ in seats:
        if player is None:
            continue
        team = seat % 2
        won = int(winner == team)
        own, other = (total0, total1) if team == 0 else (total1, total0)
        await _add(conn, insert, models.PlayerTally, {
            "player_id": player, **key, "matches": 1, "wins": won, "points_for": own,
            "points_against": other,
            **{column: contracts[seat, outcome] for outcome, column in CONTRACTS.items()}})
        sides = {(level, "with" if bot % 2 == team else "against")
                 for bot, _, kind, level in seats if kind == "bot" and level is not None}
        for level, side in sorted(sides):
            await _add(conn, insert, models.BotTally, {
                "player_id": player, **key, "level": level, "side": side, "played": 1,
                "won": won})


async def _add(conn: AsyncConnection, insert: Any, model: Any, row: dict[str, Any]) -> None:
    """Insert the row, or add its counts to the row already there."""
    table = model.__table__
    keys = [c.name for c in table.primary_key]
    stmt = insert(table).values(**row)
    await conn.execute(stmt.on_conflict_do_update(
        index_elements=keys,
        set_={k: table.c[k] + stmt.excluded[k] for k in row if k not in keys}))
