"""Dependencies as ``Annotated`` aliases, so routes state what they need in their signature."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Path
from fastapi.requests import HTTPConnection
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from ..accounts.service import Accounts, Caller
from ..analysis import Analyses
from ..auth import InvalidToken, Player, Tokens
from ..cluster import Cluster
from ..cluster.relay import CLIENT, RELAY, relayed
from ..community import Community
from ..container import Container, running
from ..db.session import Database
from ..errors import ErrorCode
from ..matchmaking import Matchmaker
from ..monitor import LagMonitor
from ..sections import ClusterSettings, SocketSettings, TableSettings
from ..storage import StorageUnavailable
from ..tables import Lobby, Table
from .errors import ApiError

_bearer = HTTPBearer(auto_error=False, description="The token of `POST /api/guests`, "
                     "`POST /api/accounts` or `POST /api/sessions`.")


def get_container(connection: HTTPConnection) -> Container:
    """The services the app's lifespan started (app/container.py): every dependency on
    a service goes through this one."""
    return running(connection.app)


ContainerDep = Annotated[Container, Depends(get_container)]


def get_lobby(container: ContainerDep) -> Lobby:
    return container.lobby


def get_cluster(container: ContainerDep) -> Cluster | None:
    """This node's cluster, None when the server runs alone (no REDIS_URL)."""
    return container.cluster


def get_tokens(container: ContainerDep) -> Tokens:
    return container.tokens


def get_accounts(container: ContainerDep) -> Accounts:
    return container.accounts


def get_database(container: ContainerDep) -> Database:
    return container.database


def get_community(container: ContainerDep) -> Community:
    return container.community


def get_matchmaker(container: ContainerDep) -> Matchmaker:
    return container.matchmaker


def get_analyses(container: ContainerDep) -> Analyses:
    return container.analyses


def get_monitor(container: ContainerDep) -> LagMonitor:
    return container.monitor


def get_table_settings(container: ContainerDep) -> TableSettings:
    return container.settings.tables


def get_socket_settings(container: ContainerDep) -> SocketSettings:
    return container.settings.sockets


def get_cluster_settings(container: ContainerDep) -> ClusterSettings:
    return container.settings.cluster


Bearer = Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]


async def current_caller(accounts: Annotated[Accounts, Depends(get_accounts)],
                         credentials: Bearer) -> Caller:
    """Who the bearer token is: a guest, or an account's live session."""
    if credentials is None:
        raise _unauthorized(ErrorCode.MISSING_TOKEN, "missing bearer token")
    caller = await identify(accounts, credentials.credentials)
    if caller is None:
        raise _unauthorized(ErrorCode.BAD_TOKEN, "invalid or expired token")
    return caller


async def current_player(caller: Annotated[Caller, Depends(current_caller)]) -> Player:
    return caller.player


def _unauthorized(code: ErrorCode, message: str) -> ApiError:
    """401 with the header RFC 6750 asks for; ``bad_token`` is the socket's code too."""
    return ApiError(code, message, {"WWW-Authenticate": "Bearer"})


async def optional_caller(accounts: Annotated[Accounts, Depends(get_accounts)],
                          credentials: Bearer) -> Caller | None:
    """The caller, for reads that show a caller more of its own; a missing, bad or expired
    token reads as anonymous rather than failing what anyone may read."""
    if credentials is None:
        return None
    return await identify(accounts, credentials.credentials)


async def optional_player(caller: Annotated[Caller | None, Depends(optional_caller)]
                          ) -> Player | None:
    return None if caller is None else caller.player


async def identify(accounts: Accounts, token: str) -> Caller | None:
    """The token's caller, None if it is nobody; 503 while sessions cannot be read."""
    try:
        return await accounts.identify(token)
    except InvalidToken:
        return None
    except StorageUnavailable:
        raise ApiError(ErrorCode.STORAGE_UNAVAILABLE,
                       "sessions cannot be read now, try again later") from None


def client_address(connection: HTTPConnection,
                   cluster: Annotated[Cluster | None, Depends(get_cluster)]) -> str | None:
    """The client's address: the connection's peer as uvicorn read it (behind a proxy in
    TRUSTED_PROXIES, its X-Forwarded-For), or for a call or socket relayed by another node
    of the cluster, the address that node saw (app/cluster/relay.py)."""
    if cluster is not None and relayed(connection.headers.get(RELAY), cluster.mark):
        return connection.headers.get(CLIENT)
    return connection.client.host if connection.client else None


def get_table(
    lobby: Annotated[Lobby, Depends(get_lobby)],
    table_id: Annotated[str, Path(max_length=32)],
) -> Table:
    return lobby.get(table_id)


LobbyDep = Annotated[Lobby, Depends(get_lobby)]
ClusterDep = Annotated[Cluster | None, Depends(get_cluster)]
TokensDep = Annotated[Tokens, Depends(get_tokens)]
AccountsDep = Annotated[Accounts, Depends(get_accounts)]
DatabaseDep = Annotated[Database, Depends(get_database)]
MatchmakerDep = Annotated[Matchmaker, Depends(get_matchmaker)]
CommunityDep = Annotated[Community, Depends(get_community)]
AnalysesDep = Annotated[Analyses, Depends(get_analyses)]
MonitorDep = Annotated[LagMonitor, Depends(get_monitor)]
TableSettingsDep = Annotated[TableSettings, Depends(get_table_settings)]
SocketSettingsDep = Annotated[SocketSettings, Depends(get_socket_settings)]
ClusterSettingsDep = Annotated[ClusterSettings, Depends(get_cluster_settings)]
CallerDep = Annotated[Caller, Depends(current_caller)]
PlayerDep = Annotated[Player, Depends(current_player)]
ViewerDep = Annotated[Player | None, Depends(optional_player)]
CallerViewDep = Annotated[Caller | None, Depends(optional_caller)]
TableDep = Annotated[Table, Depends(get_table)]
AddressDep = Annotated[str | None, Depends(client_address)]
SeatPath = Annotated[int, Path(ge=0, le=3, description="Seat 0 to 3; seats 0 and 2 are team 0.")]
