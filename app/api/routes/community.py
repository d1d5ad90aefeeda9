"""Friends, blocks, reports and invitations (issue #32; docs/protocol.md, section 10).
Each route reads its body and hands it to app/community/service.py."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Path, Response, status
from pydantic import BaseModel, ConfigDict, Field

from ...events import Notice
from ..deps import CallerDep, CommunityDep, PlayerDep, TableDep
from ..errors import error_responses

router = APIRouter(tags=["community"], responses=error_responses({
    401: "Missing or invalid token",
    403: "A guest's token (`not_an_account`), or one of the two blocks the other "
         "(`player_blocked`)",
    404: "No such player (`player_not_found`)",
    422: "A value the route does not take, or the caller itself (`yourself`)",
    503: "The database is unavailable"}))

PlayerId = Annotated[str, Field(min_length=1, max_length=64)]
PlayerPath = Annotated[str, Path(max_length=64)]
NoticePath = Annotated[int, Path(ge=1, le=2**31 - 1)]  # the database's integer


class PlayerBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    player: PlayerId


class PlayerOut(BaseModel):
    id: str
    name: str


class FriendOut(PlayerOut):
    online: bool = Field(description="A personal channel (`/api/me/ws`) open on any node.")
    table: str | None = Field(description="The public match in progress the friend sits at.")


class FriendsOut(BaseModel):
    friends: list[FriendOut]
    incoming: list[PlayerOut] = Field(description="Who asked the caller, not answered yet.")
    outgoing: list[PlayerOut] = Field(description="Whom the caller asked, not answered yet.")


class FriendAsked(BaseModel):
    friends: bool = Field(description="`true`: both asked, they are friends now.")


class BlocksOut(BaseModel):
    blocks: list[PlayerOut]


class ReportBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    player: PlayerId
    match: str | None = Field(default=None, max_length=64,
                              description="The table or match it happened at, if any.")
    reason: Literal["cheating", "abuse", "leaving", "spam", "other"]
    text: str = Field(default="", max_length=1000)


class ReportOut(BaseModel):
    id: int


class NoticesOut(BaseModel):
    notices: list[Notice] = Field(description="Oldest first, each with its `id`.")


@router.get("/friends")
async def list_friends(caller: CallerDep, community: CommunityDep) -> FriendsOut:
    """The caller's friends (each online or not, and at which public match), and the
    requests not answered yet either way.  Accounts only."""
    found = await community.friends(caller)
    return FriendsOut(
        friends=[FriendOut(id=f.id, name=f.name, online=f.online, table=f.table)
                 for f in found.friends],
        incoming=[PlayerOut(id=p.id, name=p.name) for p in found.incoming],
        outgoing=[PlayerOut(id=p.id, name=p.name) for p in found.outgoing])


@router.post("/friends")
async def ask_friend(body: PlayerBody, caller: CallerDep,
                     community: CommunityDep) -> FriendAsked:
    """Ask an account to be friends; asking one who asked you makes you friends.  The
    other is sent a `friend_request` notice.  Accounts only."""
    return FriendAsked(friends=await community.ask(caller, body.player))


@router.delete("/friends/{player_id}", status_code=status.HTTP_204_NO_CONTENT)
async def unfriend(player_id: PlayerPath, caller: CallerDep,
                   community: CommunityDep) -> Response:
    """No more friends, or a request withdrawn or declined, either way."""
    await community.unfriend(caller, player_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.get("/blocks")
async def list_blocks(caller: CallerDep, community: CommunityDep) -> BlocksOut:
    """Whom the caller blocks.  Accounts only."""
    return BlocksOut(blocks=[PlayerOut(id=p.id, name=p.name)
                             for p in await community.blocks(caller)])


@router.post("/blocks", status_code=status.HTTP_204_NO_CONTENT)
async def block(body: PlayerBody, caller: CallerDep, community: CommunityDep) -> Response:
    """Block a player: never seated together by the queue, no friend request nor
    invitation between you, neither reads the other's chat; a friendship ends."""
    await community.block(caller, body.player)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.delete("/blocks/{player_id}", status_code=status.HTTP_204_NO_CONTENT)
async def unblock(player_id: PlayerPath, caller: CallerDep,
                  community: CommunityDep) -> Response:
    await community.unblock(caller, player_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.post("/reports", status_code=status.HTTP_201_CREATED)
async def report(body: ReportBody, caller: CallerDep, community: CommunityDep) -> ReportOut:
    """Report a player to the operators (`python -m app.admin reports`).  Accounts only."""
    return ReportOut(id=await community.report(caller, body.player, body.match, body.reason,
                                               body.text.strip()))


@router.post("/tables/{table_id}/invitations", status_code=status.HTTP_204_NO_CONTENT,
             responses=error_responses({
                 403: "The caller has no seat here (`not_seated_here`), or one of the two "
                      "blocks the other (`player_blocked`)",
                 409: "The match has started (`not_waiting`)",
                 429: "The caller's invitations are spent for now (`too_many_requests`, "
                      "`INVITATIONS_PER_PLAYER`), with `Retry-After`"}))
async def invite(body: PlayerBody, table: TableDep, player: PlayerDep,
                 community: CommunityDep) -> Response:
    """A seated player of a waiting table invites another, who is sent an `invitation`
    notice with the table's id."""
    await community.invite(player, table, body.player)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.delete("/tables/{table_id}/invitations/{player_id}",
               status_code=status.HTTP_204_NO_CONTENT)
async def decline(player_id: PlayerPath, table: TableDep, player: PlayerDep,
                  community: CommunityDep) -> Response:
    """The caller declines ``player_id``'s invitation to the table: the inviter is sent an
    `invitation_declined` notice while the invitation stands (it still sits at the waiting
    table); after that there is nothing to decline, and nobody is told."""
    await community.decline(player, table, player_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.get("/me/notices", response_model_exclude_none=True)
async def kept_notices(player: PlayerDep, community: CommunityDep) -> NoticesOut:
    """The notices kept while the caller had no personal channel open (friend requests,
    invitations, partners waiting in the queue), not dismissed yet: the newest 20 of the
    last 7 days.  The channel sends them too, each time it opens."""
    return NoticesOut(notices=await community.notices.kept(player.id))


@router.delete("/me/notices/{notice_id}", status_code=status.HTTP_204_NO_CONTENT)
async def dismiss_notice(notice_id: NoticePath, player: PlayerDep,
                         community: CommunityDep) -> Response:
    """The caller read a kept notice: it is not sent again (nothing if it was not kept)."""
    await community.notices.dismiss(player.id, notice_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)
