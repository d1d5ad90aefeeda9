"""The composition root: every service of the server, built once at start by
:func:`started`, held in one typed :class:`Container`, and closed at the end in the
reverse order of their building.  The app's lifespan (app/main.py) keeps the container
on the app; routes get its services through the dependencies of app/api/deps.py, the
ASGI middlewares through :func:`running`; :func:`container_of` is the one reader of
``app.state``."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass

from starlette.applications import Starlette

from .accounts.service import Accounts, make_accounts
from .analysis import Analyses
from .auth import Tokens
from .bots import BotRunner
from .cluster import Cluster
from .community import Community, make_community
from .competition.director import Director
from .config import Settings
from .db.migrate import check_schema
from .db.ratings import RatingStore
from .db.session import Database
from .db.social import BlockBook
from .db.storage import DatabaseStorage
from .limiter import Limiter
from .matchmaking import Matchmaker
from .monitor import LagMonitor
from .shared import RedisShared, Shared, make_shared
from .storage import Storage
from .tables import Lobby
from .tables.clock import Clock, LoopClock

# Seconds the database connections get to close at shutdown, after the tables, the
# requests and the bot pool (app/bots.py: EXIT_TIMEOUT) had theirs.
DISPOSE_TIMEOUT = 1.0

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Container:
    """The server's services, as :func:`started` built them.  ``cluster`` is None for a
    server running alone (no REDIS_URL)."""

    settings: Settings
    database: Database
    storage: Storage
    tokens: Tokens
    bots: BotRunner
    monitor: LagMonitor
    lobby: Lobby
    cluster: Cluster | None
    matchmaker: Matchmaker
    limiter: Limiter
    accounts: Accounts
    analyses: Analyses
    director: Director
    community: Community


@asynccontextmanager
async def started(settings: Settings, storage: Storage | None = None,
                  clock: Clock | None = None) -> AsyncIterator[Container]:
    """The server's services, started, on ``settings.database_url``; tables log to
    ``storage`` instead when given (tests), and their timers run on ``clock``.

    Each service is built in turn and its close registered at once: on the way out
    (or a failed start) the closes run in the reverse order, from the exit stack.
    So the shutdown is, after Server.shutdown (app/main.py) stopped the tables:
    the tournaments' director, the analyses, the accounts, the matchmaker, the lobby
    (its tables drain here under a TestClient), the cluster, the lag monitor, the bot
    executors, the shared state, and last the database.  Once all are built they start
    (the bots' pool, the monitor, the analyses), and the tables come back: from the log
    when alone, by takeover of the orphans in a cluster, whose other nodes hold theirs;
    then the director."""
    async with AsyncExitStack() as stack:
        database = Database(settings.database_url, settings.database_timeout)
        stack.push_async_callback(dispose, database)
        shared = make_shared(settings.cluster)
        stack.push_async_callback(shared.close)
        if storage is None:
            await check_schema(database)
        bots = BotRunner(settings.bots)
        stack.push_async_callback(bots.close)
        monitor = LagMonitor()
        stack.push_async_callback(monitor.stop)
        key = await asyncio.to_thread(settings.token_key)  # may create the file
        tokens = Tokens(key, settings.token_max_age)
        storage = storage or DatabaseStorage(database, fencing=settings.redis_url is not None)
        lobby = Lobby(settings.tables, bots, storage, clock, RatingStore(database),
                      BlockBook(database))
        cluster = _node(settings, lobby, storage, key, shared)
        if cluster is not None:
            stack.push_async_callback(cluster.close)
        # Registered after the cluster's close, so run before it: a node lets its tables'
        # leases go once they stopped.  Server.shutdown stopped them already; not so under
        # a TestClient.
        stack.push_async_callback(lobby.stop, drain_time(settings.shutdown_timeout))
        limiter = Limiter(shared.limits)
        community = make_community(database, shared, lobby, cluster, limiter,
                                   settings.invitations_per_player)
        stack.push_async_callback(community.close)
        matchmaker = Matchmaker.of(lobby, cluster, shared, settings.tables, clock or LoopClock(),
                                   community)
        stack.push_async_callback(matchmaker.close)
        accounts = await make_accounts(settings.accounts, database, tokens, limiter, shared)
        stack.push_async_callback(accounts.close)
        analyses = Analyses(settings.analysis, database, limiter, shared)
        stack.push_async_callback(analyses.close)
        director = Director(database, lobby, cluster, shared, settings.cluster.lease_seconds,
                            settings.competition.league_season_days, community.notices.tell)
        stack.push_async_callback(director.close)
        await bots.start()
        monitor.start()
        await analyses.start()
        if cluster is None:
            await lobby.restore()
        else:  # the other nodes hold their tables; orphans are taken over
            await cluster.start()
        if isinstance(storage, DatabaseStorage):  # round results come from its match ends
            director.start()  # after the tables came back: it reads whether theirs are here
        yield Container(settings, database, storage, tokens, bots, monitor, lobby, cluster,
                        matchmaker, limiter, accounts, analyses, director, community)


def _node(settings: Settings, lobby: Lobby, storage: Storage, key: str,
          shared: Shared) -> Cluster | None:
    """This node of the cluster whose shared state is in Redis; None for a server alone."""
    if not isinstance(shared, RedisShared):
        return None
    if not isinstance(storage, DatabaseStorage):
        raise TypeError("a node of a cluster logs its tables to the database the nodes share")
    return Cluster(settings.cluster, lobby, storage, key, shared)


def keep(app: Starlette, container: Container) -> None:
    """Hold ``container`` on ``app``, for :func:`container_of`."""
    app.state.container = container


def container_of(app: Starlette) -> Container | None:
    """The services ``app``'s lifespan started; None before it did (or if it failed)."""
    container: Container | None = getattr(app.state, "container", None)
    return container


def running(app: Starlette) -> Container:
    """The services ``app``'s lifespan started, which serving a request needs."""
    container = container_of(app)
    if container is None:
        raise RuntimeError("the app's lifespan has not started its services")
    return container


async def dispose(database: Database) -> None:
    """Close the pooled connections, giving up after DISPOSE_TIMEOUT: closing one waits
    for the server's goodbye (asyncpg: up to 5 s each, one after the other), and a stalled
    database must not keep the process alive.  The exit closes the sockets anyway."""
    try:
        await asyncio.wait_for(database.dispose(), DISPOSE_TIMEOUT)
    except TimeoutError:
        logger.warning("database connections not closed within %s s; leaving them",
                       DISPOSE_TIMEOUT)


def requests_time(shutdown_timeout: int) -> int:
    """Seconds of the shutdown for open requests to end (uvicorn's share)."""
    return shutdown_timeout // 2


def drain_time(shutdown_timeout: int) -> int:
    """Seconds of the shutdown for tables to finish what they hold (the rest)."""
    return shutdown_timeout - requests_time(shutdown_timeout)
