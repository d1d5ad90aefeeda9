"""Every Redis key and channel name of the server, built here and nowhere else, from
REDIS_PREFIX: clusters (or test runs) may share a Redis, and a name changed here changes
everywhere.  :data:`NAMES` describes each one; docs/cluster.md lists them, and
tests/test_shared_keys.py fails when that list, or the names a cluster really writes,
differ from :data:`NAMES`.

Names are a stored format: nodes of two versions share them during a rolling restart,
so a name changes only with a release that says so."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Name:
    """One key, family of keys, or channel: ``pattern`` follows the prefix, each
    ``{field}`` filled in by the :class:`Keys` method ``attr``; ``stored`` says how the
    keys look in Redis when a library builds them from the name (``{prefix}`` stands for
    REDIS_PREFIX, ``…`` for the library's own part).  Alternatives: ", " between."""

    attr: str
    pattern: str
    kind: str
    user: str  # the module that reads and writes it
    what: str
    stored: str | None = None

    @property
    def shown(self) -> str:
        """The name as docs/cluster.md shows it."""
        return self.stored or "{prefix}" + self.pattern


LEASE = Name("lease", "owner:{table_id}", "string, expires", "app/cluster/leases.py",
             "the id of the node that owns the table, renewed by it")
NODES = Name("nodes", "nodes", "set", "app/cluster/registry.py",
             "ids of the nodes that said they live; the dead are swept out")
NODE = Name("node", "node:{node_id}", "string (JSON), expires", "app/cluster/registry.py",
            "a live node's address, start and load")
LOBBY = Name("lobby", "lobby:{node_id}", "string (JSON), expires", "app/cluster/listing.py",
             "a node's open tables (public, waiting), merged by every node")
STARTED = Name("started", "started:{bucket}", "set", "app/cluster/node.py",
               "ids of the matches on, in 128 buckets by id (app/cluster/sweep.py), "
               "among which orphans are looked for")
TURN = Name("turn", "turn:{table_id}", "string, expires", "app/cluster/node.py",
            "a human turn's deadline, for the node that takes the table over")
PARKED = Name("parked", "parked:{table_id}", "string (JSON), expires", "app/cluster/node.py",
              "a waiting table handed over at a node's exit")
RELEASED = Name("released", "released", "channel", "app/cluster/node.py",
                "ids of the tables a node handed over at its exit")
NEWS = Name("news", "accounts", "channel", "app/accounts/news.py",
            "an ended session, a guest become an account")
SESSION = Name("session", "session:{token_hash}", "string, expires", "app/accounts/sessions.py",
               "a session read (its owner), or ended (a tombstone)")
LIMITS = Name("limits", "limits", "the `limits` library's", "app/limiter.py",
              "every counted limit: failed logins, sign-ups, analyses asked for, REST calls",
              stored="{prefix}limits:LIMITER/{limit}/{key}/…, "
                     "{prefix}limits:{LIMITER/{limit}/{key}/…")
QUEUE_ENTRY = Name("queue_entry", "queue:player:{player_id}", "string (JSON), expires",
                   "app/matchmaking/redis_store.py", "a player's place in the queue, "
                   "then the table they were seated at")
QUEUE_LINE = Name("queue_line", "queue:waiting:{line}", "sorted set",
                  "app/matchmaking/redis_store.py",
                  "the players waiting in a line (a variant, rated or not), in order")
QUEUE_ARRIVALS = Name("queue_arrivals", "queue:arrivals", "counter",
                      "app/matchmaking/redis_store.py",
                      "the queue's order (the nodes' clocks may differ)")
DIRECTOR = Name("director", "director:{tournament_id}", "string, expires",
                "app/competition/director.py",
                "the id of the node that directs the tournament, renewed by it")
ANALYSIS = Name("analysis", "analysis", "saq's queue", "app/analysis/queues.py",
                "the analysis jobs, one per match, and saq's upkeep",
                stored="saq:{prefix}analysis:…, saq:job:{prefix}analysis:{match_id}")

LIVE = Name("live", "live:{node_id}", "string (JSON), expires", "app/cluster/listing.py",
            "a node's public matches in progress, merged by every node (the Watch list)")
NOTICES = Name("notices", "notices", "channel", "app/community/notices.py",
               "a notice for one player (its id, then the notice), told to the node of "
               "each of its personal sockets")
ONLINE = Name("online", "online", "sorted set", "app/community/presence.py",
              "the players with a personal socket open, each until when its node "
              "said so last (epoch ms)")
BLOCKS = Name("blocks", "blocks", "channel", "app/community/apart.py",
              "a block made or lifted (the node that made it, then the two players' ids), "
              "for the chat of a table on any node where both sit")

NAMES = (LEASE, NODES, NODE, LOBBY, STARTED, TURN, PARKED, RELEASED, NEWS, SESSION, LIMITS,
         QUEUE_ENTRY, QUEUE_LINE, QUEUE_ARRIVALS, DIRECTOR, ANALYSIS, LIVE, NOTICES,
         ONLINE, BLOCKS)


class Keys:
    """The names under one prefix (REDIS_PREFIX)."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix

    def _name(self, name: Name, **fields: str) -> str:
        return self.prefix + name.pattern.format(**fields)

    def lease(self, table_id: str) -> str:
        return self._name(LEASE, table_id=table_id)

    @property
    def nodes(self) -> str:
        return self._name(NODES)

    def node(self, node_id: str) -> str:
        return self._name(NODE, node_id=node_id)

    def lobby(self, node_id: str) -> str:
        return self._name(LOBBY, node_id=node_id)

    def started(self, bucket: int) -> str:
        return self._name(STARTED, bucket=str(bucket))

    def turn(self, table_id: str) -> str:
        return self._name(TURN, table_id=table_id)

    def parked(self, table_id: str) -> str:
        return self._name(PARKED, table_id=table_id)

    @property
    def released(self) -> str:
        return self._name(RELEASED)

    @property
    def news(self) -> str:
        return self._name(NEWS)

    def session(self, token_hash: str) -> str:
        return self._name(SESSION, token_hash=token_hash)

    @property
    def limits(self) -> str:
        """The ``limits`` library's key prefix."""
        return self._name(LIMITS)

    def queue_entry(self, player_id: str) -> str:
        return self._name(QUEUE_ENTRY, player_id=player_id)

    def queue_line(self, line: str) -> str:
        return self._name(QUEUE_LINE, line=line)

    @property
    def queue_arrivals(self) -> str:
        return self._name(QUEUE_ARRIVALS)

    def director(self, tournament_id: str) -> str:
        return self._name(DIRECTOR, tournament_id=tournament_id)

    @property
    def analysis(self) -> str:
        """saq's queue name (saq builds its keys from it)."""
        return self._name(ANALYSIS)

    def live(self, node_id: str) -> str:
        return self._name(LIVE, node_id=node_id)

    @property
    def notices(self) -> str:
        return self._name(NOTICES)

    @property
    def online(self) -> str:
        return self._name(ONLINE)

    @property
    def blocks(self) -> str:
        return self._name(BLOCKS)
