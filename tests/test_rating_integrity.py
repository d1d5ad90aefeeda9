"""Ratings that cannot be farmed (issue #29, docs/ratings.md "Integrity"): the rules of
app/integrity.py, then the same at a match's end on SQLite and PostgreSQL (repeated
matches damped, walkovers counted and the operator's ``python -m app.admin flagged``),
and the farming of the issue against a real server: a second account that never acts
at a rated table of one-second turns."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx2
import pytest
from sqlalchemy import insert, select

from ai import Level
from app import integrity, ratings
from app.db import accounts as store
from app.db import models
from app.db.repository import Repository
from app.db.session import Database
from app.db.storage import MATCH_END
from app.integrity import Verdict
from app.matchlog import MatchEnd, MatchMeta, Owner, Seat, TableMeta
from app.models import Forfeit, RatingView
from app.ratings import NEW, Rating
from app.vocabulary import Actor, EndReason, SeatKind
from tests.test_db_support import opened, run
from tests.test_recovery import LAST_RESORT, ROOT, Server, guarded, join, running, states

pytest_plugins = ["tests.test_db_support"]

STRONG, WEAK, MIDDLE = Rating(30.0, 2.0), Rating(20.0, 2.0), Rating(26.0, 4.5)
T0 = datetime(2026, 12, 1, tzinfo=UTC)
GUARD = 60  # seconds: a hang fails the test instead of blocking the suite


# ------------------------------------------------------------------ the rules


def sides(verdict: Verdict) -> tuple[set[int], set[int]]:
    """The seats that take a loss, and those that take a win."""
    return set(verdict.losing), set(verdict.winning)


def test_the_verdict_blames_the_first_to_quit() -> None:
    played = integrity.verdict(EndReason.WON, 0, [], None)
    assert played == Verdict(1) and not played.walkover
    assert sides(played) == ({1, 3}, {0, 2})
    timed_out = integrity.verdict(EndReason.FORFEIT, 0, [], 3)
    assert timed_out == Verdict(1, (3,)) and timed_out.walkover
    assert sides(timed_out) == ({3}, {0, 2})  # seat 1 stayed: kept
    # Seat 2 left, its bot and partner went on and won: team 0 lost when seat 2 left.
    left = integrity.verdict(EndReason.WON, 0, [2], None)
    assert left == Verdict(0, (2,)) and sides(left) == ({2}, {1, 3})
    # Players of both teams left: the first one's team lost, every leaver takes a loss.
    both = integrity.verdict(EndReason.ABANDONED, None, [1, 0, 3], None)
    assert both == Verdict(1, (1, 0, 3)) and sides(both) == ({0, 1, 3}, {2})
    after_leaving = integrity.verdict(EndReason.FORFEIT, 1, [1], 0)
    assert after_leaving == Verdict(1, (1, 0))
    assert integrity.verdict(EndReason.ABANDONED, None, [], None) is None


def test_a_loss_is_the_blamed_players_alone() -> None:
    teams = ((MIDDLE, STRONG), (WEAK, NEW))  # seats 0 and 2, then 1 and 3
    left = integrity.settle(teams, Verdict(1, (3,)), range(4))
    beaten = ratings.rate(teams, winner=0)
    assert left == {3: beaten[1][1], 0: beaten[0][0], 2: beaten[0][1]}  # seat 1 kept
    both = integrity.settle(teams, Verdict(1, (1, 0)), range(4))
    assert both[1] == beaten[1][0] and both[2] == beaten[0][1]
    assert both[0] == ratings.rate(teams, winner=1)[0][0]  # a loss for the later leaver too
    bot = ratings.bot_rating("bulgarian", "hard")
    with_bot = integrity.settle(((NEW, bot), (WEAK, bot)), Verdict(1), range(4), 0.5)
    assert with_bot[2] == bot and with_bot[3] == bot


def test_real_play_decides_who_is_rated_and_never_spares_a_loser() -> None:
    enough = integrity.REAL_PLAY_ACTIONS
    def rated(verdict: Verdict, humans: set[int], acts: dict[int, int]) -> frozenset[int]:
        return integrity.rated_seats(verdict, humans, acts, first_deal=False)

    timed_out = Verdict(1, (1,))  # seat 1 timed out; seats 0 and 2 win
    assert rated(timed_out, {0, 1, 3}, {0: enough, 1: enough}) == {0, 1}  # 3 kept
    # The loser who never reached real play still loses; the winners gain nothing.
    assert rated(timed_out, {0, 1}, {0: enough, 1: enough - 1}) == {1}
    # The winner idled: nobody loses to it, and it gains nothing.
    assert rated(timed_out, {0, 1}, {1: enough}) == frozenset()
    # A match played out (Verdict names the losing team): seat 1, holding back its eighth
    # action until it is sure to win, gains nothing when it wins and loses when it loses.
    assert rated(Verdict(0), {0, 1}, {0: enough, 1: enough - 1}) == frozenset()
    assert rated(Verdict(1), {0, 1}, {0: enough, 1: enough - 1}) == {1}
    # Partners: only the winner who played gains; the losers, beaten by a side whose
    # seat 2 let the timer play, lose nothing.
    assert rated(Verdict(1), {0, 1, 2, 3}, {0: enough, 1: enough, 3: enough}) == {0}
    assert rated(Verdict(1), {0}, {0: enough}) == {0}  # against bots
    assert rated(Verdict(1), set(), {}) == frozenset()  # bots alone
    # In the first deal, a match not yet played by all is an abort; played, it counts.
    for acts, seats in (({0: enough, 1: enough - 1}, set()), ({0: enough, 1: enough}, {0, 1})):
        assert integrity.rated_seats(Verdict(0), {0, 1}, acts, first_deal=True) == seats


def test_repeated_matches_are_damped_then_not_rated() -> None:
    assert [integrity.repeat_factor(n) for n in range(8)] == [
        1, 1, 1, 0.5, 0.25, 0.125, 0, 0]
    after = ratings.rate(((NEW, NEW), (NEW, NEW)), winner=0)[0][0]
    half = integrity.damped(NEW, after, 0.5)
    assert half.mu == pytest.approx((NEW.mu + after.mu) / 2)
    assert half.sigma == pytest.approx((NEW.sigma + after.sigma) / 2)
    assert integrity.damped(NEW, after, 0) == NEW and integrity.damped(NEW, after, 1) == after


def test_the_flag_wants_mostly_walkovers_over_enough_of_them() -> None:
    least = integrity.FLAG_MIN_FORFEIT_WINS
    assert integrity.flagged(least, least) and integrity.flagged(least, 2 * least - 1)
    assert not integrity.flagged(least, 2 * least)  # half: not mostly
    assert not integrity.flagged(least - 1, least - 1)  # too few to mean anything


# ------------------------------------------------------------------ at a match's end

FARMER, ALT, OTHER = "p-farmer", "p-alt", "p-other"


async def accounts(db: Database, *ids: str) -> None:
    for player in ids:
        await store.create_account(db, player, player[2:], player[2:], "argon2-hash")


async def rated_match(db: Database, match_id: str, people: dict[int, str], end: MatchEnd,
                      at: datetime, *, acts: Sequence[int] = (), left: Sequence[int] = ()
                      ) -> None:
    """A rated match of ``people`` (seat: account) and easy bots, ended at ``at``: each
    seat in ``acts`` chose REAL_PLAY_ACTIONS actions itself, the others' were the timer's
    or a bot's; ``left``: the seats whose player left during it."""
    repo = Repository(db, MATCH_END)
    seats = [Seat(SeatKind.HUMAN, people[s][2:], people[s]) if s in people
             else Seat(SeatKind.BOT, "Bot", level=Level.EASY) for s in range(4)]
    meta = MatchMeta(variant="bulgarian", seed=1, seats=seats, version=1,
                     table=TableMeta(name="t", turn_seconds=30, private=False,
                                     timeout_forfeits=True, rated=True),
                     owner=Owner(id=people[min(people)], name="owner"), left=list(left))
    await repo.create_match(match_id, "bulgarian", {}, seats, meta=meta, started_at=at)
    actions = [{"match_id": match_id, "deal_idx": 0, "seq": seq, "seat": seat, "action": 0,
                "actor": Actor.PLAYER if seat in acts else Actor.TIMEOUT, "version": seq,
                "at": at}
               for seq, seat in enumerate(s for _ in range(integrity.REAL_PLAY_ACTIONS)
                                          for s in range(4))]
    async with db.write() as conn:
        await conn.execute(insert(models.Deal), [  # past the first deal: no abort
            {"match_id": match_id, "idx": idx, "dealer": idx, "deck": "", "started_at": at}
            for idx in range(2)])
        await conn.execute(insert(models.Action), actions)
    await repo.finish_match(match_id, end, at=at)


WON = MatchEnd(EndReason.WON, (151, 80), 0)
ALT_TIMED_OUT = MatchEnd(EndReason.FORFEIT, (0, 0), 0, Forfeit(seat=1, winner=0))


async def history(db: Database, player: str) -> list[tuple[Rating, Rating]]:
    """The player's ratings before and after each rated match, oldest first."""
    h = models.RatingChange
    async with db.read() as session:
        rows = await session.execute(select(h.mu_before, h.sigma_before, h.mu, h.sigma)
                                     .where(h.player_id == player).order_by(h.at))
        return [(Rating(mb, sb), Rating(mu, sigma)) for mb, sb, mu, sigma in rows]


async def rating_row(db: Database, player: str) -> tuple[Any, ...] | None:
    r = models.PlayerRating
    async with db.read() as session:
        row = (await session.execute(select(r.mu, r.sigma, r.matches, r.wins, r.table_wins,
                                            r.forfeit_wins).where(r.player_id == player))
               ).first()
        return None if row is None else tuple(row)


def test_repeated_matches_between_the_same_accounts_move_ratings_less(db_url: str) -> None:
    """The farmer beats the same account seven times in a day (each played, by both):
    the first three count fully, the next three a half, a quarter and an eighth, the
    seventh not at all (nor as a rated match, though as a win at a rated table for the
    operator's flag); a day later they count fully again."""
    easy = ratings.bot_rating("bulgarian", "easy")

    async def main() -> None:
        async with opened(db_url) as db:
            await accounts(db, FARMER, ALT)
            times = [T0 + timedelta(minutes=10 * n) for n in range(7)] + [
                T0 + timedelta(hours=25)]
            for n, at in enumerate(times):
                await rated_match(db, f"m{n}", {0: FARMER, 1: ALT}, WON, at, acts=(0, 1))
            rows = await history(db, FARMER)
            alt = await history(db, ALT)
            assert len(rows) == len(alt) == 7  # the seventh rated nobody
            moved = []
            for (before, after), (alt_before, _) in zip(rows, alt, strict=True):
                full = ratings.rate(((before, easy), (alt_before, easy)), winner=0)[0][0]
                moved.append((after.mu - before.mu) / (full.mu - before.mu))
            assert moved == pytest.approx([1, 1, 1, 0.5, 0.25, 0.125, 1])
            assert await rating_row(db, FARMER) == (rows[-1][1].mu, rows[-1][1].sigma,
                                                    7, 7, 8, 0)

    run(main())


def test_a_walkover_before_real_play_costs_the_loser_and_gives_nothing(db_url: str) -> None:
    """The second account never acts and loses on time: it takes the loss, the farmer
    gains nothing, and the walkover is not counted as the farmer's win."""
    async def main() -> None:
        async with opened(db_url) as db:
            await accounts(db, FARMER, ALT)
            await rated_match(db, "m", {0: FARMER, 1: ALT}, ALT_TIMED_OUT, T0, acts=(0,))
            assert await history(db, FARMER) == []
            (before, after), = await history(db, ALT)
            assert before == NEW and after.mu < NEW.mu
            assert await rating_row(db, FARMER) == (NEW.mu, NEW.sigma, 0, 0, 0, 0)
            assert await rating_row(db, ALT) == (after.mu, after.sigma, 1, 0, 0, 0)

    run(main())


def test_leaving_costs_the_leaver_never_the_partner_who_stayed(db_url: str) -> None:
    """The alt's partner (seat 3) stays after the alt (seat 1) leaves, and their team
    goes on to win: the alt loses, the partner keeps their rating, the farmer wins."""
    async def main() -> None:
        async with opened(db_url) as db:
            await accounts(db, FARMER, ALT, OTHER)
            end = MatchEnd(EndReason.WON, (80, 151), 1)
            await rated_match(db, "m", {0: FARMER, 1: ALT, 3: OTHER}, end, T0,
                              acts=(0, 1, 3), left=(1,))
            assert await history(db, OTHER) == []
            assert await rating_row(db, OTHER) == (NEW.mu, NEW.sigma, 0, 0, 0, 0)
            (_, alt), = await history(db, ALT)
            (_, farmer), = await history(db, FARMER)
            assert alt.mu < NEW.mu < farmer.mu
            assert await rating_row(db, FARMER) == (farmer.mu, farmer.sigma, 1, 1, 1, 1)

    run(main())


def admin(database_url: str, *args: str) -> list[list[str]]:
    """``python -m app.admin ARGS`` against the database: its rows, header first."""
    done = subprocess.run([sys.executable, "-m", "app.admin", *args],
                          env=os.environ | {"PYTHONPATH": str(ROOT),
                                            "DATABASE_URL": database_url},
                          capture_output=True, text=True, timeout=GUARD, check=False)
    assert done.returncode == 0, done.stderr
    return [line.split("\t") for line in done.stdout.splitlines()]


def test_the_operator_lists_accounts_whose_wins_are_mostly_walkovers(
        db_url: str, tmp_path: Path) -> None:
    """The farmer wins ten times by the forfeit of an alt that played a deal first (the
    first six rated, less and less, the rest not); the other account wins ten such and
    eleven played ones; walkovers by an alt that never acted count for nobody: only the
    farmer is listed."""
    async def main() -> None:
        async with opened(db_url) as db:
            await accounts(db, FARMER, ALT, OTHER)
            for n in range(integrity.FLAG_MIN_FORFEIT_WINS):
                at = T0 + timedelta(minutes=n)
                await rated_match(db, f"f{n}", {0: FARMER, 1: ALT}, ALT_TIMED_OUT, at,
                                  acts=(0, 1))
                await rated_match(db, f"o{n}", {0: OTHER, 1: ALT}, ALT_TIMED_OUT, at,
                                  acts=(0, 1))
                await rated_match(db, f"v{n}", {0: OTHER, 1: ALT}, ALT_TIMED_OUT, at,
                                  acts=(0,))
            for n in range(integrity.FLAG_MIN_FORFEIT_WINS + 1):
                await rated_match(db, f"w{n}", {0: OTHER}, WON, T0, acts=(0,))

    run(main())
    header, *rows = admin(db_url, "flagged")
    assert header == ["player", "name", "variant", "forfeit_wins", "wins", "rated_matches",
                      "rating"]
    (farmer, *others), = [rows]
    assert farmer[:6] == [FARMER, "farmer", "bulgarian", "10", "10", "6"] and not others
    assert admin(db_url, "flagged", "--variant", "classic") == [header]


# ------------------------------------------------------------------ the farming, served

FLOOR = 2  # seconds: the served rated floor, low so that the alt's forfeit comes quickly


async def signed_up(http: httpx2.AsyncClient, username: str) -> tuple[str, dict[str, str]]:
    """A new account's id and the headers that authenticate it."""
    made = await http.post("/api/accounts", json={"username": username,
                                                  "password": "correct horse battery"})
    assert made.status_code == 201, made.text
    return made.json()["id"], {"Authorization": f"Bearer {made.json()['token']}"}


async def turn_of(http: httpx2.AsyncClient, table: dict[str, Any],
                  headers: dict[str, str]) -> float:
    """A rated table made for the caller (Play now, the queue): its turn; left at once."""
    seconds: float = table["turn_seconds"]
    left = await http.delete(f"/api/tables/{table['id']}/seats/0", headers=headers)
    assert left.status_code == 200, left.text
    return seconds


@pytest.mark.processes
@pytest.mark.timeout(guarded(1) + LAST_RESORT)
def test_a_second_account_that_never_acts_farms_nothing(db_url: str, tmp_path: Path) -> None:
    """Issue #29's farming on a real server whose default turn is one second: a rated
    table of one-second turns is refused, Play now and the queue give rated tables the
    floor instead, and at the floor the alt's forfeit before it ever acts moves no rating."""
    server = Server(db_url, tmp_path)
    server.env |= {"DEFAULT_TURN_SECONDS": "1", "RATED_MIN_TURN_SECONDS": str(FLOOR)}

    async def main() -> None:
        async with running(server), httpx2.AsyncClient(base_url=server.http) as http:
            farmer, mine = await signed_up(http, "farmer")
            alt, theirs = await signed_up(http, "alt")
            farm = {"name": "farm", "rated": True, "timeout_forfeits": True}
            short = await http.post("/api/tables", json=farm | {"turn_seconds": 1},
                                    headers=mine)
            assert short.status_code == 422, short.text
            assert short.json()["detail"]["code"] == "rated_turn_too_short"

            quick = await http.post("/api/quickplay", json={"rated": True}, headers=mine)
            assert quick.status_code == 201, quick.text
            assert await turn_of(http, quick.json(), mine) == FLOOR
            queued = await http.post("/api/queue", json={"rated": True, "wait_seconds": 0},
                                     headers=theirs)
            assert queued.json()["status"] == "seated", queued.text
            table = (await http.get(f"/api/tables/{queued.json()['table_id']}")).json()
            assert await turn_of(http, table, theirs) == FLOOR

            made = await http.post("/api/tables", json=farm | {"turn_seconds": FLOOR},
                                   headers=mine)
            assert made.status_code == 201, made.text
            table_id = made.json()["id"]
            for path, headers in (("seats/0", mine), ("seats/1", theirs),
                                  ("seats/2/bot", mine), ("seats/3/bot", mine)):
                done = await http.put(f"/api/tables/{table_id}/{path}", headers=headers,
                                      json={"level": "easy"} if "bot" in path else None)
                assert done.status_code == 200, done.text
            assert (await http.post(f"/api/tables/{table_id}/start", headers=mine)
                    ).status_code == 200
            farmer_ws = await join(server, table_id, mine["Authorization"][7:])
            alt_ws = await join(server, table_id, theirs["Authorization"][7:])  # never acts
            acted = -1
            async for state in states(farmer_ws):
                if state["table"]["status"] == "over":
                    break
                version, legal = state["version"], state["view"]["legal_actions"]
                if state["turn"] == 0 and legal and version != acted:
                    acted = version
                    await farmer_ws.send(json.dumps({"type": "action", "id": f"a{version}",
                                                     "version": version, "action": legal[0]}))
            await asyncio.gather(farmer_ws.close(), alt_ws.close())
            over = (await http.get(f"/api/tables/{table_id}")).json()
            assert over["forfeit"] == {"seat": 1, "winner": 0}
            assert over["rating_changes"] is None
            unrated = RatingView.of(NEW, 0).model_dump()
            for player in (farmer, alt):
                profile = (await http.get(f"/api/players/{player}")).json()
                assert profile["ratings"]["bulgarian"] in (None, unrated), profile
                assert profile["history"]["bulgarian"] == []

    # The server's start counted apart: 60 s for it all failed a loaded run at the stop.
    asyncio.run(asyncio.wait_for(main(), guarded(1)))
