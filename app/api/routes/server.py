"""The server itself: liveness, figures for the load benchmark, the variants it plays, and
the protocol's constants a client is built from."""

from __future__ import annotations

import resource
from typing import Annotated, Any

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field

from ai import LEVELS
from engine.variants import VARIANTS

from ... import events
from ...errors import ErrorCode
from ...models import BotCreate, TableCreate
from ...protocol import PROTOCOL_VERSION, CloseCode
from ...tables.chat import MAX_TEXT, PHRASES
from ...vocabulary import BotPace
from ..deps import LobbyDep, MonitorDep
from ..errors import error_responses

router = APIRouter(tags=["server"])


@router.get("/health")
async def health() -> dict[str, str]:
    return {"status": "ok"}


@router.get("/stats", responses=error_responses({422: "`seconds` out of range"}))
async def stats(
    lobby: LobbyDep, monitor: MonitorDep, seconds: Annotated[float, Query(gt=0, le=60)] = 60
) -> dict[str, Any]:
    """Tables, sockets, event-loop lag over the last ``seconds``, peak memory."""
    tables = list(lobby.tables.values())
    counts: dict[str, int] = {}
    for table in tables:
        counts[table.status] = counts.get(table.status, 0) + 1
    return {
        "tables": counts,
        "connections": sum(table.connections for table in tables),
        "loop_lag_ms": monitor.percentiles(seconds),
        "max_rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
    }


@router.get("/variants")
async def variants() -> dict[str, dict[str, dict[str, Any]]]:
    """Each variant's house-rule flags (RULES.md §9): default and allowed values (none
    listed: an integer from 1 to ``max``), so a client builds its create form from the
    engine."""
    return {
        variant: {
            name: {"default": default, "values": list(values)}
            | ({"max": rules.max_target()} if name == "target_score" else {})
            for name, (default, values) in rules.flag_table().items()
        }
        for variant, rules in VARIANTS.items()
    }


@router.get("/variants/presets")
async def presets() -> dict[str, dict[str, dict[str, Any]]]:
    """Each variant's named presets (Coinche's, COINCHE.md §9.2): the flags each sets
    besides the defaults, so that a create form shows them; a variant without presets has
    none.  A table takes ``{"preset": NAME}`` among its options, the other flags given
    overriding it."""
    return {variant: {name: dict(flags) for name, flags in (rules.presets or {}).items()}
            for variant, rules in VARIANTS.items()}


class ChoicesOut(BaseModel):
    values: list[str]
    default: str = Field(description="What the server takes when a request leaves it out.")


class ChatOut(BaseModel):
    phrases: list[str] = Field(description="The quick phrases' ids, for `chat` messages.")
    max_text: int = Field(description="Characters (code points) of free text at most.")


class ProtocolOut(BaseModel):
    """The words a client and this server share (docs/protocol.md), defined once on the
    server and read from here by the client rather than written again in it."""

    version: int = Field(description="The `protocol` a socket's `hello` must carry.")
    close_codes: dict[str, int] = Field(description="Every close code the server sends, "
                                                    "by name.")
    final_close_codes: list[int] = Field(
        description="Close codes after which a client must not reconnect: it would be "
        "refused again, or (REPLACED) take the seat back from the player's newer socket."
    )
    levels: ChoicesOut = Field(description="Bot levels, for `PUT .../seats/{seat}/bot`.")
    variants: ChoicesOut = Field(
        description="Variants, for `POST /api/tables` (their rules: `GET /api/variants`)."
    )
    bot_paces: ChoicesOut = Field(description="How fast a table's bots play, for "
                                  "`POST /api/tables`'s `bot_pace`.")
    chat: ChatOut = Field(description="The table chat's quick phrases and text length.")
    events: dict[str, Any] = Field(
        description="The JSON Schema of a state message's `event`, one object per `kind` "
        "(`x-version`: whether it raises the table's version)."
    )
    errors: dict[str, int | None] = Field(
        description="Every error code the server sends (docs/protocol.md, section 7), with "
        "the HTTP status it answers with; null for a code said on a socket only.")


@router.get("/protocol")
async def protocol() -> ProtocolOut:
    """The protocol version, close codes, bot levels, variants, the chat's phrases and the
    events' schema."""
    return ProtocolOut(
        version=PROTOCOL_VERSION,
        close_codes={code.name: code for code in CloseCode},
        final_close_codes=[code for code in CloseCode if code.final],
        levels=ChoicesOut(values=list(LEVELS), default=BotCreate.model_fields["level"].default),
        variants=ChoicesOut(values=list(VARIANTS),
                            default=TableCreate.model_fields["variant"].default),
        bot_paces=ChoicesOut(values=list(BotPace),
                             default=TableCreate.model_fields["bot_pace"].default),
        chat=ChatOut(phrases=list(PHRASES), max_text=MAX_TEXT),
        events=events.schema(),
        errors={code: code.status for code in ErrorCode},
    )
