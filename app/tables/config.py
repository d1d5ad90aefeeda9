"""What a table is made with: its own settings, and the services all tables share."""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any, Protocol

from engine import Options

from ..auth import Player
from ..bots import BotRunner
from ..matchlog import TableMeta
from ..models import RatingChangeOut, RatingView, TablePublic
from ..sections import TableSettings
from ..storage import Storage
from ..vocabulary import BotPace, TableStatus
from .clock import Clock, LoopClock
from .commands import Command
from .seats import Seat


@dataclass(frozen=True, slots=True)
class TableConfig:
    name: str
    options: Options
    turn_seconds: float
    private: bool
    timeout_forfeits: bool
    spectator_chat: bool = True  # spectators read the players' chat (app/tables/chat.py)
    rated: bool = False  # accounts only; the result changes ratings (docs/ratings.md)
    bot_pace: BotPace = BotPace.NORMAL  # the creator's choice: how long bots wait to move
    # Its players alone watch it: a duplicate round's table, whose deals the round's other
    # tables play too (docs/tournaments.md, "No deck learned early").
    seated_only: bool = False

    def meta(self) -> TableMeta:
        """The settings as the match log keeps them, for a restart."""
        return TableMeta(name=self.name, turn_seconds=self.turn_seconds, private=self.private,
                         timeout_forfeits=self.timeout_forfeits,
                         spectator_chat=self.spectator_chat, rated=self.rated,
                         bot_pace=self.bot_pace, seated_only=self.seated_only)

    @classmethod
    def of(cls, meta: TableMeta, options: Options) -> TableConfig:
        """The settings a logged (or parked) table had."""
        return cls(meta.name, options, meta.turn_seconds, meta.private, meta.timeout_forfeits,
                   meta.spectator_chat, meta.rated, meta.bot_pace, meta.seated_only)


class Ratings(Protocol):
    """What tables read of ratings (app/db/ratings.py's RatingStore).  Both may raise
    StorageError; the match's rating update itself is the storage's, at its end."""

    async def seat(self, player_id: str, variant: str) -> RatingView | None:
        """The player's rating in ``variant``; None for a guest."""
        ...

    async def changes(self, match_id: str) -> list[RatingChangeOut]: ...


class Blocks(Protocol):
    """Who must not read whom (app/db/social.py's blocks).  May raise StorageError."""

    async def apart(self, player_ids: Collection[str]) -> set[frozenset[str]]:
        """The pairs among ``player_ids`` of whom one blocks the other."""
        ...


class Joinable(Protocol):
    """A new table as the finished one whose players it takes sees it (a rematch)."""

    id: str
    status: TableStatus
    seats: list[Seat]

    def info(self) -> TablePublic: ...

    async def submit(self, command: Command) -> Any: ...


@dataclass(frozen=True, slots=True)
class Services:
    """What tables share: settings, the bot executors, storage, the lobby's index, and
    the clock their timers run on."""

    settings: TableSettings
    bots: BotRunner
    storage: Storage
    discard: Callable[[str], None]
    create: Callable[[Player, TableConfig], Joinable]  # the lobby's, for rematches
    clock: Clock = field(default_factory=LoopClock)
    ratings: Ratings | None = None  # None: no database to read them from (some tests)
    blocks: Blocks | None = None  # None: nobody blocks anybody (no database)
