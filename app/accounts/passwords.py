"""Passwords: Argon2id (argon2-cffi) hashes, computed off the event loop.

argon2-cffi's C calls release the GIL, so hashes run in parallel threads while the loop
goes on.  Each hash takes ``memory_kib`` of memory: a semaphore bounds how many run at
once, so a burst of logins queues instead of exhausting the machine's memory.  An
unknown username is verified against a dummy hash of the same parameters, so that it
costs the same time as a wrong password (docs/accounts.md).
"""

from __future__ import annotations

import asyncio
import os
import re
import secrets

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from pydantic_core import PydanticCustomError
from zxcvbn.frequency_lists import FREQUENCY_LISTS  # type: ignore[import-untyped]

from ..errors import ErrorCode
from .usernames import fold

MIN_PASSWORD, MAX_PASSWORD = 8, 256
# zxcvbn's list of the 30,000 passwords most found in leaks, lowercased (zxcvbn==4.5.0).
COMMON: frozenset[str] = frozenset(FREQUENCY_LISTS["passwords"])


def check_password(value: str) -> str:
    """``value`` if it is long enough and not absurdly long, else a 422 ``weak_password``
    whose message states the rule only: no error may echo a password."""
    if not MIN_PASSWORD <= len(value) <= MAX_PASSWORD:
        raise PydanticCustomError(
            ErrorCode.WEAK_PASSWORD,
            f"a password has {MIN_PASSWORD} to {MAX_PASSWORD} characters")
    return value


def weakness(password: str, username: str) -> str | None:
    """Why ``password`` is too easy to guess for ``username``, None if it is not: one of
    the common passwords, or made of the username (repeated, reversed, with digits or
    signs around it).  The reason names the rule only, never the password."""
    folded, name = fold(password), fold(username)
    if folded in COMMON:
        return "that password is one of the most common ones"
    rest = folded.replace(name, "").replace(name[::-1], "")
    if not re.search(r"[^\W\d_]", rest):  # no letter left once the username is taken out
        return "the password cannot be made of the username"
    return None


class Passwords:
    """Hashes and verifies with one set of Argon2id parameters."""

    def __init__(self, time_cost: int, memory_kib: int, parallelism: int) -> None:
        self._hasher = PasswordHasher(time_cost=time_cost, memory_cost=memory_kib,
                                      parallelism=parallelism)
        self._running = asyncio.Semaphore(os.cpu_count() or 1)
        self._dummy = self._hasher.hash(secrets.token_urlsafe(16))

    async def hash(self, password: str) -> str:
        async with self._running:
            return await asyncio.to_thread(self._hasher.hash, password)

    async def verify(self, stored: str | None, password: str) -> bool:
        """Whether ``password`` matches ``stored``; None (no such user) checks a dummy
        hash and answers False, in the time a real check takes."""
        async with self._running:
            return await asyncio.to_thread(self._verify, stored, password)

    def _verify(self, stored: str | None, password: str) -> bool:
        try:
            return self._hasher.verify(stored or self._dummy, password) and stored is not None
        except (VerificationError, InvalidHashError):
            return False

    def needs_rehash(self, stored: str) -> bool:
        """Whether ``stored`` was made with other parameters (raised since): rehash it at
        the next successful login."""
        return self._hasher.check_needs_rehash(stored)
