"""Match analysis in the server (issue #17; docs/analysis.md, "In the server"): jobs kept
in the database, run off the event loop in a niced process pool, handed out to this
node's workers by an in-process queue or, in a cluster, saq's Redis queue."""

from .admission import QueueFull, SlotsFull
from .jobs import Analyses, MatchNotFound, MatchNotOver, TooManyForYou

__all__ = ["Analyses", "MatchNotFound", "MatchNotOver", "QueueFull", "SlotsFull",
           "TooManyForYou"]
