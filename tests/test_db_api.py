"""The history REST API on both databases, on a small hand-built set of matches."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import httpx2
import pytest
from fastapi import FastAPI

from ai import Level
from app.accounts.service import make_accounts
from app.api.deps import get_accounts, get_database
from app.api.routes import history
from app.auth import Tokens
from app.db.repository import Repository
from app.db.session import Database
from app.db.storage import MATCH_END
from app.limiter import Limiter
from app.matchlog import MatchEnd, MatchMeta, Owner, Seat, TableMeta
from app.shared import Keys, LocalShared
from app.vocabulary import EndReason, SeatKind
from engine import Options, replay
from engine.cards import ALL_TRUMPS, NO_TRUMPS
from engine.scoring import DealResult

from .conftest import app_settings
from .test_db_support import SEATS, play_logged, run

pytest_plugins = ["tests.test_db_support"]  # the database fixtures

HEARTS, SPADES = 2, 3
ZOE_SEATS = (Seat(SeatKind.BOT, "Bot", level=Level.NORMAL), Seat(SeatKind.HUMAN, "Ana", "p-ana"),
             Seat(SeatKind.HUMAN, "Zoe", "p-zoe"), Seat(SeatKind.BOT, "Bot", level=Level.HARD))
TOKENS = Tokens("history-test-secret-0123456789", 3600)
PRIVATE = TableMeta(name="ours", turn_seconds=30, private=True, timeout_forfeits=False)


def day(d: int) -> datetime:
    return datetime(2026, 1, d, 12, tzinfo=UTC)


def result(outcome: str, contract: int, bidder: int, score: tuple[int, int]) -> DealResult:
    return DealResult(outcome, contract, bidder, 1, (100, 62), (20, 0), (0, 0), None, score, 0)


async def build(repo: Repository, seats: tuple[Seat, ...] = SEATS) -> None:
    """A: bulgarian, team 0 won 151-80.  B: classic, team 1 won.  C: on.  D: Ana at seat 1,
    team 1 won.  E: started with D's time, no deal yet.  At private tables, which no list
    nor stats show to strangers: P, as A but newest; Q, on.  ``seats``: those of A, B, C,
    E, P and Q."""
    deck = list(range(32))
    won = [result("made", HEARTS, 0, (10, 6)), result("failed", SPADES, 1, (16, 0)),
           result("hanging", NO_TRUMPS, 2, (0, 8))]
    plan: list[tuple[str, str, tuple[Seat, ...], int, list[DealResult], Any, TableMeta | None]] = [
        ("A", "bulgarian", seats, 1, won, (151, 80, 0), None),
        ("B", "classic", seats, 2, [result("failed", ALL_TRUMPS, 0, (0, 300))], (500, 1001, 1),
         None),
        ("C", "bulgarian", seats, 3, [result("made", HEARTS, 0, (12, 4))], None, None),
        ("D", "bulgarian", ZOE_SEATS, 4, [result("made", SPADES, 1, (5, 11))], (30, 151, 1), None),
        ("E", "bulgarian", seats, 4, [], None, None),
        ("P", "bulgarian", seats, 5, won, (151, 80, 0), PRIVATE),
        ("Q", "classic", seats, 6, [], None, PRIVATE),
    ]
    for match_id, variant, match_seats, d, results, end, table in plan:
        meta = None if table is None else MatchMeta(
            variant=variant, seed=d, seats=list(match_seats), version=1, table=table,
            owner=Owner(id="p-ana", name="Ana"))
        await repo.create_match(match_id, variant, {}, match_seats, meta=meta,
                                started_at=day(d))
        for i, r in enumerate(results):
            await repo.start_deal(match_id, i, i % 4, deck, at=day(d))
            await repo.finish_deal(match_id, i, r, at=day(d))
        if end is not None:
            await repo.finish_match(match_id, MatchEnd(EndReason.WON, end[:2], end[2]),
                                    at=day(d + 1))


async def with_client(url: str, body: Any) -> None:
    """Run ``body(client, repo)`` against an app that holds only the history router."""
    db = Database(url)
    app = FastAPI()
    app.include_router(history.router)
    shared = LocalShared(Keys(""))
    accounts = await make_accounts(app_settings(database_url=url).accounts, db, TOKENS,
                                   Limiter(shared.limits), shared)
    app.dependency_overrides = {get_database: lambda: db, get_accounts: lambda: accounts}
    try:
        repo = Repository(db, MATCH_END)  # the server's: stats read the tallies
        transport = httpx2.ASGITransport(app=app)
        async with httpx2.AsyncClient(transport=transport, base_url="http://test") as client:
            await body(client, repo)
    finally:
        await accounts.close()
        await db.dispose()


async def ids(client: httpx2.AsyncClient, token: str | None = None, **params: Any) -> list[str]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    response = await client.get("/api/matches", params=params, headers=headers)
    assert response.status_code == 200, response.text
    return [m["id"] for m in response.json()["items"]]


def test_list_filters(db_url: str) -> None:
    async def body(client: httpx2.AsyncClient, repo: Repository) -> None:
        await build(repo)
        assert await ids(client) == ["E", "D", "C", "B", "A"]
        assert await ids(client, player="p-ivo") == ["E", "C", "B", "A"]
        assert await ids(client, player="p-zoe") == ["D"]
        assert await ids(client, player="nobody") == []
        assert await ids(client, variant="classic") == ["B"]
        assert await ids(client, finished="false") == ["E", "C"]
        assert await ids(client, finished="true") == ["D", "B", "A"]
        assert await ids(client, since="2026-01-02T12:00:00Z", until="2026-01-04T00:00:00Z") == [
            "C", "B"]
        assert await ids(client, player="p-ana", variant="bulgarian", finished="true") == [
            "D", "A"]
        first = (await client.get("/api/matches", params={"limit": 1})).json()["items"][0]
        assert first["seats"][1] == {"seat": 1, "kind": "bot", "name": "Bot", "player_id": None,
                                     "level": "hard"}
        assert first["finished_at"] is None and first["winner"] is None

    run(with_client(db_url, body))


def test_cursor_pagination_walks_every_match_once(db_url: str) -> None:
    async def body(client: httpx2.AsyncClient, repo: Repository) -> None:
        await build(repo)
        for limit in (1, 2, 3, 5):
            seen: list[str] = []
            cursor = None
            for _ in range(6):  # five matches: a cursor that never ends fails, not hangs
                params: dict[str, Any] = {"limit": limit}
                if cursor:
                    params["cursor"] = cursor
                page = (await client.get("/api/matches", params=params)).json()
                seen += [m["id"] for m in page["items"]]
                cursor = page["next_cursor"]
                if cursor is None:
                    break
            assert cursor is None, f"still a next page after {seen}"
            assert seen == ["E", "D", "C", "B", "A"]  # D and E tie on time: id breaks it

    run(with_client(db_url, body))


def test_match_detail(db_url: str) -> None:
    async def body(client: httpx2.AsyncClient, repo: Repository) -> None:
        await build(repo)
        a = (await client.get("/api/matches/A")).json()
        assert a["totals"] == [151, 80] and a["winner"] == 0 and a["end_reason"] == "won"
        assert a["options"] == {} and a["variant"] == "bulgarian"
        assert [s["name"] for s in a["seats"]] == ["Ana", "Bot", "Ivo", "Bot"]
        assert [(d["index"], d["outcome"], d["contract"], d["bidder"]) for d in a["deals"]] == [
            (0, "made", "H", 0), (1, "failed", "S", 1), (2, "hanging", "NT", 2)]
        assert a["deals"][0]["score"] == [10, 6] and a["deals"][0]["card_points"] == [100, 62]
        assert "deck" not in a["deals"][0]
        e = (await client.get("/api/matches/E")).json()
        assert e["deals"] == [] and e["finished_at"] is None

    run(with_client(db_url, body))


def test_player_stats(db_url: str) -> None:
    async def body(client: httpx2.AsyncClient, repo: Repository) -> None:
        await build(repo)
        ana = (await client.get("/api/players/p-ana/stats")).json()
        assert ana["name"] == "Ana"
        assert ana["by_variant"] == [
            {"variant": "bulgarian", "matches": 2, "wins": 2, "points_for": 302,
             "points_against": 110, "contracts_made": 2, "contracts_failed": 0,
             "contracts_hanging": 0},
            {"variant": "classic", "matches": 1, "wins": 0, "points_for": 500,
             "points_against": 1001, "contracts_made": 0, "contracts_failed": 1,
             "contracts_hanging": 0},
        ]
        ivo = (await client.get("/api/players/p-ivo/stats")).json()
        assert ivo["by_variant"] == [
            {"variant": "bulgarian", "matches": 1, "wins": 1, "points_for": 151,
             "points_against": 80, "contracts_made": 0, "contracts_failed": 0,
             "contracts_hanging": 1},
            {"variant": "classic", "matches": 1, "wins": 0, "points_for": 500,
             "points_against": 1001, "contracts_made": 0, "contracts_failed": 0,
             "contracts_hanging": 0},
        ]
        zoe = (await client.get("/api/players/p-zoe/stats")).json()
        assert [(v["wins"], v["points_for"]) for v in zoe["by_variant"]] == [(0, 30)]  # team 0

    run(with_client(db_url, body))


def test_record_shows_only_finished_deals(db_url: str) -> None:
    async def body(client: httpx2.AsyncClient, repo: Repository) -> None:
        options = Options.make("bulgarian")
        done = await play_logged(repo, "done", options, seed=2)
        mid = await play_logged(repo, "mid", options, seed=2, stop_after=60)
        full = (await client.get("/api/matches/done/record")).json()
        assert full == done.record(full)
        assert replay(full).winner == done.match.winner
        partial = (await client.get("/api/matches/mid/record")).json()
        finished = len(mid.match.results)
        assert 0 < finished < len(mid.match.deals)
        assert partial["deals"] == mid.record(partial)["deals"][:finished]
        assert replay(partial).results == mid.match.results

    run(with_client(db_url, body))


def test_private_matches_are_listed_only_to_their_own_player(db_url: str) -> None:
    """Found by id (the link), but in no list nor stats, except for the player's own history
    asked for with the player's token."""
    ana, ana_token = TOKENS.issue("Ana")
    ivo, ivo_token = TOKENS.issue("Ivo")
    seats = (Seat(SeatKind.HUMAN, "Ana", ana.id), SEATS[1],
             Seat(SeatKind.HUMAN, "Ivo", ivo.id), SEATS[3])

    async def stats(client: httpx2.AsyncClient, token: str | None) -> list[int]:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        body = (await client.get(f"/api/players/{ana.id}/stats", headers=headers)).json()
        return [v["matches"] for v in body["by_variant"]]

    async def body(client: httpx2.AsyncClient, repo: Repository) -> None:
        await build(repo, seats)
        public = ["E", "C", "B", "A"]
        for token in (None, ana_token, ivo_token, "not-a-token"):
            assert await ids(client, token) == ["E", "D", "C", "B", "A"]
            assert await ids(client, token, finished="false") == ["E", "C"]
        for token in (None, ivo_token, "not-a-token"):  # a stranger, Ivo, a bad token
            assert await ids(client, token, player=ana.id) == public
        assert await ids(client, ana_token, player=ivo.id) == public
        assert await ids(client, ana_token, player=ana.id) == ["Q", "P", *public]
        assert await ids(client, ana_token, player=ana.id, finished="false") == ["Q", "E", "C"]
        assert await ids(client, ana_token, player=ana.id, limit=1) == ["Q"]
        assert await stats(client, None) == [1, 1] == await stats(client, ivo_token)
        assert await stats(client, ana_token) == [2, 1]
        for path in ("/api/matches/P", "/api/matches/Q", "/api/matches/Q/record",
                     "/api/matches/Q/replay"):  # the id is the link
            assert (await client.get(path)).status_code == 200, path

    run(with_client(db_url, body))


@pytest.mark.parametrize(
    ("path", "code"),
    [
        ("/api/matches/nope", "match_not_found"),
        ("/api/matches/nope/record", "match_not_found"),
        ("/api/players/nope/stats", "player_not_found"),
    ],
)
def test_unknown_ids_are_404(db_url: str, path: str, code: str) -> None:
    async def body(client: httpx2.AsyncClient, repo: Repository) -> None:
        response = await client.get(path)
        assert response.status_code == 404
        assert response.json()["detail"]["code"] == code

    run(with_client(db_url, body))


@pytest.mark.parametrize(
    "params",
    [
        {"variant": "poker"},
        {"finished": "maybe"},
        {"limit": 0},
        {"limit": 101},
        {"since": "yesterday"},
        {"since": "2026-01-01T00:00:00"},  # no timezone
        {"since": "2026-01-03T00:00:00Z", "until": "2026-01-02T00:00:00Z"},
        {"cursor": "not-a-cursor"},
        {"cursor": "WyJ4IiwgMV0"},  # base64 JSON, but not ours
    ],
)
def test_bad_filters_are_422(db_url: str, params: dict[str, Any]) -> None:
    async def body(client: httpx2.AsyncClient, repo: Repository) -> None:
        response = await client.get("/api/matches", params=params)
        assert response.status_code == 422, response.text
        assert "detail" in response.json()

    run(with_client(db_url, body))


@pytest.mark.parametrize("path", ["/api/matches", "/api/matches/any/replay"])
def test_unreachable_database_is_503(path: str) -> None:
    async def body(client: httpx2.AsyncClient, repo: Repository) -> None:
        response = await client.get(path)
        assert response.status_code == 503
        assert response.json()["detail"]["code"] == "storage_unavailable"

    run(with_client("postgresql://postgres@127.0.0.1:1/test", body))
