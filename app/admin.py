"""``python -m app.admin flagged [--variant V]`` and ``python -m app.admin reports
[--limit N]``: what an operator looks at, read from the database of ``DATABASE_URL`` (the
server's settings, app/config.py); nothing is changed.

``flagged`` lists the accounts whose wins at rated tables are mostly the other team
leaving or timing out (app/integrity.py, ``flagged``; docs/ratings.md, "Integrity"), one
a line, most walkovers first, as tab-separated columns under a header.  ``reports`` lists
the players' reports (``POST /api/reports``; docs/community.md), newest first, the same way.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Awaitable, Callable
from typing import TypeVar

from engine import VARIANTS

from .config import get_settings
from .db.ratings import FlaggedAccount, flagged_accounts
from .db.session import Database
from .db.social import ReportRow, reports

T = TypeVar("T")

REPORT_COLUMNS = ("id", "at", "reporter", "player", "match", "reason", "text")
COLUMNS = ("player", "name", "variant", "forfeit_wins", "wins", "rated_matches", "rating")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m app.admin",
                                     description="Operator's reports, read from DATABASE_URL.")
    commands = parser.add_subparsers(dest="command", required=True)
    flagged = commands.add_parser(
        "flagged", help="accounts whose wins at rated tables are mostly walkovers")
    flagged.add_argument("--variant", choices=[str(v) for v in VARIANTS])
    reported = commands.add_parser("reports", help="players' reports, newest first")
    reported.add_argument("--limit", type=int, default=100)
    args = parser.parse_args(argv)
    url = get_settings().database_url
    if args.command == "reports":
        sys.stdout.write(report_table(asyncio.run(_read(url, lambda db: reports(db, args.limit)))))
    else:
        sys.stdout.write(table(asyncio.run(_read(
            url, lambda db: flagged_accounts(db, args.variant)))))


async def _read(url: str, query: Callable[[Database], Awaitable[T]]) -> T:
    db = Database(url)
    try:
        return await query(db)
    finally:
        await db.dispose()


def table(rows: list[FlaggedAccount]) -> str:
    lines = ["\t".join(COLUMNS)] + [
        "\t".join(str(v) for v in (row.player_id, row.name, row.variant, row.forfeit_wins,
                                   row.table_wins, row.matches, row.value)) for row in rows]
    return "\n".join(lines) + "\n"


def report_table(rows: list[ReportRow]) -> str:
    """Tab-separated under a header; the free text on one line (its tabs and breaks as
    spaces), as the reporter wrote it otherwise."""
    lines = ["\t".join(REPORT_COLUMNS)] + [
        "\t".join(str(v) for v in (row.id, row.at.isoformat(), row.reporter, row.player,
                                   row.match or "", row.reason,
                                   " ".join(row.text.split()))) for row in rows]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
