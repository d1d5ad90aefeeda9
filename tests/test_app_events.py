"""The server's events are typed (app/events.py): every event a real server sends, over
its sockets, is one of the union's kinds and valid against the JSON Schema that
``GET /api/protocol`` serves, every kind and every field of it is sent at least once here
(so a kind or a field without a test fails), each kind is sent as it always was, and the
docs' table of kinds is the one that schema writes."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args

import httpx2
import jsonschema_rs
import pytest
from websockets.asyncio.client import ClientConnection, connect

from app.db.migrate import upgrade
from app.db.storage import DatabaseStorage
from app.events import (
    EVENTS,
    ActionEvent,
    ChatEvent,
    Event,
    ForfeitEvent,
    PresenceEvent,
    RatingsEvent,
    RematchEvent,
    SeatEvent,
    StartEvent,
    StorageEvent,
    schema,
)
from app.main import create_app
from app.models import RatingChangeOut, RatingView, SeatPublic, TablePublic
from app.protocol import PROTOCOL_VERSION, State
from app.replays import ResultOut, TrickOut
from app.storage import StorageUnavailable
from app.vocabulary import Actor, BotPace, SeatKind, TableStatus
from tests.conftest import LiveServer, Rest, app_settings, run_server
from tests.fake_clock import FakeClock
from tests.waiting import eventually, received
from tools.protocol_doc import DOC, written

Message = dict[str, Any]
GUARD = 90  # seconds: a hang fails the test instead of blocking the suite
PATIENCE = 30  # seconds a socket waits for its next message, or a test for an event
TURN = 60.0  # seconds of a human turn at the forfeit table, on the fake clock
KINDS = {model.model_fields["kind"].default: model
         for model in get_args(get_args(Event)[0])}


class Refusals:
    """How many of the next action writes the match log refuses, as an outage would."""

    count = 0


@dataclass
class Served:
    live: LiveServer
    rest: Rest
    clock: FakeClock
    refusals: Refusals


@pytest.fixture
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Served]:
    """A real server on a migrated SQLite file (rated matches write ratings there), its
    tables' timers on a fake clock, its action writes refused on demand."""
    refusals = Refusals()
    append = DatabaseStorage.append_action

    async def flaky(self: DatabaseStorage, *args: Any) -> None:
        if refusals.count:
            refusals.count -= 1
            raise StorageUnavailable("the log refuses this write")
        await append(self, *args)

    monkeypatch.setattr(DatabaseStorage, "append_action", flaky)
    url = f"sqlite:///{tmp_path / 'belote.db'}"
    upgrade(url)
    settings, clock = app_settings(database_url=url), FakeClock()
    for live in run_server(settings, create_app(settings, clock=clock)):
        with httpx2.Client(base_url=live.http) as http:
            yield Served(live, Rest(http), clock, refusals)


@dataclass
class Socket:
    """One player's socket, every message it gets kept; one that ``plays`` takes its
    seat's turns (bidding rather than passing, so that deals are played)."""

    ws: ClientConnection
    plays: bool
    messages: list[Message] = field(default_factory=list)
    reader: asyncio.Task[None] | None = None

    async def read(self) -> None:
        rng, acted = random.Random(0), -1
        async for text in received(self.ws, PATIENCE, "the server's next message"):
            message = json.loads(text)
            self.messages.append(message)
            if (self.plays and message["type"] in ("snapshot", "event")
                    and message["turn"] is not None and message["turn"] == message["seat"]
                    and message["version"] != acted):
                acted = message["version"]
                legal = message["view"]["legal_actions"]
                action = rng.choice([a for a in legal if a != "pass"] or legal)
                await self.ws.send(json.dumps({"type": "action", "id": f"a{acted}",
                                               "version": acted, "action": action}))

    def events(self, kind: str) -> list[Message]:
        return [m["event"] for m in self.messages
                if m["type"] == "event" and m["event"]["kind"] == kind]

    async def until(self, seen: Callable[[Socket], bool], what: str) -> None:
        await eventually(lambda: seen(self), PATIENCE, what)

    async def close(self) -> None:
        await self.ws.close()
        if self.reader is not None:
            await self.reader


async def join(live: LiveServer, table_id: str, who: dict[str, str],
               plays: bool = False) -> Socket:
    ws = await connect(live.ws(table_id))
    await ws.send(json.dumps({"type": "hello", "protocol": PROTOCOL_VERSION,
                              "token": who["token"]}))
    socket = Socket(ws, plays)
    socket.reader = asyncio.create_task(socket.read())
    await socket.until(lambda s: any(m["type"] == "snapshot" for m in s.messages),
                       "the snapshot")
    return socket


def sign_up(rest: Rest, username: str) -> dict[str, str]:
    response = rest.http.post("/api/accounts", json={"username": username,
                                                     "password": "a long enough secret"})
    assert response.status_code == 201, response.text
    account: dict[str, str] = response.json()
    return account


async def every_kind(served: Served) -> list[Message]:
    """Every message two sockets get along a forfeit, then a rated match with a spectator:
    sitting, bots, chat, a player away and back, the start, a refused write, the end, the
    ratings, a rematch."""
    sockets: list[Socket] = []
    try:
        await play(served, sockets)
    finally:
        for socket in sockets:
            await socket.close()
    return [message for socket in sockets for message in socket.messages]


async def play(served: Served, sockets: list[Socket]) -> None:
    rest, live = served.rest, served.live
    ana, ivo = sign_up(rest, "ana"), rest.guest("Ivo")
    seats: list[dict[str, str] | str] = [ana, "easy", "easy", "easy"]

    lost = rest.table(ana, [], timeout_forfeits=True, turn_seconds=TURN)
    loser = await join(live, lost, ana)
    sockets.append(loser)
    for seat, who in enumerate(seats):
        rest.sit(lost, seat, who, ana)
    rest.start(lost, ana)
    await loser.until(lambda s: s.messages[-1].get("turn") == 0, "Ana's turn")
    await asyncio.to_thread(served.clock.advance, TURN)
    await loser.until(lambda s: bool(s.events("forfeit")), "the forfeit")

    rated = rest.table(ana, [], rated=True, options={"target_score": 1})
    watcher, player = await join(live, rated, ivo), await join(live, rated, ana)
    sockets += [watcher, player]
    for seat, who in enumerate(seats):
        rest.sit(rated, seat, who, ana)
    for said in ({"text": "hi"}, {"phrase": "good_luck"}):
        await player.ws.send(json.dumps({"type": "chat"} | said))
    await watcher.until(lambda s: len(s.events("chat")) == 2, "both chat messages")
    await player.close()  # away: presence, then back: presence again
    player = await join(live, rated, ana, plays=True)
    sockets.append(player)
    await watcher.until(lambda s: len(s.events("presence")) == 2, "Ana away and back")
    served.refusals.count = 1  # the first action's write: the log is down, then back
    rest.start(rated, ana)
    await watcher.until(lambda s: len(s.events("storage")) == 2, "the log down and back")
    await watcher.until(lambda s: bool(s.events("ratings")), "the rated match's end")
    response = rest.http.post(f"/api/tables/{rated}/rematch", headers=rest.auth(ana))
    assert response.status_code == 200, response.text
    await watcher.until(lambda s: bool(s.events("rematch")), "the rematch")


def test_every_event_a_server_sends_is_of_the_schema_it_serves(served: Served) -> None:
    """Each event (and each chat line of a snapshot) is valid against the served schema
    and the union, and is what the union's model of it sends; every kind was sent, with
    every field of it."""
    messages = asyncio.run(asyncio.wait_for(every_kind(served), GUARD))
    response = served.rest.http.get("/api/protocol")
    assert response.status_code == 200, response.text
    validator = jsonschema_rs.validator_for(response.json()["events"])
    sent: list[Message] = []
    for message in messages:
        if message["type"] == "event":
            sent.append(message["event"])
        elif message["type"] == "snapshot":
            sent.extend(message["chat"])
    fields: dict[str, set[str]] = {}
    for event in sent:
        validator.validate(event)
        typed = EVENTS.validate_json(json.dumps(event), strict=True)
        assert EVENTS.dump_python(typed, mode="json") == event  # nothing lost or added
        fields.setdefault(event["kind"], set()).update(event)
    assert fields == {kind: set(model.model_fields) for kind, model in KINDS.items()}


def frame(event: Event) -> str:
    info = TablePublic(id="q3V0m2lJ8aXk", name="t", variant="bulgarian", options={},
                       turn_seconds=30, private=False, timeout_forfeits=False,
                       spectator_chat=True, bot_pace=BotPace.NORMAL, status=TableStatus.PLAYING,
                       version=7, owner="o",
                       seats=[SeatPublic(kind=SeatKind.BOT)] * 4, node="n")
    return State(type="event", version=7, event=event, table=info, seat=None, view=None,
                 turn=None, deadline=None).model_dump_json()


def test_each_kind_is_sent_as_it_always_was() -> None:
    """Inside a state message, each kind's bytes are those of the dicts the tables built
    before the models: the same fields in the same order, an optional one absent (never
    null)."""
    trick = TrickOut(leader=3, cards=["9H", "KH", "TH", "AH"], winner=2, points=25)
    result = ResultOut(outcome="made", contract="AT", bidder=0, multiplier=4,
                       card_points=(133, 125), declarations=(0, 0), belot=(0, 0), valat=None,
                       score=(104, 0), hanging=0)
    before = RatingView(value=0, estimate=1500, margin=1000, mu=25.0, sigma=8.333,
                        provisional=True, matches=0)
    after = RatingView(value=2, estimate=1600, margin=948, mu=27.5, sigma=7.9,
                       provisional=True, matches=1)
    cases: list[tuple[Event, str]] = [
        (SeatEvent(seat=2), '{"kind":"seat","seat":2}'),
        (StartEvent(), '{"kind":"start"}'),
        (ActionEvent(seat=1, action="KD", by=Actor.BOT),
         '{"kind":"action","seat":1,"action":"KD","by":"bot"}'),
        (ActionEvent(seat=2, action="AH", by=Actor.PLAYER, trick=trick, deal_results=[result]),
         '{"kind":"action","seat":2,"action":"AH","by":"player","trick":{"leader":3,'
         '"cards":["9H","KH","TH","AH"],"winner":2,"points":25},"deal_results":[{"outcome":'
         '"made","contract":"AT","bidder":0,"multiplier":4,"card_points":[133,125],'
         '"declarations":[0,0],"belot":[0,0],"valat":null,"score":[104,0],"hanging":0,'
         '"value":null}]}'),  # value: Coinche's bid value, added at the end (issue #31)
        (ForfeitEvent(seat=3), '{"kind":"forfeit","seat":3}'),
        (PresenceEvent(seat=0), '{"kind":"presence","seat":0}'),
        (StorageEvent(available=False), '{"kind":"storage","available":false}'),
        (RematchEvent(table_id="x7"), '{"kind":"rematch","table_id":"x7"}'),
        (ChatEvent(seat=1, player="p1", name="Ivo", text="nice one, partner", time=5),
         '{"kind":"chat","seat":1,"player":"p1","name":"Ivo","text":"nice one, partner",'
         '"time":5}'),
        (ChatEvent(seat=1, player="p1", name="Ivo", phrase="good_luck", time=5),
         '{"kind":"chat","seat":1,"player":"p1","name":"Ivo","phrase":"good_luck","time":5}'),
        (RatingsEvent(changes=[RatingChangeOut(seat=0, player="p0", before=before,
                                               after=after)]),
         '{"kind":"ratings","changes":[{"seat":0,"player":"p0","before":{"value":0,'
         '"estimate":1500,"margin":1000,"mu":25.0,"sigma":8.333,"provisional":true,'
         '"matches":0,"bot":false},"after":{"value":2,"estimate":1600,"margin":948,'
         '"mu":27.5,"sigma":7.9,"provisional":true,"matches":1,"bot":false}}]}'),
    ]
    for event, sent in cases:
        assert frame(event).startswith(f'{{"type":"event","version":7,"event":{sent},'
                                       '"table":{"id":"q3V0m2lJ8aXk",')
    assert {event.kind for event, _ in cases} == set(KINDS)


def test_the_docs_table_of_event_kinds_is_written_from_the_schema() -> None:
    doc = DOC.read_text(encoding="utf-8")
    assert doc == written(doc, schema()), "stale: run python -m tools.protocol_doc"
