"""What a table's actor is asked to do, one frozen dataclass a command, applied in order.

The web layer sends the players' commands; the table posts itself the others, from its
timers, its bots' decisions and its storage retries.
"""

from __future__ import annotations

from dataclasses import dataclass

from ai import Level
from engine import Action

from ..auth import Player
from ..vocabulary import Actor, TableStatus
from .clients import Client

# ------------------------------------------------------------------ from players


@dataclass(frozen=True, slots=True)
class SitDown:
    player: Player
    seat: int
    # The player's socket is on its way (a table started at once, as play now's): until
    # it is there, the seat's turns wait on the turn timer, not on a cover bot.
    arriving: bool = False


@dataclass(frozen=True, slots=True)
class LeaveSeat:
    player: Player
    seat: int


@dataclass(frozen=True, slots=True)
class AddBot:
    player: Player
    seat: int
    level: Level


@dataclass(frozen=True, slots=True)
class RemoveBot:
    player: Player
    seat: int


@dataclass(frozen=True, slots=True)
class StartMatch:
    player: Player
    # A table the server runs (a tournament's round, app/competition/): it may start with
    # bots alone, since its result counts.  Never set from a request.
    house: bool = False


@dataclass(frozen=True, slots=True)
class Rematch:
    player: Player


@dataclass(frozen=True, slots=True)
class Attach:
    client: Client


@dataclass(frozen=True, slots=True)
class Detach:
    client: Client


@dataclass(frozen=True, slots=True)
class PlayAction:
    client: Client
    id: str
    version: int
    action: str


@dataclass(frozen=True, slots=True)
class Say:
    """A chat message: a quick phrase's id or free text (app/tables/chat.py)."""

    client: Client
    text: str | None
    phrase: str | None


@dataclass(frozen=True, slots=True)
class TakeBack:
    """The player asks to play again after the timer handed the seat to a bot."""

    client: Client


# ------------------------------------------------------------------ from the table itself


@dataclass(frozen=True, slots=True)
class BotMove:
    version: int
    seat: int
    action: Action
    by: Actor


@dataclass(frozen=True, slots=True)
class TurnTimeout:
    version: int
    seat: int


@dataclass(frozen=True, slots=True)
class GraceOver:
    player: Player
    seat: int


@dataclass(frozen=True, slots=True)
class LoadRatings:
    """Read the seats' ratings again (a table rebuilt after a restart, a takeover or a
    hand-over) and, once a rated match is over, its rating changes: told to everyone
    with ``announce`` (the match just ended here)."""

    announce: bool = False


@dataclass(frozen=True, slots=True)
class LoadBlocks:
    """Read again who of the seated players blocks whom: a block made or lifted while
    they sit here takes effect on the chat at once (app/community/apart.py)."""


@dataclass(frozen=True, slots=True)
class Logged:
    """The retry task has written everything the storage refused: the table goes on."""


@dataclass(frozen=True, slots=True)
class Stop:
    """Server shutdown: the commands queued before this one are the last handled."""


@dataclass(frozen=True, slots=True)
class Expire:
    """Close the table if it is still ``status``: a match never started, or long finished."""

    status: TableStatus


@dataclass(frozen=True, slots=True)
class Moved:
    """Another node of the cluster holds the table now (docs/cluster.md): let it go here."""


Command = (
    SitDown | LeaveSeat | AddBot | RemoveBot | StartMatch | Rematch | Attach | Detach | PlayAction
    | Say | TakeBack | BotMove | TurnTimeout | GraceOver | Logged | Expire | Moved | Stop
    | LoadRatings | LoadBlocks
)
