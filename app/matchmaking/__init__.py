"""Play now: a started table against bots at once (quickplay), or a queue that seats the
players who ask for the same variant together, bots filling the seats nobody took once
a player's wait is over (docs/protocol.md, "Play now").

- :mod:`.lines`: the queue's model: an entry, its line, the rule that makes groups;
- :mod:`.store`: what the queue needs from where it lives, and the in-process store;
- :mod:`.redis_store`: the cluster's store, in Redis (scripts that pop whole groups
  atomically, so that two nodes never seat one player twice);
- :mod:`.seating`: a group becomes a started table, as ``POST /api/tables`` makes one;
- :mod:`.matchmaker`: quickplay and the queue's calls, the store chosen by the shared
  state (app/shared/).

Each imports only those above it.
"""

from .lines import ALIVE, Entry
from .matchmaker import REJOIN_AFTER, Matchmaker
from .redis_store import RedisQueue
from .store import MemoryQueue, Queue

__all__ = ["ALIVE", "REJOIN_AFTER", "Entry", "Matchmaker", "MemoryQueue",
           "Queue", "RedisQueue"]
