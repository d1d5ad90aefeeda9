"""A group's table: :func:`open_table` then :func:`start` are the one place a group of
players becomes a started table: the lobby's ``create`` (its limits), the cluster's lease,
then the table's own commands (sit, add a bot, start), as ``POST /api/tables`` and the
seat routes do.  Quickplay's group is one player; the queue's, up to four."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass

from ai import Level
from engine import Options

from ..auth import Player
from ..cluster import Cluster
from ..errors import ErrorCode
from ..names import MAX_NAME
from ..sections import TableSettings
from ..tables import AddBot, LeaveSeat, Lobby, SitDown, StartMatch, Table, TableConfig, TableError
from ..vocabulary import SeatKind

# Refusals of the lobby that concern one holder: another player of a group may own it.
HOLDER_LIMITS = frozenset({ErrorCode.TOO_MANY_TABLES_FOR_YOU,
                           ErrorCode.TOO_MANY_TABLES_FOR_ADDRESS})


@dataclass(frozen=True, slots=True)
class Member:
    """A player of a group, with the client address they asked from and its seat."""

    player: Player
    address: str | None = None
    seat: int = 0


async def open_table(lobby: Lobby, cluster: Cluster | None, settings: TableSettings,
                     group: Sequence[Member], variant: str, level: Level,
                     rated: bool = False) -> tuple[Table, Player]:
    """A new table of ``variant`` with ``group`` in their seats and bots of
    ``level`` in the others, not started yet; with its owner, the first player of the
    group the lobby lets hold one more table (the same refusals as POST /api/tables when
    none may).  Leased to this node in a cluster, before anyone hears of it."""
    names = ", ".join(member.player.name for member in group)
    config = TableConfig(
        name=names if len(names) <= MAX_NAME else names[:MAX_NAME - 1] + "…",
        options=Options.make(variant),
        turn_seconds=settings.turn_seconds(rated),
        private=False,
        timeout_forfeits=False,
        rated=rated,
    )
    table, owner = _create(lobby, group, config)
    if cluster is not None:
        await cluster.own(table)
    try:
        for member in group:
            await table.submit(SitDown(member.player, member.seat, arriving=True))
        await fill_with_bots(table, owner, level)
    except TableError:
        await abandon(table, group)
        raise
    return table, owner


def _create(lobby: Lobby, group: Sequence[Member], config: TableConfig) -> tuple[Table, Player]:
    refused: TableError | None = None
    for member in group:
        try:
            return lobby.create(member.player, config, member.address), member.player
        except TableError as exc:
            if exc.code not in HOLDER_LIMITS:
                raise
            refused = refused or exc
    assert refused is not None, "a group has a player"
    raise refused


async def fill_with_bots(table: Table, owner: Player, level: Level) -> None:
    for seat, held in enumerate(table.info().seats):
        if held.kind == SeatKind.EMPTY:
            await table.submit(AddBot(owner, seat, level))


async def start(table: Table, owner: Player, group: Sequence[Member], level: Level) -> Table:
    """Start a group's table, bots in any seat a player left meanwhile; refused (the log
    is down, say), the players leave it and it closes."""
    try:
        await fill_with_bots(table, owner, level)
        await table.submit(StartMatch(owner))
    except TableError:
        await abandon(table, group)
        raise
    return table


async def abandon(table: Table, group: Sequence[Member]) -> None:
    """The group leaves its table (closed once its last human is gone)."""
    for member in group:
        with contextlib.suppress(TableError):
            await table.submit(LeaveSeat(member.player, member.seat))


def everyone_here(table: Table) -> bool:
    """Whether every human seated at the table has a socket open there."""
    return all(seat.connected for seat in table.info().seats if seat.kind == SeatKind.HUMAN)
