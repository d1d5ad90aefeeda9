"""Load benchmark of the table server (docs/benchmarks-server.md has the figures).

Starts ``python -m app`` on a free loopback port, opens many tables of one simulated human
and three bots, lets them play for a fixed time, then prints:

- p50/p99 time from a human's action to the update that shows it (the last seat's update:
  the human is the only socket at the table), measured by the client;
- event-loop lag p50/p99/max of the server over the measured window (GET /api/stats);
- server memory per table (resident memory growth divided by the tables opened).

Bounded: loopback only, a fixed number of tables, a fixed duration, then everything stops.

    .venv/bin/python bench/load.py --tables 500 --hard-tables 20 --seconds 60
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx2
from websockets.asyncio.client import ClientConnection, connect

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


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


async def open_table(http: httpx2.AsyncClient, level: str, index: int,
                     turn_seconds: float) -> tuple[str, str]:
    """A table of one guest in seat 0 and three bots of ``level``; returns (id, token)."""
    guest = (await http.post("/api/guests", json={"name": f"load{index}"})).json()
    auth = {"Authorization": f"Bearer {guest['token']}"}
    table = (await http.post("/api/tables", json={"name": f"load {index}",
                                                  "turn_seconds": turn_seconds},
                             headers=auth)).json()
    await http.put(f"/api/tables/{table['id']}/seats/0", headers=auth)
    for seat in (1, 2, 3):
        await http.put(f"/api/tables/{table['id']}/seats/{seat}/bot", json={"level": level},
                       headers=auth)
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


async def run(args: argparse.Namespace, port: int, server_pid: int) -> None:
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
            await http.post(f"/api/tables/{table_id}/start",
                            headers={"Authorization": f"Bearer {token}"})
        print(f"{len(tables)} tables playing; warming up {args.warmup:.0f} s", flush=True)
        await asyncio.sleep(args.warmup)
        measuring.set()
        before = {level: r.actions for level, r in results.items()}
        began = time.perf_counter()
        await asyncio.sleep(args.seconds)
        elapsed = time.perf_counter() - began
        stats = (await http.get("/api/stats", params={"seconds": min(60, elapsed)})).json()
        playing_rss = rss_kib(server_pid)
        stop.set()
        for ws in sockets:
            await ws.close()
        await asyncio.gather(*players, return_exceptions=True)

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
          f"max {lag['max']:.2f} ms ({lag['samples']} samples); full collections: "
          f"{lag['full_gc_count']}, longest {lag['full_gc_max']:.2f} ms")
    print(f"server memory: {base_rss / 1024:.1f} MiB idle, {playing_rss / 1024:.1f} MiB "
          f"playing, {(playing_rss - base_rss) / len(tables):.1f} KiB per table")


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
    args = parser.parse_args()
    if not 0 < args.tables + args.hard_tables <= 2000 or not 0 < args.seconds <= 60:
        parser.error("at most 2000 tables and 60 seconds (the server keeps a minute of lag)")
    port = free_port()
    env = os.environ | {
        "BOT_DELAY": str(args.bot_delay),
        "BOT_PROCESSES": str(args.bot_processes),
        "LOG_LEVEL": "warning",
        "SECRET_KEY": "load-benchmark-secret-key",
    }
    server = subprocess.Popen([sys.executable, "-m", "app", "--host", HOST, "--port", str(port)],
                              cwd=ROOT, env=env)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx2.get(f"http://{HOST}:{port}/api/health", timeout=1)
                break
            except httpx2.TransportError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise SystemExit("the server did not start") from None
                time.sleep(0.1)
        asyncio.run(asyncio.wait_for(run(args, port, server.pid),
                                     args.seconds + args.warmup + 300))
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


if __name__ == "__main__":
    main()
