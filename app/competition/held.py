"""This node's round tables kept to the tournament's rows, whichever node directs it.

The director decides in the database (a match still on at the round's time limit; an
entry withdrawn), but a round table may be on another node: made here and taken over
there, or the direction taken over while the tables stayed.  So every node, at each pass
of its director task, reads the rows of the round tables it holds whose match is on: one
whose result is written already (decided at the time limit) closes, its match ending
``abandoned``; a seat whose player withdrew goes to a bot, as when a player leaves (their
team loses the round; the last human gone, the table closes).  The rows are the message:
none is lost to a node cut off for a moment, or to a table taken over meanwhile
(docs/tournaments.md, "The time limit", "Withdrawing").
"""

from __future__ import annotations

from ..auth import Player
from ..db.session import Database
from ..tables import Lobby
from ..tables.commands import Expire, LeaveSeat
from ..vocabulary import SeatKind, TableStatus
from . import store

OWNER = "tournament:"  # a round table's owner id: tournament:<id>:<round>:<index>


def owner_of(tournament_id: str, round_: int, index: int, name: str) -> Player:
    """The owner of a round table (none of the players' table limits count it)."""
    return Player(f"{OWNER}{tournament_id}:{round_}:{index}", name)


async def keep(db: Database, lobby: Lobby) -> None:
    """Close this node's round tables decided already; give a withdrawn player's seat to a
    bot.  One read, and none while the node holds no round table in play."""
    mine = {t.id: t for t in lobby.tables.values()
            if t.owner.id.startswith(OWNER) and t.status == TableStatus.PLAYING}
    if not mine:
        return
    decided, withdrawn = await store.held_here(db, list(mine))
    for table_id in decided:
        mine[table_id].post(Expire(TableStatus.PLAYING))
    for table_id, players in withdrawn.items():
        table = mine[table_id]
        for seat, held in enumerate(table.seats):
            if held.kind == SeatKind.HUMAN and held.player is not None \
                    and held.player.id in players:
                table.post(LeaveSeat(held.player, seat))
