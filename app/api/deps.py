"""Dependencies as ``Annotated`` aliases, so routes state what they need in their signature."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Path, Request, status
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from ..auth import InvalidToken, Player, Tokens
from ..cluster import Cluster
from ..config import Settings
from ..tables import Lobby, Table
from .errors import ApiError

_bearer = HTTPBearer(auto_error=False, description="The token of `POST /api/guests`.")


def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def get_lobby(request: Request) -> Lobby:
    lobby: Lobby = request.app.state.lobby
    return lobby


def get_cluster(request: Request) -> Cluster | None:
    """This node's cluster, None when the server runs alone (no REDIS_URL)."""
    cluster: Cluster | None = request.app.state.cluster
    return cluster


def get_tokens(request: Request) -> Tokens:
    tokens: Tokens = request.app.state.tokens
    return tokens


def current_player(
    tokens: Annotated[Tokens, Depends(get_tokens)],
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> Player:
    if credentials is None:
        raise _unauthorized("missing_token", "missing bearer token")
    try:
        return tokens.read(credentials.credentials)
    except InvalidToken:
        raise _unauthorized("bad_token", "invalid or expired token") from None


def _unauthorized(code: str, message: str) -> ApiError:
    """401 with the header RFC 6750 asks for; ``bad_token`` is the socket's code too."""
    return ApiError(status.HTTP_401_UNAUTHORIZED, code, message,
                    {"WWW-Authenticate": "Bearer"})


def optional_player(
    tokens: Annotated[Tokens, Depends(get_tokens)],
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> Player | None:
    """The caller, for reads that show a player more of its own; a missing, bad or expired
    token reads as anonymous rather than failing what anyone may read."""
    if credentials is None:
        return None
    try:
        return tokens.read(credentials.credentials)
    except InvalidToken:
        return None


def get_table(
    lobby: Annotated[Lobby, Depends(get_lobby)],
    table_id: Annotated[str, Path(max_length=32)],
) -> Table:
    return lobby.get(table_id)


SettingsDep = Annotated[Settings, Depends(get_settings)]
LobbyDep = Annotated[Lobby, Depends(get_lobby)]
ClusterDep = Annotated[Cluster | None, Depends(get_cluster)]
TokensDep = Annotated[Tokens, Depends(get_tokens)]
PlayerDep = Annotated[Player, Depends(current_player)]
ViewerDep = Annotated[Player | None, Depends(optional_player)]
TableDep = Annotated[Table, Depends(get_table)]
SeatPath = Annotated[int, Path(ge=0, le=3, description="Seat 0 to 3; seats 0 and 2 are team 0.")]
