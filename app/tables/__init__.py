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

Where to look:

- ``table.py``: the actor (its queue, each command handed to its handler) and the
  table's life, from the start to the close, and its resumption after a restart;
- ``handlers.py``: which handler each command has; the handlers see the table as a
  ``TableContext`` (``context.py``) and import nothing from ``table.py``;
- ``play.py``: what happens when a card (or a call) arrives, a bot's move, a timeout;
- ``seating.py``: seats, bots, the start, the rematch;
- ``presence.py``: sockets arriving and leaving, the grace an absent seat is kept for;
- ``turns.py``: what moves the game on, a bot thinking or a human's turn timer;
- ``audience.py``: who is at the table, the message each one is sent, the answers;
- ``chat.py``: the players' chat, its quick phrases, who reads it, its rate limit;
- ``journal.py``: the writes to the match log, retried in order until each succeeds;
- ``clock.py``: the wall clock and timers, injected (tests move a fake one);
- ``config.py``: a table's own settings, and the services all tables share;
- ``commands.py``, ``errors.py``, ``seats.py``, ``clients.py``, ``status.py``: what a
  table is sent, how it refuses, its seats, a socket's end, its statuses;
- ``lobby.py``: the :class:`Lobby` that creates, lists, restores and stops tables.

Imports run one way, from ``lobby.py`` and ``table.py`` down to the leaves
(tests/test_app_layout.py keeps it so).
"""

from .clients import Client, Close
from .commands import (
    AddBot,
    Attach,
    BotMove,
    Detach,
    LeaveSeat,
    Moved,
    PlayAction,
    Rematch,
    RemoveBot,
    Say,
    SitDown,
    StartMatch,
    TakeBack,
)
from .config import TableConfig
from .errors import TableError
from .lobby import Lobby
from .table import Table

__all__ = [
    "AddBot",
    "Attach",
    "BotMove",
    "Client",
    "Close",
    "Detach",
    "LeaveSeat",
    "Lobby",
    "Moved",
    "PlayAction",
    "Rematch",
    "RemoveBot",
    "Say",
    "SitDown",
    "StartMatch",
    "Table",
    "TableConfig",
    "TableError",
    "TakeBack",
]
