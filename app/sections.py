"""The settings each part of the server reads: typed, read-only views of ``Settings``
(app/config.py), one per part, so that a module's constructor says which settings it
depends on and takes no others.

``Settings`` stays flat: it is the one place that reads the environment, where every
variable keeps its name (``MAX_TABLES`` is ``max_tables``).  A section's fields carry the
same names, so that looking a variable up finds every reader, and :func:`view` fills a
section from them.  A setting two parts read is in both of their sections (``NODE_ID``:
the cluster's, a table's ``node``, the analyses' saq worker); what only the composition
root reads (``DATABASE_URL``, ``SECRET_KEY``, ``REDIS_URL`` choosing the shared state) is
read from ``Settings`` there (app/container.py).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, Protocol, TypeVar

from ai import Level


class _Section(Protocol):
    __dataclass_fields__: ClassVar[dict[str, dataclasses.Field[Any]]]

    def __init__(self, **values: Any) -> None: ...


S = TypeVar("S", bound=_Section)


def view(settings: object, section: type[S]) -> S:
    """``section`` filled from the attributes of ``settings`` that its fields name."""
    return section(**{field.name: getattr(settings, field.name)
                      for field in dataclasses.fields(section)})


@dataclass(frozen=True, slots=True)
class TableSettings:
    """What the lobby and its tables read (app/tables/), and who opens tables for them
    (``POST /api/tables``, app/matchmaking/): turns and absences, how long a table lives,
    how many anyone may hold, the sockets the lobby counts, the bot that covers an absent
    human, how long a queue's table waits for its players, this node's name, and the
    shutdown's budget for their drain."""

    default_turn_seconds: float
    rated_min_turn_seconds: float
    missed_turns_to_bot: int
    reconnect_grace: float
    finished_table_ttl: float
    waiting_table_ttl: float
    max_tables: int
    max_tables_per_player: int
    max_tables_per_address: int
    lobby_cache_seconds: float
    queue_start_wait: float
    max_spectators: int
    max_sockets_per_address: int
    max_sockets_per_player: int
    bot_delay: float
    cover_level: Level
    node_id: str
    shutdown_timeout: int

    def turn_seconds(self, rated: bool) -> float:
        """A new table's turn when it asks for none: the default, at a rated table at
        least the rated floor."""
        floor = self.rated_min_turn_seconds if rated else 0
        return max(self.default_turn_seconds, floor)


@dataclass(frozen=True, slots=True)
class SocketSettings:
    """What a table's WebSocket reads (app/api/routes/ws.py)."""

    ws_max_message: int
    ws_rate: float
    ws_burst: int
    ws_hello_timeout: float
    ws_ping_interval: float
    ws_idle_timeout: float
    ws_outbox: int


@dataclass(frozen=True, slots=True)
class BotSettings:
    """The bots' executors (app/bots.py)."""

    bot_processes: int
    bot_threads: int
    process_levels: frozenset[Level]


@dataclass(frozen=True, slots=True)
class AccountSettings:
    """Accounts (app/accounts/): sessions, password hashes, attempt limits."""

    token_max_age: int
    session_days: int
    argon2_time_cost: int
    argon2_memory_kib: int
    argon2_parallelism: int
    login_window: int
    login_failures_per_username: int
    login_failures_per_address: int
    login_failures_per_account: int
    login_account_window: int
    signup_window: int
    signups_per_address: int


@dataclass(frozen=True, slots=True)
class AnalysisSettings:
    """Match analyses (app/analysis/): the workers, the queue's limits, and in a cluster
    the Redis of saq's queue and this node's name for its worker."""

    analysis_workers: int
    analysis_nice: int
    analysis_seed: int
    analysis_samples: int | None
    analysis_cpu_seconds: float
    analysis_retry_seconds: float
    analysis_queue_max: int
    analysis_slots: int
    analyses_per_address: int
    analysis_window: int
    redis_url: str | None
    node_id: str


@dataclass(frozen=True, slots=True)
class CompetitionSettings:
    """Tournaments and leagues (app/competition/): a league season's length."""

    league_season_days: float


@dataclass(frozen=True, slots=True)
class ClusterSettings:
    """The nodes of a cluster (app/cluster/, app/shared/, ``GET /api/cluster``)."""

    redis_url: str | None
    redis_prefix: str
    node_id: str
    advertised_url: str
    lease_seconds: float
    seed_sweeps: int
    lobby_cache_seconds: float


@dataclass(frozen=True, slots=True)
class RestSettings:
    """The rates of every REST call (app/api/rest_limits.py)."""

    rest_rate_per_token: str
    rest_rate_per_address: str


@dataclass(frozen=True, slots=True)
class ServerSettings:
    """uvicorn's (app/main.py) and the logs' (app/logs.py)."""

    host: str
    port: int
    log_level: str
    log_format: Literal["text", "json"]
    shutdown_timeout: int
    trusted_proxies: str
    ws_max_message: int
