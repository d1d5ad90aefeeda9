"""Cluster benchmark: several ``python -m app`` nodes on one Redis and one PostgreSQL
(docs/benchmarks-cluster.md has the figures and what they mean).

Every node is a real ``python -m app`` process on a loopback port, with ``REDIS_URL``, a
PostgreSQL ``DATABASE_URL`` (a scratch database for each cluster the run starts, migrated,
dropped at the end), a ``REDIS_PREFIX`` of that cluster's own (its keys deleted at the
end), one shared ``SECRET_KEY`` and ``BOT_DELAY`` 1 s.  The phases (``--phases``, all by default):

- ``capacity``: for 1, 2 and 3 nodes (``--nodes``), busy tables spread evenly over the
  nodes, every socket on its table's node: bench/load.py's measure, p50/p99 from a
  human's action to the update that shows it on the human's socket, over ``--seconds``.
  A table is four simulated humans (``--humans 1`` for bench/load.py's one human and
  three bots: the same rate of actions, a quarter of the samples).  The table counts
  (``--tables``) are tried in rising order for each node count, up to the second whose
  p99 is over 20 ms.
- ``relay``: two nodes, tables of four simulated humans all held by the first; two
  seats of each table connect to the owner, two to the other node, which relays them
  (which two changes from table to table): action -> update and action -> ack, p50/p99,
  for both kinds of socket in the same run, at the same tables.
- ``kill`` and ``term``: ``--failover-nodes`` nodes (3) with ``--failover-tables`` busy
  tables (one human and three bots each, the human's socket on any live node, as a
  round-robin balancer would place it, and reconnecting to the next live node when
  closed).  ``--kills`` times: SIGKILL to the process group of the node holding the most
  tables, then for each of its tables the time until its human's socket gets a snapshot
  from another node, split into the lease running out, another node taking it, and the
  takeover itself; then the node is started again.  Then ``--handovers`` times the same
  with SIGTERM (a rolling restart: the node hands its tables over at exit).
- ``micro``: what the figures above cannot show at 100,000 tables: one Redis's time for
  the sweep of 100,000 started tables (SMEMBERS, MGET of their leases) and for renewing
  leases (the nodes' own Lua script, pipelined), and PostgreSQL's rate of log writes one
  row per commit (the app's transaction) against many rows per commit.

Prints figures, asserts nothing.  Bounded (loopback only, fixed counts and windows);
9 to 15 minutes with the defaults on a 2-core machine (more capacity steps pass on a
quiet one).

    .venv/bin/python bench/cluster.py
    .venv/bin/python bench/cluster.py --phases capacity --nodes 1,2,3 --tables 25,50,100
    .venv/bin/python bench/cluster.py --phases kill,term --kills 10 --handovers 10
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import itertools
import json
import os
import platform
import random
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import asyncpg  # type: ignore[import-untyped]
import httpx2
from redis import Redis as SyncRedis
from redis.asyncio import Redis
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, WebSocketException

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.cluster import sweep  # noqa: E402
from app.cluster.leases import Leases  # noqa: E402
from app.db.migrate import scratch_database, upgrade  # noqa: E402
from app.shared import Keys, RedisShared  # noqa: E402
from bench.load import counter, sample_lag, window_summary  # noqa: E402

HOST = "127.0.0.1"  # loopback only, whatever the arguments
SECRET = "cluster-benchmark-secret-" + "k" * 32  # every node's: tokens, the relay's mark
FINAL_CLOSES = frozenset({4001, 4003, 4004, 4009, 4400})  # GET /api/protocol
TARGET_P99 = 0.020  # seconds: the bar for action -> update
RECONNECT_PAUSE = 0.1  # seconds between a close and the next connect (a client's backoff)
WATCH_EVERY = 0.025  # seconds between two looks at the leases during a failover
STUCK_AFTER = 10.0  # seconds after a SIGTERM with no sign of a shutdown: reported
CLUSTERS = itertools.count(1)  # each cluster of a run names its nodes' logs c1-, c2-, ...


# ------------------------------------------------------------------ small helpers


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        port: int = sock.getsockname()[1]
        return port


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}"


def cpu_seconds(pid: int) -> float:
    """User and system time of a process (/proc/PID/stat, fields 14 and 15)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def machine_load() -> str:
    one, five, _ = os.getloadavg()
    return f"load {one:.2f}/{five:.2f} (1/5 min) on {os.cpu_count()} CPUs"


def busiest_processes(skip: set[int], interval: float = 1.0) -> str:
    """The machine's busiest processes over ``interval`` seconds, not of this run."""

    def sample() -> dict[int, float]:
        found = {}
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit() and int(entry.name) not in skip | {os.getpid()}:
                found[int(entry.name)] = cpu_seconds(int(entry.name))
        return found

    first = sample()
    time.sleep(interval)
    second = sample()
    busy = sorted(((second[p] - first[p]) / interval, p) for p in second.keys() & first.keys())
    rows = []
    for share, pid in reversed(busy[-5:]):
        if share < 0.05:
            continue
        with contextlib.suppress(OSError):
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
            rows.append(f"{command.decode(errors='replace').strip()[:70]!r} {share:.0%}")
    return ", ".join(rows) or "none over 5 % of a core"


# ------------------------------------------------------------------ nodes


class Node:
    """One ``python -m app`` process of the cluster; started again under a new id."""

    def __init__(self, name: str, env: dict[str, str], logs: Path, label: str) -> None:
        self.name, self.env, self.logs, self.label = name, env, logs, label
        self.port = free_port()
        self.incarnation = 0
        self.id = name
        self.proc: subprocess.Popen[bytes] | None = None
        self.log_path = logs / f"{label}-{name}.log"

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def start(self) -> None:
        self.incarnation += 1
        self.id = f"{self.name}-{self.incarnation}"
        self.log_path = self.logs / f"{self.label}-{self.id}.log"
        with self.log_path.open("wb") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "app", "--host", HOST, "--port", str(self.port)],
                cwd=ROOT, env=self.env | {"NODE_ID": self.id}, stdout=log,
                stderr=subprocess.STDOUT, start_new_session=True)

    async def ready(self, http: httpx2.AsyncClient, timeout: float = 90) -> float:
        """Seconds until ``/readyz`` answers 200 (the node reached Redis and the database)."""
        began = time.perf_counter()
        while True:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise RuntimeError(f"node {self.id} exited with {self.proc.returncode}: "
                                   f"{self.tail()}")
            with contextlib.suppress(httpx2.TransportError):
                if (await http.get(self.url + "/readyz", timeout=2)).status_code == 200:
                    return time.perf_counter() - began
            if time.perf_counter() - began > timeout:
                raise RuntimeError(f"node {self.id} not ready in {timeout} s: {self.tail()}")
            await asyncio.sleep(0.1)

    def kill(self) -> None:
        """``kill -9`` of the node and its bot processes at once (a machine or container
        lost)."""
        assert self.proc is not None
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)

    def term(self) -> None:
        """SIGTERM to the server process alone, as Docker or systemd stops it."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)

    async def exited(self, timeout: float) -> bool:
        deadline = time.perf_counter() + timeout
        while self.proc is not None and self.proc.poll() is None:
            if time.perf_counter() > deadline:
                return False
            await asyncio.sleep(0.02)
        return True

    def stop(self) -> None:
        """Gone, with whatever it started (tests' ends need no hand-over)."""
        if self.proc is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(10)

    def tail(self, lines: int = 12, grep: str | None = None) -> str:
        try:
            text = self.log_path.read_text(errors="replace").splitlines()
        except OSError:
            return "(no log)"
        if grep is not None:
            text = [line for line in text if grep in line]
        return "\n      ".join(text[-lines:])

    def pids(self) -> set[int]:
        if self.proc is None:
            return set()
        found = {self.proc.pid}
        out = subprocess.run(["pgrep", "-g", str(self.proc.pid)], capture_output=True,
                             text=True, check=False).stdout
        found.update(int(p) for p in out.split())
        return found


@dataclass
class Cluster:
    """The nodes of one measurement, on one scratch database and one key prefix."""

    args: argparse.Namespace
    database_url: str
    logs: Path
    prefix: str = field(default_factory=lambda: f"bench-cluster-{secrets.token_hex(4)}:")
    nodes: list[Node] = field(default_factory=list)
    label: str = field(default_factory=lambda: f"c{next(CLUSTERS)}")  # its nodes' log names

    def env(self) -> dict[str, str]:
        return os.environ | {
            "DATABASE_URL": self.database_url,
            "REDIS_URL": self.args.redis,
            "REDIS_PREFIX": self.prefix,
            "SECRET_KEY": SECRET,
            "LEASE_SECONDS": str(self.args.lease),
            "BOT_DELAY": str(self.args.bot_delay),
            "BOT_PROCESSES": "1",
            "LOG_LEVEL": "info",  # the takeovers and hand-overs are logged at info
            "PYTHONFAULTHANDLER": "1",  # a node stuck at exit: SIGABRT dumps its stacks
            # Every table and socket comes from one address here: lift the caps meant for
            # the public (bench/load.py does the same).
            "MAX_TABLES_PER_ADDRESS": "100000",
            "MAX_SOCKETS_PER_ADDRESS": "100000",
            "MAX_TABLES": "100000",
            "REST_RATE_PER_ADDRESS": "100000/second",
        }

    async def start(self, count: int, http: httpx2.AsyncClient) -> None:
        env = self.env()
        self.nodes = [Node(f"n{i + 1}", env, self.logs, self.label) for i in range(count)]
        for node in self.nodes:
            node.start()
        await asyncio.gather(*(node.ready(http) for node in self.nodes))

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()
        with contextlib.closing(SyncRedis.from_url(self.args.redis)) as redis:
            keys = list(redis.scan_iter(match=f"{self.prefix}*", count=1000))
            for start in range(0, len(keys), 1000):
                redis.delete(*keys[start:start + 1000])

    def pids(self) -> set[int]:
        return set().union(*(node.pids() for node in self.nodes)) if self.nodes else set()


@contextlib.contextmanager
def cluster_on_fresh_database(args: argparse.Namespace, logs: Path) -> Iterator[Cluster]:
    """A cluster on a scratch database of its own: a run must not take over tables that
    an earlier one left unfinished.  Its nodes stopped and its keys deleted at the end."""
    with scratch_database(args.postgres, "belote_cluster") as url:
        upgrade(url)
        cluster = Cluster(args, url, logs)
        try:
            yield cluster
        finally:
            cluster.stop()


# ------------------------------------------------------------------ tables and players


@dataclass
class Table:
    id: str
    node: Node  # where it was made, so its first owner
    creator: str  # token
    seats: dict[int, str]  # seat -> token of a human


async def post_json(http: httpx2.AsyncClient, url: str, token: str | None = None,
                    body: Any = None, method: str = "POST") -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    for attempt in range(5):
        answer = await http.request(method, url, json=body, headers=headers)
        if answer.status_code < 500 or attempt == 4:
            break
        await asyncio.sleep(0.5)  # 503: a table moving, a node starting
    if answer.status_code >= 400:
        raise RuntimeError(f"{method} {url}: {answer.status_code} {answer.text[:200]}")
    return answer.json() if answer.content else None


async def open_table(http: httpx2.AsyncClient, node: Node, index: int, humans: int,
                     turn_seconds: float) -> Table:
    """A table made on ``node``: ``humans`` guests in the first seats, normal bots after."""
    base = node.url + "/api"
    tokens = [(await post_json(http, base + "/guests", body={"name": f"cl{index}s{s}"}))["token"]
              for s in range(humans)]
    made = await post_json(http, base + "/tables", tokens[0],
                           {"name": f"cluster {index}", "turn_seconds": turn_seconds})
    table_url = f"{base}/tables/{made['id']}"
    for seat, token in enumerate(tokens):
        await post_json(http, f"{table_url}/seats/{seat}", token, method="PUT")
    for seat in range(humans, 4):
        await post_json(http, f"{table_url}/seats/{seat}/bot", tokens[0], {"level": "normal"},
                        method="PUT")
    return Table(made["id"], node, tokens[0], dict(enumerate(tokens)))


async def open_tables(http: httpx2.AsyncClient, nodes: list[Node], count: int, humans: int,
                      turn_seconds: float, first: int = 0) -> list[Table]:
    """``count`` tables, table ``i`` on ``nodes[i % len(nodes)]``, 25 made at once."""
    tables: list[Table] = []
    for start in range(first, first + count, 25):
        tables += await asyncio.gather(*(
            open_table(http, nodes[i % len(nodes)], i, humans, turn_seconds)
            for i in range(start, min(start + 25, first + count))))
    return tables


async def start_tables(http: httpx2.AsyncClient, tables: list[Table]) -> None:
    for start in range(0, len(tables), 25):
        await asyncio.gather(*(post_json(http, f"{t.node.url}/api/tables/{t.id}/start",
                                         t.creator) for t in tables[start:start + 25]))


@dataclass
class Sink:
    """What the simulated humans measured, by kind of socket ("direct" on the owner,
    "relayed" through another node), while ``measuring`` is set."""

    measuring: asyncio.Event = field(default_factory=asyncio.Event)
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    update: dict[str, list[float]] = field(default_factory=lambda: {"direct": [], "relayed": []})
    ack: dict[str, list[float]] = field(default_factory=lambda: {"direct": [], "relayed": []})
    actions: int = 0  # answered, all along
    errors: Counter[str] = field(default_factory=Counter)
    closes: Counter[str] = field(default_factory=Counter)


@dataclass
class Snapshot:
    at: float  # perf_counter
    node: str  # the table's node, as the snapshot says
    version: int
    status: str
    via: str  # the node the socket was opened on


class Player:
    """A simulated human at one seat: acts after a think time whenever it is its turn,
    times each of its actions (to its own update, and to its ack), and reconnects after
    any close that is not final, to whichever node ``pick`` names."""

    def __init__(self, table: Table, seat: int, pick: Callable[[], Node], think: float,
                 rng: random.Random, sink: Sink) -> None:
        self.table, self.seat, self.token = table, seat, table.seats[seat]
        self.pick, self.think, self.rng, self.sink = pick, think, rng, sink
        self.snapshots: list[Snapshot] = []
        self.closes: list[tuple[float, int | None, str]] = []  # when, code, node
        self.version = 0  # the highest version seen
        self.done = False  # the match is over, or a final close
        self.final: int | None = None
        self.via: Node | None = None
        self._sent: dict[int, tuple[str, float]] = {}  # version acted on -> (id, when)
        self._acked: dict[str, float] = {}  # id -> when sent
        self._acted: set[int] = set()
        self._count = itertools.count()
        self._resumed = 0
        self._acting: asyncio.Task[None] | None = None

    async def play(self) -> None:
        while not self.done and not self.sink.stop.is_set():
            node = self.pick()
            self.via = node
            code: int | None = None
            try:
                async with connect(f"ws://{HOST}:{node.port}/api/tables/{self.table.id}/ws",
                                   open_timeout=5, close_timeout=1, ping_interval=None,
                                   max_size=2**20) as ws:
                    await ws.send(json.dumps({"type": "hello", "protocol": 1,
                                              "token": self.token}))
                    async for text in ws:
                        await self._handle(ws, json.loads(text), node)
                        if self.done or self.sink.stop.is_set():
                            break
                code = ws.close_code
            except ConnectionClosed as exc:
                code = exc.rcvd.code if exc.rcvd is not None else None
            except (OSError, TimeoutError, WebSocketException):
                code = None
            self.closes.append((time.perf_counter(), code, node.id))
            self.sink.closes[str(code)] += 1
            if code in FINAL_CLOSES:
                self.final, self.done = code, True
            if self._acting is not None:
                self._acting.cancel()
            if not self.done and not self.sink.stop.is_set():
                await asyncio.sleep(RECONNECT_PAUSE)

    async def _handle(self, ws: ClientConnection, message: dict[str, Any], via: Node) -> None:
        now = time.perf_counter()
        kind = message["type"]
        if kind == "ping":
            await ws.send('{"type": "pong"}')
            return
        if kind == "ack":
            sent = self._acked.pop(message["id"], None)
            if sent is not None and self.sink.measuring.is_set():
                self.sink.ack[self._kind(via)].append(now - sent)
            return
        if kind == "error":
            self.sink.errors[message["code"]] += 1
            return
        if kind not in ("snapshot", "event"):
            return
        table, version = message["table"], message["version"]
        self.version = max(self.version, version)
        if kind == "snapshot":
            self.snapshots.append(Snapshot(now, table["node"], version, table["status"],
                                           via.id))
            self._sent.clear()  # an answer lost with a socket is not timed
            self._acked.clear()
            self._acted.clear()  # an action not applied is chosen again from here
        else:
            event = message.get("event") or {}
            if event.get("kind") == "action" and event.get("seat") == self.seat:
                acted = self._sent.pop(version - 1, None)
                if acted is not None:
                    if self.sink.measuring.is_set():
                        self.sink.update[self._kind(via, table)].append(now - acted[1])
                    self.sink.actions += 1
        if table["status"] in ("over", "closed"):
            self.done = True
            return
        if table["seats"][self.seat].get("autoplay") and self._resumed < 3:
            self._resumed += 1
            await ws.send('{"type": "resume"}')
        view = message["view"]
        if message["turn"] == self.seat and view and view.get("legal_actions") \
                and version not in self._acted:
            self._acted.add(version)
            # Thinking apart from reading: an ack or an update arriving meanwhile is timed
            # when it arrives, not when the think ends.
            self._acting = asyncio.create_task(self._act(ws, version, view["legal_actions"]))

    async def _act(self, ws: ClientConnection, version: int, legal: list[str]) -> None:
        await asyncio.sleep(self.think * self.rng.uniform(0.5, 1.5))
        if self.sink.stop.is_set() or self.version != version:
            return  # stopped, or the state moved on (a timeout) while thinking
        action_id = f"{version}.{next(self._count)}"
        sent_at = time.perf_counter()
        self._sent[version] = action_id, sent_at
        self._acked[action_id] = sent_at
        with contextlib.suppress(ConnectionClosed):  # the socket closed while thinking
            await ws.send(json.dumps({"type": "action", "id": action_id, "version": version,
                                      "action": self.rng.choice(legal)}))

    def _kind(self, via: Node, table: dict[str, Any] | None = None) -> str:
        owner = table["node"] if table is not None else self.table.node.id
        return "direct" if via.id == owner else "relayed"

    def snapshot_after(self, moment: float, not_from: str) -> Snapshot | None:
        return next((s for s in self.snapshots if s.at > moment and s.node != not_from), None)


def fixed(node: Node) -> Callable[[], Node]:
    """Always the same node: a socket pinned to it."""
    return lambda: node


async def wait_for(predicate: Callable[[], bool], timeout: float, step: float = 0.05) -> bool:
    deadline = time.perf_counter() + timeout
    while not predicate():
        if time.perf_counter() > deadline:
            return False
        await asyncio.sleep(step)
    return True


# ------------------------------------------------------------------ server-side figures


class Scrapes:
    """Each node's /metrics, CPU time, and PostgreSQL's and Redis's counters, at the start
    and the end of a window."""

    def __init__(self, cluster: Cluster, http: httpx2.AsyncClient, redis: Redis) -> None:
        self.cluster, self.http, self.redis = cluster, http, redis
        self.begun: dict[str, Any] = {}

    async def take(self) -> dict[str, Any]:
        nodes = self.cluster.nodes
        metrics = await asyncio.gather(*(self.http.get(n.url + "/metrics") for n in nodes))
        cpu = {n.id: sum(cpu_seconds(p) for p in n.pids()) for n in nodes}
        conn = await asyncpg.connect(self.cluster.database_url)
        try:
            pg = await conn.fetchrow(
                "SELECT xact_commit, tup_inserted FROM pg_stat_database "
                "WHERE datname = current_database()")
        finally:
            await conn.close()
        info = await self.redis.info("commandstats")
        redis_cpu = await self.redis.info("cpu")
        calls = sum(v["calls"] for v in info.values())
        return {"at": time.perf_counter(), "metrics": [m.text for m in metrics], "cpu": cpu,
                "commits": pg["xact_commit"], "inserted": pg["tup_inserted"],
                "redis_calls": calls, "redis_by": {k: v["calls"] for k, v in info.items()},
                "redis_cpu": redis_cpu["used_cpu_sys"] + redis_cpu["used_cpu_user"]}

    async def begin(self) -> None:
        await asyncio.sleep(1.1)  # PostgreSQL flushes its statistics at most once a second
        self.begun = await self.take()

    async def end(self) -> dict[str, Any]:
        await asyncio.sleep(1.1)
        ended = await self.take()
        begun = self.begun
        elapsed = ended["at"] - begun["at"]
        nodes = self.cluster.nodes
        actions = sum(counter(after, "belote_actions") - counter(before, "belote_actions")
                      for before, after in zip(begun["metrics"], ended["metrics"], strict=True))
        stats = await asyncio.gather(*(
            self.http.get(n.url + "/api/stats", params={"seconds": min(60, elapsed)})
            for n in nodes))
        per_node = []
        for i, node in enumerate(nodes):
            lag = stats[i].json()["loop_lag_ms"]
            per_node.append({
                "node": node.id,
                "cpu": (ended["cpu"][node.id] - begun["cpu"][node.id]) / elapsed,
                "lag_p99": lag["p99"], "lag_max": lag["max"],
                "write": window_summary(begun["metrics"][i], ended["metrics"][i],
                                        "belote_db_write_seconds"),
                "broadcast": window_summary(begun["metrics"][i], ended["metrics"][i],
                                            "belote_action_broadcast_seconds"),
            })
        by = Counter({k: v - begun["redis_by"].get(k, 0) for k, v in ended["redis_by"].items()})
        return {
            "elapsed": elapsed, "actions_per_s": actions / elapsed,
            "commits_per_s": (ended["commits"] - begun["commits"]) / elapsed,
            "inserted_per_s": (ended["inserted"] - begun["inserted"]) / elapsed,
            "redis_per_s": (ended["redis_calls"] - begun["redis_calls"]) / elapsed,
            "redis_top": ", ".join(f"{k.removeprefix('cmdstat_')} {v / elapsed:.0f}"
                                   for k, v in by.most_common(6) if v),
            "redis_cpu": (ended["redis_cpu"] - begun["redis_cpu"]) / elapsed,
            "nodes": per_node,
        }


def print_server_side(figures: dict[str, Any]) -> None:
    print(f"    server side: {figures['actions_per_s']:.0f} actions/s logged; PostgreSQL "
          f"{figures['commits_per_s']:.0f} commits/s, {figures['inserted_per_s']:.0f} rows "
          f"inserted/s (the run's database); Redis {figures['redis_per_s']:.0f} commands/s, "
          f"{figures['redis_cpu']:.1%} of a core (the whole server: other clients too) "
          f"[{figures['redis_top']}]")
    for node in figures["nodes"]:
        print(f"    {node['node']}: CPU {node['cpu']:.0%} of a core, loop lag p99 "
              f"{node['lag_p99']:.1f} ms (max {node['lag_max']:.1f}); per action: taken up "
              f"-> queued {node['broadcast']}; its log write {node['write']}")


# ------------------------------------------------------------------ capacity


async def capacity_step(args: argparse.Namespace, cluster: Cluster, nodes: int,
                        count: int) -> float:
    """One cluster of ``nodes`` nodes with ``count`` tables; returns the p99 (seconds)."""
    sink = Sink()
    limits = httpx2.Limits(max_connections=50)
    async with httpx2.AsyncClient(timeout=30, limits=limits) as http, \
            Redis.from_url(args.redis, decode_responses=True) as redis:
        await cluster.start(nodes, http)
        tables = await open_tables(http, cluster.nodes, count, args.humans, args.turn_seconds)
        rng = random.Random(1)
        players = [Player(t, seat, fixed(t.node), args.think, random.Random(rng.random()),
                          sink) for t in tables for seat in t.seats]
        tasks = [asyncio.create_task(p.play()) for p in players]
        await wait_for(lambda: all(p.snapshots for p in players), 60)
        await start_tables(http, tables)
        lags: list[float] = []
        sampler = asyncio.create_task(sample_lag(lags, sink.measuring, sink.stop))
        await asyncio.sleep(args.warmup)
        scrapes = Scrapes(cluster, http, redis)
        await scrapes.begin()
        before = sink.actions
        sink.measuring.set()
        began = time.perf_counter()
        await asyncio.sleep(args.seconds)
        sink.measuring.clear()
        elapsed = time.perf_counter() - began
        load = machine_load()
        rate = (sink.actions - before) / elapsed / count
        figures = await scrapes.end()
        sink.stop.set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, sampler, return_exceptions=True)
    lat = sink.update["direct"] + sink.update["relayed"]
    p99 = percentile(lat, 0.99)
    print(f"  {nodes} node(s), {count} tables ({count / nodes:.0f} a node): {len(lat)} human "
          f"actions timed ({rate:.2f}/s a table; {figures['actions_per_s'] / count:.2f} actions/s"
          f" a table logged, every seat's); action -> update p50 "
          f"{ms(percentile(lat, 0.5))} ms, p90 {ms(percentile(lat, 0.9))} ms, p99 {ms(p99)} ms, "
          f"max "
          f"{ms(max(lat, default=0))} ms; errors {dict(sink.errors) or 0}; {load}; client "
          f"loop lag p99 {ms(percentile(lags, 0.99))} ms", flush=True)
    print_server_side(figures)
    return p99


def run_capacity(args: argparse.Namespace, logs: Path) -> None:
    who = "4 simulated humans" if args.humans == 4 else \
        f"{args.humans} simulated human(s) + {4 - args.humans} normal bots"
    print(f"\n== capacity: tables of {who}, tables spread evenly, every socket on its table's "
          f"node; think {args.think} s, BOT_DELAY {args.bot_delay} s; {args.warmup:.0f} s "
          f"warm-up, {args.seconds:.0f} s measured; table counts tried in rising order up to "
          f"the second one over 20 ms at p99", flush=True)
    best: dict[int, str] = {}
    for nodes in args.nodes:
        best[nodes] = "none of those tried"
        over = 0
        for count in args.tables:
            with cluster_on_fresh_database(args, logs) as cluster:
                p99 = asyncio.run(capacity_step(args, cluster, nodes, count))
            if p99 < TARGET_P99:
                best[nodes] = str(count)
            else:
                over += 1
                if over == 2 and not args.all_steps:
                    break
    print("  most tables tried at p99 under 20 ms: " +
          "; ".join(f"{n} node(s): {b}" for n, b in best.items()), flush=True)


# ------------------------------------------------------------------ relay


async def relay_run(args: argparse.Namespace, cluster: Cluster) -> None:
    sink = Sink()
    async with httpx2.AsyncClient(timeout=30, limits=httpx2.Limits(max_connections=50)) as http, \
            Redis.from_url(args.redis, decode_responses=True) as redis:
        await cluster.start(2, http)
        owner, other = cluster.nodes
        tables = await open_tables(http, [owner], args.relay_tables, 4, args.turn_seconds)
        rng = random.Random(2)
        players = []
        for k, table in enumerate(tables):
            for seat in range(4):
                via = other if (seat + k) % 4 >= 2 else owner
                players.append(Player(table, seat, fixed(via), args.think,
                                      random.Random(rng.random()), sink))
        tasks = [asyncio.create_task(p.play()) for p in players]
        await wait_for(lambda: all(p.snapshots for p in players), 60)
        relayed = sum(p.snapshots[0].via != p.snapshots[0].node for p in players)
        await start_tables(http, tables)
        lags: list[float] = []
        sampler = asyncio.create_task(sample_lag(lags, sink.measuring, sink.stop))
        await asyncio.sleep(args.warmup)
        scrapes = Scrapes(cluster, http, redis)
        await scrapes.begin()
        sink.measuring.set()
        await asyncio.sleep(args.seconds)
        sink.measuring.clear()
        load = machine_load()
        figures = await scrapes.end()
        sink.stop.set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, sampler, return_exceptions=True)
    print(f"  {len(tables)} tables on {owner.id}, {len(players)} sockets of which {relayed} "
          f"opened on {other.id} (relayed); errors {dict(sink.errors) or 0}; {load}; client "
          f"loop lag p99 {ms(percentile(lags, 0.99))} ms")
    for what, got in (("action -> update", sink.update), ("action -> ack", sink.ack)):
        direct, relay = got["direct"], got["relayed"]
        d50, d99 = percentile(direct, 0.5), percentile(direct, 0.99)
        r50, r99 = percentile(relay, 0.5), percentile(relay, 0.99)
        print(f"  {what}: on the owner p50 {ms(d50)} ms, p99 {ms(d99)} ms ({len(direct)}); "
              f"relayed p50 {ms(r50)} ms, p99 {ms(r99)} ms ({len(relay)}); relayed/owner "
              f"p50 x{r50 / d50:.2f} (+{ms(r50 - d50)} ms), p99 x{r99 / d99:.2f} "
              f"(+{ms(r99 - d99)} ms)")
    print_server_side(figures)


def run_relay(args: argparse.Namespace, logs: Path) -> None:
    print(f"\n== relay: 2 nodes, {args.relay_tables} tables of 4 humans held by the first; "
          f"2 seats a table on the owner, 2 on the other node; think {args.think} s; "
          f"{args.warmup:.0f} s warm-up, {args.seconds:.0f} s measured", flush=True)
    with cluster_on_fresh_database(args, logs) as cluster:
        asyncio.run(relay_run(args, cluster))


# ------------------------------------------------------------------ failover


@dataclass
class Moved:
    """One table of a stopped node: when (seconds after the signal) its lease stopped
    being the dead node's, another node took it, and its human got a snapshot from there."""

    table: str
    lease_left: float  # the lease's remaining time when the signal went (PTTL)
    released: float | None = None
    taken: float | None = None
    playable: float | None = None
    by: str | None = None
    version_before: int = 0
    version_after: int | None = None
    settled: float | None = None  # the first snapshot from the node it stayed on
    owners: int = 0  # nodes it got a snapshot from after the signal (more than 1: moved again)


@dataclass
class Round:
    kind: str
    victim: str
    moved: list[Moved]
    exit_after: float | None  # the signalled process's own end
    others_back: list[float]  # sockets of other tables it relayed: back after
    missing: list[str]
    went_back: list[str]
    stuck: list[str]


class Failover:
    def __init__(self, args: argparse.Namespace, cluster: Cluster, http: httpx2.AsyncClient,
                 redis: Redis) -> None:
        self.args, self.cluster, self.http, self.redis = args, cluster, http, redis
        self.sink = Sink()
        self.players: dict[str, Player] = {}
        self.tasks: list[asyncio.Task[None]] = []
        self.live: list[Node] = []
        self._next = itertools.count()
        self._made = 0
        self.rng = random.Random(3)
        self.exits: list[dict[str, float]] = []  # what each SIGTERMed node answered, when
        self.rounds: list[tuple[float, str, str]] = []  # when, kill or term, which node

    def pick(self) -> Node:
        """The next live node, round-robin: a balancer with health checks."""
        live = [n for n in self.cluster.nodes if n in self.live]
        return live[next(self._next) % len(live)]

    async def owners(self, ids: list[str]) -> dict[str, str | None]:
        if not ids:
            return {}
        found = await self.redis.mget([f"{self.cluster.prefix}owner:{t}" for t in ids])
        return dict(zip(ids, cast(list[str | None], found), strict=True))

    def active(self) -> list[str]:
        return [t for t, p in self.players.items() if not p.done]

    async def top_up(self, nodes: list[Node]) -> None:
        """As many new tables on ``nodes`` as have ended, to keep the number playing."""
        need = self.args.failover_tables - len(self.active())
        if need <= 0:
            return
        tables = await open_tables(self.http, nodes, need, 1, self.args.turn_seconds,
                                   first=self._made)
        self._made += need
        players = [Player(t, 0, self.pick, self.args.think, random.Random(self.rng.random()),
                          self.sink) for t in tables]
        for player in players:
            self.players[player.table.id] = player
            self.tasks.append(asyncio.create_task(player.play()))
        await wait_for(lambda: all(p.snapshots for p in players), 30)
        await start_tables(self.http, tables)

    async def watch_exit(self, victim: Node, began: float) -> None:
        """After a SIGTERM: when the node says it is shutting down (/readyz 503) and when
        it stops answering.  One that shows no sign of it after STUCK_AFTER seconds is
        reported, sent SIGTERM again, and after as long again SIGABRT (its threads' stacks
        go to its log: PYTHONFAULTHANDLER) and SIGKILL."""
        seen: dict[str, float] = {}
        resent = False
        while victim.alive:
            now = time.perf_counter() - began
            try:
                answer = await self.http.get(victim.url + "/readyz", timeout=1)
                state = "ready" if answer.status_code == 200 else \
                    answer.json().get("code", str(answer.status_code))
            except (httpx2.TransportError, ValueError):
                state = "not answering"
            seen.setdefault(state, now)
            if now > STUCK_AFTER and state == "ready" and not resent:
                resent = True
                print(f"    {victim.id}: still ready {now:.1f} s after SIGTERM (states seen: "
                      f"{seen}); SIGTERM again", flush=True)
                victim.term()
            if now > 2 * STUCK_AFTER:
                print(f"    {victim.id}: still running {now:.1f} s after SIGTERM (states seen: "
                      f"{seen}); SIGABRT for its stacks, then SIGKILL", flush=True)
                assert victim.proc is not None
                with contextlib.suppress(ProcessLookupError):
                    os.kill(victim.proc.pid, signal.SIGABRT)
                await victim.exited(3)
                victim.kill()
                dump = victim.log_path.read_text(errors="replace").split("Fatal Python error")
                if len(dump) > 1:
                    print("      " + "\n      ".join(dump[-1].splitlines()[:60]), flush=True)
                break
            await asyncio.sleep(0.1)
        self.exits.append(seen)

    async def round(self, kind: str, number: int) -> Round:
        args, prefix = self.args, self.cluster.prefix
        owners = await self.owners(self.active())
        held = Counter(owners.values())
        victim = max(self.live, key=lambda n: (held[n.id], self.rng.random()))
        await self.top_up([victim])
        # A table is in the sweepers' set once its owner's loop published it (a period).
        await asyncio.sleep(args.lease / 3 + 1)
        owners = await self.owners(self.active())
        mine = [t for t, o in owners.items() if o == victim.id]
        before = {t: self.players[t].version for t in mine}
        self.live.remove(victim)
        victim_id = victim.id
        began = time.perf_counter()
        if kind == "kill":
            victim.kill()
        else:
            victim.term()
        async with self.redis.pipeline(transaction=False) as pipe:
            for t in mine:
                pipe.pttl(f"{prefix}owner:{t}")
            left = await pipe.execute()
        moved = {t: Moved(t, max(0, ttl) / 1000, version_before=before[t])
                 for t, ttl in zip(mine, left, strict=True)}
        deadline = began + 2 * args.lease + 30
        exit_after: float | None = None
        watchdog = asyncio.create_task(self.watch_exit(victim, began)) if kind == "term" \
            else None
        while time.perf_counter() < deadline:
            now = time.perf_counter()
            if exit_after is None and not victim.alive:
                exit_after = now - began
            for t, owner in (await self.owners(mine)).items():
                m = moved[t]
                if m.released is None and owner != victim.id:
                    m.released = now - began
                if m.taken is None and owner not in (None, victim.id):
                    m.taken, m.by = now - began, owner
            for t, m in moved.items():
                if m.playable is None:
                    snap = self.players[t].snapshot_after(began, victim.id)
                    if snap is not None:
                        m.playable, m.version_after = snap.at - began, snap.version
            if all(m.playable is not None or self.players[m.table].done
                   for m in moved.values()) and all(m.taken is not None or
                                                    self.players[m.table].done
                                                    for m in moved.values()):
                break
            await asyncio.sleep(WATCH_EVERY)
        if watchdog is not None:
            await watchdog
        if exit_after is None:
            exit_after = time.perf_counter() - began
        victim.stop()  # its bot process too, if it outlived it
        # Sockets of other tables that went through the stopped node: back after.
        others_back = []
        for t, player in self.players.items():
            if t in moved:
                continue
            closed = next((c for c in player.closes if c[0] > began and c[2] == victim.id),
                          None)
            if closed is not None:
                snap = next((s for s in player.snapshots if s.at > closed[0]), None)
                if snap is not None:
                    others_back.append(snap.at - closed[0])
        missing = [t for t, m in moved.items() if m.playable is None
                   and not self.players[t].done]
        went_back = [t for t, m in moved.items() if m.version_after is not None
                     and m.version_after < m.version_before]
        # Playing on: each table moved past its first snapshot on the new node (within a
        # few seconds: bots and the human act in 1-2 s).
        victim.start()
        await victim.ready(self.http)
        self.live.append(victim)
        await wait_for(lambda: all(self.players[t].version > (moved[t].version_after or 0)
                                   or self.players[t].done for t in moved), 10)
        stuck = [t for t in moved if not self.players[t].done
                 and self.players[t].version <= (moved[t].version_after or 0)]
        gone = victim_id
        for t, m in moved.items():
            snaps = [x for x in self.players[t].snapshots if x.at > began and x.node != gone]
            if snaps:
                last = max((i for i, x in enumerate(snaps) if x.node != snaps[-1].node),
                           default=-1)
                m.settled = snaps[last + 1].at - began
                m.owners = len({x.node for x in snaps})
        self.rounds.append((began, kind, gone))
        return Round(kind, victim.id.rsplit("-", 1)[0], list(moved.values()), exit_after,
                     others_back, missing, went_back, stuck)


def print_round(number: int, result: Round) -> None:
    done = [m.playable for m in result.moved if m.playable is not None]
    print(f"  {result.kind} {number + 1}: {result.victim}'s {len(result.moved)} tables "
          f"playable again after p50 {percentile(done, 0.5):.2f} s, max "
          f"{max(done, default=float('nan')):.2f} s; process gone after "
          f"{result.exit_after:.2f} s" +
          (f"; {len(result.others_back)} relayed sockets of other tables back after max "
           f"{max(result.others_back):.2f} s" if result.others_back else "") +
          (f"; NOT PLAYABLE: {result.missing}" if result.missing else "") +
          (f"; VERSION WENT BACK: {result.went_back}" if result.went_back else "") +
          (f"; NOT MOVING AFTER: {result.stuck}" if result.stuck else ""), flush=True)


def summarize(kind: str, rounds: list[Round], lease: float) -> None:
    moved = [m for r in rounds for m in r.moved]
    if not moved:
        print(f"  {kind}: nothing measured")
        return

    def stat(values: list[float]) -> str:
        if not values:
            return "n/a"
        return (f"p50 {percentile(values, 0.5):.2f} s, p90 {percentile(values, 0.9):.2f} s, "
                f"max {max(values):.2f} s")

    playable = [m.playable for m in moved if m.playable is not None]
    released = [m.released for m in moved if m.released is not None]
    detect = [m.taken - m.released for m in moved if m.taken is not None
              and m.released is not None]
    work = [m.playable - m.taken for m in moved if m.playable is not None
            and m.taken is not None]
    by_round = [max((m.playable for m in r.moved if m.playable is not None), default=0)
                for r in rounds]
    print(f"  {kind}, over {len(rounds)} rounds and {len(moved)} tables "
          f"(LEASE_SECONDS {lease:g}):")
    print(f"    signal -> playable on another node (snapshot): {stat(playable)}")
    print(f"    the last table of a round: {stat(by_round)}")
    why = "expiry" if kind == "kill" else "hand-over"
    left = f"; lease left at the kill {stat([m.lease_left for m in moved])}" \
        if kind == "kill" else ""
    print(f"    signal -> lease no longer the node's ({why}): {stat(released)}{left}")
    print(f"    -> another node holds the lease: {stat(detect)}")
    print(f"    -> its human's snapshot from there (takeover + reconnect): {stat(work)}")
    settled = [m.settled for m in moved if m.settled is not None]
    again = [m for m in moved if m.owners > 1]
    print(f"    signal -> snapshot from the node it then stayed on: {stat(settled)}; "
          f"{len(again)} of {len(moved)} tables ({len(again) / len(moved):.0%}) got a "
          f"snapshot from one node, then moved again")
    if kind == "term":
        exits = [r.exit_after for r in rounds if r.exit_after is not None]
        print(f"    process exit after SIGTERM: {stat(exits)}")
    others = [x for r in rounds for x in r.others_back]
    if others:
        print(f"    sockets of other tables relayed through the stopped node ({len(others)}): "
              f"back after {stat(others)}")
    bad = sum(len(r.missing) + len(r.went_back) + len(r.stuck) for r in rounds)
    print(f"    anomalies: {bad} (tables not playable, version gone back, or not moving)")


async def failover_run(args: argparse.Namespace, cluster: Cluster) -> None:
    limits = httpx2.Limits(max_connections=50)
    async with httpx2.AsyncClient(timeout=30, limits=limits) as http, \
            Redis.from_url(args.redis, decode_responses=True) as redis:
        await cluster.start(args.failover_nodes, http)
        failover = Failover(args, cluster, http, redis)
        failover.live = list(cluster.nodes)
        await failover.top_up(cluster.nodes)  # spread evenly, then by the takeovers
        await asyncio.sleep(args.warmup)
        others = await asyncio.to_thread(busiest_processes, cluster.pids())
        print(f"  {len(failover.active())} tables playing on {len(cluster.nodes)} nodes; "
              f"{machine_load()}; busiest other processes: {others}", flush=True)
        results: dict[str, list[Round]] = {"kill": [], "term": []}
        for kind, rounds in (("kill", args.kills if "kill" in args.phases else 0),
                             ("term", args.handovers if "term" in args.phases else 0)):
            for number in range(rounds):
                result = await failover.round(kind, number)
                results[kind].append(result)
                print_round(number, result)
            if rounds:
                print(f"  after the {kind} rounds: {machine_load()}", flush=True)
        failover.sink.stop.set()
        for task in failover.tasks:
            task.cancel()
        await asyncio.gather(*failover.tasks, return_exceptions=True)
        errors = dict(failover.sink.errors)
        closes = dict(failover.sink.closes)
        finals = Counter(p.final for p in failover.players.values() if p.final is not None)
    for kind, rounds in results.items():
        if rounds:
            summarize(kind, rounds, args.lease)
    for state in ("shutting_down", "not answering"):
        times = [seen[state] for seen in failover.exits if state in seen]
        if times:
            print(f"    after SIGTERM, /readyz first '{state}' at p50 "
                  f"{percentile(times, 0.5):.2f} s, max {max(times):.2f} s ({len(times)} of "
                  f"{len(failover.exits)} nodes)")
    print(f"  client side, all rounds: errors {errors or 0}; closes by code {closes}; "
          f"final closes {dict(finals) or 0}")
    for player in failover.players.values():
        for at, code, via in player.closes:
            if code in FINAL_CLOSES:
                near = min(failover.rounds, key=lambda r: abs(r[0] - at), default=None)
                when = f"{at - near[0]:+.2f} s from the {near[1]} of {near[2]}" if near else ""
                print(f"  final close {code} at {player.table.id} on {via}, {when}; the "
                      f"table's lines in that node's log:")
                log = cluster.logs / f"{cluster.label}-{via}.log"
                lines = [line for line in log.read_text(errors="replace").splitlines()
                         if player.table.id in line and " app." in line] if log.exists() else []
                for line in lines[-4:]:
                    print(f"      {line}")
    anomalies = [(r, t) for rs in results.values() for r in rs
                 for t in r.missing + r.went_back + r.stuck]
    for result, table in anomalies[:3]:
        detail = next((m for m in result.moved if m.table == table), None)
        print(f"  anomaly at {table} ({result.kind} of {result.victim}: {detail}); the nodes' "
              f"log lines about it:")
        for node in sorted(cluster.logs.glob(f"{cluster.label}-*.log")):
            lines = [line for line in node.read_text(errors="replace").splitlines()
                     if table in line and " app." in line]
            for line in lines[-4:]:
                print(f"      {node.stem}: {line}")


def run_failover(args: argparse.Namespace, logs: Path) -> None:
    print(f"\n== failover: {args.failover_nodes} nodes, {args.failover_tables} tables of "
          f"1 human + 3 bots, sockets on any live node (round-robin), reconnecting "
          f"{RECONNECT_PAUSE} s after a close; {args.kills if 'kill' in args.phases else 0} "
          f"kill -9, {args.handovers if 'term' in args.phases else 0} SIGTERM; LEASE_SECONDS "
          f"{args.lease:g}", flush=True)
    with cluster_on_fresh_database(args, logs) as cluster:
        asyncio.run(failover_run(args, cluster))


# ------------------------------------------------------------------ micro


async def redis_micro(args: argparse.Namespace, tables: int) -> None:
    """One Redis at ``tables`` tables: the sweep a node makes each period (SMEMBERS of its
    share of the started buckets, MGET of their leases) at 1 to 100 nodes, and lease
    renewals (the nodes' script)."""
    prefix = f"bench-cluster-micro-{secrets.token_hex(4)}:"
    async with Redis.from_url(args.redis, decode_responses=True) as redis:
        try:
            names = Keys(prefix)
            leases = Leases(RedisShared(redis, names), "bench-node", 60)
            ids = [f"t{i:07d}" for i in range(tables)]
            for start in range(0, tables, 5000):
                chunk = ids[start:start + 5000]
                async with redis.pipeline(transaction=False) as pipe:
                    for t in chunk:
                        pipe.set(names.lease(t), "bench-node", px=120_000)
                    for number, members in sweep.by_bucket(chunk).items():
                        pipe.sadd(names.started(number), *members)
                    await pipe.execute()
            for nodes in (1, 3, 10, 100):
                await sweep_micro(redis, names, leases, tables, nodes)
            before = await redis.info("commandstats")
            renewals = []
            per = 1000
            for start in range(0, min(tables, 20_000), per):
                began = time.perf_counter()
                lost = await leases.renew(ids[start:start + per])
                renewals.append(time.perf_counter() - began)
                assert not lost
            after = await redis.info("commandstats")
        finally:
            keys = [k async for k in redis.scan_iter(match=f"{prefix}*", count=5000)]
            for start in range(0, len(keys), 5000):
                await redis.delete(*keys[start:start + 5000])
    server = {k: (after[k]["usec"] - before.get(k, {}).get("usec", 0),
                  after[k]["calls"] - before.get(k, {}).get("calls", 0))
              for k in after if k in ("cmdstat_evalsha", "cmdstat_eval")}
    usec, calls = map(sum, zip(*server.values(), strict=True)) if server else (0, 0)
    renewed = sum(len(ids[s:s + per]) for s in range(0, min(tables, 20_000), per))
    print(f"  Redis: lease renewals (the nodes' Lua script, {per} pipelined a round trip): "
          f"{renewed / sum(renewals):,.0f} renewals/s in this client; in Redis "
          f"{usec / max(calls, 1):.1f} us each ({calls} calls, INFO commandstats)")


async def sweep_micro(redis: Redis, names: Keys, leases: Leases, tables: int,
                      nodes: int) -> None:
    """One node's sweep of its share (app/cluster/sweep.py) among ``nodes`` live nodes:
    SMEMBERS of its buckets, MGET of their leases; the cluster's cost is ``nodes`` times."""
    mine = sweep.share("node-0", [f"node-{i}" for i in range(nodes)])
    sweeps = []
    before = await redis.info("commandstats")
    cpu = time.process_time()
    for _ in range(10):
        began = time.perf_counter()
        async with redis.pipeline(transaction=False) as pipe:
            for number in mine:
                pipe.smembers(names.started(number))
            found = sorted(set().union(*await pipe.execute()))
        await leases.owners(found)
        sweeps.append(time.perf_counter() - began)
    cpu = (time.process_time() - cpu) / 10
    after = await redis.info("commandstats")
    usec = sum(after[k]["usec"] - before.get(k, {}).get("usec", 0)
               for k in ("cmdstat_smembers", "cmdstat_mget") if k in after) / 10
    print(f"  Redis: a node's sweep among {nodes} node(s) ({len(mine)} of {sweep.BUCKETS} buckets, "
          f"{len(found):,} of {tables:,} started tables: SMEMBERS of its buckets + MGET of "
          f"their leases, each period), round trip in this client p50 "
          f"{ms(percentile(sweeps, 0.5))} ms, max {ms(max(sweeps))} ms (10 sweeps), this "
          f"client's CPU {ms(cpu)} ms; in Redis {ms(usec / 1e6)} ms a sweep, {nodes} times "
          f"that a period for the cluster (INFO commandstats, other clients' calls included)")


async def postgres_micro(args: argparse.Namespace, database_url: str) -> None:
    """Log writes: the app's transaction (SELECT ... FOR SHARE of the match's epoch, one
    INSERT, commit) from 16 connections, against one multi-row INSERT a commit."""
    setup = await asyncpg.connect(database_url)
    try:
        await setup.execute(
            "CREATE TABLE bench_matches (id text PRIMARY KEY, epoch int NOT NULL);"
            "CREATE TABLE bench_actions (match_id text, deal_idx smallint, seq int, "
            "seat smallint, action smallint, actor varchar(8), version int, "
            "at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (match_id, deal_idx, seq));")
        await setup.executemany("INSERT INTO bench_matches VALUES ($1, 1)",
                                [(f"m{i}",) for i in range(1000)])
    finally:
        await setup.close()
    connections = 16
    seconds = args.micro_seconds
    counters = itertools.count()

    async def worker(batch: int, results: list[float]) -> int:
        conn = await asyncpg.connect(database_url)
        rows = 0
        try:
            end = time.perf_counter() + seconds
            while time.perf_counter() < end:
                n = next(counters)
                began = time.perf_counter()
                if batch == 1:
                    async with conn.transaction():
                        await conn.fetchval("SELECT epoch FROM bench_matches WHERE id = $1 "
                                            "FOR SHARE", f"m{n % 1000}")
                        await conn.execute(
                            "INSERT INTO bench_actions VALUES ($1, 0, $2, 0, 1, 'player', $2) "
                            "ON CONFLICT DO NOTHING", f"m{n % 1000}", n)
                else:
                    seqs = list(range(100_000_000 + n * batch, 100_000_000 + (n + 1) * batch))
                    await conn.execute(
                        "INSERT INTO bench_actions (match_id, deal_idx, seq, seat, action, "
                        "actor, version) SELECT 'm' || (s % 1000), 0, s, 0, 1, 'player', s "
                        "FROM unnest($1::int[]) AS s ON CONFLICT DO NOTHING", seqs)
                results.append(time.perf_counter() - began)
                rows += batch
        finally:
            await conn.close()
        return rows

    for batch, label in ((1, "one action a commit (the app's: fence + INSERT)"),
                         (50, "50 actions a commit (one multi-row INSERT)")):
        counters = itertools.count()
        results: list[float] = []
        began = time.perf_counter()
        rows = sum(await asyncio.gather(*(worker(batch, results)
                                          for _ in range(connections))))
        elapsed = time.perf_counter() - began
        print(f"  PostgreSQL, {connections} connections, {label}: {len(results) / elapsed:,.0f} "
              f"commits/s, {rows / elapsed:,.0f} actions/s; a commit p50 "
              f"{ms(percentile(results, 0.5))} ms, p99 {ms(percentile(results, 0.99))} ms",
              flush=True)


def run_micro(args: argparse.Namespace) -> None:
    print(f"\n== micro: one Redis and one PostgreSQL at internet scale "
          f"({machine_load()})", flush=True)
    asyncio.run(redis_micro(args, args.micro_tables))
    with scratch_database(args.postgres, "belote_cluster_micro") as url:
        asyncio.run(postgres_micro(args, url))


# ------------------------------------------------------------------ main


def code_fingerprint() -> str:
    """A digest of the server's code as the nodes read it (app/, engine/, ai/): the tree is
    shared with other work, and a node started later in a run reads it again."""
    digest = hashlib.sha256()
    for path in sorted(p for part in ("app", "engine", "ai") for p in (ROOT / part).rglob("*.py")):
        digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


def versions(args: argparse.Namespace) -> str:
    with contextlib.closing(SyncRedis.from_url(args.redis)) as redis:
        redis_version = cast(dict[str, Any], redis.info("server"))["redis_version"]
        persistence = cast(dict[str, Any], redis.info("persistence"))
        saves = cast(dict[str, str], redis.config_get("save")).get("save")
        redis_persistence = (f"AOF {'on' if persistence['aof_enabled'] else 'off'}, "
                             f"RDB saves {saves or 'off'}")

    async def pg() -> str:
        conn = await asyncpg.connect(args.postgres)
        try:
            shown = [await conn.fetchval(f"SHOW {name}") for name in
                     ("server_version", "fsync", "synchronous_commit", "shared_buffers")]
            return (f"{shown[0].split()[0]} (fsync {shown[1]}, synchronous_commit {shown[2]}, "
                    f"shared_buffers {shown[3]})")
        finally:
            await conn.close()

    head = subprocess.run(["git", "log", "-1", "--format=%h %cs"], cwd=ROOT,
                          capture_output=True, text=True, check=False).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True,
                           text=True, check=False).stdout.count("\n")
    return (f"Python {platform.python_version()}, Redis {redis_version} (persistence: "
            f"{redis_persistence}), PostgreSQL {asyncio.run(pg())}, git {head} with {dirty} "
            f"files changed or new; server code {code_fingerprint()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--phases", default="capacity,relay,kill,term,micro",
                        help="comma-separated: capacity, relay, kill, term, micro")
    parser.add_argument("--nodes", default="1,2,3", help="capacity: node counts")
    parser.add_argument("--tables", default="25,50,100,200",
                        help="capacity: table counts, tried in rising order per node count")
    parser.add_argument("--all-steps", action="store_true",
                        help="capacity: go on past the second table count over 20 ms")
    parser.add_argument("--humans", type=int, default=4, choices=(1, 2, 3, 4),
                        help="capacity: simulated humans a table (the other seats: bots); 4 "
                        "times the samples of bench/load.py's one")
    parser.add_argument("--seconds", type=float, default=15, help="measured window (capacity, "
                        "relay)")
    parser.add_argument("--warmup", type=float, default=5)
    parser.add_argument("--think", type=float, default=1.0, help="human think time, s")
    parser.add_argument("--bot-delay", type=float, default=1.0, help="BOT_DELAY, s")
    parser.add_argument("--turn-seconds", type=float, default=30)
    parser.add_argument("--relay-tables", type=int, default=40)
    parser.add_argument("--failover-nodes", type=int, default=3)
    parser.add_argument("--failover-tables", type=int, default=60,
                        help="tables playing during the kills and hand-overs")
    parser.add_argument("--kills", type=int, default=10)
    parser.add_argument("--handovers", type=int, default=10)
    parser.add_argument("--lease", type=float, default=6.0, help="LEASE_SECONDS")
    parser.add_argument("--micro-tables", type=int, default=100_000)
    parser.add_argument("--micro-seconds", type=float, default=5)
    parser.add_argument("--postgres", default="postgresql://postgres@127.0.0.1:5432/postgres",
                        metavar="SERVER_URL", help="scratch databases are made on this server")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--keep-logs", action="store_true", help="keep the nodes' logs")
    args = parser.parse_args()
    args.phases = {p.strip() for p in args.phases.split(",") if p.strip()}
    args.nodes = [int(n) for n in args.nodes.split(",")]
    args.tables = sorted(int(n) for n in args.tables.split(","))
    unknown = args.phases - {"capacity", "relay", "kill", "term", "micro"}
    if unknown:
        parser.error(f"unknown phases {sorted(unknown)}")
    if max(args.tables) > 2000 or max(args.nodes) > 8 or args.seconds > 60 \
            or args.failover_tables > 500 or args.kills + args.handovers > 50:
        parser.error("at most 2000 tables, 8 nodes, 60 s, 500 failover tables, 50 rounds")
    for host in (args.postgres, args.redis):
        if "127.0.0.1" not in host and "localhost" not in host:
            parser.error("loopback only")

    with contextlib.ExitStack() as stack:
        logs = Path(tempfile.mkdtemp(prefix="belote-cluster-")) if args.keep_logs else \
            Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="belote-cluster-")))
        began = time.time()
        print(f"cluster benchmark, {time.strftime('%Y-%m-%d %H:%M:%S %Z')}; "
              f"{platform.node()}: {os.cpu_count()} CPUs; {versions(args)}")
        print(f"machine at the start: {machine_load()}; busiest processes: "
              f"{busiest_processes(set())}", flush=True)
        if "capacity" in args.phases:
            run_capacity(args, logs)
        if "relay" in args.phases:
            run_relay(args, logs)
        if args.phases & {"kill", "term"}:
            run_failover(args, logs)
        if "micro" in args.phases:
            run_micro(args)
        print(f"\nserver code at the end {code_fingerprint()} (as at the start unless the tree "
              "changed during the run)")
        print(f"done in {(time.time() - began) / 60:.1f} min; {machine_load()}"
              + (f"; node logs in {logs}" if args.keep_logs else ""))


if __name__ == "__main__":
    main()
