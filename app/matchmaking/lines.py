"""The queue's model: a player's :class:`Entry`, the line it waits in (:func:`line`), how
long each state lasts, and the rule that makes groups of those waiting (:func:`groups`).
Both stores keep entries so and follow the rule (the Redis one in its script)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from engine.variants import VARIANTS

from ..auth import Player

ALIVE = 15.0  # seconds a waiting player stays in the queue without asking how it stands
FORMING_TTL = 30.0  # seconds a popped entry may wait for its table (its node may die)
SETTLED_TTL = 600.0  # seconds a player can still read which table they were seated at
GROUP = 4  # players at a table

Status = Literal["waiting", "forming", "seated", "failed"]


class Entry(BaseModel):
    """A player in the queue, as either store keeps it (JSON in Redis).  Times are
    the clock's (epoch seconds).  ``forming``: popped, its table being made."""

    player_id: str
    name: str
    address: str | None = None
    variant: str
    rated: bool = False  # rated players wait in a line of their own (accounts only)
    since: float
    deadline: float  # bots fill the empty seats from then on
    seen: float  # the player's last join or poll
    status: Status = "waiting"
    table_id: str | None = None  # seated
    code: str | None = None  # failed: why, as POST /api/tables would have said
    message: str | None = None

    @property
    def player(self) -> Player:
        return Player(self.player_id, self.name)

    @property
    def line(self) -> str:
        """The queue the entry waits in: its variant's, rated or not."""
        return line(self.variant, self.rated)


def line(variant: str, rated: bool) -> str:
    return f"{variant}+rated" if rated else variant


LINES = [line(variant, rated) for variant in VARIANTS for rated in (False, True)]


def groups(ready: list[Entry], now: float) -> list[list[Entry]]:
    """The groups ``ready`` (in order of arrival) makes: four at a time, then the rest if its
    oldest has waited its time."""
    whole = len(ready) - len(ready) % GROUP
    made = [ready[i:i + GROUP] for i in range(0, whole, GROUP)]
    rest = ready[whole:]
    if rest and rest[0].deadline <= now:
        made.append(rest)
    return made
