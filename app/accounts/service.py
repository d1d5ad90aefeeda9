"""Accounts as the routes and the socket use them: who a token is, sign-up (a guest's
too), login, logout, a new password; each refusal an :class:`AccountError` with its code.

Guest tokens are read as before, by their signature alone (no database read), except
that the guest tokens of a player who has become an account stop working: the ids of
accounts younger than a guest token's life are kept in memory for that.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import Literal

from ..auth import InvalidToken, Player, Tokens
from ..db import accounts as store
from ..db.session import Database
from ..errors import ErrorCode
from ..limiter import Hit, Limit, Limited, Limiter
from ..sections import AccountSettings
from ..shared import RedisShared, Shared
from ..storage import StorageError
from ..tables import Client
from .news import ACCOUNT, ENDED, News
from .passwords import Passwords, weakness
from .sessions import Sessions, is_session_token, token_hash
from .sockets import SessionSockets
from .usernames import fold

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Limits:
    """Failed logins per username at one client address (what one attacker's address can
    spend), per address, and per username from every address together (the account's:
    slower, a bound on an attack spread over many addresses, which, once reached, keeps
    the owner out too until its window ends); sign-ups per address."""

    login_pair: Limit
    login_address: Limit
    login_account: Limit
    signup: Limit

    @classmethod
    def of(cls, settings: AccountSettings) -> Limits:
        return cls(
            Limit.attempts("login-pair", settings.login_failures_per_username,
                           settings.login_window),
            Limit.attempts("login-address", settings.login_failures_per_address,
                           settings.login_window),
            Limit.attempts("login-account", settings.login_failures_per_account,
                           settings.login_account_window),
            Limit.attempts("signup", settings.signups_per_address, settings.signup_window),
        )


@dataclass(frozen=True, slots=True)
class Caller:
    """Who a token is: a guest, or an account with the session the token opened."""

    player: Player
    username: str | None = None
    session: str | None = None  # the token's hash, for an account

    @property
    def kind(self) -> Literal["guest", "account"]:
        return "guest" if self.username is None else "account"


class AccountError(Exception):
    """A refused call: the error code, and Retry-After for a 429."""

    def __init__(self, code: ErrorCode, message: str, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.code, self.retry_after = code, retry_after


BAD_CREDENTIALS = (ErrorCode.BAD_CREDENTIALS, "wrong username or password")


class Accounts:
    def __init__(self, database: Database, tokens: Tokens, passwords: Passwords,
                 sessions: Sessions, limiter: Limiter, limits: Limits,
                 shared: Shared) -> None:
        self._db, self._tokens, self._passwords = database, tokens, passwords
        self._sessions, self._limiter, self._limits = sessions, limiter, limits
        self._sockets = SessionSockets()
        # Guests turned accounts, with when this node heard of it: kept for a guest
        # token's life (set at start), after which their guest tokens are dead anyway.
        self._former_guests: dict[str, float] = {}
        self._guest_token_life = 0.0
        self._recalled = True  # whether the last reading of them worked (one warning)
        self._news = News(self._sockets.close, self._retire_guest, self._recall_former_guests,
                          shared)

    async def start(self, guest_token_life: timedelta) -> None:
        self._guest_token_life = guest_token_life.total_seconds()
        await self._recall_former_guests()
        self._news.start()

    async def _recall_former_guests(self) -> bool:
        """Retire the guest ids of the accounts younger than a guest token's life: at
        start, and after every subscription to the news (a node cut off from Redis missed
        what was told meanwhile).  False if the database cannot say now."""
        try:
            recent = await store.recent_accounts(self._db,
                                                 timedelta(seconds=self._guest_token_life))
        except StorageError as exc:  # the server goes on; say what it lacks, once
            if self._recalled:
                log.warning("accounts: former guests unknown, their guest tokens still work "
                            "until they expire or the database answers: %s", exc)
            self._recalled = False
            return False
        for player_id in recent:
            self._retire_guest(player_id)
        self._recalled = True
        return True

    async def close(self) -> None:
        await self._news.close()

    # ------------------------------------------------------------ tokens

    async def identify(self, token: str) -> Caller:
        """The caller a token is; InvalidToken if it is nobody (forged, expired, ended,
        or the guest token of a player who has an account now)."""
        if is_session_token(token):
            owner = await self._sessions.read(token)
            if owner is None:
                raise InvalidToken("no such session")
            return Caller(Player(owner.player_id, owner.username), owner.username,
                          token_hash(token))
        player = self._tokens.read(token)
        if player.id in self._former_guests:
            raise InvalidToken("this guest has an account now")
        return Caller(player)

    def watch(self, caller: Caller, client: Client) -> None:
        """Close ``client`` when the caller's session ends (a guest's never does)."""
        if caller.session is not None:
            self._sockets.add(caller.session, client)

    def unwatch(self, caller: Caller, client: Client) -> None:
        if caller.session is not None:
            self._sockets.discard(caller.session, client)

    # ------------------------------------------------------------ calls

    async def register(self, username: str, password: str, caller: Caller | None,
                       address: str | None) -> tuple[Caller, str]:
        """A new account, or ``caller``'s (a guest's) with its player id and history.
        Every attempt counts on the address's sign-ups, refused ones too."""
        if address is not None:
            await self._take([(self._limits.signup, address)])
        if caller is not None and caller.username is not None:
            raise AccountError(ErrorCode.ALREADY_AN_ACCOUNT, "you are logged in to an account")
        if (reason := weakness(password, username)) is not None:
            raise AccountError(ErrorCode.WEAK_PASSWORD, reason)
        player_id = caller.player.id if caller is not None else uuid.uuid4().hex
        password_hash = await self._passwords.hash(password)
        try:
            await store.create_account(self._db, player_id, username, fold(username),
                                       password_hash)
        except store.AccountTaken:
            raise AccountError(ErrorCode.USERNAME_TAKEN, "that username is taken") from None
        if caller is not None:
            await self._news.tell(ACCOUNT, player_id)
        return await self._open(player_id, username)

    async def login(self, username: str, password: str,
                    address: str | None) -> tuple[Caller, str]:
        """A new session; the same refusal, after the same work, for a wrong username as
        for a wrong password."""
        key = fold(username)
        attempt = await self._attempt(key, address)
        try:
            account = await store.find_account(self._db, key)
            stored = None if account is None else account.password_hash
            matches = await self._passwords.verify(stored, password)  # an unknown user's too
        except StorageError:  # no check was made: the attempt is not the caller's failure
            await self._limiter.give_back(attempt)
            raise
        if account is None or not matches:
            raise AccountError(*BAD_CREDENTIALS)  # the attempt stays counted
        await self._succeeded(attempt, key, address)
        if self._passwords.needs_rehash(account.password_hash):
            await store.set_password(self._db, account.player_id,
                                     await self._passwords.hash(password))
        return await self._open(account.player_id, account.username)

    async def logout(self, caller: Caller) -> None:
        session = self._account(caller)
        await self._sessions.end(session)
        await self._news.tell(ENDED, session)

    async def change_password(self, caller: Caller, old: str, new: str,
                              address: str | None) -> None:
        """A new password; every other session of the account ends (this one goes on).
        A wrong ``old`` counts as a failed login."""
        session = self._account(caller)
        assert caller.username is not None
        key = fold(caller.username)
        attempt = await self._attempt(key, address)
        try:
            account = await store.account_of(self._db, caller.player.id)
        except StorageError:  # no check was made: the attempt is not the caller's failure
            await self._limiter.give_back(attempt)
            raise
        if account is None or not await self._passwords.verify(account.password_hash, old):
            raise AccountError(*BAD_CREDENTIALS)
        await self._succeeded(attempt, key, address)
        if (reason := weakness(new, caller.username)) is not None:
            raise AccountError(ErrorCode.WEAK_PASSWORD, reason)
        await store.set_password(self._db, caller.player.id, await self._passwords.hash(new))
        for ended in await self._sessions.end_others(caller.player.id, session):
            await self._news.tell(ENDED, ended)

    # ------------------------------------------------------------ helpers

    def _retire_guest(self, player_id: str) -> None:
        """Refuse ``player_id``'s guest tokens from now on; forget those retired longer
        ago than a guest token lives."""
        now = time.monotonic()
        if len(self._former_guests) % 1024 == 0:  # now and then, not at every sign-up
            self._former_guests = {p: at for p, at in self._former_guests.items()
                                   if now - at < self._guest_token_life}
        self._former_guests[player_id] = now

    async def _open(self, player_id: str, username: str) -> tuple[Caller, str]:
        """A new session; the oldest one past MAX_SESSIONS ends, its sockets closed."""
        token, ended = await self._sessions.create(player_id)
        for session in ended:
            await self._news.tell(ENDED, session)
        return Caller(Player(player_id, username), username, token_hash(token)), token

    async def _attempt(self, key: str, address: str | None) -> list[Hit]:
        """Count a password check of the username ``key`` before it is made, so that a
        burst of them stops at the limits however many run at once."""
        limits = self._limits
        wanted = [(limits.login_account, key)]
        if address is not None:
            wanted += [(limits.login_pair, _pair(address, key)), (limits.login_address, address)]
        return await self._take(wanted)

    async def _succeeded(self, attempt: list[Hit], key: str, address: str | None) -> None:
        """A right password: its attempt is given back (a failure budget, not a count of
        logins), and the failures of this username at this address are forgiven, which
        only someone who knows the password can do."""
        await self._limiter.give_back(attempt)
        if address is not None:
            await self._limiter.clear(self._limits.login_pair, _pair(address, key))

    async def _take(self, wanted: list[tuple[Limit, str]]) -> list[Hit]:
        try:
            return await self._limiter.take(wanted)
        except Limited as limited:
            wait = limited.retry_after
            raise AccountError(ErrorCode.TOO_MANY_ATTEMPTS,
                               f"too many attempts; try again in {wait} s", wait) from None

    @staticmethod
    def _account(caller: Caller) -> str:
        """The caller's session, or ``not_an_account`` for a guest."""
        if caller.session is None:
            raise AccountError(ErrorCode.NOT_AN_ACCOUNT, "a guest has no account: sign up first")
        return caller.session


def _pair(address: str, key: str) -> str:
    """The key of a username at an address: the address first, which the caller cannot
    choose, so that no username makes another address's key."""
    return f"{address}/{key}"


async def make_accounts(settings: AccountSettings, database: Database, tokens: Tokens,
                        limiter: Limiter, shared: Shared) -> Accounts:
    """The server's accounts, started; with ``shared`` in Redis (a cluster's) the session
    cache and the news are shared by every node (and ``limiter`` counts there too)."""
    passwords = await asyncio.to_thread(Passwords, settings.argon2_time_cost,
                                        settings.argon2_memory_kib, settings.argon2_parallelism)
    accounts = Accounts(database, tokens, passwords,
                        Sessions(database, settings.session_days,
                                 shared if isinstance(shared, RedisShared) else None),
                        limiter, Limits.of(settings), shared)
    await accounts.start(timedelta(seconds=settings.token_max_age))
    return accounts
