"""A cluster whose parts stop answering without dying: a node paused (SIGSTOP) while
sockets go through it, an owner killed while a relay's handshake to it is under way or before
it published its match, the database paused.  Real nodes, clients that behave like the
browser (tests/test_cluster.py's ``Client``); every wait bounded."""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import time
from collections.abc import Callable
from pathlib import Path

import httpx2
import pytest
from redis.asyncio import Redis
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from app.cluster.relay import CLOSE_SECONDS, PING_SECONDS
from app.cluster.sweep import bucket
from app.protocol import CloseCode
from app.shared.keys import Keys
from tests.cluster_nodes import Cluster, Node, cluster_of
from tests.own_postgres import own_postgres
from tests.test_cluster import (
    GUARD,
    SILENCE,
    Balancer,
    Client,
    State,
    check_no_errors,
    check_told,
    fill,
    guest,
    mid_trick,
    report,
    start_held,
    table_on,
)
from tests.test_recovery import stored_log
from tests.waiting import eventually, within

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.processes]

# Seconds a relay may take to drop an owner that stopped answering: its pings' interval
# and timeout, the close it gives up waiting for, and a margin for a loaded machine.
RELAY_DROP = 2 * PING_SECONDS + CLOSE_SECONDS + 3
BACK = SILENCE + 10  # seconds for a client to be playing again through another node
IN_FLIGHT = 0.5  # seconds for a relay's handshake with the owner to get under way
# The nodes read the log's matches every SEED_SWEEPS sweeps (2 s here, at LEASE_SECONDS 2),
# not every 30 (20 s): the paused database's reads come within seconds of the pause.
SEED_SWEEPS = "3"
STALL = 45  # seconds for both nodes to have read the paused database (a bound, not a wait)


def welcomed_since(client: Client, since: float, node: str | None = None) -> bool:
    return any(at > since and (node is None or on == node) for at, on in client.welcomes)


async def plays_on(client: Client, held: State, what: str) -> None:
    """``client``, holding at ``held``, plays it and a few more turns, acknowledged."""
    await client.release(mid_trick(held["version"] + 8))
    await client.held_state(BACK)
    later = [v for v, _ in client.acked.values() if v > held["version"]]
    assert later, f"{what}: nothing acknowledged after the turn held: {client!r}"


# ----------------------------------------------------------------- a relay paused


async def ana_alone(http: httpx2.AsyncClient, owner: Node, via: Node,
                    balancer: Balancer | None, seed: int,
                    watch: bool = True) -> tuple[dict[str, str], str, Client, State]:
    """Ana and three bots at a table ``owner`` holds, her socket through ``via``, the
    match started and held: her guest, the table, her client and the state it saw."""
    ana = await guest(http, owner, "Ana")
    table_id = await table_on(http, owner, ana)
    await fill(http, owner, table_id, ana, {0: ana})
    ana_ws = Client("ana", ana["token"], table_id, via, seat=0, balancer=balancer, seed=seed,
                    watch=watch)
    held = await start_held(http, owner, table_id, ana, [ana_ws])
    return ana, table_id, ana_ws, held


async def relay_paused(cluster: Cluster) -> None:
    """Ana's socket goes through B to A; B stops.  Her client hears nothing, gives the
    socket up and reconnects through the balancer (A, B being out of it), and plays on."""
    a, b = cluster["A"], cluster["B"]
    balancer = Balancer(cluster)
    async with httpx2.AsyncClient(timeout=10) as http:
        _, table_id, ana_ws, held = await ana_alone(http, a, b, balancer, seed=11)
        b.signal(signal.SIGSTOP)
        balancer.out.add("B")
        await eventually(b.stopped, 5, "node B to stop")
        paused = time.monotonic()
        await eventually(lambda: welcomed_since(ana_ws, paused, "A"), BACK,
                         lambda: f"Ana to give up the silent socket and reach A: {ana_ws!r}")
        report("SIGSTOP of the relay to Ana welcomed on A", time.monotonic() - paused)
        assert ana_ws.closes[-1][1:3] == ("B", None) and ana_ws.closes[-1][3] == "silent", \
            ana_ws
        await plays_on(ana_ws, held, "Ana on A")
        b.signal(signal.SIGCONT)
        check_told(await stored_log(cluster.database_url, table_id), [ana_ws])
        await ana_ws.stop()
        await asyncio.sleep(1)  # B wakes and ends its relay of the socket A replaced
        check_no_errors(cluster)


def test_a_client_leaves_a_paused_relay_for_another_node(tmp_path: Path) -> None:
    with cluster_of(tmp_path, "AB") as cluster:
        cluster.run(within(relay_paused(cluster), GUARD, "the test"))


# ----------------------------------------------------------------- an owner paused


async def owner_paused(cluster: Cluster) -> None:
    """Ana's socket goes through B to A; A stops.  B's pings to A go unanswered: B closes
    Ana's socket with 1012 within its ping's bound, although her client does not watch
    for silence itself, and once B has taken the table over she plays on there."""
    a, b = cluster["A"], cluster["B"]
    balancer = Balancer(cluster)
    async with httpx2.AsyncClient(timeout=10) as http:
        _, table_id, ana_ws, held = await ana_alone(http, a, b, balancer, seed=12,
                                                    watch=False)
        a.signal(signal.SIGSTOP)
        balancer.out.add("A")
        await eventually(a.stopped, 5, "node A to stop")
        paused = time.monotonic()
        await eventually(lambda: bool(ana_ws.closes), RELAY_DROP,
                         lambda: f"B to close Ana's socket to the stopped A: {ana_ws!r}")
        report("SIGSTOP of the owner to the relay's close", time.monotonic() - paused)
        assert ana_ws.closes[0][1:3] == ("B", CloseCode.RESTART), ana_ws
        await eventually(lambda: welcomed_since(ana_ws, paused, "B"), BACK,
                         lambda: f"Ana back on B: {ana_ws!r}")
        await plays_on(ana_ws, held, "Ana on B")
        a.signal(signal.SIGKILL)  # not woken first: it would write, fenced, for nothing
        a.kill()  # reaped
        await ana_ws.stop()
        check_told(await stored_log(cluster.database_url, table_id), [ana_ws])
        check_no_errors(cluster)


def test_a_relay_drops_an_owner_that_stops_answering(tmp_path: Path) -> None:
    with cluster_of(tmp_path, "AB") as cluster:
        cluster.run(within(owner_paused(cluster), GUARD, "the test"))


# ----------------------------------------------------------------- an owner killed


async def handshake_cut(cluster: Cluster) -> None:
    """A stops; a socket reaches B, which starts its handshake with A (A's kernel takes
    the connection, A answers nothing); A is killed.  B closes that socket with 1013 and
    logs no traceback; Ana's client, relayed by B all along, plays on once B holds the
    table."""
    a, b = cluster["A"], cluster["B"]
    balancer = Balancer(cluster)
    async with httpx2.AsyncClient(timeout=10) as http:
        ana, table_id, ana_ws, held = await ana_alone(http, a, b, balancer, seed=13)
        a.signal(signal.SIGSTOP)
        balancer.out.add("A")
        await eventually(a.stopped, 5, "node A to stop")
        async with connect(b.ws(table_id), open_timeout=5, ping_interval=None) as socket:
            await socket.send(json.dumps({"type": "hello", "protocol": 1,
                                          "token": ana["token"]}))
            await asyncio.sleep(IN_FLIGHT)  # B accepted it, and now waits for A's answer
            a.signal(signal.SIGKILL)
            killed = time.monotonic()
            with contextlib.suppress(ConnectionClosed):
                await within(socket.recv(), 10, "B to close the socket to the dead A")
            assert (socket.close_code, socket.close_reason) == \
                (CloseCode.TRY_AGAIN, "the table's server is out of reach"), \
                (socket.close_code, socket.close_reason)
        a.kill()  # reaped
        await back_on_b(cluster, table_id, ana_ws, held, killed)


async def back_on_b(cluster: Cluster, table_id: str, ana_ws: Client, held: State,
                    killed: float) -> None:
    """Ana, whose table's owner A was killed at ``killed``, plays on on B, and every
    action she was told of is in the log."""
    await eventually(lambda: welcomed_since(ana_ws, killed, "B"), BACK,
                     lambda: f"Ana back on B: {ana_ws!r}")
    await plays_on(ana_ws, held, "Ana on B")
    await ana_ws.stop()
    check_told(await stored_log(cluster.database_url, table_id), [ana_ws])
    check_no_errors(cluster)


def test_an_owner_killed_in_a_relay_s_handshake_is_gone_not_an_error(tmp_path: Path) -> None:
    # A lease longer than the handshake's wait: the table is still A's when A dies.
    with cluster_of(tmp_path, "AB", env={"LEASE_SECONDS": "4"}) as cluster:
        cluster.run(within(handshake_cut(cluster), GUARD, "the test"))


async def unpublished_owner_killed(cluster: Cluster) -> None:
    """A stops before its loop has told the other nodes of its match (the match is taken
    out of Redis's matches on while A is stopped, as if A's first publication had not come
    yet), and is killed.  B, asked for the table by Ana's client, finds the match in the
    log, takes it over, and Ana plays on on B: she is never told ``no_table``."""
    a, b = cluster["A"], cluster["B"]
    balancer = Balancer(cluster)
    async with httpx2.AsyncClient(timeout=10) as http, \
            Redis.from_url(cluster.redis_url) as redis:
        _, table_id, ana_ws, held = await ana_alone(http, a, b, balancer, seed=17)
        a.signal(signal.SIGSTOP)
        balancer.out.add("A")
        await eventually(a.stopped, 5, "node A to stop")
        key = Keys(cluster.prefix).started(bucket(table_id))
        assert await redis.srem(key, table_id) == 1  # type: ignore[misc]
        a.signal(signal.SIGKILL)
        killed = time.monotonic()
        a.kill()  # reaped
        await back_on_b(cluster, table_id, ana_ws, held, killed)


def test_an_owner_killed_before_it_published_its_match_is_taken_over(
        tmp_path: Path) -> None:
    # B reads the log's matches no sooner than 1,000 sweeps after its start: only the
    # takeover's own look at the log can find the match in time.
    with cluster_of(tmp_path, "AB", env={"SEED_SWEEPS": "1000"}) as cluster:
        cluster.run(within(unpublished_owner_killed(cluster), GUARD, "the test"))


# ----------------------------------------------------------------- the database paused


async def database_paused(cluster: Cluster, pause: Callable[[], None],
                          resume: Callable[[], None]) -> None:
    """The database stops answering for longer than a lease, across both nodes' readings
    of the log: A renews its leases all the while (Redis says A at every look), no node
    takes the table over, each node says so in one WARNING line and no traceback, and
    Ana plays on on A, on the same socket, once the database answers again."""
    a, b = cluster["A"], cluster["B"]
    async with httpx2.AsyncClient(timeout=10) as http, \
            Redis.from_url(cluster.redis_url, decode_responses=True) as redis:
        _, table_id, ana_ws, held = await ana_alone(http, a, a, None, seed=14)
        owners: list[str | None] = []

        async def watch_owner() -> None:
            while True:
                owners.append(await redis.get(f"{cluster.prefix}owner:{table_id}"))
                await asyncio.sleep(0.1)

        watcher = asyncio.create_task(watch_owner())
        pause()
        try:
            async def unready() -> bool:
                said = await asyncio.gather(*(http.get(f"{n.http}/readyz") for n in (a, b)))
                return all(r.status_code == 503 and r.json()["code"] == "database_unavailable"
                           for r in said)

            await eventually(unready, 15, "both nodes to say database_unavailable")

            def read_or_moved() -> bool:
                return set(owners) != {"A"} or all(warned(node) for node in (a, b))

            await eventually(read_or_moved, STALL,
                             lambda: f"both nodes to read the paused database: {owners[-5:]}")
            await asyncio.sleep(2 * 2)  # two more leases' time (LEASE_SECONDS 2)
        finally:
            resume()
        watcher.cancel()
        assert set(owners) == {"A"}, f"A's lease lapsed while the database was paused: " \
                                     f"{[o for o in owners if o != 'A'][:5]}"
        await eventually(lambda: all(answers(node) for node in (a, b)), 15,
                         "both nodes to say the database answers again")
        for node in (a, b):
            assert "took over table" not in node.text(), node.tail()
            lines = [line for line in node.text().splitlines()
                     if "cluster: database unavailable: " in line]
            assert len(lines) == 1 and " WARNING " in lines[0], lines
        await plays_on(ana_ws, held, "Ana on A")
        assert ana_ws.closes == [], ana_ws
        await ana_ws.stop()
        check_no_errors(cluster)


def warned(node: Node) -> bool:
    return "cluster: database unavailable: " in node.text()


def answers(node: Node) -> bool:
    return "cluster: database answers" in node.text()


def test_a_paused_database_lets_no_lease_lapse(tmp_path: Path) -> None:
    with own_postgres() as server, \
            cluster_of(tmp_path, "AB", postgres=server.url,
                       env={"SEED_SWEEPS": SEED_SWEEPS}) as cluster:
        cluster.run(within(database_paused(cluster, server.pause, server.resume),
                           GUARD, "the test"))
