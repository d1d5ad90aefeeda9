"""``python -m app.admin flagged [--variant V]``: what an operator looks at, read from the
database of ``DATABASE_URL`` (the server's settings, app/config.py); nothing is changed.

``flagged`` lists the accounts whose wins at rated tables are mostly the other team
leaving or timing out (app/integrity.py, ``flagged``; docs/ratings.md, "Integrity"), one
a line, most walkovers first, as tab-separated columns under a header.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from engine import VARIANTS

from .config import get_settings
from .db.ratings import FlaggedAccount, flagged_accounts
from .db.session import Database

COLUMNS = ("player", "name", "variant", "forfeit_wins", "wins", "rated_matches", "rating")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m app.admin",
                                     description="Operator's reports, read from DATABASE_URL.")
    commands = parser.add_subparsers(dest="command", required=True)
    flagged = commands.add_parser(
        "flagged", help="accounts whose wins at rated tables are mostly walkovers")
    flagged.add_argument("--variant", choices=[str(v) for v in VARIANTS])
    args = parser.parse_args(argv)
    rows = asyncio.run(_flagged(get_settings().database_url, args.variant))
    sys.stdout.write(table(rows))


async def _flagged(url: str, variant: str | None) -> list[FlaggedAccount]:
    db = Database(url)
    try:
        return await flagged_accounts(db, variant)
    finally:
        await db.dispose()


def table(rows: list[FlaggedAccount]) -> str:
    lines = ["\t".join(COLUMNS)] + [
        "\t".join(str(v) for v in (row.player_id, row.name, row.variant, row.forfeit_wins,
                                   row.table_wins, row.matches, row.value)) for row in rows]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
