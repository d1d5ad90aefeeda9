"""Reputation and the leaving policy (issue #32; docs/community.md): counted in the
transaction that ends each match (finished, or left: gone for good, forfeited on the
timer, or mostly played by the timer or a covering bot), shown on the profile, and the
rated queue refusing a very low one and seating together players of close reputations.
On SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import insert

from app.db.reputation import reputations
from app.db.social_models import Reputation as Row
from app.db.storage import DatabaseStorage
from app.main import create_app
from app.matchlog import LoggedAction, MatchEnd
from app.matchmaking.lines import Entry, groups
from app.models import Forfeit
from app.reputation import Reputation
from app.storage import MemoryStorage
from app.vocabulary import EndReason
from tests.conftest import app_settings
from tests.test_accounts import auth, limits, refused, sign_up
from tests.test_db_storage import Table
from tests.test_db_support import opened, run

pytest_plugins = ["tests.test_db_support"]  # the database fixtures


def test_the_value_of_a_reputation() -> None:
    assert Reputation().value == 100  # a new player's
    assert Reputation(finished=50).value == 100  # never left
    assert Reputation(left=1).value == 67  # one match left weighs five finished
    assert Reputation(finished=20, left=1).value == 86
    assert Reputation(left=3).value == 40  # below the rated floor (50)


class Asleep(DatabaseStorage):
    """Logs seat 0's actions (Ana's) as the timer's: she let every turn run out."""

    async def append_action(self, table_id: str, deal: int, index: int,
                            action: LoggedAction) -> None:
        if action.seat == 0:
            action = LoggedAction(0, action.action, "timeout", action.version)
        await super().append_action(table_id, deal, index, action)


def test_each_end_counts_finished_and_left(db_url: str) -> None:
    async def scenario() -> None:
        async with opened(db_url) as db:
            storage = DatabaseStorage(db)
            won, forfeit = Table(storage, "r-won", seed=1), Table(storage, "r-lost", seed=2)
            for table in (won, forfeit):
                await table.start()
            await won.play(10_000)
            await forfeit.play(12)
            await storage.leave_seat(forfeit.id, 2, forfeit.version)  # Ivo leaves for good
            await storage.finish_match(forfeit.id, MatchEnd(
                EndReason.FORFEIT, forfeit.match.totals, 1, Forfeit(seat=2, winner=1)))
            assert await reputations(db, ["p-ana", "p-ivo", "p-new"]) == {
                "p-ana": Reputation(finished=2), "p-ivo": Reputation(finished=1, left=1),
                "p-new": Reputation()}
            asleep = Table(Asleep(db),
                           "r-asleep", seed=3)
            await asleep.start()
            await asleep.play(10_000)
            assert (await reputations(db, ["p-ana"]))["p-ana"] == Reputation(2, 1)

    run(scenario())


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    settings = app_settings(database_url=db_url, **limits({}))
    with TestClient(create_app(settings, MemoryStorage())) as test_client:
        yield test_client


async def left(url: str, player_id: str, times: int) -> None:
    async with opened(url) as db, db.write() as conn:
        await conn.execute(insert(Row).values(player_id=player_id, finished=0, left=times))


def test_the_profile_shows_it_and_the_rated_queue_refuses_a_low_one(
        client: TestClient, db_url: str) -> None:
    ana = sign_up(client, "ana")
    profile = client.get(f"/api/players/{ana['id']}")
    assert profile.status_code == 200, profile.text
    assert profile.json()["reputation"] == {"value": 100, "finished": 0, "left": 0}
    run(left(db_url, ana["id"], 3))
    assert client.get(f"/api/players/{ana['id']}").json()["reputation"] == {
        "value": 40, "finished": 0, "left": 3}
    refused(client.post("/api/queue", json={"rated": True}, headers=auth(ana["token"])),
            403, "reputation_too_low")
    joined = client.post("/api/queue", json={}, headers=auth(ana["token"]))
    assert joined.status_code == 200, joined.text  # unrated: anyone


def test_the_rated_queue_seats_close_reputations_together() -> None:
    now = datetime(2026, 12, 6, tzinfo=UTC).timestamp()

    def entry(player: str, reputation: int, rated: bool = True) -> Entry:
        return Entry(player_id=player, name=player, variant="bulgarian", rated=rated,
                     since=now, deadline=now + 20, seen=now, reputation=reputation)

    ready = [entry("a", 100), entry("b", 60), entry("c", 90), entry("d", 75),
             entry("e", 55), entry("f", 80)]
    made = groups(ready, now)
    assert [[e.player_id for e in group] for group in made] == [["a", "c", "d", "f"]]
    unrated = [entry(p, r, rated=False) for p, r in (("a", 100), ("b", 50), ("c", 90),
                                                   ("d", 70))]
    assert [[e.player_id for e in g] for g in groups(unrated, now)] == [["a", "b", "c", "d"]]
