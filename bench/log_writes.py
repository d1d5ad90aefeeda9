"""The match log's writes alone: CPU and commits per logged action, many tables at once.

Each of ``--tables`` tables appends ``--actions`` actions, each awaited before the next (as
a table awaits its write before it answers), all tables at once, through
:class:`app.db.repository.Repository` on a scratch database: SQLite in a temporary
directory, and PostgreSQL with ``--postgres``.  Prints this process's CPU per action (the
server's cost of logging, with the driver's threads), the database's commits per action
and the actions written a second.  docs/benchmarks-server.md ("Group commit").

    .venv/bin/python bench/log_writes.py --tables 100 --actions 20 \\
        --postgres postgresql://postgres@127.0.0.1:5432/postgres
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from sqlalchemy import event

from ai import Level
from app.db.migrate import scratch_database, upgrade
from app.db.repository import Repository
from app.db.session import Database
from app.matchlog import LoggedAction, Seat
from app.vocabulary import SeatKind
from engine import Match, Options

SEATS = [Seat(SeatKind.BOT, "Bot", level=Level.NORMAL) for _ in range(4)]


async def measure(url: str, tables: int, actions: int) -> str:
    database = Database(url)
    repo = Repository(database)
    options = Options.make("bulgarian")
    deck = Match(options, seed=1).deals[0].deck
    try:
        for number in range(tables):
            await repo.create_match(f"m{number}", options.variant, {}, SEATS)
            await repo.start_deal(f"m{number}", 0, 0, deck)
        commits: list[int] = []
        for engine in database.engines:
            event.listen(engine, "commit", lambda _: commits.append(1))

        async def table(number: int) -> None:
            for seq in range(actions):  # the same pass, over and over: only the row counts
                await repo.append_action(f"m{number}", 0, seq, LoggedAction(0, 70, "bot", seq))

        cpu, wall = time.process_time(), time.perf_counter()
        await asyncio.gather(*(table(number) for number in range(tables)))
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    finally:
        await database.dispose()
    n = tables * actions
    return (f"{url.split(':')[0]}: {tables} tables x {actions} actions: {cpu / n * 1e6:.0f} us "
            f"of CPU per action, {len(commits) / n:.2f} commits per action, "
            f"{n / wall:,.0f} actions/s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--actions", type=int, default=20, help="per table")
    parser.add_argument("--postgres", metavar="SERVER_URL", help="also on a scratch database "
                        "of this PostgreSQL server")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="belote-log-writes-") as folder:
        url = f"sqlite:///{Path(folder) / 'belote.db'}"
        upgrade(url)
        print(asyncio.run(measure(url, args.tables, args.actions)))
    if args.postgres:
        with scratch_database(args.postgres, "belote_log_writes") as url:
            upgrade(url)
            print(asyncio.run(measure(url, args.tables, args.actions)))


if __name__ == "__main__":
    main()
