"""History queries at scale: fill a database with finished matches by bulk inserts, then
time the match list (several filters, deep cursor pages) and a player's stats.

Prints p50/p99 per query in milliseconds, per database; asserts nothing.  The action log
is not filled: these queries never read it (a record is rebuilt from one match's rows by
primary key).  ``python bench/db_history.py [--matches N] [--backend sqlite|postgresql]``.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import insert, select, text

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ai import Level  # noqa: E402
from app.db import models, queries  # noqa: E402
from app.db.migrate import scratch_database, upgrade  # noqa: E402
from app.db.repository import Repository  # noqa: E402
from app.db.session import Database  # noqa: E402
from app.matchlog import LoggedAction, Seat  # noqa: E402
from app.vocabulary import SeatKind  # noqa: E402

PLAYERS = 2000
DEALS = 9  # per match, about a real bulgarian match's count
CHUNK = 5000
WARMUP = 20
START = datetime(2025, 1, 1, tzinfo=UTC)


def fake_rows(n: int, rng: random.Random) -> dict[str, list[dict[str, Any]]]:
    """``n`` finished matches and ``n / 500`` still on, with 1 to 4 guests each, bots
    elsewhere, and plausible deal results."""
    players = [{"id": f"p{i:05d}", "name": f"Guest {i}", "created_at": START}
               for i in range(PLAYERS)]
    rows: dict[str, list[dict[str, Any]]] = {"matches": [], "seats": [], "deals": []}
    deck = " ".join(f"{r}{s}" for s in "CDHS" for r in "789TJQKA")
    for i in range(n + n // 500):
        match_id = uuid.UUID(int=rng.getrandbits(128)).hex
        started = START + timedelta(seconds=rng.randrange(365 * 24 * 3600))
        finished = started + timedelta(minutes=20)
        variant = "bulgarian" if rng.random() < 0.7 else "classic"
        loser = rng.randrange(40, 150)
        totals = [loser, 151] if rng.random() < 0.5 else [151, loser]
        on = i >= n  # the extra ones are still being played
        rows["matches"].append({
            "id": match_id, "variant": variant, "options": {}, "meta": {},
            "started_at": started, "finished_at": None if on else finished,
            "end_reason": None if on else "won", "total0": totals[0], "total1": totals[1],
            "winner": None if on else int(totals[1] > totals[0]),
        })
        guests = rng.sample(range(PLAYERS), 4)
        humans = rng.randint(1, 4)
        for seat in range(4):
            human = seat < humans
            rows["seats"].append({
                "match_id": match_id, "seat": seat, "name": "Bot" if not human else "g",
                "player_id": players[guests[seat]]["id"] if human else None,
                "kind": "human" if human else "bot", "level": None if human else "normal",
                "started_at": started,
            })
        for d in range(DEALS):
            outcome = rng.choice(("made", "made", "failed", "hanging", "redeal"))
            bid = outcome != "redeal"
            rows["deals"].append({
                "match_id": match_id, "idx": d, "dealer": (i + d) % 4, "deck": deck,
                "started_at": started, "finished_at": finished, "outcome": outcome,
                "contract": rng.randrange(6) if bid else None,
                "bidder": rng.randrange(4) if bid else None, "multiplier": 1 if bid else None,
                "card_points0": 81, "card_points1": 81, "declarations0": 0, "declarations1": 0,
                "belot0": 0, "belot1": 0, "valat": None, "score0": 8, "score1": 8, "hanging": 0,
            })
    rows["players"] = players
    return rows


async def fill(db: Database, n: int) -> float:
    """Bulk-insert ``n`` matches in chunks; seconds taken."""
    rng = random.Random(1)
    start = time.perf_counter()
    rows = fake_rows(n, rng)
    tables = [(models.Player, "players"), (models.Match, "matches"),
              (models.MatchSeat, "seats"), (models.Deal, "deals")]
    for model, key in tables:
        for i in range(0, len(rows[key]), CHUNK):
            async with db.write() as conn:
                await conn.execute(insert(model), rows[key][i:i + CHUNK])
    async with db.write() as conn:
        await conn.execute(text("ANALYZE"))
    return time.perf_counter() - start


async def timed(
    db: Database, runs: int, make: Callable[[int], Callable[[Any], Awaitable[Any]]]
) -> tuple[float, float]:
    """p50 and p99 in ms of ``runs`` calls, each in a fresh session as a request has
    (after ``WARMUP`` untimed ones: statement caches fill once per process)."""
    times = []
    for i in range(-WARMUP, runs):
        call = make(i)
        async with db.read() as session:
            t = time.perf_counter()
            await call(session)
            if i >= 0:
                times.append((time.perf_counter() - t) * 1000)
    times.sort()
    return statistics.median(times), times[min(len(times) - 1, int(len(times) * 0.99))]


async def measure(db: Database, n: int, runs: int) -> list[tuple[str, float, float]]:
    rng = random.Random(2)
    players = [f"p{rng.randrange(PLAYERS):05d}" for _ in range(runs)]
    async with db.read() as session:  # cursors a tenth, half and nine tenths down the list
        deep = []
        for offset in (n // 10, n // 2, n * 9 // 10):
            at, match_id = (await session.execute(
                select(models.Match.started_at, models.Match.id)
                .order_by(models.Match.started_at.desc(), models.Match.id.desc())
                .offset(offset).limit(1)
            )).one()
            deep.append(queries.Cursor(at, match_id))

    def page(**kw: Any) -> Callable[[int], Callable[[Any], Awaitable[Any]]]:
        return lambda i: lambda s: queries.list_matches(
            s, queries.MatchFilter(**{k: v(i) if callable(v) else v for k, v in kw.items()}))

    cases: list[tuple[str, Callable[[int], Callable[[Any], Awaitable[Any]]]]] = [
        ("list: newest 20", page()),
        ("list: deep cursor", page(cursor=lambda i: deep[i % 3])),
        ("list: variant=classic", page(variant="classic")),
        ("list: player", page(player=lambda i: players[i])),
        ("list: player+variant", page(player=lambda i: players[i], variant="bulgarian")),
        ("list: finished=false", page(finished=False)),
        ("list: date range", page(since=START + timedelta(days=100),
                                  until=START + timedelta(days=101))),
        ("player stats", lambda i: lambda s: queries.player_stats(s, players[i])),
    ]
    return [(name, *await timed(db, runs, make)) for name, make in cases]


async def appends(db: Database, runs: int) -> tuple[str, float, float]:
    """The table's hot write: one action, one INSERT in its own transaction."""
    repo = Repository(db)
    seats = [Seat(SeatKind.BOT, "Bot", level=Level.EASY)] * 4
    await repo.create_match("bench-appends", "bulgarian", {}, seats)
    await repo.start_deal("bench-appends", 0, 0, list(range(32)))
    times = []
    for seq in range(-WARMUP, runs):
        t = time.perf_counter()
        await repo.append_action("bench-appends", 0, seq + WARMUP, LoggedAction(seq % 4, 70))
        if seq >= 0:
            times.append((time.perf_counter() - t) * 1000)
    times.sort()
    return "append_action", statistics.median(times), times[int(len(times) * 0.99)]


async def bench(url: str, n: int, runs: int) -> None:
    db = Database(url)
    try:
        seconds = await fill(db, n)
        print(f"  filled {n} finished matches (+{n // 500} on, {(n + n // 500) * DEALS} deals)"
              f" in {seconds:.1f} s")
        for name, p50, p99 in [*await measure(db, n, runs), await appends(db, runs)]:
            print(f"  {name:<24} p50 {p50:6.2f} ms   p99 {p99:6.2f} ms")
    finally:
        await db.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=500, help="timed calls per query")
    parser.add_argument("--backend", choices=("sqlite", "postgresql", "both"), default="both")
    parser.add_argument("--postgres", default="postgresql://postgres@127.0.0.1:5432/test",
                        help="a server where a scratch database may be created and dropped")
    args = parser.parse_args()
    if args.backend in ("sqlite", "both"):
        with tempfile.TemporaryDirectory() as tmp:
            url = f"sqlite:///{tmp}/bench.db"
            print("sqlite")
            upgrade(url)
            asyncio.run(bench(url, args.matches, args.runs))
    if args.backend in ("postgresql", "both"):
        with scratch_database(args.postgres, "belote_bench") as url:
            print("postgresql")
            upgrade(url)
            asyncio.run(bench(url, args.matches, args.runs))


if __name__ == "__main__":
    main()
