"""What the handlers of a table's commands see of it, so that they import nothing back
from :mod:`.table`: the actor imports the handlers, never the other way round."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from engine import Action, Match

from ..auth import Player
from ..events import Event
from ..models import Forfeit, RatingChangeOut, TablePublic
from ..vocabulary import Actor, TableStatus
from .audience import Audience
from .chat import Chat
from .commands import Command
from .config import Joinable, Services, TableConfig
from .journal import Journal, Write
from .seats import Seat
from .turns import Turns


@dataclass(frozen=True, slots=True)
class Held:
    """An accepted action whose log write failed: applied once the write succeeds, and
    answered then to the player who sent it (``reply``: the player's id and action id),
    on whichever socket the player has by then."""

    seat: int
    action: Action
    by: Actor
    reply: tuple[str, str] | None


class TableContext(Protocol):
    """A table as the handlers of its commands see it (:mod:`.handlers`): what they read
    and change, and the steps of its life they take (:class:`.table.Table`, the one
    implementation, tells each).  They run on its actor, one command at a time."""

    # What the table is, and its parts.
    id: str
    config: TableConfig
    owner: Player
    services: Services
    audience: Audience
    chat: Chat
    turns: Turns
    journal: Journal

    # Its state, which the handlers change.
    seats: list[Seat]
    match: Match | None
    status: TableStatus
    version: int
    forfeit: Forfeit | None
    held: Held | None  # the action whose log write waits
    rematch: Joinable | None
    rating_changes: list[RatingChangeOut] | None
    ratings_due: bool

    # Its life.
    @property
    def moving(self) -> bool: ...

    def info(self) -> TablePublic: ...

    def post(self, command: Command) -> None: ...

    def changed(self, event: Event) -> TablePublic: ...

    async def write(self, write: Write) -> bool: ...

    async def log_deal(self, index: int) -> None: ...

    async def start(self) -> TablePublic: ...

    async def finish(self) -> None: ...

    async def close(self, reason: str) -> None: ...

    def let_go(self) -> None: ...
