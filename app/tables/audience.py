"""Who is at a table (one socket per player) and what each of them is sent.

Every message is built for its recipient alone, from the view its seat may see (or the
public view, for a spectator): nothing is built once and redacted.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Any, Protocol

from engine import Match

from ..events import ChatEvent, Event
from ..models import TablePublic
from ..protocol import CloseCode, State, StateKind
from ..views import seat_view, spectator_view
from ..vocabulary import TableStatus
from .clients import Client
from .turns import Turns

ANSWERS_KEPT = 64  # per seated player: how many past action ids a repeat is answered for


class Stage(Protocol):
    """What an audience shows of its table, as the table is when a message is built."""

    version: int
    status: TableStatus
    match: Match | None
    turns: Turns

    def info(self) -> TablePublic: ...


class Audience:
    """The table's sockets by player id, and the answers kept for its seated players."""

    def __init__(self, table: Stage) -> None:
        self._table = table
        self._clients: dict[str, Client] = {}
        self._answers: dict[str, OrderedDict[str, str]] = {}  # player id -> action id -> answer

    def __len__(self) -> int:
        return len(self._clients)

    def __iter__(self) -> Iterator[Client]:
        return iter(self._clients.values())

    def get(self, player_id: str) -> Client | None:
        return self._clients.get(player_id)

    def spectators_besides(self, player_id: str) -> int:
        return sum(c.seat is None and c.player.id != player_id for c in self._clients.values())

    def join(self, client: Client) -> None:
        """``client`` becomes its player's one socket here; an older one is closed."""
        old = self._clients.get(client.player.id)
        if old is not None:
            old.close(CloseCode.REPLACED, "replaced by a newer connection")
        self._clients[client.player.id] = client

    def leave(self, client: Client) -> bool:
        """Forget ``client``; False if a newer socket of its player had replaced it."""
        if self._clients.get(client.player.id) is not client:
            return False
        del self._clients[client.player.id]
        return True

    def close_all(self, code: CloseCode, reason: str) -> None:
        for client in self._clients.values():
            client.close(code, reason)

    # ------------------------------------------------------------- answers

    def answer(self, player_id: str, action_id: str) -> str | None:
        kept = self._answers.get(player_id)
        return None if kept is None else kept.get(action_id)

    def remember(self, player_id: str, action_id: str, answer: str) -> None:
        """Send a seated player the answer to an action, on the socket they have now, and
        keep it (the last ``ANSWERS_KEPT``) so a repeat of its id gets the same one.
        Only seated players' answers are kept: a spectator's are refusals, cheap to redo."""
        answers = self._answers.setdefault(player_id, OrderedDict())
        answers[action_id] = answer
        if len(answers) > ANSWERS_KEPT:
            answers.popitem(last=False)
        client = self._clients.get(player_id)
        if client is not None:
            client.send(answer)

    def forget(self, player_id: str) -> None:
        """The player has no seat any more: their answers go."""
        self._answers.pop(player_id, None)

    # ------------------------------------------------------------- messages

    def snapshot(self, client: Client, chat: list[ChatEvent]) -> None:
        """The whole table for ``client``, with the recent ``chat`` it may read."""
        client.send(self._state(client, "snapshot", None, self._table.info(), chat))

    def broadcast(
        self, event_for: Callable[[int | None], Event], skip: Client | None = None,
        to: Callable[[Client], bool] | None = None,
    ) -> None:
        """An event to everyone here (but ``skip``; of those, only the ones ``to`` picks),
        as each one's seat may learn it."""
        if not self._clients:
            return
        info = self._table.info()
        public: list[dict[str, Any]] = []  # the spectators' view, built for the first one
        for client in self._clients.values():
            if client is not skip and (to is None or to(client)):
                client.send(self._state(client, "event", event_for(client.seat), info,
                                        public=public))

    def _state(self, client: Client, kind: StateKind, event: Event | None,
               info: TablePublic, chat: list[ChatEvent] | None = None,
               public: list[dict[str, Any]] | None = None) -> str:
        """A snapshot or event for ``client`` alone, built from its seat's view now (a
        spectator's from ``public``, the one spectators' view of this message, if given).

        Built without validation (``model_construct``): every field is the server's own,
        already typed, and the JSON is the same; validating it cost more than encoding."""
        table = self._table
        match = table.match
        deadline = table.turns.deadline
        view = None
        if match is not None and client.seat is not None:
            view = seat_view(match, client.seat)
        elif match is not None:
            public = [] if public is None else public
            if not public:
                public.append(spectator_view(match))
            view = public[0]
        return State.model_construct(
            type=kind,
            version=table.version,
            event=event,
            table=info,
            seat=client.seat,
            view=view,
            turn=match.current_player() if table.status == TableStatus.PLAYING and match else None,
            deadline=None if deadline is None else int(deadline * 1000),
            chat=chat,
        ).model_dump_json()
