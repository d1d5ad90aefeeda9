"""The Prometheus metrics, all here; the code that moves them calls in at its choke points
(a table applying an action, the bot runner, the database's write transaction)."""

from __future__ import annotations

from prometheus_client import CONTENT_TYPE_LATEST, Counter, Gauge, Histogram, generate_latest

# Seconds, for what a table waits on: half a millisecond to the storage's outage bounds.
LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5)

OPEN_TABLES = Gauge("belote_open_tables", "Tables in the lobby (waiting, playing or over)")
CONNECTED_PLAYERS = Gauge("belote_connected_players", "Sockets attached to a table")
ACTIONS = Counter("belote_actions", "Actions logged and applied (rate() gives actions/s)")
BOT_DECISION = Histogram(
    "belote_bot_decision_seconds", "Time a bot takes to choose, executor wait included",
    ["level"], buckets=(0.001, 0.005, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)
ACTION_BROADCAST = Histogram(
    "belote_action_broadcast_seconds",
    "From a table taking up an action to every client's message queued (log write included)",
    buckets=LATENCY_BUCKETS,
)
DB_WRITE = Histogram(
    "belote_db_write_seconds", "One database write transaction, commit included",
    buckets=LATENCY_BUCKETS,
)
LOG_WRITE = Histogram(
    "belote_log_write_seconds",
    "A match log write from queued to committed: what a table waits (group commit)",
    buckets=LATENCY_BUCKETS,
)
LOG_BATCH = Histogram(
    "belote_log_batch_writes", "Match log writes in one group commit's transaction",
    buckets=(1, 2, 4, 8, 16, 32, 64, 128, 256),
)
STORAGE_FAILURES = Counter(
    "belote_storage_failures",
    "Table writes to the match log that failed (unavailable: an outage; refused: a bug); "
    "each is retried until it succeeds",
    ["kind"],
)


def exposition(open_tables: int, connected: int) -> tuple[bytes, str]:
    """The text exposition with the gauges set from the lobby now, and its content type."""
    OPEN_TABLES.set(open_tables)
    CONNECTED_PLAYERS.set(connected)
    return generate_latest(), CONTENT_TYPE_LATEST
