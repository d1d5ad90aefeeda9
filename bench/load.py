"""Load benchmark of the table server (docs/benchmarks-server.md has the figures).

Starts ``python -m app`` on a free loopback port, opens many tables of one simulated human
and three bots, lets them play for a fixed time, then prints:

- p50/p99 time from a human's action to the update that shows it (the last seat's update:
  the human is the only socket at the table), measured by the client;
- event-loop lag p50/p99/max of the server over the measured window (GET /api/stats), and
  its garbage collector's pauses there;
- the server's CPU use over the window (one core is 100 %) and the machine's load average,
  and that CPU divided by the actions the server logged and applied in it (every seat's,
  the bots' included: GET /metrics, ``belote_actions_total``), and beside it a reading of
  how fast the machine was (bench/machine.py, measured before the server starts), a
  condition of the run: the shared machine's speed moves by the day and the hour;
- where an action's time goes: the server's own figures over the window (GET /metrics:
  from a table taking up an action to its messages queued, and the database write within
  it), the database's commits per action (write transactions, ``belote_db_write_seconds``'s
  count) and a log write's wait from queued to committed (``belote_log_write_seconds``,
  the group commit's: none on servers older than it), and this client's own event-loop
  lag (a late client inflates what it measures);
- server memory per table (resident memory growth divided by the tables opened);
- with ``--analyses N``: N finished 151-point matches are stored before the server starts,
  and their analyses (issue #17) asked for as the window opens, so that the lag above is
  measured while the analysis workers (ANALYSIS_WORKERS, niced) review them; their
  progress at the window's end is printed (docs/analysis.md, "In the server").

Bounded: loopback only, a fixed number of tables, a fixed duration, then everything stops.
Every run has a database of its own, removed afterwards: a SQLite file in a temporary
directory, or with ``--postgres SERVER_URL`` a scratch database on that server.

    .venv/bin/python bench/load.py --tables 500 --hard-tables 20 --seconds 60
    .venv/bin/python bench/load.py --tables 200 --hard-tables 0 --seconds 30 --analyses 2
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx2
from prometheus_client.parser import text_string_to_metric_families
from websockets.asyncio.client import ClientConnection, connect

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # bench

from ai import Level
from app.db.migrate import scratch_database, upgrade
from app.db.repository import Repository
from app.db.session import Database
from app.matchlog import LoggedAction, MatchEnd, Seat
from app.vocabulary import EndReason, SeatKind
from bench.machine import calibration
from engine import Match, Options

HOST = "127.0.0.1"  # loopback only, whatever the arguments
ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Results:
    """What the simulated humans of one kind of table saw."""

    latencies: list[float] = field(default_factory=list)  # seconds, in the window
    actions: int = 0  # the human's actions answered, all along
    errors: int = 0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        port: int = sock.getsockname()[1]
        return port


@contextlib.contextmanager
def fresh_database(postgres: str | None) -> Iterator[str]:
    """A migrated database for this run alone, removed afterwards: a rerun must not restore
    (and then carry) the tables an earlier run left unfinished."""
    if postgres:
        with scratch_database(postgres, "belote_load") as url:
            upgrade(url)
            yield url
        return
    with tempfile.TemporaryDirectory(prefix="belote-load-") as folder:
        url = f"sqlite:///{Path(folder) / 'belote.db'}"
        upgrade(url)
        yield url


async def store_finished_matches(database_url: str, count: int) -> list[str]:
    """``count`` whole Bulgarian matches to 151, random legal play, logged as a table would
    log them, a day ago (so that the server does not show their tables again); their ids."""
    database = Database(database_url)
    seats = tuple(Seat(SeatKind.BOT, "Bot", level=Level.NORMAL) for _ in range(4))
    options = Options.make("bulgarian")
    ids = []
    yesterday = datetime.now(UTC) - timedelta(days=1)
    try:
        repo = Repository(database)
        for number in range(count):
            match_id, rng = f"analysed-{number}", random.Random(number)
            match = Match(options, seed=number, auto_deal=False)
            await repo.create_match(match_id, options.variant, options.changed(), seats,
                                    started_at=yesterday)
            while not match.is_over:
                deal = match.start_deal()
                index = len(match.deals) - 1
                await repo.start_deal(match_id, index, deal.dealer, deal.deck)
                while not deal.is_over:
                    seat = match.current_player()
                    assert seat is not None
                    action = rng.choice(match.legal_actions())
                    seq = len(deal.history)
                    match.apply_action(action, seat)
                    await repo.append_action(match_id, index, seq,
                                             LoggedAction(seat, action, "bot"))
                await repo.finish_deal(match_id, index, match.results[index])
            await repo.finish_match(match_id, MatchEnd(EndReason.WON, match.totals,
                                                       match.winner), at=yesterday)
            ids.append(match_id)
    finally:
        await database.dispose()
    return ids


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def cpu_seconds(pid: int) -> float:
    """User and system time the process has used (/proc/PID/stat, fields 14 and 15)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def counter(metrics: str, name: str) -> float:
    """A Prometheus counter's value in a scrape (0 if absent: an older server's)."""
    for line in metrics.splitlines():
        if line.startswith(f"{name}_total ") or line.startswith(f"{name} "):
            return float(line.split()[1])
    return 0.0


def histogram_count(metrics: str, name: str) -> float:
    """How many observations a histogram holds in a scrape."""
    buckets, _ = histogram(metrics, name)
    return buckets.get(float("inf"), 0.0)


BOT_DECISIONS_METRIC = "belote_bot_decision_seconds"  # app.metrics.BOT_DECISION, as scraped


def histogram(metrics: str, name: str,
              level: str | None = None) -> tuple[dict[float, float], float]:
    """A Prometheus histogram (of one ``level`` where it is labelled by level, as the
    bots' decisions are): cumulative counts by upper bound, and sum."""
    buckets, total = {}, 0.0
    for family in text_string_to_metric_families(metrics):
        for sample in family.samples if family.name == name else ():
            if level is not None and sample.labels.get("level") != level:
                continue
            if sample.name == f"{name}_bucket":
                buckets[float(sample.labels["le"])] = sample.value
            elif sample.name == f"{name}_sum":
                total = sample.value
    return buckets, total


def window_summary(before: str, after: str, name: str, level: str | None = None) -> str:
    """Mean and p99 (as its bucket's upper bound) of ``name`` between two scrapes."""
    (first, first_sum), (last, last_sum) = (histogram(before, name, level),
                                            histogram(after, name, level))
    counts = {bound: last[bound] - first.get(bound, 0.0) for bound in last}
    n = counts.get(float("inf"), 0.0)
    if not n:
        return "none"
    p99 = min(bound for bound, count in counts.items() if count >= 0.99 * n)
    return f"mean {(last_sum - first_sum) / n * 1000:.2f} ms, p99 <= {p99 * 1000:g} ms"


async def sample_lag(lags: list[float], measuring: asyncio.Event, stop: asyncio.Event) -> None:
    """This client's own event-loop lag, as the server measures its own."""
    while not stop.is_set():
        start = time.perf_counter()
        await asyncio.sleep(0.05)
        if measuring.is_set():
            lags.append(time.perf_counter() - start - 0.05)


def quiet_collector() -> None:
    """Keep this client's garbage collector from stalling it while it measures: what it
    set up is frozen, and collections wait until the window is over.  Its pauses (tens of
    ms with a thousand sockets) were counted in every action -> update they fell in, as
    the server's latency; the client is the instrument, not what is measured."""
    gc.collect()
    gc.freeze()
    gc.disable()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


async def call(http: httpx2.AsyncClient, method: str, url: str,
               **kwargs: Any) -> httpx2.Response:
    """One request, sent again if the server closed the kept-alive connection as it was
    reused (a race that a loaded machine, slow between two requests, makes common)."""
    for attempt in range(3):
        try:
            return await http.request(method, url, **kwargs)
        except (httpx2.ReadError, httpx2.RemoteProtocolError):
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


async def open_table(http: httpx2.AsyncClient, level: str, index: int,
                     turn_seconds: float) -> tuple[str, str]:
    """A table of one guest in seat 0 and three bots of ``level``; returns (id, token)."""
    guest = (await call(http, "POST", "/api/guests", json={"name": f"load{index}"})).json()
    auth = {"Authorization": f"Bearer {guest['token']}"}
    table = (await call(http, "POST", "/api/tables", json={
        "name": f"load {index}", "turn_seconds": turn_seconds}, headers=auth)).json()
    await call(http, "PUT", f"/api/tables/{table['id']}/seats/0", headers=auth)
    for seat in (1, 2, 3):
        await call(http, "PUT", f"/api/tables/{table['id']}/seats/{seat}/bot",
                   json={"level": level}, headers=auth)
    return table["id"], guest["token"]


async def human(ws: ClientConnection, think: float, rng: random.Random, results: Results,
                measuring: asyncio.Event, stop: asyncio.Event) -> None:
    """Act ``think`` seconds (with jitter) after each turn; time each action's update."""
    sent_at: dict[int, float] = {}  # version acted on -> when
    acted: set[int] = set()
    async for text in ws:
        message = json.loads(text)
        kind = message["type"]
        if kind == "error":
            results.errors += 1
        if kind == "ping":  # the server's liveness check
            await ws.send(json.dumps({"type": "pong"}))
        if kind not in ("snapshot", "event"):
            continue
        event = message.get("event") or {}
        before = message["version"] - 1
        if event.get("kind") == "action" and event.get("seat") == 0 and before in sent_at:
            if measuring.is_set():
                results.latencies.append(time.perf_counter() - sent_at.pop(before))
            results.actions += 1
        if message["table"]["status"] in ("over", "closed") or stop.is_set():
            return
        view = message["view"]
        if message["turn"] == 0 and view["legal_actions"] and message["version"] not in acted:
            version = message["version"]
            acted.add(version)
            await asyncio.sleep(think * rng.uniform(0.5, 1.5))
            sent_at[version] = time.perf_counter()
            await ws.send(json.dumps({"type": "action", "id": str(version), "version": version,
                                      "action": rng.choice(view["legal_actions"])}))


async def seat_human(port: int, table_id: str, token: str) -> ClientConnection:
    ws = await connect(f"ws://{HOST}:{port}/api/tables/{table_id}/ws", max_size=2**20)
    await ws.send(json.dumps({"type": "hello", "protocol": 1, "token": token}))
    await ws.recv()  # welcome
    return ws


async def run(args: argparse.Namespace, port: int, server_pid: int,
              analysed: list[str]) -> None:
    rng = random.Random(1)
    results = {"normal": Results(), "hard": Results()}
    measuring, stop = asyncio.Event(), asyncio.Event()
    limits = httpx2.Limits(max_connections=50)
    async with httpx2.AsyncClient(base_url=f"http://{HOST}:{port}", limits=limits,
                                 timeout=30) as http:
        base_rss = rss_kib(server_pid)
        plan = [("normal", i) for i in range(args.tables)]
        plan += [("hard", args.tables + i) for i in range(args.hard_tables)]
        tables = []
        for start in range(0, len(plan), 50):
            tables += await asyncio.gather(*(open_table(http, level, i, args.turn_seconds)
                                             for level, i in plan[start:start + 50]))
        sockets = []
        for start in range(0, len(tables), 50):
            sockets += await asyncio.gather(*(seat_human(port, t, tok)
                                              for t, tok in tables[start:start + 50]))
        players = [asyncio.create_task(human(ws, args.think, random.Random(rng.random()),
                                             results[level], measuring, stop))
                   for ws, (level, _) in zip(sockets, plan, strict=True)]
        for (table_id, token), _ in zip(tables, sockets, strict=True):
            await call(http, "POST", f"/api/tables/{table_id}/start",
                       headers={"Authorization": f"Bearer {token}"})
        print(f"{len(tables)} tables playing; warming up {args.warmup:.0f} s", flush=True)
        quiet_collector()
        client_lags: list[float] = []
        sampler = asyncio.create_task(sample_lag(client_lags, measuring, stop))
        await asyncio.sleep(args.warmup)
        for match_id in analysed:
            asked = await http.post(f"/api/matches/{match_id}/analysis")
            assert asked.status_code == 202, asked.text
        metrics_began = (await call(http, "GET", "/metrics")).text
        measuring.set()
        before = {level: r.actions for level, r in results.items()}
        began, cpu_began = time.perf_counter(), cpu_seconds(server_pid)
        await asyncio.sleep(args.seconds)
        elapsed = time.perf_counter() - began
        cpu = (cpu_seconds(server_pid) - cpu_began) / elapsed
        metrics_ended = (await call(http, "GET", "/metrics")).text
        stats = (await call(http, "GET", "/api/stats",
                            params={"seconds": min(60, elapsed)})).json()
        playing_rss = rss_kib(server_pid)
        analyses = [(await http.get(f"/api/matches/{match_id}/analysis")).json()
                    for match_id in analysed]
        stop.set()
        gc.enable()
        for ws in sockets:
            await ws.close()
        await asyncio.gather(*players, sampler, return_exceptions=True)

    lag = stats["loop_lag_ms"]
    print(f"tables: {args.tables} normal + {args.hard_tables} hard "
          f"(1 simulated human + 3 bots each), bot delay {args.bot_delay} s, "
          f"think {args.think} s, window {elapsed:.0f} s")
    counts = {"normal": args.tables, "hard": args.hard_tables}
    for level, result in results.items():
        if not counts[level]:
            continue
        lat = result.latencies
        rate = (result.actions - before[level]) / elapsed / counts[level]
        print(f"{level} tables: {len(lat)} human actions measured ({rate:.2f}/s per table, "
              f"about {4 * rate:.2f} actions/s per table with the bots), {result.errors} "
              f"errors; action -> update p50 {percentile(lat, 0.5) * 1000:.2f} ms, "
              f"p99 {percentile(lat, 0.99) * 1000:.2f} ms, "
              f"max {max(lat, default=0) * 1000:.2f} ms")
    print(f"event-loop lag: p50 {lag['p50']:.2f} ms, p99 {lag['p99']:.2f} ms, "
          f"max {lag['max']:.2f} ms ({lag['samples']} samples)")
    print(f"garbage collection: {lag['full_gc_count']} full, longest {lag['full_gc_max']:.2f} "
          f"ms; longest young {lag['young_gc_max']:.2f} ms; {lag['gc_total']:.0f} ms in all "
          f"({lag['gc_total'] / elapsed / 10:.1f} % of the window)")
    actions = (counter(metrics_ended, "belote_actions")
               - counter(metrics_began, "belote_actions")) or float("nan")
    commits = (histogram_count(metrics_ended, "belote_db_write_seconds")
               - histogram_count(metrics_began, "belote_db_write_seconds"))
    print(f"server CPU: {cpu:.0%} of one core for {actions / elapsed:.0f} actions/s, "
          f"{cpu * elapsed / actions * 1000:.2f} ms per action; load average "
          f"{os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    print(f"this machine: {args.calibration:.1f} M loop additions a CPU second before the "
          "server started (bench/machine.py)")
    print("in the server, per action: taken up -> messages queued "
          f"{window_summary(metrics_began, metrics_ended, 'belote_action_broadcast_seconds')}"
          "; a write transaction "
          f"{window_summary(metrics_began, metrics_ended, 'belote_db_write_seconds')}"
          f", {commits / actions:.2f} per action; a log write's wait, queued to committed "
          f"{window_summary(metrics_began, metrics_ended, 'belote_log_write_seconds')}")
    decisions = (f"{level} "
                 f"{window_summary(metrics_began, metrics_ended, BOT_DECISIONS_METRIC, level)}"
                 for level, count in counts.items() if count)
    print("bots' decisions, the wait for a thread or a pool process included: "
          + "; ".join(decisions))
    print(f"this client's event-loop lag: p50 {percentile(client_lags, 0.5) * 1000:.2f} ms, "
          f"p99 {percentile(client_lags, 0.99) * 1000:.2f} ms, "
          f"max {max(client_lags, default=0) * 1000:.2f} ms")
    print(f"server memory: {base_rss / 1024:.1f} MiB idle, {playing_rss / 1024:.1f} MiB "
          f"playing, {(playing_rss - base_rss) / len(tables):.1f} KiB per table")
    if analysed:
        samples = args.analysis_samples or "default"
        print(f"analyses ({args.analysis_workers} worker(s), {samples} samples): "
              + ", ".join(f"{a['status']} {a['progress']:.0%}" for a in analyses))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=500, help="tables with normal bots")
    parser.add_argument("--hard-tables", type=int, default=20, help="tables with hard bots")
    parser.add_argument("--seconds", type=float, default=60, help="measured window")
    parser.add_argument("--warmup", type=float, default=10)
    parser.add_argument("--think", type=float, default=1.0, help="human think time, s")
    parser.add_argument("--bot-delay", type=float, default=1.0, help="BOT_DELAY, s")
    parser.add_argument("--bot-processes", type=int, default=1, help="BOT_PROCESSES")
    parser.add_argument("--turn-seconds", type=float, default=30)
    parser.add_argument("--analyses", type=int, default=0,
                        help="finished matches whose analyses run during the window")
    parser.add_argument("--analysis-workers", type=int, default=1, help="ANALYSIS_WORKERS")
    parser.add_argument("--analysis-samples", type=int,
                        help="ANALYSIS_SAMPLES (default: the review's own)")
    parser.add_argument("--postgres", metavar="SERVER_URL",
                        help="run on a scratch database of this PostgreSQL server, e.g. "
                        "postgresql://postgres@127.0.0.1:5432/postgres (default: SQLite)")
    args = parser.parse_args()
    # SIGTERM (a timeout, a runner stopping the script) ends it as Ctrl-C would: through
    # the ``finally`` that stops the server and drops the scratch database, not around it.
    signal.signal(signal.SIGTERM, _terminated)
    if not 0 < args.tables + args.hard_tables <= 2000 or not 0 < args.seconds <= 60:
        parser.error("at most 2000 tables and 60 seconds (the server keeps a minute of lag)")
    args.calibration = max(calibration() for _ in range(3))
    with fresh_database(args.postgres) as database_url:
        serve_and_load(args, database_url)


def _terminated(signum: int, _frame: object) -> None:
    raise SystemExit(128 + signum)


def serve_and_load(args: argparse.Namespace, database_url: str) -> None:
    """Start the server on ``database_url``, run the load, stop the server."""
    analysed = asyncio.run(store_finished_matches(database_url, args.analyses))
    port = free_port()
    env = os.environ | {
        "ANALYSIS_WORKERS": str(args.analysis_workers),
        "BOT_DELAY": str(args.bot_delay),
        "BOT_PROCESSES": str(args.bot_processes),
        "DATABASE_URL": database_url,
        "LOG_LEVEL": "warning",
        # Every table and socket comes from one address here, and the guest's tables are
        # one each: lift the per-address caps meant for the public.
        "MAX_TABLES_PER_ADDRESS": str(args.tables + args.hard_tables),
        "MAX_SOCKETS_PER_ADDRESS": str(args.tables + args.hard_tables),
        "ANALYSIS_SLOTS": str(max(1, args.analyses)),  # the analyses are asked for at once
        "REST_RATE_PER_ADDRESS": "100000/second",
        "SECRET_KEY": "load-benchmark-secret-key",
    } | ({} if args.analysis_samples is None else {"ANALYSIS_SAMPLES": str(args.analysis_samples)})
    server = subprocess.Popen([sys.executable, "-m", "app", "--host", HOST, "--port", str(port)],
                              cwd=ROOT, env=env)
    try:
        deadline = time.monotonic() + 120  # a busy machine starts it slowly
        while True:
            try:
                httpx2.get(f"http://{HOST}:{port}/api/health", timeout=1)
                break
            except httpx2.TransportError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise SystemExit("the server did not start") from None
                time.sleep(0.1)
        asyncio.run(asyncio.wait_for(run(args, port, server.pid, analysed),
                                     args.seconds + args.warmup + 300 + args.tables))
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


if __name__ == "__main__":
    main()
