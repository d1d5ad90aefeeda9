"""Guests: a name in, a signed token out."""

from __future__ import annotations

from fastapi import APIRouter, status

from ...models import GuestCreate, GuestPublic
from ..deps import TokensDep
from ..errors import error_responses

router = APIRouter(prefix="/guests", tags=["guests"])


@router.post("", status_code=status.HTTP_201_CREATED, responses=error_responses({
    422: "A refused name: the code says why (`name_reserved`, ...)"}))
async def create_guest(body: GuestCreate, tokens: TokensDep) -> GuestPublic:
    """Choose a name and get the token that authenticates REST calls and sockets."""
    player, token = tokens.issue(body.name)
    return GuestPublic(id=player.id, name=player.name, token=token)
