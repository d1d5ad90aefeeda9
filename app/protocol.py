"""The WebSocket protocol's messages (docs/protocol.md describes them for client authors).

Client messages are parsed here and nowhere else; :func:`parse` turns any text into a
message or a :class:`ProtocolError` with a documented code, so bad input never escapes.
"""

from __future__ import annotations

import json
from enum import IntEnum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, model_validator

from .errors import ErrorCode
from .events import ChatEvent, Event
from .models import TablePublic

PROTOCOL_VERSION = 1


class CloseCode(IntEnum):
    """The close codes this server sends (RFC 6455 ones where they fit, 4xxx for the
    application); served to clients by ``GET /api/protocol``, so neither side restates them."""

    NORMAL = 1000
    UNSUPPORTED = 1003  # a binary frame
    POLICY = 1008  # rate limit exceeded
    TOO_BIG = 1009  # frame larger than ws_max_message
    RESTART = 1012  # the server is shutting down, or the table moved to another node
    TRY_AGAIN = 1013  # a cluster cannot reach the table's node this moment (docs/cluster.md)
    TIMEOUT = 4000  # no hello in time, or silent for ws_idle_timeout
    REPLACED = 4001  # the same player opened another socket to this table
    SESSION_ENDED = 4002  # the account's session ended: logout, or a password changed
    BAD_TOKEN = 4003
    NO_TABLE = 4004  # unknown or closed table
    TOO_SLOW = 4008  # the client does not read its messages
    CROWDED = 4009  # the table has as many spectators as it takes
    TOO_MANY = 4029  # the address or the player has as many sockets open as it may
    BAD_HELLO = 4400  # first message not a valid hello, or unsupported protocol version

    @property
    def final(self) -> bool:
        """Whether a client must not reconnect after it: the same socket would be refused
        again, or (REPLACED) would take the seat back from the player's newer socket."""
        return self in _FINAL


_FINAL = frozenset({CloseCode.REPLACED, CloseCode.SESSION_ENDED, CloseCode.BAD_TOKEN,
                    CloseCode.NO_TABLE, CloseCode.CROWDED, CloseCode.BAD_HELLO})

Id = Annotated[str, Field(min_length=1, max_length=64)]


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Hello(_Message):
    type: Literal["hello"]
    protocol: int
    token: Annotated[str, Field(max_length=1024)]


class ActionRequest(_Message):
    type: Literal["action"]
    id: Id
    version: int
    action: Annotated[str, Field(max_length=64)]


class Ping(_Message):
    type: Literal["ping"]
    id: Id | None = None


class Pong(_Message):
    type: Literal["pong"]


class Resume(_Message):
    type: Literal["resume"]


class ChatRequest(_Message):
    """A quick phrase (an id of ``GET /api/protocol``'s ``chat.phrases``) or free text, one
    of the two; the text's own checks (length, characters) are the table's, each refusal
    with its code (app/tables/chat.py)."""

    type: Literal["chat"]
    text: str | None = None
    phrase: Annotated[str, Field(max_length=64)] | None = None

    @model_validator(mode="after")
    def _one_of_the_two(self) -> ChatRequest:
        if (self.text is None) == (self.phrase is None):
            raise ValueError("a chat message has either text or a phrase")
        return self


ClientMessage = Hello | ActionRequest | Ping | Pong | Resume | ChatRequest
_adapter: TypeAdapter[ClientMessage] = TypeAdapter(
    Annotated[ClientMessage, Field(discriminator="type")]
)
_TYPES = frozenset({"hello", "action", "ping", "pong", "resume", "chat"})


class ProtocolError(Exception):
    """A client message the server refuses; ``code`` goes back in an ``error`` message."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code


def parse(text: str) -> ClientMessage:
    """One client frame as a message; ProtocolError bad_json, unknown_type or bad_message."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:  # deep nesting raises RecursionError
        raise ProtocolError(ErrorCode.BAD_JSON, f"not JSON: {str(exc)[:100]}") from None
    if not isinstance(data, dict):
        raise ProtocolError(ErrorCode.BAD_MESSAGE, "a message is a JSON object")
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in _TYPES:
        raise ProtocolError(ErrorCode.UNKNOWN_TYPE, f"unknown message type {str(kind)[:32]!r}")
    try:
        return _adapter.validate_python(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'][1:])}: {e['msg']}" for e in exc.errors()[:3]
        )
        raise ProtocolError(ErrorCode.BAD_MESSAGE, problems) from None


# ------------------------------------------------------------------ server messages


class Welcome(BaseModel):
    type: Literal["welcome"] = "welcome"
    protocol: int = PROTOCOL_VERSION
    player: dict[str, str]


StateKind = Literal["snapshot", "event"]


class State(BaseModel):
    """A snapshot or an event: the table, and the view of the recipient alone."""

    type: StateKind
    version: int
    event: Event | None = None
    table: TablePublic
    seat: int | None
    view: dict[str, Any] | None
    turn: int | None
    deadline: int | None = Field(description="Unix time in ms when the turn times out.")
    chat: list[ChatEvent] | None = Field(
        default=None, description="Snapshots only: the table's last chat messages the "
        "recipient may read, oldest first (app/tables/chat.py).")


class Ack(BaseModel):
    type: Literal["ack"] = "ack"
    id: str
    version: int


class Error(BaseModel):
    type: Literal["error"] = "error"
    id: str | None = None
    code: str
    message: str


class ServerPing(BaseModel):
    type: Literal["ping"] = "ping"
    time: int


class ServerPong(BaseModel):
    type: Literal["pong"] = "pong"
    id: str | None = None
    time: int
