"""The community's rules (issue #32): who may befriend, block, report and invite whom,
and what each is told; the rows are app/db/social.py's, the notices :mod:`.notices`'.
Each refusal is a :class:`CommunityError` with its code (app/errors.py)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from ..accounts.service import Caller
from ..auth import Player
from ..db import social
from ..db.reputation import reputations
from ..db.session import Database
from ..errors import ErrorCode
from ..events import (
    DeclinedNotice,
    FriendRequestNotice,
    InvitationNotice,
    QueuePartnerNotice,
    QueueSeatedNotice,
    Someone,
)
from ..limiter import Limit, Limited, Limiter
from ..reputation import RATED_FLOOR, Reputation
from ..shared import UNREACHABLE
from ..tables import Table, TableError
from ..vocabulary import TableStatus
from .apart import Apart
from .notices import Notices
from .watch import Watch


class CommunityError(TableError):
    """A refused call of the community's: its code says why (the REST edge maps it)."""


@dataclass(frozen=True, slots=True)
class FriendView:
    id: str
    name: str
    online: bool
    table: str | None  # the public match in progress the friend sits at


@dataclass(frozen=True, slots=True)
class FriendsView:
    friends: list[FriendView]
    incoming: list[social.Named]
    outgoing: list[social.Named]


def account_of(caller: Caller) -> Player:
    """The caller's player, if an account; ``not_an_account`` (403) for a guest."""
    if caller.username is None:
        raise CommunityError(ErrorCode.NOT_AN_ACCOUNT, "only an account can do that: sign up")
    return caller.player


@dataclass(frozen=True, slots=True)
class Invitations:
    """Each player's rate of invitations and partner prompts (``INVITATIONS_PER_PLAYER``),
    so that nobody floods another's notices."""

    limiter: Limiter
    limit: Limit

    async def count(self, player_id: str) -> None:
        """One more from ``player_id``, or ``too_many_requests`` with when to try again.
        The shared state out of reach: not counted (as the REST limits)."""
        try:
            await self.limiter.take([(self.limit, player_id)])
        except Limited as limited:
            raise CommunityError(ErrorCode.TOO_MANY_REQUESTS, "too many invitations; try "
                                 f"again in {limited.retry_after} s",
                                 limited.retry_after) from None
        except UNREACHABLE:
            pass


class Community:
    def __init__(self, database: Database, notices: Notices, watch: Watch,
                 apart: Apart, invitations: Invitations) -> None:
        self._db, self.notices, self.watch, self._apart = database, notices, watch, apart
        self._invitations = invitations

    async def close(self) -> None:
        await self.notices.close()
        await self._apart.close()

    async def friend_ids(self, caller: Caller | None) -> set[str]:
        """An account's friends; nobody's for a guest or an anonymous caller."""
        if caller is None or caller.username is None:
            return set()
        return await social.friend_ids(self._db, caller.player.id)

    async def friends(self, caller: Caller) -> FriendsView:
        me = account_of(caller)
        found = await social.friends_of(self._db, me.id)
        ids = [f.id for f in found.friends]
        online = await self.notices.presence.online(ids)
        tables = await self.watch.tables_of(ids)
        return FriendsView([FriendView(f.id, f.name, f.id in online, tables.get(f.id))
                            for f in found.friends], found.incoming, found.outgoing)

    async def ask(self, caller: Caller, player_id: str) -> bool:
        """Ask ``player_id`` to be friends (an account); True if they are friends now.
        The other is told either way."""
        me = account_of(caller)
        await self._other(me, player_id, account=True)
        await self._not_blocked(me.id, player_id)
        friends = await social.ask_friend(self._db, me.id, player_id)
        await self.notices.tell(player_id, FriendRequestNotice(
            player=Someone(id=me.id, name=me.name), friends=friends))
        return friends

    async def unfriend(self, caller: Caller, player_id: str) -> None:
        await social.unfriend(self._db, account_of(caller).id, player_id)

    async def block(self, caller: Caller, player_id: str) -> None:
        """Block ``player_id``: at a table where both sit, the chat stops at once."""
        me = account_of(caller)
        await self._other(me, player_id, account=False)
        await social.block(self._db, me.id, player_id)
        await self._apart.changed(me.id, player_id)

    async def unblock(self, caller: Caller, player_id: str) -> None:
        me = account_of(caller)
        await social.unblock(self._db, me.id, player_id)
        await self._apart.changed(me.id, player_id)

    async def blocks(self, caller: Caller) -> list[social.Named]:
        return await social.blocked_by(self._db, account_of(caller).id)

    async def report(self, caller: Caller, player_id: str, match: str | None, reason: str,
                     text: str) -> int:
        me = account_of(caller)
        await self._other(me, player_id, account=False)
        return await social.report(self._db, me.id, player_id, match, reason, text)

    async def invite(self, player: Player, table: Table, player_id: str) -> None:
        """A seated player of a waiting table invites ``player_id``, who is told, unless
        one of the two blocks the other."""
        info = table.info()
        if info.status != TableStatus.WAITING:
            raise CommunityError(ErrorCode.NOT_WAITING, "the match has already started")
        if not any(seat.holds(player) for seat in table.seats):
            raise CommunityError(ErrorCode.NOT_SEATED_HERE,
                                 "only a player seated at the table invites to it")
        await self._other(player, player_id, account=False)
        await self._not_blocked(player.id, player_id)
        await self._invitations.count(player.id)
        await self.notices.tell(player_id, InvitationNotice(
            player=Someone(id=player.id, name=player.name), table=table.id,
            variant=info.variant))

    async def decline(self, player: Player, table: Table, inviter: str) -> None:
        """The player declines ``inviter``'s invitation to ``table``: the inviter is told
        while the invitation still stands (it sits at the table, whose match has not
        started), unless one of the two blocks the other.  Counted on the player's rate of
        invitations, so that nobody floods another's notices with declines."""
        if inviter == player.id:
            raise CommunityError(ErrorCode.YOURSELF, "that is yourself")
        seated = any(s.player is not None and s.player.id == inviter for s in table.seats)
        standing = seated and table.status == TableStatus.WAITING
        if not standing or await social.blocks_either(self._db, player.id, inviter):
            return
        await self._invitations.count(player.id)
        await self.notices.tell(inviter, DeclinedNotice(
            player=Someone(id=player.id, name=player.name), table=table.id))

    async def check_partner(self, player: Player, partner: str) -> None:
        """A queue partner: another player, neither blocking the other."""
        if partner == player.id:
            raise CommunityError(ErrorCode.YOURSELF, "you cannot be your own partner")
        await self._not_blocked(player.id, partner)

    async def will_prompt(self, player: Player, partner: str) -> bool:
        """Whether ``partner``, named in the queue, is to be prompted to join as the
        player's partner: a friend is, counted on the player's rate of invitations
        (``too_many_requests`` past it); another player is not told (no prompts from
        strangers), and the two pair only if both name each other."""
        if partner not in await social.friend_ids(self._db, player.id):
            return False
        await self._invitations.count(player.id)
        return True

    async def prompt_partner(self, player: Player, partner: str, variant: str,
                             rated: bool) -> None:
        """Tell ``partner`` the player waits in the queue for them (kept if offline)."""
        await self.notices.tell(partner, QueuePartnerNotice(
            player=Someone(id=player.id, name=player.name), variant=variant, rated=rated))

    async def reputation(self, player_id: str) -> Reputation:
        return (await reputations(self._db, [player_id]))[player_id]

    async def rated_reputation(self, player: Player) -> int:
        """The player's reputation, if the rated queue takes it: ``reputation_too_low``
        below :data:`~app.reputation.RATED_FLOOR`."""
        value = (await self.reputation(player.id)).value
        if value < RATED_FLOOR:
            raise CommunityError(ErrorCode.REPUTATION_TOO_LOW,
                                 f"your reputation ({value}) is below {RATED_FLOOR}: finish "
                                 "some unrated matches first")
        return value

    # What the queue asks (app/matchmaking/matchmaker.py, Neighbours).

    async def apart(self, player_ids: Collection[str]) -> set[frozenset[str]]:
        return await social.blocking_pairs(self._db, player_ids)

    async def seated(self, player_id: str, table_id: str) -> None:
        await self.notices.tell(player_id, QueueSeatedNotice(table=table_id))

    async def _other(self, me: Player, player_id: str, account: bool) -> None:
        """Another known player (an account, if ``account``)."""
        if player_id == me.id:
            raise CommunityError(ErrorCode.YOURSELF, "that is yourself")
        known = await (social.is_account(self._db, player_id) if account
                       else self._known(player_id))
        if not known:
            what = "account" if account else "player"
            raise CommunityError(ErrorCode.PLAYER_NOT_FOUND, f"no {what} {player_id!r}")

    async def _known(self, player_id: str) -> bool:
        return player_id in await social.names(self._db, [player_id])

    async def _not_blocked(self, one: str, other: str) -> None:
        if await social.blocks_either(self._db, one, other):
            raise CommunityError(ErrorCode.BLOCKED, "one of you blocks the other")
