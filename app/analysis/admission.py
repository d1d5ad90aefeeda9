"""Who may add a job to the analysis queue (issue #29; docs/analysis.md, "In the server"):
the queue holds ``ANALYSIS_QUEUE_MAX`` jobs at most, the whole cluster's, and each
requester, the asking player and its address each, a share of them, so that a few cannot
fill it for everyone.  The database applies the rule in the transaction that inserts the
job (:func:`app.db.analyses.create`), one new job at a time."""

from __future__ import annotations

from dataclasses import dataclass

from ..db.analyses import Held, Pending


class QueueFull(Exception):
    """ANALYSIS_QUEUE_MAX jobs wait or run."""


class SlotsFull(Exception):
    """The asking player, or its address, holds its share of the queue."""


def share(capacity: int, slots: int, holders: int) -> int:
    """The jobs one requester may hold while ``holders`` requesters of its kind, itself
    included, hold some: the queue's room split among them and one more, so that whoever
    comes next finds room, but never more than ``slots`` and never less than one."""
    return min(slots, max(1, capacity // (holders + 1)))


@dataclass(frozen=True, slots=True)
class Admission:
    """The rule, called with the pending jobs; raises to refuse a new one."""

    capacity: int  # ANALYSIS_QUEUE_MAX
    slots: int  # ANALYSIS_SLOTS

    def __call__(self, pending: Pending) -> None:
        if pending.total >= self.capacity:
            raise QueueFull
        if any(self._full(held) for held in (pending.player, pending.address)):
            raise SlotsFull

    def _full(self, held: Held | None) -> bool:
        if held is None:  # no token, or no address: that kind does not count
            return False
        holders = held.holders if held.jobs else held.holders + 1  # a newcomer joins them
        return held.jobs >= share(self.capacity, self.slots, holders)
