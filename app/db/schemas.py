"""What the history API returns: pydantic models, kept apart from the ORM models."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field


class SeatOut(BaseModel):
    seat: int
    kind: str = Field(description="human or bot.")
    name: str
    player_id: str | None = None
    level: str | None = Field(default=None, description="A bot's level.")


class MatchSummary(BaseModel):
    id: str
    variant: str
    started_at: datetime
    finished_at: datetime | None
    end_reason: str | None = Field(description="won, forfeit or abandoned; null while on.")
    totals: tuple[int, int]
    winner: int | None = Field(description="The winning team (seats 0 and 2 are team 0).")
    seats: list[SeatOut]


class MatchPage(BaseModel):
    items: list[MatchSummary]
    next_cursor: str | None = Field(description="Pass as `cursor` for the next page.")


class DealOut(BaseModel):
    """A deal's result: RECORD.md's per-deal replay object, with its place and times."""

    index: int
    dealer: int
    started_at: datetime
    finished_at: datetime | None
    outcome: str | None = Field(default=None, description="null while the deal is on.")
    contract: str | None = None
    bidder: int | None = None
    multiplier: int | None = None
    card_points: tuple[int, int] | None = None
    declarations: tuple[int, int] | None = None
    belot: tuple[int, int] | None = None
    valat: int | None = None
    score: tuple[int, int] | None = None
    hanging: int | None = None
    value: int | None = Field(default=None, description="Coinche: the bid's value; "
                              "`contract` names the bid (`120H`, `capotS`).")


class MatchDetail(MatchSummary):
    options: dict[str, Any] = Field(description="The flags that differ from the defaults.")
    deals: list[DealOut]


class VariantStats(BaseModel):
    variant: str
    matches: int = Field(description="Finished matches played.")
    wins: int
    points_for: int = Field(description="Final match points of the player's team, summed.")
    points_against: int
    contracts_made: int = Field(description="Deals the player bid and made.")
    contracts_failed: int
    contracts_hanging: int


class PlayerStats(BaseModel):
    id: str
    name: str
    created_at: datetime
    by_variant: list[VariantStats]
