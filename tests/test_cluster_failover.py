"""The cluster (app/cluster/__init__.py) with real processes, continued from
tests/test_cluster.py (its clients, balancer and checks): an owner paused and fenced off,
one stopped with SIGTERM handing its tables over, Redis restarted mid-match, and Redis
refused with SQLite.  A file of its own so that `make test`'s workers run it beside
test_cluster.py, which alone was the run's longest file."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path

import httpx2
import pytest
from redis.asyncio import Redis

from tests.cluster_nodes import NODE_START, ROOT, Cluster, OwnRedis
from tests.test_cluster import (
    GUARD,
    KILL_AT,
    Balancer,
    Client,
    all_over,
    call,
    check_log,
    check_no_errors,
    check_one_takeover,
    check_told,
    closed,
    cluster_view,
    exited,
    fill,
    guest,
    mid_trick,
    owner_of,
    report,
    same_deadline,
    start_held,
    table_on,
    turns_published,
)
from tests.test_recovery import stored_log
from tests.waiting import eventually, within

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.processes,
              pytest.mark.timeout(NODE_START + GUARD + 40)]  # as test_cluster.py's


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[OwnRedis]:
    server = OwnRedis(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.kill()


# ----------------------------------------------------------------- 4. fencing


async def owner_paused(cluster: Cluster) -> None:
    """Two tables of A's, each with its human's socket on A and a card sent to A while it
    is stopped: on table "played" the human plays on through B before A wakes, on table
    "waiting" nobody does, so that A's stale card would find its place in the log free
    and only the fence (the epoch, in the database) refuses it."""
    a, b = cluster["A"], cluster["B"]
    balancer = Balancer(cluster)
    async with httpx2.AsyncClient(timeout=10) as http:
        ana, ivo, eve = (await guest(http, a, "Ana"), await guest(http, a, "Ivo"),
                         await guest(http, b, "Eve"))
        played, waiting = await table_on(http, a, ana), await table_on(http, a, ivo)
        await fill(http, a, played, ana, {0: ana})
        await fill(http, a, waiting, ivo, {0: ivo})
        # The humans' first sockets are on A and never reconnect, nor give up on A while it
        # is stopped (they hold the cards sent to it); Eve watches through B.
        old = {played: Client("ana-on-A", ana["token"], played, a, seat=0, balancer=None,
                              seed=4, watch=False),
               waiting: Client("ivo-on-A", ivo["token"], waiting, a, seat=0, balancer=None,
                               seed=5, watch=False)}
        eve_ws = Client("eve", eve["token"], played, b, seat=None, balancer=balancer)
        for client in old.values():
            client.hold = mid_trick(KILL_AT, choices=2)
        for client in (*old.values(), eve_ws):
            client.start()
        await eventually(lambda: all(c.state is not None for c in (*old.values(), eve_ws)),
                         10, lambda: f"{old} {eve_ws!r}")
        await call(http, "POST", a, f"/api/tables/{played}/start", ana)
        await call(http, "POST", a, f"/api/tables/{waiting}/start", ivo)
        held = {table_id: await client.held_state() for table_id, client in old.items()}
        # A publishes each human turn's deadline from its loop (every 0.67 s); B takes it
        # from there, so A is stopped once it has (a fixed wait fell short under load).
        await eventually(lambda: turns_published(cluster, held), 10,
                         "A to publish both turns' deadlines")

        a.signal(signal.SIGSTOP)
        balancer.out.add("A")
        await eventually(a.stopped, 5, "node A to stop")
        paused = time.monotonic()
        # A card for each table reaches A's socket buffers; A reads them once it runs again.
        for table_id, client in old.items():
            assert client.ws is not None
            await client.ws.send(json.dumps({
                "type": "action", "id": "while-stopped", "version": held[table_id]["version"],
                "action": held[table_id]["view"]["legal_actions"][0]}))
        for table_id in old:
            owner = None
            while owner != "B":
                assert time.monotonic() - paused < 15, f"B did not take {table_id} ({owner})"
                owner = await owner_of(http, [b], table_id)
                await asyncio.sleep(0.05)
        report("SIGSTOP to B answering for both tables", time.monotonic() - paused)

        # On B now, each human finds the same turn, with the same deadline.
        new = {played: Client("ana-on-B", ana["token"], played, b, seat=0, balancer=balancer,
                              seed=6),
               waiting: Client("ivo-on-B", ivo["token"], waiting, b, seat=0, balancer=balancer,
                               seed=7)}
        for table_id, client in new.items():
            client.hold = lambda state: True
            client.start()
            at_b = await client.held_state(10)
            assert at_b["view"] == held[table_id]["view"]
            assert same_deadline(held[table_id], at_b), \
                f"{table_id}: turn {held[table_id]['deadline']} became {at_b['deadline']}"
        # Ana plays her other card, and on for a while, before A wakes.
        version = held[played]["version"]
        second = held[played]["view"]["legal_actions"][1]
        ana_b = new[played]
        ana_b.hold, ana_b.held = mid_trick(version + 12), None
        await ana_b.act(second)
        await ana_b.held_state()
        assert (version + 1, second) in ana_b.acked.values(), ana_b

        a.signal(signal.SIGCONT)
        balancer.out.discard("A")
        resumed = time.monotonic()
        for table_id, client in old.items():
            await eventually(partial(closed, client), 10,
                             lambda: f"A to close the old sockets: {old}")
            assert client.closes[0][2] == 1012, client
            assert client.other_acks == [], f"A acknowledged the stale card: {client!r}"
            assert all(v <= held[table_id]["version"] for v, _ in client.acked.values()), client
            assert all(v <= held[table_id]["version"] for v in client.seen), \
                f"A told of actions after its pause: {client!r}"

        async def dropped() -> bool:
            views = await cluster_view(http, a)
            return "A" in views and views["A"]["tables"] == 0 and views["B"]["tables"] == 2

        await eventually(dropped, 10, "A to drop both tables")
        report("SIGCONT to A dropping both tables", time.monotonic() - resumed)
        text = a.text()
        for table_id in old:
            fenced = [line for line in text.splitlines() if f"table_id={table_id}" in line
                      and "another node holds the table now; this one lets it go" in line]
            lease_lost = f"table {table_id} is another node's now; letting it go" in text
            print(f"A let {table_id} go: write refused (Fenced) {bool(fenced)}, lease found "
                  f"taken {lease_lost}")
            assert fenced, f"A never tried to write to {table_id} after its pause: the fence " \
                           "was not exercised"
            assert (await call(http, "GET", a, f"/api/tables/{table_id}"))["node"] == "B"
        assert "refused:" not in text, "A had a write refused other than by the fence"

        # The waiting table: Ivo's other card is the one at that place in the log.
        ivo_b = new[waiting]
        version = held[waiting]["version"]
        second = held[waiting]["view"]["legal_actions"][1]
        ivo_b.hold, ivo_b.held = mid_trick(version + 8), None
        await ivo_b.act(second)
        await ivo_b.held_state()
        assert (version + 1, second) in ivo_b.acked.values(), ivo_b
        check_told(await stored_log(cluster.database_url, waiting), [ivo_b, old[waiting]])

        await ana_b.release()
        await all_over([ana_b, eve_ws])
        log = await check_log(cluster, played, [ana_b, eve_ws, old[played]], http, a)
        for table_id in old:
            check_one_takeover(cluster, b, table_id)
        assert log.match.epoch == 1
        check_no_errors(cluster)
        for client in (*old.values(), *new.values(), eve_ws):
            await client.stop()


def test_a_paused_owner_is_fenced_off(make_cluster: Callable[..., Cluster]) -> None:
    cluster = make_cluster("AB", env={"LEASE_SECONDS": "2"})
    cluster.run(within(owner_paused(cluster), GUARD, "the test"))


# ----------------------------------------------------------------- 5. SIGTERM


async def owner_terminated(cluster: Cluster) -> None:
    a, b = cluster["A"], cluster["B"]
    balancer = Balancer(cluster)
    async with httpx2.AsyncClient(timeout=10) as http:
        ana, eve = await guest(http, a, "Ana"), await guest(http, b, "Eve")
        table_id = await table_on(http, a, ana)
        await fill(http, a, table_id, ana, {0: ana})
        ana_ws = Client("ana", ana["token"], table_id, a, seat=0, balancer=balancer, seed=6)
        eve_ws = Client("eve", eve["token"], table_id, b, seat=None, balancer=balancer)
        clients = [ana_ws, eve_ws]
        held = await start_held(http, a, table_id, ana, clients)
        terminated = time.monotonic()
        a.signal(signal.SIGTERM)
        balancer.out.add("A")  # its /readyz says shutting_down from now on
        owner = None
        while owner != "B":
            assert time.monotonic() - terminated < 10, f"B did not take the table ({owner})"
            owner = await owner_of(http, [b], table_id)
            await asyncio.sleep(0.02)
        moved = time.monotonic() - terminated
        report("SIGTERM to B answering for the table", moved)
        # Ana plays her held turn as soon as she is back, on B.
        await eventually(lambda: ana_ws.snapshots[-1][0] > terminated, 10,
                         lambda: f"Ana to reconnect: {ana_ws!r}")
        _, node, again = ana_ws.snapshots[-1]
        assert node == "B" and again["version"] == held["version"], again
        assert again["view"] == held["view"]
        await ana_ws.release()
        await eventually(lambda: any(v > held["version"] for v, _ in ana_ws.acked.values()),
                         10, lambda: f"Ana's first action on B: {ana_ws!r}")
        playable = time.monotonic() - terminated
        report("SIGTERM to Ana's action acknowledged on B", playable)
        await exited(a)
        await all_over(clients)
        for client in clients:
            after = [w for w in client.welcomes if w[0] > terminated]
            assert [node for _, node in after] == ["B"], f"reconnected more than once: {client!r}"
            assert client.closes[0][2] == 1012, client
            assert client.errors == [], client
        assert "handed over 1 tables" in a.text()
        check_one_takeover(cluster, b, table_id)
        assert moved <= 3, f"the table took {moved:.1f} s to move"
        assert playable <= 3.5, f"the table was not playable for {playable:.1f} s"
        await check_log(cluster, table_id, clients, http, b)
        check_no_errors(cluster)
        # The turn Ana was on when A stopped kept its deadline on B (the hand-over, like
        # a takeover, keeps the remaining turn time).
        assert same_deadline(held, again), \
            f"Ana's turn, due at {held['deadline']} on A, is due at {again['deadline']} on B: " \
            f"{(again['deadline'] - held['deadline']) / 1000:+.1f} s"
        for client in clients:
            await client.stop()


def test_sigterm_hands_the_tables_over_at_once(make_cluster: Callable[..., Cluster]) -> None:
    # A 30 s lease: only the hand-over can move the table within the test's few seconds.
    cluster = make_cluster("AB", env={"LEASE_SECONDS": "30"})
    cluster.run(within(owner_terminated(cluster), GUARD, "the test"))


# ----------------------------------------------------------------- 6. Redis restarted


async def redis_restarted(cluster: Cluster, redis_server: OwnRedis) -> None:
    a, b = cluster["A"], cluster["B"]
    balancer = Balancer(cluster)
    async with httpx2.AsyncClient(timeout=10) as http:
        ana, eve = await guest(http, a, "Ana"), await guest(http, b, "Eve")
        table_id = await table_on(http, a, ana)
        await fill(http, a, table_id, ana, {0: ana})
        ana_ws = Client("ana", ana["token"], table_id, a, seat=0, balancer=balancer, seed=7)
        eve_ws = Client("eve", eve["token"], table_id, b, seat=None, balancer=balancer)
        clients = [ana_ws, eve_ws]
        held = await start_held(http, a, table_id, ana, clients)

        redis_server.kill()
        down = time.monotonic()

        async def unready() -> bool:
            for node in (a, b):
                response = await http.get(f"{node.http}/readyz")
                if response.status_code != 503 or response.json()["code"] != "redis_unavailable":
                    return False
            return True

        await eventually(unready, 10, "both nodes to say redis_unavailable")
        report("Redis killed to both /readyz saying so", time.monotonic() - down)
        # Meanwhile the match goes on on its owner.
        await ana_ws.release(mid_trick(held["version"] + 12))
        await ana_ws.held_state(20)
        during = dict(ana_ws.acked)
        assert during, "nothing acknowledged while Redis was down"
        elsewhere = await http.get(f"{b.http}/api/tables/{table_id}")
        assert elsewhere.status_code == 503, elsewhere.text
        assert elsewhere.json()["detail"]["code"] == "cluster_unavailable"
        assert elsewhere.headers["Retry-After"] == "1"
        refused = await http.post(f"{a.http}/api/tables", json={"name": "during"},
                                  headers={"Authorization": f"Bearer {ana['token']}"})
        assert refused.status_code == 503, refused.text
        assert refused.json()["detail"]["code"] == "cluster_unavailable"

        redis_server.start()  # empty: no persistence
        up = time.monotonic()

        async def ready() -> bool:
            return all([(await http.get(f"{n.http}/readyz")).status_code == 200 for n in (a, b)])

        await eventually(ready, 10, "both nodes ready again")
        report("Redis back to both /readyz ready", time.monotonic() - up)
        # B holds no table: it answers only by finding the owner in Redis.
        owner = None
        while owner not in ("A", "B"):
            assert time.monotonic() - up < 15, "the table has no owner after Redis came back"
            owner = await owner_of(http, [b], table_id)
            await asyncio.sleep(0.1)
        report(f"Redis back to the table answered for (by {owner})", time.monotonic() - up)
        async with Redis.from_url(redis_server.url, decode_responses=True) as direct:
            assert await direct.get(f"{cluster.prefix}owner:{table_id}") == owner
        await ana_ws.release()
        await all_over(clients)
        for client in clients:
            assert all(e["code"] == "stale_version" and e["resent"] for e in client.errors), client
        await check_log(cluster, table_id, clients, http, b)
        check_no_errors(cluster)
        for client in clients:
            await client.stop()


def test_redis_restarted_mid_match(make_cluster: Callable[..., Cluster],
                                   own_redis: OwnRedis) -> None:
    cluster = make_cluster("AB", redis_url=own_redis.url, env={"LEASE_SECONDS": "2"})
    cluster.extra.append(own_redis.log)
    cluster.run(within(redis_restarted(cluster, own_redis), GUARD, "the test"))


# ----------------------------------------------------------------- 7. refused


def test_redis_with_sqlite_is_refused_at_start(tmp_path: Path) -> None:
    env = os.environ | {"PYTHONPATH": str(ROOT), "REDIS_URL": "redis://127.0.0.1:6379/0",
                        "DATABASE_URL": f"sqlite:///{tmp_path / 'belote.db'}",
                        "SECRET_KEY": "cluster-test-secret-key-0123456789abcdefghijklmnop"}
    result = subprocess.run([sys.executable, "-m", "app", "--port", "0"], env=env, cwd=tmp_path,
                            capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "PostgreSQL" in lines[0] and "REDIS_URL" in lines[0], lines[0]
    assert result.stdout == ""
    assert not (tmp_path / "belote.db").exists()
