"""What the nodes of a cluster share, behind one seam (docs/cluster.md, "Shared state").

A server running alone keeps it in its process (:class:`LocalShared`); with REDIS_URL it
is in the cluster's Redis (:class:`RedisShared`), as Colyseus's ``LocalPresence`` and
``RedisPresence``.  Both offer :class:`Shared`: the counted limits (the ``limits``
library's storages) and news on channels; the in-process one behaves as the Redis one
does while Redis answers, which tests/test_shared_state.py checks by running the same
tests on both.  What only a cluster has (leases, the live nodes, the lobby of every
node, the session cache, the queue's and the analyses' Redis queues) uses
:class:`RedisShared` alone, and comes in its own module where it is used.

- :mod:`.keys`: every Redis key and channel name, from REDIS_PREFIX, in one place;
- :mod:`.base`: the interface, and the listening both implementations share;
- :mod:`.local`, :mod:`.redis`: the two implementations.
"""

from ..sections import ClusterSettings
from .base import UNREACHABLE, Listener, Shared, nothing_missed
from .keys import Keys
from .local import LocalShared
from .redis import RedisShared

__all__ = ["UNREACHABLE", "Keys", "Listener", "LocalShared", "RedisShared", "Shared",
           "make_shared", "nothing_missed"]


def make_shared(settings: ClusterSettings) -> Shared:
    """The server's shared state: in Redis with REDIS_URL, else in this process."""
    keys = Keys(settings.redis_prefix)
    if settings.redis_url is None:
        return LocalShared(keys)
    return RedisShared.connect(settings.redis_url, keys)
