"""Every server setting in one place, read from the environment (and ``.env``) by name.

``python -m app`` overrides ``host`` and ``port`` from its command line; everything else
comes from variables such as ``SECRET_KEY``, ``BOT_DELAY`` or ``DATABASE_URL``.  The
settings stay one flat model, as the variables are; each part of the server takes its
section of them (``settings.tables``, ``settings.sockets``, ...: app/sections.py).
"""

from __future__ import annotations

import ipaddress
import os
import secrets
import socket
from functools import lru_cache
from pathlib import Path
from typing import Literal

from limits import parse_many
from pydantic import AliasChoices, Field, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from ai import Level

from .sections import (
    AccountSettings,
    AnalysisSettings,
    BotSettings,
    ClusterSettings,
    CompetitionSettings,
    RestSettings,
    ServerSettings,
    SocketSettings,
    TableSettings,
    view,
)


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    # production refuses a missing or weak SECRET_KEY; development makes one up and keeps it.
    environment: Literal["development", "production"] = "development"
    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=0, le=65535)
    log_level: str = Field(default="info", pattern="^(critical|error|warning|info|debug)$")
    log_format: Literal["text", "json"] = "text"  # json: one object a line, for collectors
    # Seconds SIGTERM may take: sockets closing, then tables finishing what is in hand.
    shutdown_timeout: int = Field(default=10, ge=2)
    # The match log and history (docs/storage.md); `alembic upgrade head` must run first.
    database_url: str = "sqlite:///data/belote.db"
    # Seconds a PostgreSQL statement may take before the table holds and says so.
    database_timeout: float = Field(default=5.0, gt=0)

    # A cluster (docs/cluster.md): with REDIS_URL and a PostgreSQL DATABASE_URL this process
    # is one node of many behind a load balancer; without REDIS_URL it runs alone.
    redis_url: str | None = None
    redis_prefix: str = "belote:"  # every key and channel, so clusters may share a Redis
    node_id: str = Field(default_factory=lambda: f"{socket.gethostname()}-{secrets.token_hex(4)}",
                         pattern=r"^[\w.-]{1,64}$")
    node_url: str | None = None  # how the other nodes reach this one (default: host and port)
    # Seconds a node owns its tables without renewing: a dead node's tables move after it.
    lease_seconds: float = Field(default=6.0, ge=1)
    # Sweeps (each LEASE_SECONDS / 3) between two readings of the unfinished matches from
    # the log: a minute at the default lease.  Tests read it sooner, to see a paused
    # database within seconds.
    seed_sweeps: int = Field(default=30, ge=1)

    # Guest tokens are signed with this key; restored tables need the same key after a
    # restart, so development keeps a generated one in ``secret_key_file``.
    secret_key: str = ""
    secret_key_file: Path = Path("data/secret_key")
    token_max_age: int = Field(default=7 * 24 * 3600, gt=0)

    # Accounts (docs/accounts.md): sessions lapse after session_days unused; passwords are
    # Argon2id with these costs; failed logins and sign-ups are counted per window
    # (app/limiter.py).
    session_days: int = Field(default=30, ge=1)
    # OWASP's Argon2id minimum (19 MiB, 2 passes, 1 lane): about 80 ms on a server core.
    argon2_time_cost: int = Field(default=2, ge=1)
    argon2_memory_kib: int = Field(default=19 * 1024, ge=8)
    argon2_parallelism: int = Field(default=1, ge=1)
    # Failed logins on one username from one client address, and from one address
    # whatever the username, within login_window seconds; and on one username (an account
    # or not) from every address together within login_account_window: a slower limit,
    # so that failures from one address do not lock the owner out at another.
    login_window: int = Field(default=15 * 60, ge=1)
    login_failures_per_username: int = Field(default=10, ge=1)
    login_failures_per_address: int = Field(default=50, ge=1)
    login_failures_per_account: int = Field(default=100, ge=1)
    login_account_window: int = Field(default=3600, ge=1)
    signup_window: int = Field(default=3600, ge=1)
    signups_per_address: int = Field(default=10, ge=1)

    # Bots: hard levels search in a process pool, the others in threads; never on the loop.
    bot_processes: int = Field(default=2, ge=1)
    bot_threads: int = Field(default=4, ge=1)
    process_levels: frozenset[Level] = frozenset({Level.HARD})
    bot_delay: float = Field(default=0.8, ge=0)  # seconds a bot "thinks" at least
    cover_level: Level = Level.NORMAL

    # Match analysis (docs/analysis.md, "In the server"): processes of this node that review
    # matches (0: none here; a cluster's other nodes take the jobs), their niceness, the
    # review's seed and samples (None: ai.review's default), and the CPU seconds one match
    # may take before its job fails.  With REDIS_URL, jobs go through saq's Redis queue.
    analysis_workers: int = Field(default=1, ge=0)
    analysis_nice: int = Field(default=10, ge=0, le=19)
    analysis_seed: int = 0
    analysis_samples: int | None = Field(default=None, ge=1)
    analysis_cpu_seconds: float = Field(default=300, gt=0)
    # In a cluster, saq's heartbeat: a job whose worker has not touched it for this long
    # (its node died) is swept and run again by another node's worker; a live worker
    # touches it thrice as often.
    analysis_retry_seconds: float = Field(default=30, gt=0)
    # Jobs queued or running at most, the whole server (or cluster): anyone may ask for a
    # finished match's review, so past this a new one waits (429) rather than the CPU.
    analysis_queue_max: int = Field(default=20, ge=1)
    # Jobs one requester (the asking player; its address, each) may hold queued or running
    # at once, fewer while many share the queue (docs/analysis.md), so that a few cannot
    # fill it for everyone.
    analysis_slots: int = Field(default=3, ge=1)
    # New analyses one client address may ask for within the window (seconds), so that one
    # visitor cannot fill that queue for everyone (the whole cluster's count).
    analyses_per_address: int = Field(default=10, ge=1)
    analysis_window: int = Field(default=3600, ge=1)

    # Seasonal leagues (docs/tournaments.md, "Leagues"): a season's length in days.
    league_season_days: float = Field(default=7, gt=0, le=366)

    # Turns and absences.
    default_turn_seconds: float = Field(default=30, ge=1, le=600)
    # A rated table's turns last at least this: no one-second rated matches that a second
    # account loses on time at once (docs/ratings.md, "Integrity").
    rated_min_turn_seconds: float = Field(default=10, ge=1, le=600)
    missed_turns_to_bot: int = Field(default=2, ge=1)
    reconnect_grace: float = Field(default=60, ge=0)
    finished_table_ttl: float = Field(default=600, ge=0)  # seconds a result stays visible
    waiting_table_ttl: float = Field(default=3600, gt=0)  # seconds a table may wait to start
    max_tables: int = Field(default=5000, ge=1)
    # Per holder: open (waiting or playing) tables a player, or a client address, created.
    # The address is the connection's peer, or the X-Forwarded-For of a trusted proxy.
    max_tables_per_player: int = Field(default=3, ge=1)
    max_tables_per_address: int = Field(default=20, ge=1)
    lobby_cache_seconds: float = Field(default=1.0, ge=0)  # how stale GET /api/tables may be
    # Seconds a table the queue made waits for its players' sockets before it starts anyway.
    queue_start_wait: float = Field(default=10, gt=0, le=600)

    # The reverse proxies whose X-Forwarded-For names the client's address, which every
    # per-address limit counts (docs/protocol.md, "Limits"): addresses or networks, comma-
    # separated, or "*" for whoever connects.  None by default, so that a client reaching
    # the server directly cannot pick its own address.  FORWARDED_ALLOW_IPS, uvicorn's name
    # for it, is read too.
    trusted_proxies: str = Field(
        default="", validation_alias=AliasChoices("trusted_proxies", "forwarded_allow_ips"))

    # Every REST call under /api (docs/protocol.md, "Limits"), per bearer token and per
    # client address, over the whole cluster: rates in the notation of the `limits`
    # library, each of them holding ("10/second;300/minute": bursts of 10, 5 a second
    # sustained); more get 429 `too_many_requests`.
    rest_rate_per_token: str = "10/second;300/minute"
    rest_rate_per_address: str = "30/second;1200/minute"
    # Invitations to a table and partner prompts one player may send, over the whole
    # cluster (docs/community.md), in the same notation; more get 429 `too_many_requests`.
    invitations_per_player: str = "10/minute;60/hour"

    # WebSocket limits.
    ws_max_message: int = Field(default=4096, ge=256)
    ws_rate: float = Field(default=10, gt=0)  # messages per second, sustained
    ws_burst: int = Field(default=30, ge=1)
    ws_hello_timeout: float = Field(default=10, gt=0)
    ws_ping_interval: float = Field(default=20, gt=0)
    ws_idle_timeout: float = Field(default=60, gt=0)
    ws_outbox: int = Field(default=256, ge=8)
    max_spectators: int = Field(default=50, ge=0)  # sockets without a seat, per table
    # Open sockets per client address (before hello too) and per player (all tables).
    max_sockets_per_address: int = Field(default=50, ge=1)
    max_sockets_per_player: int = Field(default=20, ge=1)

    @field_validator("trusted_proxies")
    @classmethod
    def _proxies_are_addresses(cls, value: str) -> str:
        """uvicorn takes what is not an address for a literal that never matches: a typo
        would trust no one, silently."""
        proxies = [proxy.strip() for proxy in value.split(",") if proxy.strip()]
        if proxies != ["*"]:
            for proxy in proxies:
                try:
                    ipaddress.ip_network(proxy)
                except ValueError:
                    raise ValueError(f"TRUSTED_PROXIES: {proxy!r} is neither an IP address "
                                     "nor a network (nor \"*\" alone)") from None
        return ",".join(proxies)

    @field_validator("rest_rate_per_token", "rest_rate_per_address", "invitations_per_player")
    @classmethod
    def _rates(cls, value: str) -> str:
        parse_many(value)  # a ValueError names the notation it could not read
        return value

    @model_validator(mode="after")
    def _cluster_on_postgresql(self) -> Settings:
        if self.redis_url and not self.database_url.startswith(("postgresql", "postgres:")):
            raise ValueError("REDIS_URL makes this process a cluster node, and the nodes "
                             "share one match log: DATABASE_URL must be PostgreSQL")
        return self

    @property
    def advertised_url(self) -> str:
        """The URL the other nodes reach this one at: ``node_url``, else host and port (the
        machine's name when listening on every interface)."""
        if self.node_url:
            return self.node_url.rstrip("/")
        host = socket.gethostname() if self.host in ("0.0.0.0", "::", "") else self.host
        return f"http://{host}:{self.port}"

    @model_validator(mode="after")
    def _strong_secret_in_production(self) -> Settings:
        problem = weak_secret(self.secret_key) if self.environment == "production" else None
        if problem:
            raise ValueError(f"SECRET_KEY {problem}: production needs at least "
                             f"{MIN_SECRET} random characters, e.g. `openssl rand -hex 32`")
        return self

    # Each part of the server takes its section of these (app/sections.py), not the whole.
    @property
    def tables(self) -> TableSettings:
        return view(self, TableSettings)

    @property
    def sockets(self) -> SocketSettings:
        return view(self, SocketSettings)

    @property
    def bots(self) -> BotSettings:
        return view(self, BotSettings)

    @property
    def accounts(self) -> AccountSettings:
        return view(self, AccountSettings)

    @property
    def analysis(self) -> AnalysisSettings:
        return view(self, AnalysisSettings)

    @property
    def competition(self) -> CompetitionSettings:
        return view(self, CompetitionSettings)

    @property
    def cluster(self) -> ClusterSettings:
        return view(self, ClusterSettings)

    @property
    def rest(self) -> RestSettings:
        return view(self, RestSettings)

    @property
    def server(self) -> ServerSettings:
        return view(self, ServerSettings)

    def token_key(self) -> str:
        """The key guest tokens are signed with: ``SECRET_KEY``, or in development the one
        kept in ``secret_key_file`` (read here, not at validation: only the server needs
        it, and alembic or a test building settings must not create the file)."""
        return self.secret_key or kept_secret(self.secret_key_file)


MIN_SECRET = 32
PLACEHOLDERS = frozenset({
    "changeme", "change-me", "change_me", "secret", "secret_key", "your-secret-key",
    "please-change-me", "replace-me", "0" * 32, "0" * 64,
})


def weak_secret(key: str) -> str | None:
    """Why ``key`` must not sign production tokens, or None if it may."""
    if not key:
        return "is not set"
    if key.strip().lower() in PLACEHOLDERS:
        return "is a known placeholder"
    if len(key) < MIN_SECRET:
        return f"is too short ({len(key)} characters)"
    return None


def kept_secret(path: Path) -> str:
    """The development key in ``path``, made (mode 0600) on first use: guest tokens, and
    so the seats of restored tables, survive restarts of ``make run``."""
    if path.exists() and (kept := path.read_text().strip()):
        return kept
    path.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_urlsafe(48)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as file:
        file.write(key + "\n")
    return key


@lru_cache
def get_settings() -> Settings:
    """The process's settings, read once."""
    return Settings()
