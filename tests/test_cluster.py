"""The cluster (app/cluster/__init__.py) with real processes: several ``python -m app`` nodes on
the machine's PostgreSQL and a Redis (the machine's, or one of the test's own that it
restarts), clients that reconnect like the browser does (app/static/js/socket.js) to
whichever node is up, as a round-robin balancer with health checks would send them.

After every match the log is checked against what the clients were told: each action a
client saw (an ``event``) or had acknowledged (an ``ack``) is in the log at its version,
once, as it was told; the log's versions follow each other without a gap or a repeat;
the log and the served record replay to the result the clients saw.  Every wait is
bounded (tests/waiting.py), every process is killed at the end (tests/cluster_nodes.py)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import signal
import time
from collections.abc import AsyncGenerator, Callable
from typing import Any

import httpx2
import pytest
from redis.asyncio import Redis
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, ConnectionClosedOK, InvalidHandshake

from app.cluster.sweep import bucket
from app.db.match_log import MatchLog
from app.shared.keys import Keys
from engine import action_name, replay
from tests.cluster_nodes import NODE_EXIT, NODE_START, Cluster, Node
from tests.test_recovery import stored_log
from tests.waiting import eventually, within

GUARD = 80  # seconds for a test's coroutine, once its nodes are ready
# pytest-timeout, the last resort: the nodes' start, then the test's coroutine.
pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.processes,
              pytest.mark.timeout(NODE_START + GUARD + 40)]

PLAY = 60  # seconds a match may take to its end from a given point
BACKOFF = (0.5, 1, 2, 4, 8, 10)  # the browser's reconnect delays (app/static/js/socket.js)
# The browser pings every 3 s and gives a socket up when a ping goes 3 s unanswered, or
# its welcome 6 s (app/static/js/socket.js); this client, more simply, when nothing at all
# came for two pings' time.
PING_EVERY = 3.0
SILENCE = 6.0
FINAL = frozenset({4001, 4002, 4003, 4004, 4009, 4400})  # no reconnect after these (protocol.md)
MOVING = frozenset({1012, 1013})  # after these the browser comes back every second instead
TARGET = 101  # points to win: a match of a few deals, a few seconds
KILL_AT = 25  # a human's turn at or after this version: mid-deal, mid-match
MANY = 12  # tables of the node that goes in test_a_node_with_many_tables_goes
State = dict[str, Any]


# ----------------------------------------------------------------- REST


async def call(http: httpx2.AsyncClient, method: str, node: Node, path: str,
               who: dict[str, str] | None = None, body: Any = None,
               expect: int = 200) -> Any:
    headers = {} if who is None else {"Authorization": f"Bearer {who['token']}"}
    response = await http.request(method, node.http + path, headers=headers, json=body)
    assert response.status_code == expect, \
        f"{method} {path} on node {node.id}: {response.status_code} {response.text}"
    return response.json()


async def guest(http: httpx2.AsyncClient, node: Node, name: str) -> dict[str, str]:
    made: dict[str, str] = await call(http, "POST", node, "/api/guests", body={"name": name},
                                      expect=201)
    return made


async def table_on(http: httpx2.AsyncClient, node: Node, owner: dict[str, str],
                   name: str = "cluster") -> str:
    """A new public table, made on ``node`` (which owns it from then on)."""
    table = await call(http, "POST", node, "/api/tables", owner,
                       {"name": name, "options": {"target_score": TARGET}}, expect=201)
    assert table["node"] == node.id
    table_id: str = table["id"]
    return table_id


async def fill(http: httpx2.AsyncClient, via: Node, table_id: str, owner: dict[str, str],
               humans: dict[int, dict[str, str]]) -> list[State]:
    """``humans`` in their seats, easy bots in the others, every call sent to ``via``;
    the answers."""
    answers = []
    for seat in range(4):
        if seat in humans:
            answers.append(await call(http, "PUT", via, f"/api/tables/{table_id}/seats/{seat}",
                                      humans[seat]))
        else:
            answers.append(await call(http, "PUT", via,
                                      f"/api/tables/{table_id}/seats/{seat}/bot", owner,
                                      {"level": "easy"}))
    return answers


async def owner_of(http: httpx2.AsyncClient, nodes: list[Node], table_id: str) -> str | None:
    """The node ``GET /api/tables/{id}`` names, asking each of ``nodes`` in turn until one
    answers 200; None if none does now (the table is between nodes)."""
    for node in nodes:
        with contextlib.suppress(httpx2.TransportError):
            response = await http.get(f"{node.http}/api/tables/{table_id}", timeout=3)
            if response.status_code == 200:
                owner: str = response.json()["node"]
                return owner
    return None


async def cluster_view(http: httpx2.AsyncClient, node: Node) -> dict[str, dict[str, Any]]:
    """``GET /api/cluster`` as node ``node`` answers it: the live nodes by id."""
    answer = await call(http, "GET", node, "/api/cluster")
    assert answer["node"] == node.id
    return {n["id"]: n for n in answer["nodes"]}


async def lobby_ids(http: httpx2.AsyncClient, node: Node) -> set[str]:
    page = await call(http, "GET", node, "/api/tables?limit=100")
    return {t["id"] for t in page["tables"]}


# ----------------------------------------------------------------- a client


class Balancer:
    """Round robin over the nodes that are up (running and not paused), as a load
    balancer with health checks picks one for each new connection."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self.out: set[str] = set()  # taken out of the rotation (paused, stopping)
        self._turn = random.randrange(100)

    def up(self) -> list[Node]:
        return [n for n in self.cluster.nodes.values() if n.running and n.id not in self.out]

    def __call__(self) -> Node:
        nodes = self.up()
        assert nodes, "no node is up"
        self._turn += 1
        return nodes[self._turn % len(nodes)]


class Silent(Exception):
    """Nothing came on a socket for SILENCE seconds: its node, or the way to it, is stuck."""


class Client:
    """A table socket that behaves like the browser's: hello, then the state frames; an
    action in flight at a time, resent after a reconnect; reconnects after any close but
    the final ones, with the browser's backoff (every second while the table moves), to
    the node ``balancer`` picks (never, without a balancer).  With ``watch`` (the
    browser's way) it pings every PING_EVERY and gives up a socket on which nothing came
    for SILENCE, as after a close.  A seated client plays random legal actions on its
    turns, except while ``hold`` says to wait (the state is then ``held``).

    It keeps what it was told: every action event by version (``seen``), the
    acknowledged actions (``acked``: id to version and action), errors, and each
    connection's welcome and close with the node and the time."""

    def __init__(self, name: str, token: str, table_id: str, first: Node, *,
                 seat: int | None, balancer: Balancer | None, seed: int = 0,
                 watch: bool = True) -> None:
        self.name, self.token, self.table_id = name, token, table_id
        self.first, self.seat, self.balancer = first, seat, balancer
        self.watch = watch
        self.rng = random.Random(seed)
        self.state: State | None = None
        self.pending: dict[str, Any] | None = None
        self.acked: dict[str, tuple[int, str]] = {}
        self.other_acks: list[dict[str, Any]] = []  # acks of actions sent by hand
        self.seen: dict[int, dict[str, Any]] = {}
        self.conflicts: list[str] = []  # one version told as two different actions
        self.errors: list[dict[str, Any]] = []
        self.welcomes: list[tuple[float, str]] = []
        self.snapshots: list[tuple[float, str, State]] = []
        self.closes: list[tuple[float, str, int | None, str]] = []
        self.hold: Callable[[State], bool] | None = None
        self.held: State | None = None
        self.ws: ClientConnection | None = None
        self.node: Node | None = None
        self.done = False
        self._acted = -1
        self._count = 0
        self._task: asyncio.Task[None] | None = None

    def __repr__(self) -> str:
        return (f"<client {self.name} seat {self.seat} on {self.node and self.node.id} "
                f"version {self.version} welcomes {self.welcomes} closes {self.closes} "
                f"errors {self.errors} pending {self.pending}>")

    @property
    def version(self) -> int | None:
        return None if self.state is None else int(self.state["version"])

    @property
    def over(self) -> bool:
        return self.state is not None and self.state["table"]["status"] == "over"

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"client-{self.name}")

    async def stop(self) -> None:
        self.done = True
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.ws.close(), 3)
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    async def _run(self) -> None:
        node, attempt = self.first, 0
        while not self.done:
            code: int | None = None
            reason = ""
            self.node = node
            try:
                async with connect(node.ws(self.table_id), open_timeout=SILENCE,
                                   close_timeout=2, ping_interval=None, max_size=None) as ws:
                    self.ws = ws
                    self._acted = -1  # a fresh snapshot is acted on again
                    await ws.send(json.dumps({"type": "hello", "protocol": 1,
                                              "token": self.token}))
                    if self.pending is not None:  # answered again if it was done
                        self.pending["resent"] = True
                        await ws.send(json.dumps(self._frame(self.pending)))
                    async with contextlib.aclosing(self._frames(ws)) as frames:
                        async for text in frames:
                            if await self._receive(json.loads(text), node):
                                attempt = 0
                    code, reason = ws.close_code, ws.close_reason or ""
            except ConnectionClosed as closed:
                code = closed.rcvd.code if closed.rcvd is not None else 1006
                reason = closed.rcvd.reason if closed.rcvd is not None else "abnormal"
            except Silent:
                reason = "silent"
            except (OSError, TimeoutError, InvalidHandshake) as exc:
                reason = f"connect: {exc!r}"
            self.ws = None
            self.closes.append((time.monotonic(), node.id, code, reason))
            if self.done or code in FINAL or self.balancer is None:
                return
            delay = 1 if code in MOVING else BACKOFF[min(attempt, len(BACKOFF) - 1)]
            await asyncio.sleep(delay * random.uniform(0.8, 1.2))
            attempt += 1
            node = self.balancer()

    async def _frames(self, ws: ClientConnection) -> AsyncGenerator[str | bytes, None]:
        """The socket's frames until a normal close; watching, Silent (the socket dropped,
        not closed: a stuck peer would not answer a close) once none came for SILENCE."""
        if not self.watch:
            async for frame in ws:
                yield frame
            return
        pinger = asyncio.create_task(self._ping(ws))
        try:
            while True:
                try:
                    yield await asyncio.wait_for(ws.recv(), SILENCE)
                except ConnectionClosedOK:
                    return
                except TimeoutError:
                    ws.transport.abort()
                    raise Silent from None
        finally:
            pinger.cancel()

    @staticmethod
    async def _ping(ws: ClientConnection) -> None:
        with contextlib.suppress(ConnectionClosed):
            while True:
                await asyncio.sleep(PING_EVERY)
                await ws.send(json.dumps({"type": "ping", "id": "p"}))

    @staticmethod
    def _frame(pending: dict[str, Any]) -> dict[str, Any]:
        return {"type": "action", "id": pending["id"], "version": pending["version"],
                "action": pending["action"]}

    async def _receive(self, message: dict[str, Any], node: Node) -> bool:
        """Take one frame in; whether it was the welcome."""
        kind = message["type"]
        if kind == "welcome":
            self.welcomes.append((time.monotonic(), node.id))
            return True
        if kind in ("snapshot", "event"):
            self.state = message
            if kind == "snapshot":
                self.snapshots.append((time.monotonic(), node.id, message))
            event = message.get("event")
            if event is not None and event["kind"] == "action":
                told = self.seen.setdefault(message["version"], event)
                if told != event:
                    self.conflicts.append(f"version {message['version']}: {told} then {event}")
        elif kind == "ack":
            if self.pending is not None and self.pending["id"] == message["id"]:
                self.acked[message["id"]] = (message["version"], self.pending["action"])
                self.pending = None
            else:
                self.other_acks.append(message)
        elif kind == "error":
            resent = self.pending is not None and self.pending.get("resent", False)
            self.errors.append(message | {"resent": resent, "node": node.id})
            if self.pending is not None and self.pending["id"] == message["id"]:
                self.pending = None
        elif kind == "ping":
            with contextlib.suppress(ConnectionClosed):
                assert self.ws is not None
                await self.ws.send(json.dumps({"type": "pong"}))
        await self._consider()
        return False

    async def _consider(self) -> None:
        """Act if it is this seat's turn and nothing is in flight."""
        state = self.state
        if (self.seat is None or state is None or state["view"] is None
                or self.pending is not None or self.ws is None
                or state["table"]["status"] != "playing" or state["turn"] != self.seat):
            return
        legal = state["view"]["legal_actions"]
        if not legal or state["version"] == self._acted:
            return
        if self.hold is not None and self.hold(state):
            self.held = state
            return
        await self.act(self.rng.choice(legal))

    async def act(self, action: str) -> None:
        """Send ``action`` against the current state (as the browser's ``act``)."""
        assert self.state is not None and self.pending is None
        self._count += 1
        self.pending = {"id": f"{self.name}-{self._count}", "version": self.state["version"],
                        "action": action}
        self._acted = self.state["version"]
        if self.ws is not None:
            with contextlib.suppress(ConnectionClosed):
                await self.ws.send(json.dumps(self._frame(self.pending)))

    async def held_state(self, timeout: float = PLAY) -> State:
        await eventually(lambda: self.held is not None, timeout,
                         lambda: f"{self.name} to reach the held turn: {self!r}")
        assert self.held is not None
        return self.held

    async def release(self, hold: Callable[[State], bool] | None = None) -> None:
        """Play on (until ``hold`` says to wait again)."""
        self.hold, self.held = hold, None
        await self._consider()


def mid_trick(at: int, choices: int = 1) -> Callable[[State], bool]:
    """Hold at the human's first turn, at or after version ``at``, with a card of the
    trick on the table and at least ``choices`` legal actions."""
    def hold(state: State) -> bool:
        view = state["view"]
        trick = view.get("trick") or {}
        return (state["version"] >= at and view["phase"] == "play"
                and bool(trick.get("cards")) and len(view["legal_actions"]) >= choices)
    return hold


async def all_over(clients: list[Client], timeout: float = PLAY) -> None:
    await eventually(lambda: all(c.over for c in clients), timeout,
                     lambda: "the match to end for every client: " + "; ".join(map(repr, clients)))


# ----------------------------------------------------------------- checks


def check_told(log: MatchLog, clients: list[Client]) -> None:
    """The log against what the clients were told: its versions follow each other; each
    action event a client got, and each action it had acknowledged, is in it at that
    version, as told."""
    entries = [entry for deal in log.actions for entry in deal]
    versions = [entry.version for entry in entries]
    assert versions and None not in versions
    first = versions[0]
    assert first is not None
    assert versions == list(range(first, first + len(versions))), \
        f"the log's versions have gaps or repeats: {versions}"
    logged = {entry.version: entry for entry in entries}
    for client in clients:
        assert not client.conflicts, f"{client.name} was told two stories: {client.conflicts}"
        for action_id, (version, action) in client.acked.items():
            entry = logged.get(version)
            assert entry is not None, f"{client.name}'s acknowledged {action_id} (version " \
                                      f"{version}) is not in the log"
            assert (entry.seat, action_name(entry.action), entry.by) == \
                (client.seat, action, "player"), f"{client.name}'s {action_id}: {entry}"
        for version, event in client.seen.items():
            entry = logged.get(version)
            assert entry is not None, f"{client.name} was told of version {version} ({event}), " \
                                      "which the log does not hold"
            name = action_name(entry.action)
            told = event["action"]
            assert (entry.seat, entry.by) == (event["seat"], event["by"]), (version, entry, event)
            assert told == name or (told == "announce" and name.startswith("announce")), \
                (version, entry, event)
    log.replay()  # every action checked again by the engine


async def check_log(cluster: Cluster, table_id: str, clients: list[Client],
                    http: httpx2.AsyncClient, node: Node) -> MatchLog:
    """The finished match's log against what the clients were told (:func:`check_told`),
    and it and its record, served by ``node``, replayed to the result they saw."""
    log = await stored_log(cluster.database_url, table_id)
    check_told(log, clients)
    final = clients[0].state
    assert final is not None
    assert log.match.finished_at is not None and log.match.end_reason == "won"
    replayed = log.replay()
    assert replayed.is_over
    assert (list(replayed.totals), replayed.winner) == \
        (final["view"]["totals"], final["table"]["winner"])
    assert log.actions[-1][-1].version == final["version"]
    record = await call(http, "GET", node, f"/api/matches/{table_id}/record")
    detail = await call(http, "GET", node, f"/api/matches/{table_id}")
    from_record = replay(record)
    assert (list(from_record.totals), from_record.winner) == \
        (final["view"]["totals"], final["table"]["winner"])
    assert (detail["totals"], detail["winner"]) == (final["view"]["totals"],
                                                     final["table"]["winner"])
    assert len(record["deals"]) == len(log.deals)
    return log


def same_deadline(before: State, after: State) -> bool:
    """Whether ``after`` times the same human turn to the same deadline (milliseconds,
    give or take the rounding of a float through Redis)."""
    return (after["version"], after["turn"]) == (before["version"], before["turn"]) and \
        after["deadline"] is not None and abs(after["deadline"] - before["deadline"]) <= 2


def closed(client: Client) -> bool:
    return bool(client.closes)


def took_over(node: Node, table_id: str) -> bool:
    return takeovers(node, table_id) > 0


def takeovers(node: Node, table_id: str) -> int:
    """How many times ``node`` took ``table_id`` over (its log says)."""
    return node.text().count(f"took over table {table_id} ")


def fenced_lines(node: Node, table_id: str) -> list[str]:
    """The lines where a write of ``node``'s to ``table_id`` was refused by the fence."""
    return [line for line in node.text().splitlines() if f"table_id={table_id}" in line
            and "another node holds the table now; this one lets it go" in line]


def check_one_takeover(cluster: Cluster, new_owner: Node, table_id: str) -> None:
    """``new_owner`` took ``table_id`` over once and kept it: it never had a write of its
    own refused, and no other node took the table over after it."""
    assert fenced_lines(new_owner, table_id) == [], \
        f"node {new_owner.id} took {table_id} over and then had its own write refused by " \
        f"the fence ({takeovers(new_owner, table_id)} takeovers): " \
        f"{fenced_lines(new_owner, table_id)}"
    counts = {n.id: takeovers(n, table_id) for n in cluster.nodes.values()}
    assert counts == {n: int(n == new_owner.id) for n in counts}, \
        f"{table_id} was taken over {counts}"


async def exited(node: Node) -> None:
    """Wait for ``node`` to exit after SIGTERM, which it must do cleanly (status 0)."""
    await eventually(lambda: not node.running, NODE_EXIT,
                     lambda: f"node {node.id} to exit on SIGTERM:\n{node.tail()}")
    assert node.process is not None and node.process.returncode == 0, node.tail()


def check_no_errors(cluster: Cluster) -> None:
    errors = cluster.errors()
    assert errors == [], "errors in the nodes' logs:\n" + "\n".join(errors)


def report(what: str, seconds: float) -> None:
    print(f"{what}: {seconds:.2f} s")


# ----------------------------------------------------------------- 1. relayed


async def played_through_b(cluster: Cluster) -> None:
    a, b = cluster["A"], cluster["B"]
    async with httpx2.AsyncClient(timeout=10) as http:
        ana = await guest(http, b, "Ana")
        table_id = await table_on(http, a, ana)
        # Every call from here on reaches B, which passes it on to A.
        for answer in await fill(http, b, table_id, ana, {0: ana}):
            assert answer["node"] == "A"
        human = Client("ana", ana["token"], table_id, b, seat=0, balancer=None, seed=1)
        human.start()
        await eventually(lambda: human.state is not None, 10, lambda: repr(human))
        started = await call(http, "POST", b, f"/api/tables/{table_id}/start", ana)
        assert started["node"] == "A" and started["status"] == "playing"
        for node in (a, b):
            assert (await call(http, "GET", node, f"/api/tables/{table_id}"))["node"] == "A"

        async def counted() -> bool:
            views = [await cluster_view(http, node) for node in (a, b)]
            return all(set(v) == {"A", "B"} and v["A"]["tables"] == 1
                       and v["A"]["sockets"] == 1 and v["B"]["tables"] == 0
                       and v["B"]["sockets"] == 0 for v in views)

        await eventually(counted, 10, "both nodes to list A with the table and its relayed "
                                      "socket, B with none")
        await all_over([human])
        assert human.welcomes and {n for _, n in human.welcomes} == {"B"}
        assert human.closes == [] and human.errors == []
        assert human.acked, "the human never played"
        assert not took_over(a, table_id) and not took_over(b, table_id)
        for node in (a, b):
            assert (await call(http, "GET", node, f"/api/tables/{table_id}"))["node"] == "A"
        await check_log(cluster, table_id, [human], http, b)
        # An unknown id is answered 404; a body larger than a table's call is refused
        # before it is passed on.
        assert (await http.get(f"{b.http}/api/tables/no-such-table")).status_code == 404
        big = await http.put(f"{b.http}/api/tables/{table_id}/seats/1/bot",
                             content=b"x" * 70_000, headers={"content-type": "application/json"})
        assert big.status_code == 413 and big.json()["detail"]["code"] == "too_large"
        check_no_errors(cluster)
        await human.stop()


def test_a_match_played_through_one_node_while_another_owns_it(
        make_cluster: Callable[..., Cluster]) -> None:
    cluster = make_cluster("AB")
    cluster.run(within(played_through_b(cluster), GUARD, "the test"))


# ----------------------------------------------------------------- 2. lobby


async def one_lobby(cluster: Cluster) -> None:
    a, b = cluster["A"], cluster["B"]
    async with httpx2.AsyncClient(timeout=10) as http:
        ana, ivo = await guest(http, a, "Ana"), await guest(http, b, "Ivo")
        on_a = await table_on(http, a, ana, "made on A")
        on_b = await table_on(http, b, ivo, "made on B")
        began = time.monotonic()

        async def listed_everywhere() -> bool:
            pages = [await call(http, "GET", node, "/api/tables?limit=100") for node in (a, b)]
            # The prefix is this test's: its lobby holds these two tables and nothing else.
            return pages[0] == pages[1] and {t["id"] for t in pages[0]["tables"]} == {on_a, on_b}

        await eventually(listed_everywhere, 10, "both tables in the lobby of both nodes, "
                                                "listed alike")
        report("both tables listed on both nodes after", time.monotonic() - began)
        # Each started through the other node.
        await fill(http, b, on_a, ana, {0: ana})
        await fill(http, a, on_b, ivo, {0: ivo})
        await call(http, "POST", b, f"/api/tables/{on_a}/start", ana)
        await call(http, "POST", a, f"/api/tables/{on_b}/start", ivo)
        began = time.monotonic()

        async def gone_everywhere() -> bool:
            return all([not {on_a, on_b} & await lobby_ids(http, node) for node in (a, b)])

        await eventually(gone_everywhere, 10, "both started tables to leave both lobbies")
        report("both started tables gone from both lobbies after", time.monotonic() - began)
        check_no_errors(cluster)


def test_the_lobby_is_the_same_on_every_node(make_cluster: Callable[..., Cluster]) -> None:
    cluster = make_cluster("AB")
    cluster.run(within(one_lobby(cluster), GUARD, "the test"))


# ----------------------------------------------------------------- 3. kill -9


async def start_held(http: httpx2.AsyncClient, owner: Node, table_id: str,
                     ana: dict[str, str], clients: list[Client]) -> dict[str, Any]:
    """Connect every client, start the match on ``owner``, and return the state in which
    Ana (``clients[0]``) holds her card mid-trick, for the test to act then."""
    clients[0].hold = mid_trick(KILL_AT)
    for client in clients:
        client.start()
    await eventually(lambda: all(c.state is not None for c in clients), 10,
                     lambda: repr(clients))
    await call(http, "POST", owner, f"/api/tables/{table_id}/start", ana)
    return await clients[0].held_state()


async def turns_published(cluster: Cluster, held: dict[str, State]) -> bool:
    """Whether Redis holds each table's human turn as ``held`` shows it (its version)."""
    async with Redis.from_url(cluster.redis_url, decode_responses=True) as redis:
        keys = Keys(cluster.prefix)
        turns = [await redis.get(keys.turn(table_id)) for table_id in held]
    return all(turn is not None and int(turn.split()[0]) == state["version"]
               for turn, state in zip(turns, held.values(), strict=True))


async def matches_published(cluster: Cluster, tables: list[str]) -> bool:
    """Whether Redis lists every one of ``tables`` among the matches on."""
    async with Redis.from_url(cluster.redis_url) as redis:
        keys = Keys(cluster.prefix)
        found = [await redis.sismember(keys.started(bucket(t)), t)  # type: ignore[misc]
                 for t in tables]
    return all(found)


async def owner_killed(cluster: Cluster) -> None:
    a, b, c = cluster["A"], cluster["B"], cluster["C"]
    balancer = Balancer(cluster)
    async with httpx2.AsyncClient(timeout=10) as http:
        ana, ivo, eve = (await guest(http, a, "Ana"), await guest(http, b, "Ivo"),
                         await guest(http, c, "Eve"))
        table_id = await table_on(http, a, ana)
        await fill(http, a, table_id, ana, {0: ana, 2: ivo})
        # Ana on the owner itself; Ivo on B and Eve (watching) on C, both relayed to A.
        ana_ws = Client("ana", ana["token"], table_id, a, seat=0, balancer=balancer, seed=2)
        ivo_ws = Client("ivo", ivo["token"], table_id, b, seat=2, balancer=balancer, seed=3)
        eve_ws = Client("eve", eve["token"], table_id, c, seat=None, balancer=balancer)
        clients = [ana_ws, ivo_ws, eve_ws]
        held = await start_held(http, a, table_id, ana, clients)
        assert held["table"]["status"] == "playing"
        # A publishes each human turn's deadline from its loop: A dies once it has, so
        # that a card lost with A leaves the turn's deadline to check (below).
        await eventually(lambda: turns_published(cluster, {table_id: held}), 10,
                         "A to publish the turn's deadline")
        # Ana's card goes out and A dies at once: it may be logged and acknowledged, or
        # logged and not acknowledged (resent, refused as stale), or neither (resent).
        await ana_ws.release()
        killed = time.monotonic()
        a.kill()
        assert ana_ws.pending is not None
        in_flight = ana_ws.pending["id"]
        owner = None
        while owner in (None, "A"):
            assert time.monotonic() - killed < 15, "no node took the table over in 15 s"
            owner = await owner_of(http, [b, c], table_id)
            await asyncio.sleep(0.05)
        takeover = time.monotonic() - killed
        report(f"kill -9 to node {owner} answering for the table", takeover)
        await eventually(lambda: all(c.snapshots[-1][0] > killed for c in clients), 20,
                         lambda: f"every client to reconnect: {clients}")
        back = max(c.snapshots[-1][0] for c in clients) - killed
        report("kill -9 to every client reconnected", back)
        await all_over(clients)
        for client in clients:
            assert client.closes and client.closes[0][2] in (1006, 1012, 1013), client
            assert {node for _, node in client.welcomes[1:]} <= {"B", "C"}, client
            assert all(e["code"] == "stale_version" and e["resent"] for e in client.errors), client
        assert takeover < 10, f"the takeover took {takeover:.1f} s"
        # If Ana's card was lost with A (then resent), her turn kept its deadline.
        again = next(state for at, _, state in ana_ws.snapshots if at > killed)
        print(f"Ana's card in flight at the kill: logged by A {again['version'] > held['version']},"
              f" acknowledged {ana_ws.acked.get(in_flight)}, errors {ana_ws.errors}")
        if again["version"] == held["version"]:
            assert same_deadline(held, again), (held["deadline"], again["deadline"])
        log = await check_log(cluster, table_id, clients, http, b)
        check_one_takeover(cluster, cluster[owner], table_id)
        assert log.match.epoch == 1, f"taken over {log.match.epoch} times"
        check_no_errors(cluster)
        for client in clients:
            await client.stop()


def test_kill_9_of_the_owner_mid_trick(make_cluster: Callable[..., Cluster]) -> None:
    cluster = make_cluster("ABC", env={"LEASE_SECONDS": "3"})
    cluster.run(within(owner_killed(cluster), GUARD, "the test"))


async def many_tables_moved(cluster: Cluster, how: str) -> None:
    """A node holding many matches dies (``how``: "kill", SIGKILL) or stops ("term",
    SIGTERM, handing them over); their clients come back at once, each asking B or C
    for its table: every table is taken over once, within 10 s, and kept, and its log goes
    on without a gap.  Handed over, no table waits for its lease to lapse: A's keys are
    gone when it has exited."""
    a, b, c = cluster["A"], cluster["B"], cluster["C"]
    async with httpx2.AsyncClient(timeout=10) as http:
        tables = []
        for index in range(MANY):
            player = await guest(http, a, f"P{index}")
            table_id = await table_on(http, a, player)
            await fill(http, a, table_id, player, {0: player})
            await call(http, "POST", a, f"/api/tables/{table_id}/start", player)
            tables.append(table_id)

        async def under_way() -> bool:  # bots played in each, and A told the other nodes
            logs = [await stored_log(cluster.database_url, t) for t in tables]
            return all(any(log.actions) for log in logs) and \
                await matches_published(cluster, tables)

        await eventually(under_way, 10, "every match under way and published by A")
        began = time.monotonic()
        if how == "kill":
            a.kill()
        else:
            a.signal(signal.SIGTERM)

        async def answered(table_id: str) -> tuple[float, str]:
            nodes = [b, c]
            while True:
                random.shuffle(nodes)
                owner = await owner_of(http, nodes, table_id)
                if owner in ("B", "C"):
                    assert owner is not None
                    return time.monotonic() - began, owner
                assert time.monotonic() - began < 15, f"{table_id} not taken over in 15 s"
                await asyncio.sleep(0.05)

        answers = await asyncio.gather(*(answered(t) for t in tables))
        times = sorted(t for t, _ in answers)
        report(f"{how} to each of {MANY} tables answered for, median", times[MANY // 2])
        report(f"{how} to each of {MANY} tables answered for, max", times[-1])
        if how == "term":
            await exited(a)
            async with Redis.from_url(cluster.redis_url, decode_responses=True) as direct:
                owners = await direct.mget([f"{cluster.prefix}owner:{t}" for t in tables])
            assert "A" not in owners, f"A left its leases to lapse: {owners}"
            assert f"handed over {MANY} tables" in a.text(), a.tail()
        await asyncio.sleep(2)  # a few rounds of the new owners' loops
        for table_id, (_, owner) in zip(tables, answers, strict=True):
            log = await stored_log(cluster.database_url, table_id)
            check_told(log, [])
            check_one_takeover(cluster, cluster[owner], table_id)
            assert log.match.epoch == 1, f"{table_id} taken over {log.match.epoch} times"
            assert await owner_of(http, [b, c], table_id) == owner
        assert times[-1] < 10, f"the last table was taken over after {times[-1]:.1f} s"
        check_no_errors(cluster)


@pytest.mark.parametrize("how", ["kill", "term"])
def test_a_node_with_many_tables_goes(make_cluster: Callable[..., Cluster], how: str) -> None:
    # Slow bots: the matches (their humans absent, played by cover bots) stay on.
    cluster = make_cluster("ABC", env={"LEASE_SECONDS": "2", "BOT_DELAY": "0.5",
                                       "MAX_TABLES_PER_ADDRESS": "100"})
    cluster.run(within(many_tables_moved(cluster, how), GUARD, "the test"))
