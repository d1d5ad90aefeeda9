"""Every server setting in one place, read from the environment (and ``.env``) by name.

``python -m app`` overrides ``host`` and ``port`` from its command line; everything else
comes from variables such as ``SECRET_KEY``, ``BOT_DELAY`` or ``DATABASE_URL``.
"""

from __future__ import annotations

import secrets
from functools import lru_cache

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from ai import LEVELS


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=0, le=65535)
    log_level: str = Field(default="info", pattern="^(critical|error|warning|info|debug)$")
    # The match log and history (docs/storage.md); `alembic upgrade head` must run first.
    database_url: str = "sqlite:///data/belote.db"

    # Guest tokens: signed with this key; a fresh random key means tokens die on restart.
    secret_key: str = Field(default_factory=lambda: secrets.token_urlsafe(32), min_length=16)
    token_max_age: int = Field(default=7 * 24 * 3600, gt=0)

    # Bots: hard levels search in a process pool, the others in threads; never on the loop.
    bot_processes: int = Field(default=2, ge=1)
    bot_threads: int = Field(default=4, ge=1)
    process_levels: frozenset[str] = frozenset({"hard"})
    bot_delay: float = Field(default=0.8, ge=0)  # seconds a bot "thinks" at least
    cover_level: str = Field(default="normal", pattern=f"^({'|'.join(LEVELS)})$")

    # Turns and absences.
    default_turn_seconds: float = Field(default=30, ge=1, le=600)
    missed_turns_to_bot: int = Field(default=2, ge=1)
    reconnect_grace: float = Field(default=60, ge=0)
    finished_table_ttl: float = Field(default=600, ge=0)  # seconds a result stays visible
    waiting_table_ttl: float = Field(default=3600, gt=0)  # seconds a table may wait to start
    max_tables: int = Field(default=5000, ge=1)

    # WebSocket limits.
    ws_max_message: int = Field(default=4096, ge=256)
    ws_rate: float = Field(default=10, gt=0)  # messages per second, sustained
    ws_burst: int = Field(default=30, ge=1)
    ws_hello_timeout: float = Field(default=10, gt=0)
    ws_ping_interval: float = Field(default=20, gt=0)
    ws_idle_timeout: float = Field(default=60, gt=0)
    ws_outbox: int = Field(default=256, ge=8)
    max_spectators: int = Field(default=50, ge=0)  # sockets without a seat, per table


@lru_cache
def get_settings() -> Settings:
    """The process's settings, read once."""
    return Settings()
