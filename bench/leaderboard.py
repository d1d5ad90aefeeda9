"""Ratings at scale (issue #15): fill a database with 100,000 accounts and a million rated
matches, then time the leaderboard (first page, a deep cursor page) and profiles (of random
accounts, and of the busiest 1%) through the real app (httpx ASGITransport, the app's
lifespan run), and find how many logins per second one node sustains with its event loop's
lag p99 at or under 10 ms.

How the data is made (seeded, so two runs make the same): each account has a hidden
skill and an activity (log-normal: most play a few matches, some hundreds); a match is
two accounts (drawn by activity, partners or opponents at random) and two bots of random
levels, 70% bulgarian, 1% private; each account seat gets a ``rating_history``
row and each (player, variant) played a ``ratings`` row, its mu drawn around the
player's skill and its sigma shrinking with the matches played (the values are made up,
not computed by OpenSkill: these queries read them, whatever they are).  Rows go in by
the driver's fastest path: ``executemany`` batches on SQLite, ``COPY`` on PostgreSQL.
Every account has the same password (one Argon2id hash made with the server's settings).

    nice -n 10 .venv/bin/python bench/leaderboard.py                  # SQLite and PostgreSQL
    .venv/bin/python bench/leaderboard.py --backend sqlite --accounts 1000 --matches 10000
    .venv/bin/python bench/leaderboard.py --backend sqlite --keep /tmp/ratings.db  # fill once

Prints figures; asserts nothing.  Each run's database is its own, removed afterwards
(``--keep``: an SQLite file filled by the first run and measured as it is by the next).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import random
import sqlite3
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg  # type: ignore[import-untyped]
import httpx2
from alembic import command
from sqlalchemy import func, make_url, select

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app import ratings  # noqa: E402
from app.accounts.passwords import Passwords  # noqa: E402
from app.config import Settings  # noqa: E402
from app.container import running  # noqa: E402
from app.db import models  # noqa: E402
from app.db.migrate import alembic_config, scratch_database, upgrade  # noqa: E402
from app.db.players import BoardCursor  # noqa: E402
from app.main import create_app  # noqa: E402
from bench.load import percentile, sample_lag  # noqa: E402

PG_SERVER = "postgresql://postgres@127.0.0.1:5432/test"
PASSWORD = "bench-password-1"
BATCH = 20_000
T0 = datetime(2025, 1, 1, tzinfo=UTC)
LEVELS = ("easy", "normal", "hard")
REQUESTS = 300  # timed requests per query kind, after WARMUP
# The rows are written at this revision; the later migrations then run over them (0007
# fills the players' tallies from the history, as on a server upgraded with its data).
FILLED_AT = "0006"
WARMUP = 30
LAG_TARGET = 0.010  # seconds: the event loop's lag p99 a login rate must keep under


# ------------------------------------------------------------------ the data


def rows(accounts: int, matches: int, password_hash: str,
         seed: int = 15) -> Iterator[tuple[str, list[tuple[Any, ...]]]]:
    """(table, batch of rows) in foreign-key order, made as they are inserted."""
    rng = random.Random(seed)
    ids = [f"p{i:06d}" for i in range(accounts)]
    skill = [rng.gauss(0, 4) for _ in ids]
    # How much each plays: log-normal, so most play a few matches and some hundreds (with
    # the defaults: median 9 rated matches a variant, about 6,500 ranked in bulgarian).
    activity = list(itertools.accumulate(rng.lognormvariate(0, 1) for _ in ids))
    pick = range(accounts)
    yield from _batched("players", ((p, f"player{i}", T0) for i, p in enumerate(ids)))
    yield from _batched("accounts", ((p, f"player{i}", f"player{i}", password_hash, T0, T0)
                                     for i, p in enumerate(ids)))
    played: dict[tuple[int, str], int] = {}
    history: list[tuple[Any, ...]] = []
    seats: list[tuple[Any, ...]] = []
    games: list[tuple[Any, ...]] = []
    for j in range(matches):
        match_id = f"m{j:07d}"
        variant = "bulgarian" if rng.random() < 0.7 else "classic"
        at = T0 + timedelta(seconds=30 * j)
        a, b = rng.choices(pick, cum_weights=activity, k=2)
        while a == b:
            b = rng.choices(pick, cum_weights=activity)[0]
        partners = rng.random() < 0.5
        places = {0: a, 2 if partners else 1: b}
        winner = rng.randrange(2)
        games.append((match_id, variant, "{}", json.dumps({"table": {"rated": True}}),
                      rng.random() < 0.01, at, at + timedelta(minutes=20), "won",
                      151 if winner == 0 else 90, 90 if winner == 0 else 151, winner, 0))
        for seat in range(4):
            if seat in places:
                player = places[seat]
                seats.append((match_id, seat, ids[player], f"player{player}", "human", None))
                n = played[player, variant] = played.get((player, variant), 0) + 1
                rating = _rating(rng, skill[player], n)
                history.append((match_id, ids[player], variant, seat, rating.mu,
                                rating.sigma + 0.1, rating.mu, rating.sigma,
                                ratings.display(rating), n, at + timedelta(minutes=20)))
            else:
                seats.append((match_id, seat, None, "Bot", "bot", rng.choice(LEVELS)))
        if len(games) >= BATCH:
            yield "matches", games
            yield "match_seats", seats
            yield "rating_history", history
            games, seats, history = [], [], []
    if games:
        yield "matches", games
        yield "match_seats", seats
        yield "rating_history", history
    current = []
    for (player, variant), n in played.items():
        rating = _rating(rng, skill[player], n)
        current.append((ids[player], variant, rating.mu, rating.sigma, ratings.display(rating),
                        n, n // 2, not ratings.provisional(rating, n), T0))
    yield from _batched("ratings", current)


def _rating(rng: random.Random, skill: float, matches: int) -> ratings.Rating:
    sigma = max(2.0, 25 / 3 * (0.95 ** matches))
    return ratings.Rating(25 + skill + rng.gauss(0, sigma / 3), sigma)


def _batched(table: str, source: Any) -> Iterator[tuple[str, list[tuple[Any, ...]]]]:
    batch: list[tuple[Any, ...]] = []
    for row in source:
        batch.append(row)
        if len(batch) >= BATCH:
            yield table, batch
            batch = []
    if batch:
        yield table, batch


COLUMNS = {
    "players": ("id", "name", "created_at"),
    "accounts": ("player_id", "username", "username_key", "password_hash", "created_at",
                 "password_changed_at"),
    "matches": ("id", "variant", "options", "meta", "private", "started_at", "finished_at",
                "end_reason", "total0", "total1", "winner", "epoch"),
    "match_seats": ("match_id", "seat", "player_id", "name", "kind", "level"),
    "rating_history": ("match_id", "player_id", "variant", "seat", "mu_before", "sigma_before",
                       "mu", "sigma", "value", "matches", "at"),
    "ratings": ("player_id", "variant", "mu", "sigma", "value", "matches", "wins", "ranked",
                "updated_at"),
}


def fill_sqlite(path: str, data: Iterator[tuple[str, list[tuple[Any, ...]]]]) -> int:
    """executemany batches in one transaction; times as SQLAlchemy's UTCDateTime stores
    them (ISO text, no offset)."""
    conn = sqlite3.connect(path)
    count = 0
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=OFF")
        for table, batch in data:
            cols = COLUMNS[table]
            marks = ", ".join("?" for _ in cols)
            conn.executemany(f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({marks})",
                             [tuple(_sqlite(v) for v in row) for row in batch])
            count += len(batch)
        conn.commit()
    finally:
        conn.close()
    return count


def _sqlite(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")
    return value


async def fill_postgres(url: str, data: Iterator[tuple[str, list[tuple[Any, ...]]]]) -> int:
    conn = await asyncpg.connect(make_url(url).set(drivername="postgresql")
                                 .render_as_string(hide_password=False))
    count = 0
    try:
        for table, batch in data:
            await conn.copy_records_to_table(table, records=batch, columns=list(COLUMNS[table]))
            count += len(batch)
    finally:
        await conn.close()
    return count


async def settle(url: str) -> None:
    """The planner's statistics, and on PostgreSQL the visibility map, as a database in
    service has them: a fresh COPY leaves every row's visibility to be checked, so the
    reads would time autovacuum's catching up, not the queries."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        with sqlite3.connect(parsed.database or "") as conn:
            conn.execute("ANALYZE")
        return
    conn = await asyncpg.connect(parsed.set(drivername="postgresql")
                                 .render_as_string(hide_password=False))
    try:
        await conn.execute("VACUUM ANALYZE")
    finally:
        await conn.close()


# ------------------------------------------------------------------ the timings


async def timed(call: Callable[[int], Awaitable[httpx2.Response]]) -> tuple[float, float]:
    """p50 and p99 of ``call(i)`` in milliseconds, after a warm-up; each must answer 200."""
    times = []
    for i in range(WARMUP + REQUESTS):
        start = time.perf_counter()
        response = await call(i)
        elapsed = time.perf_counter() - start
        assert response.status_code == 200, response.text
        if i >= WARMUP:
            times.append(elapsed * 1000)
    return percentile(times, 0.5), percentile(times, 0.99)


async def measure(url: str, accounts: int, rates: list[float], seconds: float) -> None:
    settings = Settings(database_url=url, secret_key="bench-secret-key-0123456789",
                        log_level="warning", max_tables_per_address=10_000)
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx2.ASGITransport(app=app)
        async with httpx2.AsyncClient(transport=transport, base_url="http://bench") as http:
            deep = await deep_cursor(http, app, accounts)
            rng = random.Random(1)
            players = [f"p{rng.randrange(accounts):06d}" for _ in range(WARMUP + REQUESTS)]
            busiest = await busiest_players(app, accounts // 100)
            busy = [rng.choice(busiest) for _ in range(WARMUP + REQUESTS)]
            figures = {
                "leaderboard, first page (50)": await timed(
                    lambda i: http.get("/api/leaderboard", params={"variant": "bulgarian"})),
                f"leaderboard, deep page (after rank {deep[1]})": await timed(
                    lambda i: http.get("/api/leaderboard",
                                       params={"variant": "bulgarian", "cursor": deep[0]})),
                "profile (random player)": await timed(
                    lambda i: http.get(f"/api/players/{players[i]}")),
                f"profile (the {len(busiest)} busiest players)": await timed(
                    lambda i: http.get(f"/api/players/{busy[i]}")),
            }
            for what, (p50, p99) in figures.items():
                print(f"  {what:45s} p50 {p50:6.2f} ms   p99 {p99:6.2f} ms", flush=True)
            await logins(http, accounts, rates, seconds)


async def deep_cursor(http: httpx2.AsyncClient, app: Any, accounts: int) -> tuple[str, int]:
    """A cursor half way down the bulgarian board (found once, with an offset: the route
    itself never takes one)."""
    r = models.PlayerRating
    async with running(app).database.read() as session:
        ranked = await session.scalar(select(func.count())
                                      .select_from(r)
                                      .where(r.variant == "bulgarian", r.ranked.is_(True)))
        rank = max(1, int(ranked or 0) // 2)
        if not ranked:
            raise SystemExit("nobody is ranked: more matches per account, please")
        value, player = (await session.execute(
            select(r.value, r.player_id).where(r.variant == "bulgarian", r.ranked.is_(True))
            .order_by(r.value.desc(), r.player_id.desc()).offset(rank - 1).limit(1))).one()
    print(f"  ranked bulgarian players: {ranked}", flush=True)
    return BoardCursor(value, player, rank).encode(), rank


async def busiest_players(app: Any, count: int) -> list[str]:
    """The ``count`` accounts with the most bulgarian rated matches: the longest histories,
    whose profiles read the most rows (200 rating points a variant, the last 20 of a
    thousand matches)."""
    r = models.PlayerRating
    async with running(app).database.read() as session:
        found = await session.scalars(select(r.player_id).where(r.variant == "bulgarian")
                                      .order_by(r.matches.desc()).limit(max(1, count)))
        return list(found)


async def logins(http: httpx2.AsyncClient, accounts: int, rates: list[float],
                 seconds: float) -> None:
    """Logins at each rate for ``seconds``, the loop's lag sampled meanwhile (this loop
    is the app's: ASGITransport runs it in process)."""
    rng = random.Random(2)
    for rate in rates:
        lags: list[float] = []
        measuring, stop = asyncio.Event(), asyncio.Event()
        measuring.set()
        sampler = asyncio.create_task(sample_lag(lags, measuring, stop))
        answers: list[int] = []

        started = time.perf_counter()
        tasks = []
        for k in range(int(rate * seconds)):
            await asyncio.sleep(max(0.0, started + k / rate - time.perf_counter()))
            tasks.append(asyncio.create_task(log_in(http, rng.randrange(accounts), answers)))
        await asyncio.gather(*tasks)
        took = time.perf_counter() - started
        stop.set()
        await sampler
        ok = sum(code == 201 for code in answers)
        p99 = percentile(lags, 0.99)
        print(f"  logins offered {rate:5.1f}/s: {ok / took:5.1f}/s done ({ok}/{len(answers)} "
              f"201), {took:5.1f} s, loop lag p50 {percentile(lags, 0.5) * 1000:5.2f} ms "
              f"p99 {p99 * 1000:6.2f} ms {'ok' if p99 <= LAG_TARGET else 'OVER'}", flush=True)


async def log_in(http: httpx2.AsyncClient, user: int, answers: list[int]) -> None:
    response = await http.post("/api/sessions", json={"username": f"player{user}",
                                                      "password": PASSWORD})
    answers.append(response.status_code)


# ------------------------------------------------------------------ the run


@contextmanager
def database(backend: str, postgres: str, keep: Path | None) -> Iterator[str]:
    if keep is not None:
        yield f"sqlite:///{keep}"
        return
    if backend == "postgresql":
        with scratch_database(postgres, "belote_ratings") as url:
            yield url
        return
    with tempfile.TemporaryDirectory(prefix="belote-ratings-") as folder:
        yield f"sqlite:///{Path(folder) / 'belote.db'}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--accounts", type=int, default=100_000)
    parser.add_argument("--matches", type=int, default=1_000_000)
    parser.add_argument("--backend", choices=("sqlite", "postgresql", "both"), default="both")
    parser.add_argument("--postgres", default=PG_SERVER)
    parser.add_argument("--rates", default="4,8,12,16,24", help="logins/s to offer, in turn")
    parser.add_argument("--seconds", type=float, default=10.0, help="per login rate")
    parser.add_argument("--keep", type=Path, help="an SQLite file to fill once and keep: "
                        "later runs with it only measure")
    args = parser.parse_args()
    if args.keep is not None and args.backend != "sqlite":
        parser.error("--keep is for --backend sqlite")
    settings = Settings(secret_key="bench-secret-key-0123456789")
    password_hash = asyncio.run(Passwords(settings.argon2_time_cost, settings.argon2_memory_kib,
                                          settings.argon2_parallelism).hash(PASSWORD))
    backends = ("sqlite", "postgresql") if args.backend == "both" else (args.backend,)
    rates = [float(r) for r in args.rates.split(",")]
    for backend in backends:
        with database(backend, args.postgres, args.keep) as url:
            if args.keep is None or not args.keep.exists():
                command.upgrade(alembic_config(url), FILLED_AT)
                started = time.perf_counter()
                data = rows(args.accounts, args.matches, password_hash)
                count = (fill_sqlite(make_url(url).database or "", data)
                         if backend == "sqlite" else asyncio.run(fill_postgres(url, data)))
                print(f"{backend}: {args.accounts:,} accounts, {args.matches:,} rated "
                      f"matches: {count:,} rows in {time.perf_counter() - started:.0f} s",
                      flush=True)
            else:
                print(f"{backend}: measuring {args.keep} as it is", flush=True)
            started = time.perf_counter()
            upgrade(url)
            print(f"  migrations after {FILLED_AT} (0007 tallies the history, 0008 dates the "
                  "seats): "
                  f"{time.perf_counter() - started:.0f} s", flush=True)
            started = time.perf_counter()
            asyncio.run(settle(url))
            print(f"  analysed (and vacuumed): {time.perf_counter() - started:.0f} s", flush=True)
            asyncio.run(measure(url, args.accounts, rates, args.seconds))


if __name__ == "__main__":
    main()
