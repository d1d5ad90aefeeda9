"""Rated tables (issue #15) on SQLite and PostgreSQL: who may sit, what seats show, and
the rating update at a match's end through the real table code: once per match, in the
transaction that ends it (a replayed end, a restart rate nothing again), bots fixed; a
forfeit and a departure a loss for the player who timed out or left, never for the
partner who stayed, and nothing at all before real play (issue #29)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from ai import Level
from app import integrity, ratings
from app.auth import Player
from app.bots import BotRunner
from app.db import accounts as store
from app.db import models
from app.db.ratings import RatingStore
from app.db.session import Database
from app.db.storage import DatabaseStorage
from app.matchlog import MatchEnd
from app.models import RatingView
from app.storage import MemoryStorage
from app.tables import (
    AddBot,
    Attach,
    Client,
    LeaveSeat,
    Lobby,
    PlayAction,
    SitDown,
    StartMatch,
    Table,
    TableConfig,
    TableError,
)
from app.tables.commands import LoadRatings
from app.vocabulary import EndReason
from engine import Options
from tests.actors import ANA, PATIENCE, first_message, next_message
from tests.conftest import app_settings
from tests.fake_clock import FakeClock
from tests.test_accounts import auth, make_client, refused, sign_up
from tests.test_db_support import run
from tests.waiting import eventually

pytest_plugins = ["tests.test_db_support"]

GUARD = 90  # seconds: a hang fails the test instead of blocking the suite
TURN = 60.0  # seconds, on the fake clock
QUICK = Options.make("bulgarian", target_score=1)  # over after the first deal that scores


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    with make_client(db_url) as test_client:
        yield test_client


# ------------------------------------------------------------------ REST: who may sit


def test_guests_are_refused_rated_tables(client: TestClient) -> None:
    guest = client.post("/api/guests", json={"name": "Gus"}).json()
    ana = sign_up(client, "ana")
    rated = {"name": "rated", "rated": True}
    refused(client.post("/api/tables", json=rated, headers=auth(guest["token"])),
            403, "account_required")
    refused(client.post("/api/tables", json=rated | {"private": True},
                        headers=auth(ana["token"])), 422, "rated_private")
    refused(client.post("/api/quickplay", json={"rated": True}, headers=auth(guest["token"])),
            403, "account_required")
    refused(client.post("/api/queue", json={"rated": True}, headers=auth(guest["token"])),
            403, "account_required")

    made = client.post("/api/tables", json=rated, headers=auth(ana["token"]))
    assert made.status_code == 201 and made.json()["rated"] is True
    table_id = made.json()["id"]
    refused(client.put(f"/api/tables/{table_id}/seats/1", headers=auth(guest["token"])),
            403, "account_required")
    seated = client.put(f"/api/tables/{table_id}/seats/0", headers=auth(ana["token"]))
    assert seated.status_code == 200, seated.text
    client.put(f"/api/tables/{table_id}/seats/1/bot", json={"level": "hard"},
               headers=auth(ana["token"]))
    seats = client.get(f"/api/tables/{table_id}").json()["seats"]
    new = RatingView.of(ratings.NEW, 0).model_dump()
    assert seats[0]["account"] is True and seats[0]["rating"] == new
    assert new["value"] == 500 and new["provisional"] is True
    assert seats[1]["rating"] == RatingView.of(ratings.bot_rating("bulgarian", "hard"),
                                               None).model_dump()
    assert seats[1]["rating"]["bot"] is True and seats[1]["rating"]["matches"] is None
    assert seats[2]["rating"] is None and seats[2]["account"] is False


def test_unrated_seats_show_accounts_and_their_ratings(client: TestClient) -> None:
    """A guest may be called like an account; the seat says which is the account."""
    ana = sign_up(client, "ana")
    guest = client.post("/api/guests", json={"name": "Ana"}).json()
    table_id = client.post("/api/tables", json={"name": "t", "variant": "classic"},
                           headers=auth(ana["token"])).json()["id"]
    client.put(f"/api/tables/{table_id}/seats/0", headers=auth(ana["token"]))
    client.put(f"/api/tables/{table_id}/seats/1", headers=auth(guest["token"]))
    info = client.get(f"/api/tables/{table_id}").json()
    assert info["rated"] is False
    first, second = info["seats"][:2]
    assert (first["name"], first["account"], second["name"], second["account"]) == (
        "ana", True, "Ana", False)
    assert first["rating"]["matches"] == 0 and second["rating"] is None
    listed = client.get("/api/tables").json()["tables"]
    assert [t["seats"][0]["account"] for t in listed if t["id"] == table_id] == [True]


def test_rated_queue_keeps_rated_players_apart(client: TestClient) -> None:
    ana, ivo = sign_up(client, "ana"), sign_up(client, "ivo")
    joined = client.post("/api/queue", json={"rated": True, "wait_seconds": 300},
                         headers=auth(ana["token"])).json()
    assert (joined["status"], joined["rated"], joined["players"]) == ("waiting", True, 1)
    other = client.post("/api/queue", json={"wait_seconds": 300},
                        headers=auth(ivo["token"])).json()
    assert (other["status"], other["rated"], other["players"]) == ("waiting", False, 1)


def test_an_account_quickplays_rated(client: TestClient) -> None:
    ana = sign_up(client, "ana")
    made = client.post("/api/quickplay", json={"rated": True, "level": "easy"},
                       headers=auth(ana["token"]))
    assert made.status_code == 201, made.text
    table = made.json()
    assert table["rated"] is True and table["status"] == "playing"
    assert table["seats"][0]["rating"]["matches"] == 0
    assert [s["rating"]["bot"] for s in table["seats"][1:]] == [True, True, True]


# ------------------------------------------------------------------ the update


async def account(db: Database, player_id: str, name: str) -> None:
    await store.create_account(db, player_id, name, name.lower(), "argon2-hash")


async def rated_rows(db: Database) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    r, h = models.PlayerRating, models.RatingChange
    async with db.read() as session:
        current = (await session.execute(
            select(r.player_id, r.variant, r.mu, r.sigma, r.matches, r.wins))).all()
        history = (await session.execute(
            select(h.match_id, h.player_id, h.seat, h.mu, h.sigma, h.matches))).all()
    return [tuple(row) for row in current], [tuple(row) for row in history]


async def play_out(table: Table, client: Client, seat: int = 0,
                   actions: int | None = None) -> None:
    """Play ``seat``'s turns (its first legal action) until the match is over, or until
    it has played ``actions`` of them and its turn comes again."""
    acted: set[int] = set()
    while table.status != "over":
        state = await next_message(client)
        if state.get("turn") == seat and state["view"]["legal_actions"] and (
                state["version"] not in acted):
            if actions is not None and len(acted) == actions:
                return
            version = state["version"]
            acted.add(version)
            await table.submit(PlayAction(client, f"a{version}", version,
                                          state["view"]["legal_actions"][0]))


async def rated_solo(lobby: Lobby, *, seat: int = 0, turn: float = 600.0,
                     forfeits: bool = False, options: Options = QUICK) -> tuple[Table, Client]:
    """Ana (an account) at a rated table with three easy bots, started, her socket there."""
    table = lobby.create(ANA, TableConfig("rated", options, turn, False, forfeits, rated=True))
    await table.submit(SitDown(ANA, seat))
    for other in {0, 1, 2, 3} - {seat}:
        await table.submit(AddBot(ANA, other, Level.EASY))
    client = Client(ANA, 10_000)
    await table.submit(Attach(client))
    await table.submit(StartMatch(ANA))
    return table, client


def in_lobby(db_url: str, scenario: Any, **settings: Any) -> None:
    """Run ``scenario(lobby, db, clock, bots)`` against a database-logged lobby."""
    async def main() -> None:
        db = Database(db_url)
        bots = BotRunner(app_settings().bots)
        await bots.start()
        try:
            await account(db, ANA.id, ANA.name)
            clock = FakeClock()
            lobby = Lobby(app_settings(**settings).tables, bots, DatabaseStorage(db), clock,
                          RatingStore(db))
            try:
                await scenario(lobby, db, clock, bots)
            finally:
                await lobby.stop()
        finally:
            await bots.close()
            await db.dispose()

    run(asyncio.wait_for(main(), GUARD))


def test_a_rated_match_against_bots_rates_the_account_once(db_url: str) -> None:
    async def scenario(lobby: Lobby, db: Database, clock: FakeClock, bots: BotRunner) -> None:
        table, client = await rated_solo(lobby)
        seat = table.info().seats[1].rating
        await play_out(table, client)
        event = await first_message(client, lambda m: (m.get("event") or {}).get("kind")
                                    == "ratings", "the ratings event")
        changes = event["event"]["changes"]
        assert [(c["seat"], c["player"]) for c in changes] == [(0, ANA.id)]
        before, after = changes[0]["before"], changes[0]["after"]
        assert before == RatingView.of(ratings.NEW, 0).model_dump()
        won = table.info().winner == 0
        assert (after["mu"] > before["mu"]) == won and after["sigma"] < before["sigma"]
        assert after["matches"] == 1
        info = table.info()
        assert [c.model_dump() for c in info.rating_changes or []] == changes
        assert info.seats[0].rating is not None and info.seats[0].rating.model_dump() == after
        assert info.seats[1].rating == seat  # a bot's rating never moves

        current, history = await rated_rows(db)
        assert [(p, v, n, w) for p, v, _, _, n, w in current] == [
            (ANA.id, "bulgarian", 1, int(won))]
        assert len(history) == 1

        # The end written again (a retry, a recovery's redo, another node): no change.
        end = MatchEnd(EndReason.WON, info.totals or (0, 0), info.winner)
        await DatabaseStorage(db).finish_match(table.id, end)
        assert await rated_rows(db) == (current, history)

        # A restart shows the match's changes and rates nothing again.
        await lobby.stop()
        again = Lobby(app_settings().tables, bots, DatabaseStorage(db), FakeClock(),
                      RatingStore(db))
        await again.restore()
        shown = again.get(table.id)
        await eventually(lambda: shown.info().rating_changes is not None, PATIENCE,
                         "the restored table's rating changes")
        assert [c.model_dump() for c in shown.info().rating_changes or []] == changes
        assert await rated_rows(db) == (current, history)
        await again.stop()

    in_lobby(db_url, scenario)


def test_a_rated_coinche_match_moves_the_coinche_rating_only(db_url: str) -> None:
    """Ratings are per variant: a Coinche match against Coinche's easy bots moves the
    account's Coinche rating, and no other."""
    async def scenario(lobby: Lobby, db: Database, clock: FakeClock, bots: BotRunner) -> None:
        table, client = await rated_solo(lobby, options=Options.make("coinche", target_score=1))
        assert table.info().seats[1].rating == RatingView.of(
            ratings.BOT_RATINGS["coinche"]["easy"], None)
        await play_out(table, client)
        await eventually(lambda: table.info().rating_changes is not None, PATIENCE,
                         "the Coinche match's rating changes")
        current, history = await rated_rows(db)
        won = table.info().winner == 0
        assert [(p, v, n, w) for p, v, _, _, n, w in current] == [
            (ANA.id, "coinche", 1, int(won))]
        assert len(history) == 1

    in_lobby(db_url, scenario)


def test_a_forfeit_is_a_loss_for_the_player_who_timed_out(db_url: str) -> None:
    async def scenario(lobby: Lobby, db: Database, clock: FakeClock, bots: BotRunner) -> None:
        table, client = await rated_solo(lobby, seat=1, turn=TURN, forfeits=True)
        await play_out(table, client, seat=1, actions=integrity.REAL_PLAY_ACTIONS)
        clock.advance(TURN)
        await eventually(lambda: table.info().rating_changes is not None, PATIENCE,
                         "the forfeit's rating changes")
        assert table.info().forfeit is not None
        change = (table.info().rating_changes or [])[0]
        assert change.seat == 1 and change.after.mu < change.before.mu
        current, _ = await rated_rows(db)
        assert [(n, w) for _, _, _, _, n, w in current] == [(1, 0)]

    in_lobby(db_url, scenario)


def test_a_forfeit_before_real_play_rates_nobody(db_url: str) -> None:
    """Ana's first turn times out: the match is over, and her rating as it was."""
    async def scenario(lobby: Lobby, db: Database, clock: FakeClock, bots: BotRunner) -> None:
        table, client = await rated_solo(lobby, seat=1, turn=TURN, forfeits=True)
        await first_message(client, lambda m: m.get("turn") == 1 and bool(
            m["view"]["legal_actions"]), "Ana's turn (seat 1)")
        clock.advance(TURN)
        await first_message(client, lambda m: (m.get("event") or {}).get("kind")
                            == "forfeit", "the forfeit")
        await table.submit(LoadRatings())  # after the one the end posted: nothing to read
        assert table.info().rating_changes is None
        current, history = await rated_rows(db)
        assert [(n, w) for _, _, _, _, n, w in current] == [(0, 0)] and history == []

    in_lobby(db_url, scenario)


def test_leaving_a_rated_match_loses_it(db_url: str) -> None:
    """The only human leaves once she has really played: the table closes, abandoned, a
    loss for her; had she left before that, nothing."""
    async def scenario(lobby: Lobby, db: Database, clock: FakeClock, bots: BotRunner) -> None:
        early, _ = await rated_solo(lobby, seat=2)
        await early.submit(LeaveSeat(ANA, 2))
        await eventually(lambda: early.status == "closed", PATIENCE, "the table to close")
        assert await rated_rows(db) == ([(ANA.id, "bulgarian", ratings.NEW.mu,
                                          ratings.NEW.sigma, 0, 0)], [])

        table, client = await rated_solo(lobby, seat=2)
        await play_out(table, client, seat=2, actions=integrity.REAL_PLAY_ACTIONS)
        await table.submit(LeaveSeat(ANA, 2))
        await eventually(lambda: table.status == "closed", PATIENCE, "the table to close")
        current, history = await rated_rows(db)
        assert [(n, w) for _, _, _, _, n, w in current] == [(1, 0)]
        assert [(seat, mu < ratings.NEW.mu) for _, _, seat, mu, _, _ in history] == [(2, True)]

    in_lobby(db_url, scenario)


IVO = Player("p-ivo", "Ivo")


def test_the_partner_who_stayed_keeps_their_rating(db_url: str) -> None:
    """Ana leaves mid-match; Ivo, her partner, plays it out beside the bot that took her
    seat: she takes the loss, his rating stays as it was, whoever wins."""
    async def scenario(lobby: Lobby, db: Database, clock: FakeClock, bots: BotRunner) -> None:
        await account(db, IVO.id, IVO.name)
        table = lobby.create(ANA, TableConfig("rated", QUICK, 600, False, False, rated=True))
        await table.submit(SitDown(ANA, 0))
        await table.submit(SitDown(IVO, 2))
        for seat in (1, 3):
            await table.submit(AddBot(ANA, seat, Level.EASY))
        ana, ivo = Client(ANA, 10_000), Client(IVO, 10_000)
        for client in (ana, ivo):
            await table.submit(Attach(client))
        await table.submit(StartMatch(ANA))

        async def ana_leaves() -> None:
            await play_out(table, ana, seat=0, actions=integrity.REAL_PLAY_ACTIONS)
            await table.submit(LeaveSeat(ANA, 0))

        await asyncio.gather(ana_leaves(), play_out(table, ivo, seat=2))
        await eventually(lambda: table.info().rating_changes is not None, PATIENCE,
                         "the match's rating changes")
        changes = table.info().rating_changes or []
        assert [(c.seat, c.after.mu < c.before.mu) for c in changes] == [(0, True)]
        current, _ = await rated_rows(db)
        assert sorted((p, n, w) for p, _, _, _, n, w in current) == [
            (ANA.id, 1, 0), (IVO.id, 0, 0)]

    in_lobby(db_url, scenario)


def test_a_guest_cannot_sit_at_a_rated_table_in_process(db_url: str) -> None:
    async def scenario(lobby: Lobby, db: Database, clock: FakeClock, bots: BotRunner) -> None:
        table = lobby.create(ANA, TableConfig("rated", QUICK, 60, False, False, rated=True))
        guest = ANA.__class__("p-guest", "Gus")
        with pytest.raises(TableError) as refusal:
            await table.submit(SitDown(guest, 1))
        assert refusal.value.code == "account_required"
        await table.submit(SitDown(ANA, 0))  # the account sits

    in_lobby(db_url, scenario)


def test_memory_storage_keeps_tables_unrated_but_working() -> None:
    """Without a ratings store (a lobby of the unit tests), unrated tables work as before
    and a rated table refuses to seat anyone it cannot check (503)."""
    async def main() -> None:
        bots = BotRunner(app_settings().bots)
        lobby = Lobby(app_settings().tables, bots, MemoryStorage())
        try:
            plain = lobby.create(ANA, TableConfig("t", QUICK, 60, False, False))
            await plain.submit(SitDown(ANA, 0))
            assert plain.info().seats[0].rating is None
            rated = lobby.create(ANA, TableConfig("r", QUICK, 60, False, False, rated=True))
            with pytest.raises(TableError) as refusal:
                await rated.submit(SitDown(ANA, 0))
            assert refusal.value.code.status == 503
        finally:
            await lobby.stop()

    run(main())
