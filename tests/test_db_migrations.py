"""Alembic on both databases: empty to head, the models equal the migrations, and back."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from alembic import command
from sqlalchemy import inspect, select

from app.db import queries
from app.db.migrate import ALEMBIC_INI, alembic_config, upgrade
from app.db.models import (
    Action,
    Base,
    BotTally,
    Deal,
    Match,
    MatchSeat,
    Player,
    PlayerRating,
    PlayerTally,
    RatingChange,
    UTCDateTime,
)
from app.db.storage import DatabaseStorage
from app.integrity import REAL_PLAY_ACTIONS
from app.matchlog import MatchEnd
from app.vocabulary import EndReason
from tests.test_db_support import opened

from .test_accounts import becomes_account, fill, rows_of
from .test_db_support import run

pytest_plugins = ["tests.test_db_support"]  # empty_url: a database not migrated yet

T0 = datetime(2026, 1, 1, tzinfo=UTC)  # when the tests' old rows happened
OLD_MATCHES = sa.table(  # the matches table as revision 0001 made it
    "matches", sa.column("id", sa.String), sa.column("variant", sa.String),
    sa.column("options", sa.JSON), sa.column("meta", sa.JSON),
    sa.column("started_at", UTCDateTime()), sa.column("total0", sa.Integer),
    sa.column("total1", sa.Integer),
)


async def table_names(url: str) -> set[str]:
    async with opened(url) as db, db.engine.connect() as conn:
        return set(await conn.run_sync(lambda c: inspect(c).get_table_names()))


def test_upgrade_check_downgrade(empty_url: str) -> None:
    config = alembic_config(empty_url)
    command.upgrade(config, "head")
    tables = set(Base.metadata.tables)
    assert run(table_names(empty_url)) == tables | {"alembic_version"}
    command.check(config)  # raises if autogenerate finds any difference with the models
    command.downgrade(config, "base")
    assert run(table_names(empty_url)) == {"alembic_version"}
    command.upgrade(config, "head")
    command.check(config)


def test_run_command_migrates_the_database_of_database_url(empty_url: str) -> None:
    """``alembic upgrade head`` as the run command calls it: URL from the environment."""
    env = {**os.environ, "DATABASE_URL": empty_url}
    subprocess.run([sys.executable, "-m", "alembic", "upgrade", "head"], cwd=ALEMBIC_INI.parent,
                   env=env, check=True, capture_output=True, timeout=60)
    assert run(table_names(empty_url)) == set(Base.metadata.tables) | {"alembic_version"}


async def insert_old_matches(url: str, metas: dict[str, dict[str, Any]]) -> None:
    async with opened(url) as db, db.write() as conn:
        await conn.execute(sa.insert(OLD_MATCHES), [
            {"id": match_id, "variant": "bulgarian", "options": {}, "meta": meta,
             "started_at": T0, "total0": 0, "total1": 0}
            for match_id, meta in metas.items()])


async def private_flags(url: str) -> dict[str, bool]:
    async with opened(url) as db, db.read() as session:
        rows = await session.execute(select(Match.id, Match.private))
        return {match_id: private for match_id, private in rows}


def test_private_is_filled_in_from_meta(empty_url: str) -> None:
    """Matches logged before revision 0002 get their table's privacy from ``meta``."""
    config = alembic_config(empty_url)
    command.upgrade(config, "0001")
    run(insert_old_matches(empty_url, {
        "hidden": {"seed": 1, "table": {"name": "t", "private": True}},
        "open": {"seed": 2, "table": {"name": "t", "private": False}},
        "bare": {},
    }))
    command.upgrade(config, "head")
    assert run(private_flags(empty_url)) == {"hidden": True, "open": False, "bare": False}


async def rate_old_match(url: str) -> list[tuple[Any, ...]]:
    """Rate the upgraded database's old match as if it had been rated (and really played:
    its player chose her own cards): the new tables take rows that point at the old ones."""
    async with opened(url) as db:
        async with db.write() as conn:
            await conn.execute(sa.update(Match).where(Match.id == "M1").values(
                end_reason=None, meta={"seed": 1, "table": {"rated": True}}))
            await conn.execute(sa.insert(Deal), [{"match_id": "M1", "idx": 0, "dealer": 3,
                                                  "deck": "", "started_at": T0}])
            await conn.execute(sa.insert(Action), [
                {"match_id": "M1", "deal_idx": 0, "seq": seq, "seat": 0, "action": 0,
                 "actor": "player", "at": T0} for seq in range(REAL_PLAY_ACTIONS)])
        await DatabaseStorage(db).repo.finish_match(
            "M1", MatchEnd(EndReason.WON, (151, 80), 0))
        async with db.read() as session:
            rows = await session.execute(select(
                RatingChange.match_id, RatingChange.player_id, RatingChange.matches))
            return [tuple(row) for row in rows]


def test_0005_keeps_every_guests_and_accounts_history(empty_url: str) -> None:
    """From revision 0004 with a guest's match and an account, up through 0005: every row
    as it was, and (at head) the old match's player can then be rated; down again, still
    whole."""
    config = alembic_config(empty_url)
    command.upgrade(config, "0004")
    run(fill(empty_url))
    run(becomes_account(empty_url))
    before = run(rows_of(empty_url))
    command.upgrade(config, "0005")
    assert run(rows_of(empty_url)) == before
    command.upgrade(config, "head")  # the code of today writes today's tables
    assert run(rate_old_match(empty_url)) == [("M1", "g-ana", 1)]
    command.downgrade(config, "0004")
    after = run(rows_of(empty_url))
    assert after["players"] == before["players"]
    assert after["match_seats"] == before["match_seats"]
    assert run(table_names(empty_url)) >= {"accounts", "sessions", "matches", "players"}


def history(seed: int) -> list[dict[str, Any]]:
    """Matches of four players and bots of every level: some private, some still on
    (counted nowhere), deals bid by every seat with every outcome."""
    rng = random.Random(seed)
    matches = []
    for i in range(12):
        people = rng.sample(["p0", "p1", "p2", "p3"], rng.randint(1, 3))
        kinds = people + [rng.choice(("easy", "normal", "hard")) for _ in range(4 - len(people))]
        rng.shuffle(kinds)
        if i == 0:  # two bots of one level on one side count once
            kinds = ["p0", "hard", "hard", "hard"]
        winner = rng.randrange(2)
        totals = (151, rng.randint(0, 150)) if winner == 0 else (rng.randint(0, 150), 151)
        matches.append({
            "id": f"m{i}", "variant": rng.choice(("bulgarian", "classic")),
            "private": rng.random() < 0.3, "over": i < 10, "winner": winner, "totals": totals,
            "seats": kinds, "deals": [(rng.randrange(4), rng.choice(
                ("made", "failed", "hanging", "redeal", None))) for _ in range(4)]})
    return matches


async def insert_history(url: str, matches: list[dict[str, Any]], *, ended: bool) -> None:
    """The matches' rows; ``ended``: as ended before revision 0007 (no tallies; the rows
    of 0006, whose seats have no start yet), else on, at head."""
    async with opened(url) as db, db.write() as conn:
        await conn.execute(sa.insert(Player), [
            {"id": p, "name": p, "created_at": T0} for p in ("p0", "p1", "p2", "p3")])
        for m in matches:
            end = ({"finished_at": T0, "end_reason": "won", "winner": m["winner"],
                    "total0": m["totals"][0], "total1": m["totals"][1]}
                   if ended and m["over"] else {})
            await conn.execute(sa.insert(Match).values(
                id=m["id"], variant=m["variant"], options={}, meta={}, private=m["private"],
                started_at=T0, **end))
            await conn.execute(sa.insert(MatchSeat), [
                {"match_id": m["id"], "seat": seat, "name": who,
                 **({"player_id": who, "kind": "human", "level": None} if who.startswith("p")
                    else {"player_id": None, "kind": "bot", "level": who}),
                 **({} if ended else {"started_at": T0})}
                for seat, who in enumerate(m["seats"])])
            await conn.execute(sa.insert(Deal), [
                {"match_id": m["id"], "idx": i, "dealer": 0, "deck": "", "started_at": T0,
                 "bidder": bidder, "outcome": outcome}
                for i, (bidder, outcome) in enumerate(m["deals"])])


async def tallies(url: str) -> list[list[tuple[Any, ...]]]:
    """Both tally tables' rows, sorted."""
    async with opened(url) as db, db.read() as session:
        return [sorted(tuple(row) for row in await session.execute(
            select(*model.__table__.columns))) for model in (PlayerTally, BotTally)]


def test_0007_tallies_the_history_as_the_server_counts_each_match(empty_url: str,
                                                                  tmp_path: Path) -> None:
    """The tallies migration 0007 makes from the history are those the server makes by
    counting each match as it ends (the same matches, ended one by one at head)."""
    matches = history(7)
    config = alembic_config(empty_url)
    command.upgrade(config, "0006")
    run(insert_history(empty_url, matches, ended=True))
    command.upgrade(config, "0007")
    migrated = run(tallies(empty_url))
    assert len(migrated[0]) > 8 and len(migrated[1]) > 8
    assert any(row[2] for row in migrated[0])  # private ones kept apart
    live = f"sqlite:///{tmp_path / 'live.db'}"
    upgrade(live)
    run(insert_history(live, matches, ended=False))

    async def end_all() -> None:
        async with opened(live) as db:
            for m in matches:
                if m["over"]:
                    await DatabaseStorage(db).repo.finish_match(
                        m["id"], MatchEnd(EndReason.WON, m["totals"], m["winner"]))

    run(end_all())
    assert run(tallies(live)) == migrated


OLD_SEATS = sa.table(  # match_seats before revision 0008: no start of its own
    "match_seats", *(sa.column(c) for c in ("match_id", "seat", "player_id", "name", "kind",
                                             "level")))


async def insert_old_seats(url: str, starts: dict[str, datetime], private: set[str]) -> None:
    """Matches of ``p0`` (seat 0 or 1) at ``starts``, some ``private``, as at 0007."""
    async with opened(url) as db, db.write() as conn:
        await conn.execute(sa.insert(Player), [{"id": "p0", "name": "p0", "created_at": T0}])
        await conn.execute(sa.insert(OLD_MATCHES), [
            {"id": i, "variant": "bulgarian", "options": {}, "meta": {}, "started_at": at,
             "total0": 0, "total1": 0} for i, at in starts.items()])
        await conn.execute(sa.update(Match).where(Match.id.in_(private)).values(private=True))
        await conn.execute(sa.insert(OLD_SEATS), [
            {"match_id": i, "seat": seat,
             **({"player_id": "p0", "name": "p0", "kind": "human", "level": None}
                if seat == n % 2 else
                {"player_id": None, "name": "Bot", "kind": "bot", "level": "easy"})}
            for n, i in enumerate(starts) for seat in range(4)])


async def pages_of_p0(url: str, viewer: str | None) -> list[list[str]]:
    """p0's matches as the history route lists them, page by page (5 a page)."""
    pages: list[list[str]] = []
    cursor = None
    async with opened(url) as db, db.read() as session:
        while True:
            page = await queries.list_matches(session, queries.MatchFilter(
                player="p0", viewer=viewer, limit=5,
                cursor=None if cursor is None else queries.Cursor.decode(cursor)))
            pages.append([m.id for m in page.items])
            if page.next_cursor is None:
                return pages
            cursor = page.next_cursor


def test_0008_gives_each_seat_its_match_start_and_pages_stay_as_they_were(
        empty_url: str) -> None:
    """From 0007 with a player's matches started in no particular order: every seat takes
    its match's start, the player's history lists the same pages, newest first (private
    matches only for the player), and down again the seats are whole."""
    rng = random.Random(8)
    ids = [f"m{n:02d}" for n in range(23)]
    starts = {i: T0 + timedelta(minutes=rng.randrange(10_000)) for i in rng.sample(ids, 23)}
    config = alembic_config(empty_url)
    command.upgrade(config, "0007")
    private = set(rng.sample(ids, 3))
    run(insert_old_seats(empty_url, starts, private))
    command.upgrade(config, "head")

    async def seat_starts() -> set[tuple[str, datetime]]:
        async with opened(empty_url) as db, db.read() as session:
            return {(i, at) for i, at in await session.execute(
                select(MatchSeat.match_id, MatchSeat.started_at))}

    assert run(seat_starts()) == set(starts.items())
    newest = sorted(starts, key=lambda i: (starts[i], i), reverse=True)
    public = [i for i in newest if i not in private]
    for viewer, expected in (("p0", newest), (None, public)):
        pages = run(pages_of_p0(empty_url, viewer))
        assert [i for page in pages for i in page] == expected
        assert all(len(page) == 5 for page in pages[:-1])
    command.downgrade(config, "0007")
    assert "started_at" not in run(columns_of(empty_url, "match_seats"))


async def columns_of(url: str, table: str) -> set[str]:
    async with opened(url) as db, db.engine.connect() as conn:
        return set(await conn.run_sync(
            lambda c: [column["name"] for column in inspect(c).get_columns(table)]))


OLD_RATINGS = sa.table(  # ratings before revision 0010: no counts of wins at rated tables
    "ratings", *(sa.column(c) for c in ("player_id", "variant", "mu", "sigma", "value",
                                         "matches", "wins", "ranked")),
    sa.column("updated_at", UTCDateTime()))


async def insert_rated_history(url: str) -> None:
    """At 0009: p0 won m-won (played), m-forfeit and m-left (the others timed out or
    left); p1 lost all three; a classic rating of p0 with no history."""
    ends = {"m-won": "won", "m-forfeit": "forfeit", "m-left": "abandoned"}
    async with opened(url) as db, db.write() as conn:
        await conn.execute(sa.insert(Player), [
            {"id": p, "name": p, "created_at": T0} for p in ("p0", "p1")])
        await conn.execute(sa.insert(Match), [
            {"id": i, "variant": "bulgarian", "options": {}, "meta": {}, "started_at": T0,
             "finished_at": T0, "end_reason": reason, "total0": 0, "total1": 0}
            for i, reason in ends.items()])
        await conn.execute(sa.insert(RatingChange), [
            {"match_id": i, "player_id": p, "variant": "bulgarian", "seat": seat,
             "mu_before": 25.0, "sigma_before": 8.0, "mu": 25.0 + (3 if seat == 0 else -3),
             "sigma": 7.5, "value": 0, "matches": n + 1, "at": T0}
            for n, i in enumerate(ends) for seat, p in enumerate(("p0", "p1"))])
        await conn.execute(sa.insert(OLD_RATINGS), [
            {"player_id": p, "variant": variant, "mu": 25.0, "sigma": 7.5, "value": 0,
             "matches": matches, "wins": wins, "ranked": False, "updated_at": T0}
            for p, variant, matches, wins in (("p0", "bulgarian", 3, 3), ("p1", "bulgarian", 3, 0),
                                               ("p0", "classic", 5, 2))])


def test_0010_counts_the_wins_and_walkovers_already_rated(empty_url: str) -> None:
    """Every win so far was rated: the wins at rated tables are ``wins``, the walkovers the
    rated forfeits and departures a player's rating rose after; down again, gone."""
    config = alembic_config(empty_url)
    command.upgrade(config, "0009")
    run(insert_rated_history(empty_url))
    command.upgrade(config, "0010")

    async def counts() -> set[tuple[Any, ...]]:
        async with opened(empty_url) as db, db.read() as session:
            r = PlayerRating
            return set(await session.execute(
                select(r.player_id, r.variant, r.table_wins, r.forfeit_wins)))

    assert run(counts()) == {("p0", "bulgarian", 3, 2), ("p1", "bulgarian", 0, 0),
                             ("p0", "classic", 2, 0)}
    command.downgrade(config, "0009")
    assert "forfeit_wins" not in run(columns_of(empty_url, "ratings"))
