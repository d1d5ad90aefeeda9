"""Tables: seats, the match, the version and the timers of each table, owned by one actor.

Every change (a seat taken, a card played, a bot's move, a turn timing out, a socket
arriving or leaving) is a command on the table's queue, applied one at a time by the
table's own asyncio task, like boardgame.io's master.  Nothing else writes a table, so
there are no locks.  Each accepted command raises ``version`` by one; presence changes
(sockets coming and going, a bot covering for an absent player) do not.

Nothing here knows about HTTP or WebSockets: a socket is a :class:`Client` whose outbox
the web layer drains, and refusals are :class:`TableError` with a code.

A started match is its log (options, seed, accepted actions): :meth:`Table.resume`
rebuilds it after a restart, and while the log cannot be written the table holds the
action that failed and refuses others until a retried write gets through.

The actor is :class:`Table` (``table.py``); the other modules hold what it is made of
(``seats.py``, ``clients.py``), what it is sent (``commands.py``), how it refuses
(``errors.py``), and the :class:`Lobby` that creates tables (``lobby.py``).
"""

from .clients import Client, Close
from .commands import (
    AddBot,
    Attach,
    BotMove,
    Detach,
    LeaveSeat,
    PlayAction,
    Rematch,
    RemoveBot,
    SitDown,
    StartMatch,
    TakeBack,
)
from .errors import TableError
from .lobby import Lobby
from .table import OVER, Table, TableConfig

__all__ = [
    "OVER",
    "AddBot",
    "Attach",
    "BotMove",
    "Client",
    "Close",
    "Detach",
    "LeaveSeat",
    "Lobby",
    "PlayAction",
    "Rematch",
    "RemoveBot",
    "SitDown",
    "StartMatch",
    "Table",
    "TableConfig",
    "TableError",
    "TakeBack",
]
