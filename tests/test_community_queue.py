"""The queue as a pair and the queue's respect of blocks (issue #32): the grouping rule
(app/matchmaking/lines.py), both stores popping partners and blocked players alike (in
the process and in Redis), and over REST: two partners queued together sit on one team
and are told on their personal channel; two players of whom one blocks the other are
never seated together."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.matchmaking import Entry, Queue
from app.matchmaking.lines import groups
from app.storage import MemoryStorage
from tests.conftest import app_settings
from tests.fake_clock import FakeClock
from tests.test_accounts import auth, limits, refused, sign_up
from tests.test_community import befriend, channel, kept, notice
from tests.test_matchmaking_queue import NOW, backend
from tests.waiting import clear_of_a_window_edge

pytest_plugins = ["tests.test_db_support"]  # the database fixtures


def entry(player: str, partner: str | None = None, since: float = NOW,
          wait: float = 20.0) -> Entry:
    return Entry(player_id=player, name=player, variant="bulgarian", since=since,
                 deadline=since + wait, seen=since, partner=partner)


def seats(made: list[list[Entry]]) -> list[list[tuple[str, int | None]]]:
    return [[(e.player_id, e.seat) for e in group] for group in made]


def test_partners_sit_opposite_each_other() -> None:
    ready = [entry("a"), entry("b", "c"), entry("d"), entry("c", "b")]
    assert seats(groups(ready, NOW)) == [[("b", 0), ("a", 1), ("c", 2), ("d", 3)]]
    two_pairs = [entry("a", "b"), entry("c", "d"), entry("b", "a"), entry("d", "c")]
    assert seats(groups(two_pairs, NOW)) == [[("a", 0), ("c", 1), ("b", 2), ("d", 3)]]
    # Alone once their wait is over: bots take seats 1 and 3.
    assert seats(groups([entry("a", "b"), entry("b", "a")], NOW + 20)) == [[("a", 0),
                                                                          ("b", 2)]]


def test_one_whose_partner_is_not_waiting_waits() -> None:
    ready = [entry("a", "z"), entry("b"), entry("c"), entry("d"), entry("e")]
    assert seats(groups(ready, NOW)) == [[("b", 0), ("c", 1), ("d", 2), ("e", 3)]]
    named_elsewhere = [entry("a", "b"), entry("b", "x")]  # b names someone else
    assert groups(named_elsewhere, NOW + 20) == []


def test_blocked_players_go_to_different_groups() -> None:
    ready = [entry(p) for p in "abcdefgh"]
    made = groups(ready, NOW, [frozenset("ab"), frozenset("ce")])
    together = [{e.player_id for e in group} for group in made]
    assert together == [{"a", "c", "d", "f"}, {"b", "e", "g", "h"}]
    # A pair is one unit: it never joins a group where one of it is blocked.
    pair = [entry("a"), entry("b", "c"), entry("c", "b"), entry("d"), entry("e")]
    made = groups(pair, NOW + 20, [frozenset("ac")])
    assert [{e.player_id for e in group} for group in made] == [{"a", "d", "e"}, {"b", "c"}]


@pytest.mark.redis
@pytest.mark.parametrize("kind", ["memory", "redis"])
def test_both_stores_seat_partners_and_keep_blocked_apart(kind: str) -> None:
    async def test(queue: Queue) -> None:
        for joined in (entry("a"), entry("b", "c"), entry("d"), entry("c", "b"), entry("e")):
            await queue.join(joined)
        made = await queue.pop("bulgarian", NOW + 1, [frozenset("ad")])
        assert seats(made) == [[("b", 0), ("a", 1), ("c", 2), ("e", 3)]]
        assert {e.status for e in made[0]} == {"forming"}
        assert await queue.pop("bulgarian", NOW + 1) == []  # d waits for three more
        assert sorted(await queue.waiting_ids("bulgarian")) == ["d"]

    async def main() -> None:
        async with backend(kind) as queue:
            await asyncio.wait_for(test(queue), 30)

    asyncio.run(main())


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def client(db_url: str, clock: FakeClock) -> Iterator[TestClient]:
    settings = app_settings(database_url=db_url, ws_ping_interval=0.2, bot_delay=60,
                            **limits({}))
    with TestClient(create_app(settings, MemoryStorage(), clock)) as test_client:
        yield test_client


def join(client: TestClient, who: dict[str, str], **body: Any) -> Any:
    response = client.post("/api/queue", json=body, headers=auth(who["token"]))
    assert response.status_code == 200, response.text
    return response.json()


def seats_of(client: TestClient, table_id: str) -> list[str | None]:
    return [seat["name"] for seat in client.get(f"/api/tables/{table_id}").json()["seats"]]


def test_two_partners_queued_together_sit_on_one_team(client: TestClient) -> None:
    ana, bob, cleo, dan = (sign_up(client, name) for name in ("ana", "bob", "cleo", "dan"))
    with channel(client, ana) as ana_ws:
        assert join(client, ana, partner=bob["id"])["status"] == "waiting"
        assert join(client, cleo)["status"] == "waiting"
        assert join(client, dan)["status"] == "waiting"
        made = join(client, bob, partner=ana["id"])
        assert made["status"] == "seated"
        assert notice(ana_ws, "queue_seated")["table"] == made["table_id"]
    names = seats_of(client, made["table_id"])
    assert {names.index("ana") % 2, names.index("bob") % 2} == {names.index("ana") % 2}
    assert names == ["ana", "cleo", "bob", "dan"]
    refused(client.post("/api/queue", json={"partner": dan["id"]}, headers=auth(dan["token"])),
            422, "yourself")


def test_a_friend_named_partner_is_prompted_and_accepting_seats_them_together(
        client: TestClient) -> None:
    ana, bob, cleo = (sign_up(client, name) for name in ("ana", "bob", "cleo"))
    befriend(client, ana, bob)  # Bob offline: kept
    befriend(client, bob, ana)
    with channel(client, bob) as bob_ws:
        assert join(client, ana, partner=bob["id"], variant="classic",
                    wait_seconds=0)["status"] == "waiting"  # until Bob comes
        told = notice(bob_ws, "queue_partner")
        assert told["player"] == {"id": ana["id"], "name": "ana"}
        assert (told["variant"], told["rated"]) == ("classic", False) and "id" not in told
        # Accept: Bob joins as the notice says, naming Ana back: one team, bots opposite.
        made = join(client, bob, partner=ana["id"], variant="classic", wait_seconds=0)
        assert made["status"] == "seated"
        assert seats_of(client, made["table_id"])[::2] == ["ana", "bob"]
    # A stranger named partner is not told (no prompts from strangers): nothing kept.
    assert join(client, cleo, partner=bob["id"])["status"] == "waiting"
    assert [n["kind"] for n in kept(client, bob)] == ["friend_request"]  # Ana's, offline
    # Offline, a friend's prompt is kept for the next channel.
    dan = sign_up(client, "dan")
    befriend(client, dan, bob)
    befriend(client, bob, dan)
    join(client, dan, partner=bob["id"], rated=True)
    [waiting] = [n for n in kept(client, bob) if n["kind"] == "queue_partner"]
    assert (waiting["player"]["id"], waiting["rated"]) == (dan["id"], True)


def test_partner_prompts_count_as_invitations(db_url: str) -> None:
    settings = app_settings(database_url=db_url, invitations_per_player="1/hour",
                            **limits({}))
    with TestClient(create_app(settings, MemoryStorage())) as client:
        ana, bob = sign_up(client, "ana"), sign_up(client, "bob")
        befriend(client, ana, bob)
        befriend(client, bob, ana)
        clear_of_a_window_edge(3600)
        join(client, ana, partner=bob["id"])
        refused(client.post("/api/queue", json={"partner": bob["id"], "variant": "classic"},
                            headers=auth(ana["token"])), 429, "too_many_requests")


def test_blocked_players_are_never_seated_together(client: TestClient,
                                                  clock: FakeClock) -> None:
    ana, bob, cleo, dan = (sign_up(client, name) for name in ("ana", "bob", "cleo", "dan"))
    response = client.post("/api/blocks", json={"player": ana["id"]},
                           headers=auth(bob["token"]))
    assert response.status_code == 204
    for who in (ana, bob, cleo, dan):
        assert join(client, who)["status"] == "waiting"  # four, but Ana and Bob apart
    refused(client.post("/api/queue", json={"partner": bob["id"]}, headers=auth(ana["token"])),
            403, "player_blocked")
    tables = {}
    for _ in range(3):  # 21 s on, their wait over: each group with bots
        clock.advance(7)
        tables = {who["name"]: client.get("/api/queue", headers=auth(who["token"])).json()
                  for who in (ana, bob, cleo, dan)}
    seated = {name: found.get("table_id") for name, found in tables.items()}
    assert all(seated.values()), tables
    assert seated["ana"] != seated["bob"]
    assert "bob" not in seats_of(client, seated["ana"])
    assert len(set(seated.values())) == 2  # Cleo and Dan sit with one of them
