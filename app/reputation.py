"""Reputation (issue #32; docs/community.md, "Reputation and leaving"), as BGA's karma
and Belot.bg's deductions: a player's matches finished at their seat raise it, those
left (or played mostly by the timer) lower it five times as much.  Counted as each
match ends (app/db/reputation.py); the rated queue refuses a value below
:data:`RATED_FLOOR` and seats together players within :data:`BAND` of each other."""

from __future__ import annotations

from dataclasses import dataclass

PRIOR = 10  # finished matches a new player is credited with: one leave costs little
LEAVE_WEIGHT = 5  # a match left weighs as five finished ones
INACTIVE_SHARE = 0.25  # a seat whose actions the timer or a covering bot made this often
RATED_FLOOR = 50  # the rated queue refuses a player below this
BAND = 30  # the rated queue seats together players this close at most


@dataclass(frozen=True, slots=True)
class Reputation:
    finished: int = 0
    left: int = 0

    @property
    def value(self) -> int:
        """0 to 100: 100 for a new player or one who never left."""
        kept = self.finished + PRIOR
        return round(100 * kept / (kept + LEAVE_WEIGHT * self.left))
