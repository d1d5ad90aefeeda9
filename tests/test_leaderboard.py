"""The leaderboard and players' profiles (issue #15) on SQLite and PostgreSQL: keyset
pages through ties, only players past the provisional stage, ranks; a profile's ratings,
history, record with and against bots, and the private-match rule."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import insert

from app import ratings
from app.db import models
from app.db.storage import DatabaseStorage
from app.matchlog import MatchEnd
from app.models import RatingView
from app.vocabulary import EndReason
from tests.test_accounts import auth, make_client, sign_up
from tests.test_db_support import opened, run

pytest_plugins = ["tests.test_db_support"]

T0 = datetime(2026, 11, 1, tzinfo=UTC)


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    with make_client(db_url) as test_client:
        yield test_client


async def insert_rows(url: str, rows: dict[type[models.Base], list[dict[str, Any]]]) -> None:
    async with opened(url) as db, db.write() as conn:
        for model, values in rows.items():
            if values:
                await conn.execute(insert(model), values)


def rating_row(player: str, variant: str, mu: float, sigma: float, matches: int,
               wins: int = 0) -> dict[str, Any]:
    rating = ratings.Rating(mu, sigma)
    return {"player_id": player, "variant": variant, "mu": mu, "sigma": sigma,
            "value": ratings.display(rating), "matches": matches, "wins": wins,
            "ranked": not ratings.provisional(rating, matches), "updated_at": T0}


def players(ids: list[str]) -> list[dict[str, Any]]:
    return [{"id": i, "name": i.upper(), "created_at": T0} for i in ids]


def test_leaderboard_pages_through_ties_and_leaves_provisional_players_out(
        client: TestClient, db_url: str) -> None:
    ids = ["a", "b", "c", "d", "e", "f", "g"]
    run(insert_rows(db_url, {
        models.Player: players(ids),
        models.PlayerRating: [
            rating_row("a", "bulgarian", 30.0, 3.0, 50, 30),  # 1340
            rating_row("b", "bulgarian", 28.0, 3.0, 60, 31),  # 1260, tied with c, d
            rating_row("c", "bulgarian", 28.0, 3.0, 45, 25),
            rating_row("d", "bulgarian", 28.0, 3.0, 41, 22),
            rating_row("e", "bulgarian", 40.0, 3.0, 39, 39),  # too few matches
            rating_row("f", "bulgarian", 40.0, 6.0, 90, 80),  # too uncertain
            rating_row("g", "classic", 30.0, 3.0, 50, 30),  # another variant
        ]}))
    seen: list[dict[str, Any]] = []
    cursor: str | None = None
    pages = 0
    while True:
        params: dict[str, Any] = {"variant": "bulgarian", "limit": 2}
        if cursor is not None:
            params["cursor"] = cursor
        page = client.get("/api/leaderboard", params=params)
        assert page.status_code == 200, page.text
        body = page.json()
        assert body["variant"] == "bulgarian"
        seen += body["players"]
        pages += 1
        cursor = body["next"]
        if cursor is None:
            break
    assert pages == 2
    assert [(p["rank"], p["id"]) for p in seen] == [(1, "a"), (2, "d"), (3, "c"), (4, "b")]
    assert seen[0]["rating"] == RatingView.of(ratings.Rating(30.0, 3.0), 50).model_dump()
    assert seen[0]["wins"] == 30 and seen[0]["name"] == "A"
    assert not any(p["rating"]["provisional"] for p in seen)
    classic = client.get("/api/leaderboard", params={"variant": "classic"}).json()
    assert [p["id"] for p in classic["players"]] == ["g"] and classic["next"] is None

    for bad in ({"variant": "skat"}, {"limit": 0}, {"limit": 101}, {"cursor": "nope"},
                {"cursor": "WzEsMl0"}):
        answer = client.get("/api/leaderboard", params=bad)
        assert answer.status_code == 422, (bad, answer.text)
    assert client.get("/api/leaderboard", params={"cursor": "nope"}).json()[
        "detail"]["code"] == "bad_cursor"


def match_rows(match_id: str, player: str, seat: int, *, private: bool = False,
               bots: tuple[str, str, str] = ("easy", "hard", "hard"),
               at: datetime = T0) -> dict[type[models.Base], list[dict[str, Any]]]:
    """A match on (ended by :func:`finish`) of ``player`` in ``seat`` with three bots of
    ``bots``'s levels."""
    others = [s for s in range(4) if s != seat]
    return {
        models.Match: [{"id": match_id, "variant": "bulgarian", "options": {}, "meta": {},
                        "private": private, "started_at": at}],
        models.MatchSeat: [{"match_id": match_id, "seat": seat, "player_id": player,
                            "name": "ana", "kind": "human", "level": None, "started_at": at}] + [
            {"match_id": match_id, "seat": s, "player_id": None, "name": "Bot",
             "kind": "bot", "level": level, "started_at": at}
            for s, level in zip(others, bots, strict=True)],
    }


async def finish(url: str, winners: dict[str, int]) -> None:
    """End each match as the server does: won by ``winners[id]``, 151 to 80."""
    async with opened(url) as db:
        for match_id, winner in winners.items():
            await DatabaseStorage(db).repo.finish_match(match_id, MatchEnd(
                EndReason.WON, (151, 80) if winner == 0 else (80, 151), winner))


def test_a_profile_shows_ratings_history_bots_and_matches(
        client: TestClient, db_url: str) -> None:
    ana = sign_up(client, "ana")
    me = ana["id"]
    rows: dict[type[models.Base], list[dict[str, Any]]] = {
        models.Player: players(["rival"]), models.Match: [], models.MatchSeat: [],
        models.RatingChange: []}
    # Seat 0: a hard bot partners Ana (seat 2), easy and hard bots oppose her.
    for i in range(3):
        for model, values in match_rows(f"m{i}", me, 0, at=T0 + timedelta(hours=i)).items():
            rows[model] += values
    for model, values in match_rows("secret", me, 1, private=True,
                                    at=T0 + timedelta(hours=5)).items():
        rows[model] += values
    rows[models.PlayerRating] = [rating_row(me, "bulgarian", 29.0, 3.0, 40, 25),
                                 rating_row("rival", "bulgarian", 31.0, 3.0, 40, 30)]
    for i, mu in enumerate((24.0, 26.5, 29.0)):
        rows[models.RatingChange].append({
            "match_id": f"m{i}", "player_id": me, "variant": "bulgarian", "seat": 0,
            "mu_before": 25.0, "sigma_before": 8.0, "mu": mu, "sigma": 3.0,
            "value": ratings.display(ratings.Rating(mu, 3.0)), "matches": 38 + i,
            "at": T0 + timedelta(hours=i, minutes=20)})
    run(insert_rows(db_url, rows))
    run(finish(db_url, {"m0": 0, "m1": 1, "m2": 0, "secret": 1}))

    anyone = client.get(f"/api/players/{me}")
    assert anyone.status_code == 200, anyone.text
    page = anyone.json()
    assert (page["id"], page["name"], page["account"]) == (me, "ana", True)
    assert isinstance(page["since"], float)
    assert page["ratings"]["bulgarian"] == RatingView.of(
        ratings.Rating(29.0, 3.0), 40).model_dump()
    assert page["ratings"]["classic"] is None
    assert page["rank"] == {"bulgarian": 2, "classic": None, "coinche": None}
    assert [(h["match"], h["mu"]) for h in page["history"]["bulgarian"]] == [
        ("m0", 24.0), ("m1", 26.5), ("m2", 29.0)]
    assert page["history"]["classic"] == []
    bots = page["bots"]["bulgarian"]
    # m0, m1, m2: seat 0 with seats 1 (easy), 2 (hard: partner), 3 (hard); won m0, m2.
    assert bots["hard"] == {"with": {"played": 3, "won": 2}, "against": {"played": 3, "won": 2}}
    assert bots["easy"] == {"with": {"played": 0, "won": 0}, "against": {"played": 3, "won": 2}}
    assert bots["normal"]["with"]["played"] == 0 and set(page["bots"]) == {
        "bulgarian", "classic", "coinche"}
    assert [m["id"] for m in page["matches"]] == ["m2", "m1", "m0"]
    assert page["stats"]["by_variant"][0]["matches"] == 3

    own = client.get(f"/api/players/{me}", headers=auth(ana["token"])).json()
    assert [m["id"] for m in own["matches"]] == ["secret", "m2", "m1", "m0"]
    assert own["stats"]["by_variant"][0]["matches"] == 4
    assert own["bots"]["bulgarian"]["hard"]["with"] == {"played": 4, "won": 3}

    rival = client.get("/api/players/rival").json()
    assert rival["account"] is False and rival["rank"]["bulgarian"] == 1
    missing = client.get("/api/players/nobody")
    assert missing.status_code == 404
    assert missing.json()["detail"]["code"] == "player_not_found"
