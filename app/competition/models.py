"""What the tournament routes take and answer (docs/protocol.md, "Tournaments")."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from ai import Level
from engine.variants import DEFAULT_VARIANT, Variant

from ..models import FlagValue, Name


class Format(StrEnum):
    SWISS = "swiss"  # each match scored by who won it
    DUPLICATE = "duplicate"  # every table of a round plays the same deals


class Teams(StrEnum):
    FIXED = "fixed"  # an entry is a pair, partners for the whole event
    ROTATING = "rotating"  # an entry is one player; partners change each round


class Status(StrEnum):
    UPCOMING = "upcoming"
    RUNNING = "running"
    FINISHED = "finished"


MAX_ROUNDS, MAX_ENTRIES = 15, 256


class TournamentCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: Name
    variant: Variant = DEFAULT_VARIANT
    options: dict[Annotated[str, Field(max_length=64)], FlagValue] = Field(
        default_factory=dict, max_length=32,
        description="House-rule flags of RULES.md §9, as a table takes them.")
    format: Format = Format.SWISS
    rounds: int = Field(default=3, ge=1, le=MAX_ROUNDS)
    teams: Teams = Teams.FIXED
    rated: bool = Field(default=False, description="Accounts only; the matches are rated.")
    starts_at: datetime | None = Field(
        default=None, description="Started by the server then (with a timezone); without "
        "it, when the director starts it.")
    max_entries: int = Field(default=32, ge=2, le=MAX_ENTRIES)
    turn_seconds: float | None = Field(default=None, ge=1, le=600)
    round_minutes: int = Field(default=60, ge=1, le=600,
                               description="A round's time limit (docs/tournaments.md).")
    bot_level: Level = Field(default=Level.NORMAL,
                             description="The level of the bots the server adds: a lone "
                             "player's partner, a field's filler, a leaver's cover.")


class EntryCreate(BaseModel):
    """Join (nothing: alone, or with a bot partner for fixed pairs), with a ``partner``
    (a player's id), or (the director) a ``bot`` entry of that level."""

    model_config = ConfigDict(extra="forbid")
    partner: Annotated[str, Field(max_length=64)] | None = None
    bot: Level | None = None


class Member(BaseModel):
    """A seat's holder in an entry: a player, or a bot of ``level``."""

    name: str
    player_id: str | None = None
    level: Level | None = None


class EntryOut(BaseModel):
    entry: int
    members: list[Member]
    withdrawn: bool


class RoundTableOut(BaseModel):
    round: int
    index: int
    id: str | None  # the table's id once made (GET /api/tables/{id}, its socket)
    seats: list[int]  # the entry at each seat
    status: str  # waiting (not made yet), playing, over
    totals: list[int]
    winner: int | None
    reason: str | None  # won, forfeit, abandoned, time
    left: list[int]  # seats whose human left during the match (their team lost the round)


class StandingOut(BaseModel):
    rank: int
    entry: int
    points: float
    played: int
    wins: int
    diff: int
    field: float  # duplicate: the score against the field


class TournamentBase(BaseModel):
    """What a list shows of a tournament, and its page too."""

    id: str
    name: str
    variant: str
    format: Format
    teams: Teams
    rated: bool
    status: Status
    round: int
    rounds: int
    max_entries: int
    starts_at: datetime | None
    created_at: datetime


class TournamentOut(TournamentBase):
    options: dict[str, FlagValue]
    round_ends_at: datetime | None
    turn_seconds: float
    round_minutes: int
    bot_level: Level
    director: str
    director_name: str
    finished_at: datetime | None
    entries: list[EntryOut]
    tables: list[RoundTableOut]
    standings: list[StandingOut]


class TournamentSummary(TournamentBase):
    entries: int


class TournamentPage(BaseModel):
    tournaments: list[TournamentSummary]
    next_cursor: int | None  # the offset of the next page


class LeagueLineOut(BaseModel):
    rank: int
    player: str
    name: str | None
    points: int
    matches: int


class Zones(BaseModel):
    promotion: int  # the group's top ranks that go up a division at the season's end
    demotion: int  # its bottom ranks that go down


class LeagueOut(BaseModel):
    season: int | None  # None before the first season opened
    ends_at: datetime | None
    division: int | None  # 1 the top; before a first match: where the caller would start
    divisions: int
    group: list[LeagueLineOut]  # the caller's group, ranked; empty before a first match
    zones: Zones
