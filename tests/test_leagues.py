"""Seasonal leagues (docs/tournaments.md, "Leagues"): placement by rating, groups, league
points from rated matches' ends, the season's end moving each group's zones once, and the
caller's league and a profile's divisions through the API, on a migrated SQLite file."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import delete, insert, select

from ai import Level
from app.competition.leagues import DIVISIONS, division_of, moved, zones
from app.competition.seasons import keep_seasons
from app.db import models
from app.db.leagues import LeagueLine, LeaguePlace, LeagueSeason, count_league_match
from app.db.match_end import MatchEnded
from app.db.session import Database
from app.main import create_app
from app.matchlog import MatchEnd, Seat
from app.vocabulary import EndReason, SeatKind
from tests.conftest import app_settings
from tests.test_db_support import run

pytest_plugins = ["tests.test_db_support"]  # migrated_sqlite

NOW = datetime(2026, 12, 7, 12, tzinfo=UTC)


def test_placement_zones_and_moves() -> None:
    assert division_of(None) == 3 and division_of(40) == 1 and division_of(10) == DIVISIONS
    assert zones(2) == (0, 0) and zones(3) == (1, 1) and zones(25) == (5, 5)
    assert [moved(3, rank, 10) for rank in (1, 2, 3, 8, 9, 10)] == [2, 2, 3, 3, 4, 4]
    assert moved(1, 1, 10) == 1 and moved(DIVISIONS, 10, 10) == DIVISIONS


def _ended(match_id: str, players: list[str], winner: int | None, *, rated: bool = True,
           left: tuple[int, ...] = (), reason: EndReason = EndReason.WON) -> MatchEnded:
    seats = [Seat(SeatKind.HUMAN, p, p) if p else Seat(SeatKind.BOT, "Bot", level=Level.EASY)
             for p in players]
    return MatchEnded(match_id, "bulgarian", rated, False, seats, left,
                      MatchEnd(reason, (151, 40), winner, None), NOW)


async def _played(db: Database, *ended: MatchEnded) -> None:
    for one in ended:
        async with db.write() as conn:
            await count_league_match(conn, one)


async def _clean(db: Database) -> None:
    async with db.write() as conn:
        for table in (LeagueLine, LeaguePlace, LeagueSeason):
            await conn.execute(delete(table))


@pytest.fixture
def db(migrated_sqlite: str) -> Iterator[Database]:
    database = Database(migrated_sqlite)
    run(_clean(database))
    yield database
    run(database.dispose())


def test_points_groups_and_the_season_end(db: Database) -> None:
    async def scenario() -> None:
        await _played(db, _ended("m0", ["a", "b", "c", "d"], 0))  # no season yet: nothing
        await keep_seasons(db, 7, NOW)
        await keep_seasons(db, 7, NOW + timedelta(days=1))  # still on: nothing changes
        await _played(db,
                      _ended("m1", ["a", "b", "c", "d"], 0),  # a, c win; b, d lose
                      _ended("m2", ["a", "", "b", ""], 1, left=(2,)),  # a lost; b left: 0
                      _ended("m3", ["c", "d", "", ""], 1, rated=False),  # unrated: nothing
                      _ended("m4", ["c", "d", "", ""], None, reason=EndReason.ABANDONED))
        async with db.read() as session:
            lines = {p: (d, g, pts, n) for p, d, g, pts, n in await session.execute(
                select(LeagueLine.player_id, LeagueLine.division, LeagueLine.grp,
                       LeagueLine.points, LeagueLine.matches))}
        assert lines == {"a": (3, 0, 4, 2), "b": (3, 0, 1, 2), "c": (3, 0, 3, 1),
                         "d": (3, 0, 1, 1)}
        end = NOW + timedelta(days=7, seconds=1)
        await keep_seasons(db, 7, end)
        await keep_seasons(db, 7, end)  # a second node's pass: closed once
        async with db.read() as session:
            places = dict(list(await session.execute(
                select(LeaguePlace.player_id, LeaguePlace.division))))
            seasons = list(await session.execute(
                select(LeagueSeason.season, LeagueSeason.closed_at.is_not(None))
                .order_by(LeagueSeason.season)))
        # Four in the group: the first goes up, the last down (b before d on matches).
        assert places == {"a": 2, "c": 3, "b": 3, "d": 4}
        assert [tuple(s) for s in seasons] == [(1, True), (2, False)]
        await _played(db, _ended("m5", ["d", "a", "", ""], 0))
        async with db.read() as session:
            d, a = [await session.scalar(select(LeagueLine.division).where(
                LeagueLine.season == 2, LeagueLine.player_id == p)) for p in ("d", "a")]
        assert (d, a) == (4, 2)  # the next season starts where the last one's end put them

    run(scenario())


def test_the_callers_league_and_a_profiles_division(migrated_sqlite: str,
                                                     db: Database) -> None:
    with TestClient(create_app(app_settings(database_url=migrated_sqlite))) as client:
        ana = client.post("/api/accounts", json={"username": f"lg{uuid.uuid4().hex[:10]}",
                                                 "password": "a-long-password"}).json()
        auth = {"Authorization": f"Bearer {ana['token']}"}
        rival = f"rival-{uuid.uuid4().hex}"
        deadline = time.monotonic() + 10
        while (mine := client.get("/api/leagues/bulgarian", headers=auth).json())[
                "season"] is None and time.monotonic() < deadline:
            time.sleep(0.1)  # the director's first pass opens the first season
        assert mine["season"] is not None
        assert mine["division"] == 3 and mine["group"] == []  # where a new player starts

        async def play() -> None:
            async with db.write() as conn:
                await conn.execute(insert(models.Player).values(
                    id=rival, name="Rival", created_at=NOW))
            await _played(db, _ended("m1", [ana["id"], rival, "", ""], 0))

        run(play())
        mine = client.get("/api/leagues/bulgarian", headers=auth).json()
        assert [(x["rank"], x["player"], x["points"]) for x in mine["group"]] == [
            (1, ana["id"], 3), (2, rival, 1)]
        assert mine["zones"] == {"promotion": 0, "demotion": 0}  # two are too few to move
        assert client.get(f"/api/players/{ana['id']}").json()["divisions"] == {"bulgarian": 3}
        assert client.get("/api/leagues/nope", headers=auth).status_code == 422
        assert client.get("/api/leagues/bulgarian").status_code == 401
