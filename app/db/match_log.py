"""A match's log as the database keeps it, read back: for a restart (recovery), the
record and replay of a finished match, and its deals' results (docs/storage.md)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from ai import Level
from engine import Match, Options, write_record
from engine.scoring import REDEAL, DealResult

from ..matchlog import DealLog, LoggedAction, Seat, parse_deck, replay
from ..vocabulary import SeatKind
from . import models


@dataclass(slots=True)
class MatchLog:
    """A match as stored: its row, seats, deals and each deal's actions in order."""

    match: models.Match
    seats: list[Seat]
    deals: list[models.Deal] = field(default_factory=list)
    actions: list[list[LoggedAction]] = field(default_factory=list)  # per deal

    def options(self) -> Options:
        """The match's options: the row keeps only the flags that differ."""
        return Options.make(self.match.variant, **self.match.options)

    def public_deals(self) -> int:
        """How many deals, from the first, anyone may see (docs/storage.md, Hidden cards).

        Not a deal in progress: its deck shows every hand, its announcements cards not yet
        played.  Nor, in a cut-only match still on, the thrown-in deals just before it: its
        deck is a cut of theirs, which nobody saw, so matching one's own cards against the
        cuts of a published one would tell every hand.
        """
        shown = 0
        while shown < len(self.deals) and self.deals[shown].outcome is not None:
            shown += 1
        if self.match.finished_at is None and not self.options().reshuffle_each_deal:
            while shown and self.deals[shown - 1].outcome == REDEAL:
                shown -= 1
        return shown

    def replay(self, *, public: bool = False, seed: int | None = None) -> Match:
        """The engine match the log describes, every action checked (RecordError if not).

        ``public`` keeps only the :meth:`public_deals`, still a record that replays;
        ``seed`` goes on from the log as the table would (:func:`app.matchlog.replay`).
        """
        shown = self.public_deals() if public else len(self.deals)
        deals = [DealLog(row.dealer, parse_deck(row.deck), actions)
                 for row, actions in zip(self.deals[:shown], self.actions[:shown], strict=True)]
        return replay(self.options(), deals, seed=seed)

    def record(self, *, public: bool = False) -> dict[str, Any]:
        """The ``belote-record/1`` document, with id, seats and times as extra keys."""
        extra: dict[str, Any] = {
            "id": self.match.id,
            "seats": [s.record_entry() for s in self.seats],
            "started_at": self.match.started_at.isoformat(),
        }
        if self.match.finished_at is not None:
            extra["finished_at"] = self.match.finished_at.isoformat()
        return write_record(self.replay(public=public), **extra)


async def load_logs(session: AsyncSession, match_ids: Sequence[str]) -> list[MatchLog]:
    """The logs of ``match_ids`` (unknown ids left out), in the order given, in four queries.

    The queries need not share a snapshot (SQLite's reads and PostgreSQL's READ COMMITTED
    see each statement's own), and a table may write meanwhile: the deals are read before
    the actions, and the actions of a deal begun in between are left out: what is read is
    a prefix of the log, which replays (a deal read as on may have more actions than it
    had when read, never fewer)."""
    if not match_ids:
        return []
    rows = await session.scalars(select(models.Match).where(models.Match.id.in_(match_ids)))
    logs = {m.id: MatchLog(m, []) for m in rows}
    seats = await session.scalars(
        select(models.MatchSeat)
        .where(models.MatchSeat.match_id.in_(logs))
        .order_by(models.MatchSeat.match_id, models.MatchSeat.seat)
    )
    for s in seats:
        logs[s.match_id].seats.append(seat_of(s.kind, s.name, s.player_id, s.level))
    deals = await session.scalars(
        select(models.Deal)
        .where(models.Deal.match_id.in_(logs))
        .order_by(models.Deal.match_id, models.Deal.idx)
    )
    for d in deals:
        logs[d.match_id].deals.append(d)
        logs[d.match_id].actions.append([])
    a = models.Action
    logged = await session.execute(
        select(a.match_id, a.deal_idx, a.seat, a.action, a.actor, a.version)
        .where(a.match_id.in_(logs))
        .order_by(a.match_id, a.deal_idx, a.seq)
    )
    for match_id, deal_idx, seat, action, actor, version in logged:
        actions = logs[match_id].actions
        if deal_idx < len(actions):
            actions[deal_idx].append(LoggedAction(seat, action, actor, version))
    return [logs[i] for i in match_ids if i in logs]


def seat_of(kind: str, name: str, player_id: str | None, level: str | None) -> Seat:
    """Who sat at a seat, from its ``match_seats`` row's columns."""
    return Seat(SeatKind(kind), name, player_id, None if level is None else Level(level))


def row_result(row: models.Deal) -> DealResult | None:
    """The DealResult a ``deals`` row holds, None while the deal is on."""
    if row.outcome is None:
        return None
    return DealResult(
        row.outcome, row.contract, row.bidder, row.multiplier,
        _pair(row.card_points0, row.card_points1), _pair(row.declarations0, row.declarations1),
        _pair(row.belot0, row.belot1), row.valat, _pair(row.score0, row.score1),
        row.hanging or 0, row.value,
    )


def _pair(a: int | None, b: int | None) -> tuple[int, int]:
    return (a or 0, b or 0)
