"""The queue's model: a player's :class:`Entry`, the line it waits in (:func:`line`), how
long each state lasts, and the rule that makes groups of those waiting (:func:`groups`).
Both stores keep entries so and follow the rule (the Redis one in its script)."""

from __future__ import annotations

from collections.abc import Collection
from typing import Literal

from pydantic import BaseModel

from engine.variants import VARIANTS

from ..auth import Player
from ..reputation import BAND

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
    partner: str | None = None  # seated opposite this player (same team), once it waits too
    seat: int | None = None  # forming: the seat its group gives it
    reputation: int = 100  # rated: seated with players of a reputation within BAND

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


Apart = Collection[frozenset[str]]  # pairs of players never seated together


def groups(ready: list[Entry], now: float, apart: Apart = ()) -> list[list[Entry]]:
    """The groups ``ready`` (in order of arrival) makes.  Players come in units: one
    alone, or two who name each other ``partner`` (once both wait, at the place of the
    first to come; one whose partner is not waiting waits).  Each unit, in order, joins
    the first group forming that has room for it and none of ``apart`` with it (rated:
    each player's reputation within BAND of its first's), else starts one; a group is
    made once four, or once its first player has waited its time (bots fill the rest).
    Each group is listed seat by seat (:func:`seated`)."""
    forming: list[list[list[Entry]]] = []  # groups, each a list of units
    for unit in _units(ready):
        ids = {e.player_id for e in unit}
        for group in forming:
            taken = {e.player_id for u in group for e in u}
            if len(taken) + len(unit) <= GROUP and _alike(group[0][0], unit) and not any(
                    pair <= taken | ids and pair & ids and pair & taken for pair in apart):
                group.append(unit)
                break
        else:
            forming.append([unit])
    made = []
    for group in forming:
        members = [e for unit in group for e in unit]
        if len(members) == GROUP or group[0][0].deadline <= now:
            made.append(seated(group))
    return made


def _alike(first: Entry, unit: list[Entry]) -> bool:
    """Whether ``unit`` may join the group ``first`` opened: at a rated table, players
    whose reputations are within :data:`~app.reputation.BAND` of the first's."""
    return not first.rated or all(abs(e.reputation - first.reputation) <= BAND for e in unit)


def _units(ready: list[Entry]) -> list[list[Entry]]:
    """Players alone, and partners who name each other and both wait, in order."""
    by_id = {e.player_id: e for e in ready}
    units, placed = [], set()
    for entry in ready:
        if entry.player_id in placed:
            continue
        if entry.partner is None:
            units.append([entry])
            continue
        other = by_id.get(entry.partner)
        if other is not None and other.partner == entry.player_id:
            units.append([entry, other])
            placed.add(other.player_id)
    return units


def seated(units: list[list[Entry]]) -> list[Entry]:
    """A group's players in seat order, each with its ``seat``: partners in seats 0 and
    2 (a second pair in 1 and 3), players alone in the seats left, in order."""
    seats: list[Entry | None] = [None] * GROUP
    pairs = [u for u in units if len(u) == 2]
    alone = [u[0] for u in units if len(u) == 1]
    for first, (one, two) in enumerate(pairs):
        seats[first], seats[first + 2] = one, two
    free = [i for i, e in enumerate(seats) if e is None]
    for seat, entry in zip(free, alone, strict=False):
        seats[seat] = entry
    return [e.model_copy(update={"seat": seat}) for seat, e in enumerate(seats)
            if e is not None]
