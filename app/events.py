"""The events a table sends: what just happened, in the ``event`` of an ``event`` message
(docs/protocol.md §3, "Event kinds").

Each kind is a model and :data:`Event` their union, discriminated on ``kind`` as the
client's messages are on ``type`` (app/protocol.py).  Its JSON Schema (:func:`schema`) is
served by ``GET /api/protocol`` as ``events``, and the docs' table of kinds is written from
it (``python -m tools.protocol_doc``).

What a recipient may not learn (another seat's announced cards) is never in an event it
is sent: app/views.py builds the one it may see, from what it may see, rather than
redacting one built whole; an event the same for everyone is built once and shared (the
models are frozen).  A field that does not apply is absent, never null.
"""

from __future__ import annotations

from functools import cache
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter
from pydantic.json_schema import SkipJsonSchema

from .models import RatingChangeOut
from .replays import ResultOut, TrickOut
from .vocabulary import Actor


def _absent(value: object) -> bool:
    return value is None


def _never_null(schema: dict[str, Any]) -> None:
    schema.pop("default", None)  # left out when it does not apply, never sent as null


def _sometimes(description: str) -> Any:
    """A field only some events of a kind carry: absent from the others (not null)."""
    return Field(default=None, exclude_if=_absent, description=description,
                 json_schema_extra=_never_null)


def _changes_version(schema: dict[str, Any], model: type[BaseModel]) -> None:
    schema["x-version"] = "+1" if getattr(model, "changes_version", False) else "unchanged"


class _Event(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True,
                              json_schema_serialization_defaults_required=True,
                              json_schema_extra=_changes_version)
    changes_version: ClassVar[bool] = False  # an accepted change: the table's version + 1


SeatIndex = Annotated[int, Field(ge=0, le=3)]


class SeatEvent(_Event):
    """A seat changed: taken, left, a bot put in or out, or handed to a bot."""

    changes_version: ClassVar[bool] = True
    kind: Literal["seat"] = "seat"
    seat: SeatIndex


class StartEvent(_Event):
    """The match started: the first deal is in the view."""

    changes_version: ClassVar[bool] = True
    kind: Literal["start"] = "start"


class ActionEvent(_Event):
    """A seat's action, accepted and applied: the view shows what follows (after a deal's
    last card, the next deal already)."""

    changes_version: ClassVar[bool] = True
    kind: Literal["action"] = "action"
    seat: SeatIndex
    action: str = Field(description="in the notation of section 5, but `announce` for another "
                        "seat's announcement (its kind and value are in the view)")
    by: Actor = Field(description="`player`, `bot` (a bot seat), `cover` (a bot playing for "
                      "an absent or autoplayed human) or `timeout` (the timer played for "
                      "the human)")
    trick: TrickOut | SkipJsonSchema[None] = _sometimes(
        "when the card completed a trick: that trick, the same for every recipient")
    deal_results: list[ResultOut] | SkipJsonSchema[None] = _sometimes(
        "when the action ended a deal: its result (also appended to `view.results`)")


class ForfeitEvent(_Event):
    """A turn timed out at a `timeout_forfeits` table: its seat's team lost the match."""

    changes_version: ClassVar[bool] = True
    kind: Literal["forfeit"] = "forfeit"
    seat: SeatIndex = Field(description="the seat whose turn timed out")


class PresenceEvent(_Event):
    """The seat's player connected or disconnected, or a bot started or stopped playing
    for them."""

    kind: Literal["presence"] = "presence"
    seat: SeatIndex


class StorageEvent(_Event):
    """The match log could not be written, or can be again."""

    kind: Literal["storage"] = "storage"
    available: bool = Field(description="`false` when the match log cannot be written "
                            "(actions are refused, section 5), `true` when it can again")


class RematchEvent(_Event):
    """A player of this finished match opened a table for the next one (section 1)."""

    kind: Literal["rematch"] = "rematch"
    table_id: str = Field(description="the new table's id")


class ChatEvent(_Event):
    """A seated player's message (section 5), sent only to those who may read it; a
    snapshot's `chat` holds the last ones."""

    kind: Literal["chat"] = "chat"
    seat: SeatIndex
    player: str = Field(description="the sender's player id")
    name: str
    text: str | SkipJsonSchema[None] = _sometimes("free text, plain (never HTML), if "
                                                 "not a `phrase`")
    phrase: str | SkipJsonSchema[None] = _sometimes(
        "a quick phrase's id, one of `GET /api/protocol`'s `chat.phrases`")
    time: int = Field(description="Unix time in milliseconds")


class RatingsEvent(_Event):
    """A rated match just ended: each account seat's rating before and after."""

    kind: Literal["ratings"] = "ratings"
    changes: list[RatingChangeOut] = Field(
        description='`[{"seat", "player", "before", "after"}]`, each rating a `RatingView` '
        "(section 1), also in `table.rating_changes`")


Event = Annotated[
    SeatEvent | StartEvent | ActionEvent | ForfeitEvent | PresenceEvent | StorageEvent
    | RematchEvent | ChatEvent | RatingsEvent,
    Field(discriminator="kind"),
]
EVENTS: TypeAdapter[Event] = TypeAdapter(Event)


@cache
def schema() -> dict[str, Any]:
    """The JSON Schema of every event as sent (``x-version``: how the table's version moves).
    Made once (it takes milliseconds) and shared: not to be changed."""
    return EVENTS.json_schema(mode="serialization")


# ------------------------------------------------------------------ notices
# What a player's own channel (``GET /api/me/ws``, docs/protocol.md §10) carries: one
# ``{"type": "notice", "kind": ...}`` message per notice, told on whichever node the
# player's socket is (app/community/notices.py).


class _Notice(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    type: Literal["notice"] = "notice"
    id: int | None = Field(default=None, description="a notice kept while the player had "
                           "no channel open: dismissed with `DELETE /api/me/notices/{id}`")


class Someone(BaseModel):
    """A player a notice is about."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str
    name: str


class FriendRequestNotice(_Notice):
    """A player asked to be friends, or (``friends``) answered the recipient's request."""

    kind: Literal["friend_request"] = "friend_request"
    player: Someone
    friends: bool = Field(description="`true`: both asked, they are friends now")


class FriendOnlineNotice(_Notice):
    """A friend's own channel opened (``online``) or its last one closed."""

    kind: Literal["friend_online"] = "friend_online"
    player: Someone
    online: bool


class InvitationNotice(_Notice):
    """A seated player of a waiting table invites the recipient to it."""

    kind: Literal["invitation"] = "invitation"
    player: Someone
    table: str = Field(description="the table's id: `PUT /api/tables/{id}/seats/{seat}`")
    variant: str


class DeclinedNotice(_Notice):
    """The player the recipient invited declined."""

    kind: Literal["invitation_declined"] = "invitation_declined"
    player: Someone
    table: str


class QueueSeatedNotice(_Notice):
    """The queue seated the recipient (and its partner, if it named one) at a table."""

    kind: Literal["queue_seated"] = "queue_seated"
    table: str


class StandingsNotice(_Notice):
    """A tournament the recipient is in (or directs) moved on: a round's table ended (the
    standings changed), a round's tables were made, or it finished.  The page reads
    ``GET /api/tournaments/{id}`` again on it (docs/tournaments.md)."""

    kind: Literal["standings"] = "standings"
    tournament: str
    name: str
    status: str = Field(description="`running` or `finished`")
    round: int
    rounds: int
    entry: int | None = Field(description="the recipient's entry; left out for a director "
                              "not in it")
    rank: int | None = Field(description="the entry's rank in the standings now")
    points: float | None = Field(description="its match points")
    table: str | None = Field(description="the entry's table of the round while it plays "
                              "(connect as in section 2), else left out")


class QueuePartnerNotice(_Notice):
    """A friend waits in the queue naming the recipient as partner: joining the queue
    naming them back (``variant``, ``rated``) seats the two as a team."""

    kind: Literal["queue_partner"] = "queue_partner"
    player: Someone
    variant: str
    rated: bool


Notice = Annotated[
    FriendRequestNotice | FriendOnlineNotice | InvitationNotice | DeclinedNotice
    | QueueSeatedNotice | QueuePartnerNotice | StandingsNotice,
    Field(discriminator="kind"),
]
NOTICES: TypeAdapter[Notice] = TypeAdapter(Notice)
