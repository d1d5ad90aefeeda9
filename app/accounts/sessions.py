"""Account sessions: an opaque random token per login, kept server-side as its SHA-256
only, so that a copy of the database holds no token anyone could use.

A session lapses after ``days`` unused; each use slides that forward (written at most
once a day per session).  With Redis (a cluster), sessions read are cached there for
CACHE_SECONDS, and an ended session leaves a tombstone that a reader racing with the
logout cannot overwrite (the cache is filled with SET NX).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import cast

from sqlalchemy import delete, insert, select, update

from ..db import models
from ..db.session import Database
from ..shared import UNREACHABLE, RedisShared

log = logging.getLogger(__name__)

PREFIX = "sess_"  # account tokens start so; guest tokens never do (itsdangerous: "eyJ...")
CACHE_SECONDS = 60
SLIDE_EVERY = timedelta(days=1)
MAX_SESSIONS = 20  # live sessions an account keeps (devices); a new one ends the oldest past it
_ENDED = "ended"


def is_session_token(token: str) -> bool:
    return token.startswith(PREFIX)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True, slots=True)
class SessionOwner:
    """Whose session a token is: the account's player id and username."""

    player_id: str
    username: str


class Sessions:
    def __init__(self, database: Database, days: int, cache: RedisShared | None = None) -> None:
        self._db, self._life = database, timedelta(days=days)
        self._cache = cache

    async def create(self, player_id: str) -> tuple[str, list[str]]:
        """A new session of ``player_id``: its token, returned once and kept nowhere, and
        the hashes of the sessions it ended.  Lapsed sessions of the account are swept on
        the way, and past MAX_SESSIONS the oldest end: logging in again and again keeps no
        more rows than that."""
        token = PREFIX + secrets.token_urlsafe(32)
        now = _now()
        s = models.Session
        newest = (select(s.token_hash).where(s.player_id == player_id)
                  .order_by(s.created_at.desc()).limit(MAX_SESSIONS))
        async with self._db.write() as conn:
            await conn.execute(delete(s).where(s.player_id == player_id, s.expires_at <= now))
            await conn.execute(insert(s), {
                "token_hash": token_hash(token), "player_id": player_id,
                "created_at": now, "expires_at": now + self._life})
            rows = await conn.execute(delete(s).where(s.player_id == player_id,
                                                      s.token_hash.not_in(newest))
                                      .returning(s.token_hash))
            ended = list(rows.scalars())
        await self._tombstones(ended)
        return token, ended

    async def read(self, token: str) -> SessionOwner | None:
        """The owner of a live session, None if it ended, lapsed or never was."""
        key = token_hash(token)
        cached = await self._cached(key)
        if cached is not None:
            return None if cached == _ENDED else SessionOwner(*json.loads(cached))
        owner = await self._read_db(key)
        if owner is not None and self._cache is not None:  # unknown tokens are not cached
            with contextlib.suppress(*UNREACHABLE):
                await self._cache.redis.set(self._cache.keys.session(key),
                                      json.dumps([owner.player_id, owner.username]),
                                      ex=CACHE_SECONDS, nx=True)
        return owner

    async def _cached(self, key: str) -> str | None:
        """The cache's entry; None without Redis, or while it does not answer (the
        database does)."""
        if self._cache is None:
            return None
        try:
            return cast(str | None, await self._cache.redis.get(self._cache.keys.session(key)))
        except UNREACHABLE:
            return None

    async def _read_db(self, key: str) -> SessionOwner | None:
        s, a = models.Session, models.Account
        now = _now()
        async with self._db.read() as session:
            row = (await session.execute(
                select(s.expires_at, a.player_id, a.username)
                .join(a, a.player_id == s.player_id).where(s.token_hash == key))).first()
        if row is None or row.expires_at <= now:
            return None
        if row.expires_at - now < self._life - SLIDE_EVERY:
            async with self._db.write() as conn:
                await conn.execute(update(s).where(s.token_hash == key)
                                   .values(expires_at=now + self._life))
        return SessionOwner(row.player_id, row.username)

    async def end(self, key: str) -> None:
        """End the session whose token hashes to ``key``, at once."""
        async with self._db.write() as conn:
            await conn.execute(delete(models.Session).where(models.Session.token_hash == key))
        await self._tombstones([key])

    async def end_others(self, player_id: str, keep: str) -> list[str]:
        """End every session of ``player_id`` but ``keep`` (a token hash); their hashes."""
        s = models.Session
        async with self._db.write() as conn:
            rows = await conn.execute(delete(s).where(s.player_id == player_id,
                                                      s.token_hash != keep)
                                      .returning(s.token_hash))
            ended = list(rows.scalars())
        await self._tombstones(ended)
        return ended

    async def _tombstones(self, keys: Iterable[str]) -> None:
        """Mark ended sessions in the cache.  Redis down: the sessions are ended in the
        database all the same, and a node that cached one believes it for CACHE_SECONDS
        at most."""
        if self._cache is None:
            return
        try:
            async with self._cache.redis.pipeline(transaction=False) as pipe:
                for key in keys:
                    pipe.set(self._cache.keys.session(key), _ENDED, ex=CACHE_SECONDS)
                await pipe.execute()
        except UNREACHABLE as exc:
            log.warning("sessions: ended sessions not marked in the cache, Redis: %s", exc)
