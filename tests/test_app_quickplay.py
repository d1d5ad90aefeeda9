"""Play now over REST, in-process: ``POST /api/quickplay`` (a started table against bots)
and the queue for people, ``/api/queue`` (app/matchmaking/).  The app runs on a
FakeClock with a bot pause, so that no bot plays unless a test moves time, and so that a
test moves through a player's wait without waiting for it.  The queue's backends, in the
process and in Redis, and two nodes sharing one: tests/test_matchmaking_queue.py."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

from fastapi.testclient import TestClient

from app.container import running
from app.main import create_app
from app.matchmaking import ALIVE, REJOIN_AFTER
from app.storage import MemoryStorage
from tests.conftest import Rest, app_settings
from tests.fake_clock import FakeClock
from tests.test_app_ws import seated, until
from tests.waiting import eventually_sync

Guest = dict[str, str]


@contextmanager
def play_app(**settings: Any) -> Iterator[tuple[TestClient, Rest, FakeClock]]:
    clock = FakeClock()
    app = create_app(app_settings(**({"bot_delay": 1.0} | settings)), MemoryStorage(), clock)
    with TestClient(app) as client:
        yield client, Rest(client), clock


def code(response: Any) -> str:
    detail: str = response.json()["detail"]["code"]
    return detail


def queue(client: TestClient, rest: Rest, guest: Guest, **body: Any) -> Any:
    response = client.post("/api/queue", json=body, headers=rest.auth(guest))
    assert response.status_code == 200, response.text
    return response.json()


def poll(client: TestClient, rest: Rest, guest: Guest) -> Any:
    return client.get("/api/queue", headers=rest.auth(guest))


def table(client: TestClient, table_id: str) -> Any:
    return client.get(f"/api/tables/{table_id}").json()


def started(client: TestClient, table_id: str) -> Any:
    eventually_sync(lambda: table(client, table_id)["status"] == "playing", 10,
                    f"table {table_id} to start")
    return table(client, table_id)


# ------------------------------------------------------------------ quickplay


def test_a_quickplay_seat_waits_for_its_player_not_for_a_cover_bot() -> None:
    """The table starts before its player's socket is there: the player's turn waits on
    the turn timer (30 s) for them, where a cover bot would play it after its pause."""
    with play_app() as (client, rest, clock):
        ana = rest.guest("Ana")
        made = client.post("/api/quickplay", json={}, headers=rest.auth(ana)).json()
        live = running(client.app).lobby.tables[made["id"]]  # type: ignore[arg-type]
        match = live.match
        assert match is not None
        for _ in range(4):  # the bots before Ana, a 1 s pause each
            if match.current_player() == 0:
                break
            version = live.version
            clock.advance(1.0)
            eventually_sync(lambda: live.version > version, 10, "a bot's move")  # noqa: B023
        assert match.current_player() == 0
        clock.advance(5.0)  # five cover-bot pauses, well within Ana's turn
        assert match.current_player() == 0
        assert match.deal is not None
        assert all(seat != 0 for seat, _ in match.deal.history)


def test_quickplay_starts_a_table_with_the_caller_and_three_bots() -> None:
    with play_app() as (client, rest, _):
        ana = rest.guest("Ana")
        response = client.post("/api/quickplay", json={"variant": "classic", "level": "easy"},
                               headers=rest.auth(ana))
        assert response.status_code == 201, response.text
        made = response.json()
        assert made["status"] == "playing" and made["variant"] == "classic"
        assert made["owner"] == ana["id"] and made["name"] == "Ana"
        assert made["seats"][0]["kind"] == "human" and made["seats"][0]["name"] == "Ana"
        assert [(s["kind"], s["level"]) for s in made["seats"][1:]] == [("bot", "easy")] * 3
        assert table(client, made["id"])["status"] == "playing"
        with seated(client, made["id"], ana) as (_, snapshot):  # the caller's own seat
            assert snapshot["seat"] == 0 and len(snapshot["view"]["hand"]) in (5, 8)

        default = client.post("/api/quickplay", json={}, headers=rest.auth(ana)).json()
        assert default["variant"] == "bulgarian"
        assert {s["level"] for s in default["seats"][1:]} == {"normal"}


def quick(client: TestClient, rest: Rest, guest: Guest | None, **body: Any) -> Any:
    return client.post("/api/quickplay", json=body, headers=rest.auth(guest) if guest else {})


def test_quickplay_refuses_what_create_refuses() -> None:
    with play_app(max_tables_per_player=1, max_tables_per_address=2) as (client, rest, _):
        ana, ivo, eve = (rest.guest(n) for n in ("Ana", "Ivo", "Eve"))
        assert quick(client, rest, None).status_code == 401
        for bad in ({"level": "genius"}, {"variant": "rummy"}, {"seats": 4}):
            assert quick(client, rest, ana, **bad).status_code == 422
        assert quick(client, rest, ana).status_code == 201
        mine = quick(client, rest, ana)  # a quickplay table is one of the player's tables
        assert mine.status_code == 429 and code(mine) == "too_many_tables_for_you"
        assert client.post("/api/tables", json={"name": "t"},
                           headers=rest.auth(ana)).status_code == 429
        assert quick(client, rest, ivo).status_code == 201
        address = quick(client, rest, eve)  # the third table from one address
        assert address.status_code == 429 and code(address) == "too_many_tables_for_address"
    with play_app(max_tables=2) as (client, rest, _):
        ana, ivo = rest.guest("Ana"), rest.guest("Ivo")
        rest.table(ana, [ana])
        assert quick(client, rest, ana).status_code == 201
        full = quick(client, rest, ivo)
        assert full.status_code == 429 and code(full) == "too_many_tables"


# ------------------------------------------------------------------ the queue


def test_four_players_are_seated_together_and_start_once_all_are_there() -> None:
    with play_app() as (client, rest, _):
        guests = [rest.guest(n) for n in ("Ana", "Ivo", "Eve", "Bob")]
        first = queue(client, rest, guests[0])
        assert first["status"] == "waiting" and first["variant"] == "bulgarian"
        assert first["players"] == 1 and first["deadline"] == first["since"] + 20
        assert queue(client, rest, guests[1], variant="bulgarian")["players"] == 2
        other = rest.guest("Max")
        assert queue(client, rest, other, variant="classic")["players"] == 1  # another game
        assert queue(client, rest, guests[2])["players"] == 3
        assert poll(client, rest, guests[0]).json()["status"] == "waiting"
        fourth = queue(client, rest, guests[3])
        assert fourth["status"] == "seated"  # the fourth makes the table at once
        table_id = fourth["table_id"]
        for guest in guests:
            assert poll(client, rest, guest).json() == {"status": "seated",
                                                        "table_id": table_id}
        assert poll(client, rest, other).json()["status"] == "waiting"
        made = table(client, table_id)
        assert [s["name"] for s in made["seats"]] == ["Ana", "Ivo", "Eve", "Bob"]
        assert made["status"] == "waiting" and made["owner"] == guests[0]["id"]
        # The match starts when all four are at the table, not before.
        with ExitStack() as stack:
            sockets = [stack.enter_context(seated(client, table_id, g))[0] for g in guests[:3]]
            assert table(client, table_id)["status"] == "waiting"
            sockets.append(stack.enter_context(seated(client, table_id, guests[3]))[0])
            for seat, ws in enumerate(sockets):
                start = until(ws, lambda m: m["type"] == "event"
                              and m["event"]["kind"] == "start", "the start")
                assert start["seat"] == seat and len(start["view"]["hand"]) in (5, 8)


def test_after_the_wait_bots_fill_the_empty_seats() -> None:
    with play_app(queue_start_wait=7) as (client, rest, clock):
        ana, ivo = rest.guest("Ana"), rest.guest("Ivo")
        queue(client, rest, ana, wait_seconds=20)
        clock.advance(5)
        queue(client, rest, ivo, variant="bulgarian", wait_seconds=60)
        clock.advance(10)
        waiting = poll(client, rest, ana).json()
        assert waiting["status"] == "waiting" and waiting["waited"] == 15
        assert waiting["players"] == 2
        assert poll(client, rest, ivo).json()["status"] == "waiting"
        clock.advance(5)  # Ana's 20 s are over: Ivo, who would wait longer, comes along
        seated_ = poll(client, rest, ana).json()
        assert seated_["status"] == "seated"
        assert poll(client, rest, ivo).json() == seated_
        made = table(client, seated_["table_id"])
        assert [s["name"] for s in made["seats"][:2]] == ["Ana", "Ivo"]
        assert [(s["kind"], s["level"]) for s in made["seats"][2:]] == [("bot", "normal")] * 2
        # Nobody came to the table: it starts QUEUE_START_WAIT (7 s here) later all the same.
        clock.advance(6.9)
        assert table(client, seated_["table_id"])["status"] == "waiting"
        clock.advance(0.1)
        assert started(client, seated_["table_id"])["seats"][0]["name"] == "Ana"


def test_no_wait_seats_a_lone_player_with_bots_at_once() -> None:
    with play_app() as (client, rest, _):
        ana = rest.guest("Ana")
        joined = queue(client, rest, ana, variant="classic", wait_seconds=0)
        assert joined["status"] == "seated"
        with seated(client, joined["table_id"], ana) as (ws, _):
            start = until(ws, lambda m: m["type"] == "event" and m["event"]["kind"] == "start")
            assert start["table"]["variant"] == "classic" and start["seat"] == 0
        for bad in ({"wait_seconds": -1}, {"wait_seconds": 301}, {"variant": "x"},
                    {"level": "easy"}):
            assert client.post("/api/queue", json=bad,
                               headers=rest.auth(ana)).status_code == 422


def test_leaving_the_queue() -> None:
    with play_app() as (client, rest, _):
        ana, ivo, eve, bob, zoe = (rest.guest(n) for n in ("Ana", "Ivo", "Eve", "Bob", "Zoe"))
        missing = poll(client, rest, ana)
        assert missing.status_code == 404 and code(missing) == "not_queued"
        for guest in (ana, ivo, eve):
            queue(client, rest, guest)
        left = client.delete("/api/queue", headers=rest.auth(ana))
        assert left.status_code == 200 and left.json() == {"status": "left"}
        assert code(poll(client, rest, ana)) == "not_queued"
        assert client.delete("/api/queue", headers=rest.auth(ana)).json() == {"status": "left"}
        assert queue(client, rest, bob)["status"] == "waiting"  # three again, not four
        seated_ = queue(client, rest, zoe)
        made = table(client, seated_["table_id"])
        assert [s["name"] for s in made["seats"]] == ["Ivo", "Eve", "Bob", "Zoe"]
        # Once seated, it is too late to leave the queue: the answer says where to go.
        assert client.delete("/api/queue", headers=rest.auth(ivo)).json() == seated_


def test_no_player_is_seated_twice() -> None:
    with play_app() as (client, rest, clock):
        guests = [rest.guest(f"P{i}") for i in range(10)]
        for guest in guests:
            queue(client, rest, guest)
            queue(client, rest, guest)  # asking twice keeps one place, or the table
        tables = [poll(client, rest, g).json().get("table_id") for g in guests]
        assert tables[:8] == [tables[0]] * 4 + [tables[4]] * 4 and tables[0] != tables[4]
        assert tables[8:] == [None, None]  # still waiting for two more
        seated_ids = [s["name"] for t in {tables[0], tables[4]}
                      for s in table(client, t)["seats"]]
        assert sorted(seated_ids) == [f"P{i}" for i in range(8)]
        # A player who stops asking leaves the queue and is never seated.
        clock.advance(ALIVE / 2)
        poll(client, rest, guests[8])
        clock.advance(ALIVE / 2 + 1)
        assert poll(client, rest, guests[8]).json()["players"] == 1
        assert code(poll(client, rest, guests[9])) == "not_queued"
        # Long after being seated, asking again is a new wait.
        clock.advance(REJOIN_AFTER)
        again = queue(client, rest, guests[0])
        assert again["status"] == "waiting" and again["players"] == 1  # P8 went quiet


def test_a_group_table_refused_by_the_limits_says_why() -> None:
    with play_app(max_tables_per_player=1) as (client, rest, clock):
        ana, ivo = rest.guest("Ana"), rest.guest("Ivo")
        assert client.post("/api/quickplay", json={}, headers=rest.auth(ana)).status_code == 201
        failed = queue(client, rest, ana, wait_seconds=0)
        assert failed["status"] == "failed" and failed["code"] == "too_many_tables_for_you"
        # In a group, another player who may hold one more table owns it.
        queue(client, rest, ana, wait_seconds=10)
        queue(client, rest, ivo, wait_seconds=10)
        clock.advance(10)
        seated_ = poll(client, rest, ana).json()
        assert seated_["status"] == "seated"
        made = table(client, seated_["table_id"])
        assert made["owner"] == ivo["id"] and made["seats"][0]["name"] == "Ana"


def test_the_queue_needs_a_token() -> None:
    with play_app() as (client, _, _):
        for method in ("GET", "POST", "DELETE"):
            assert client.request(method, "/api/queue", json={}).status_code == 401
