"""Several server nodes as one site (docs/cluster.md).

Each table is owned by one node, which runs its actor, bots and timers; any node answers
anything, relaying a socket or forwarding a REST call to the owner.  Redis says who owns
what (a lease per table, renewed by its owner), which nodes live and what the lobby
lists; PostgreSQL's match log is the truth, and an epoch raised by each takeover, checked
in every write's transaction, fences an owner that lost its lease (docs/storage.md).

- :mod:`.leases`: table ownership in Redis (acquire, renew, release, locate);
- :mod:`.registry`: the live nodes, each with its address and load;
- :mod:`.listing`: the lobby's open tables, published by each node, merged for anyone;
- :mod:`.relay`: a REST call or a socket passed on to the owning node;
- :mod:`.node`: the node's own loop: renew, publish, take over orphans, hand over at exit.
"""

from .node import Cluster

__all__ = ["Cluster"]
