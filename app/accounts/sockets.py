"""The sockets each account session opened on this node, so that ending the session
closes them at once (and, through :mod:`.news`, those it opened on other nodes)."""

from __future__ import annotations

from collections import OrderedDict, defaultdict

from ..protocol import CloseCode
from ..tables import Client

# Sessions ended lately, remembered so that a socket whose hello read its session just
# before the end (the news came while it was being set up) is closed as it registers.
REMEMBERED = 1000


class SessionSockets:
    def __init__(self) -> None:
        self._open: defaultdict[str, set[Client]] = defaultdict(set)
        self._ended: OrderedDict[str, None] = OrderedDict()

    def add(self, session: str, client: Client) -> None:
        self._open[session].add(client)
        if session in self._ended:
            self.close(session)

    def discard(self, session: str, client: Client) -> None:
        clients = self._open.get(session)
        if clients is not None:
            clients.discard(client)
            if not clients:
                del self._open[session]

    def close(self, session: str) -> None:
        """Close, with a final code, every socket of ``session`` on this node."""
        self._ended[session] = None
        if len(self._ended) > REMEMBERED:
            self._ended.popitem(last=False)
        for client in self._open.pop(session, ()):
            client.close(CloseCode.SESSION_ENDED, "session_ended")
