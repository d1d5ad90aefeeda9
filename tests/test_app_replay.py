"""``GET /api/matches/{id}/replay``: the frames of logged matches against the engine that
played them, on both databases."""

from __future__ import annotations

from typing import Any

import httpx2
import pytest

from app.contracts import result_fields
from app.db.repository import Repository
from engine import Options, action_name, card_name
from engine.actions import ANNOUNCE, BID
from engine.cards import card_list

from .test_db_api import with_client
from .test_db_support import LiveMatch, pass_the_first_deal, play_logged, run
from .valat_match import VALAT_OPTIONS, VALAT_SEED, valat_policy

pytest_plugins = ["tests.test_db_support"]  # the database fixtures


async def get_replay(client: httpx2.AsyncClient, match_id: str) -> dict[str, Any]:
    response = await client.get(f"/api/matches/{match_id}/replay")
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def check_against_engine(frames: dict[str, Any], live: LiveMatch) -> None:
    """Every frame agrees with the live match, and the frames agree among themselves."""
    match = live.match
    assert len(frames["deals"]) == len(match.results)
    totals = [0, 0]
    for i, frame in enumerate(frames["deals"]):
        deal, result = match.deals[i], match.results[i]
        assert (frame["index"], frame["dealer"]) == (i, deal.dealer)
        assert frame["result"] == result_fields(result)  # with Coinche's value (null here)
        totals = [totals[t] + result.score[t] for t in (0, 1)]
        assert frame["totals"] == totals
        bids = [action_name(a) for s, a in deal.history if BID <= a < ANNOUNCE]
        assert [c["call"] for c in frame["auction"]] == bids
        if result.outcome == "redeal":
            assert frame["tricks"] == [] and all(len(h) == 5 for h in frame["hands"])
            continue
        hands = frame["hands"]
        assert hands == [[card_name(c) for c in card_list(m)] for m in deal.dealt]
        assert sorted(c for h in hands for c in h) == sorted(card_name(c) for c in range(32))
        tricks = frame["tricks"]
        assert [(t["leader"], t["cards"]) for t in tricks] == [
            (leader, [card_name(c) for c in cards]) for leader, cards in deal.tricks]
        played: dict[int, set[str]] = {s: set() for s in range(4)}
        for k, trick in enumerate(tricks):
            for j, card in enumerate(trick["cards"]):
                played[(trick["leader"] + j) % 4].add(card)
            if k + 1 < len(tricks):  # the winner leads the next trick
                assert tricks[k + 1]["leader"] == trick["winner"]
        assert played == {s: set(hands[s]) for s in range(4)}
        taken = [0, 0]
        for trick in tricks:
            taken[trick["winner"] % 2] += trick["points"]
        taken[tricks[-1]["winner"] % 2] += 10
        assert taken == list(result.card_points)
        scored = [0, 0]
        for a in frame["announcements"]:
            assert set(a["cards"]) <= set(hands[a["seat"]])
            scored[a["seat"] % 2] += a["value"] if a["scored"] else 0
        assert scored == list(result.declarations)
        assert [(b["seat"], b["card"][1]) for b in frame["belots"]] == [
            (seat, "CDHS"[suit]) for seat, suit in deal.belots]
        assert all(b["card"][0] in "KQ" for b in frame["belots"])
        if match.options.variant == "classic":
            assert frame["turned"] is not None and frame["turned"] in hands[result.bidder]
        else:
            assert frame["turned"] is None
    assert frames["totals"] == list(match.totals)
    assert frames["winner"] == match.winner
    targets = [frames["target_score"]] + [frame["target"] for frame in frames["deals"]]
    assert targets == sorted(targets) and targets[-1] == match.progress.target


@pytest.mark.parametrize(("variant", "seed"), [("bulgarian", 6), ("classic", 5)])
def test_frames_of_a_played_match_agree_with_the_engine(
    db_url: str, variant: str, seed: int
) -> None:
    async def body(client: httpx2.AsyncClient, repo: Repository) -> None:
        live = await play_logged(repo, "done", Options.make(variant), seed=seed)
        frames = await get_replay(client, "done")
        assert frames["winner"] is not None
        assert frames["target_score"] == live.match.options.target_score
        assert frames["table_direction"] == live.match.options.table_direction
        assert [s["name"] for s in frames["seats"]] == [s.name for s in live.seats]
        check_against_engine(frames, live)
        assert any(d["belots"] for d in frames["deals"])  # the seeds cover them
        if variant == "bulgarian":
            assert any(d["announcements"] for d in frames["deals"])

    run(with_client(db_url, body))


def test_an_unfinished_deal_is_left_out(db_url: str) -> None:
    async def body(client: httpx2.AsyncClient, repo: Repository) -> None:
        live = await play_logged(repo, "mid", Options.make("bulgarian"), seed=2, stop_after=60)
        finished = len(live.match.results)
        assert 0 < finished < len(live.match.deals)
        frames = await get_replay(client, "mid")
        check_against_engine(frames, live)
        assert frames["winner"] is None
        assert [d["index"] for d in frames["deals"]] == list(range(finished))  # no deal on

    run(with_client(db_url, body))


def test_a_thrown_in_deal_shows_its_auction_and_first_cards(db_url: str) -> None:
    async def body(client: httpx2.AsyncClient, repo: Repository) -> None:
        live = await play_logged(repo, "redeal", Options.make("classic"), seed=3,
                                 choose=pass_the_first_deal)
        frames = await get_replay(client, "redeal")
        first = frames["deals"][0]
        assert first["result"]["outcome"] == "redeal"
        assert [c["call"] for c in first["auction"]] == ["pass"] * 8  # classic: two rounds
        assert first["turned"] == card_name(live.match.deals[0].deck[20])
        check_against_engine(frames, live)

    run(with_client(db_url, body))


def test_a_valat_over_the_target_raises_it_from_that_deal_on(db_url: str) -> None:
    async def body(client: httpx2.AsyncClient, repo: Repository) -> None:
        live = await play_logged(repo, "valat", VALAT_OPTIONS, seed=VALAT_SEED,
                                 choose=valat_policy)
        frames = await get_replay(client, "valat")
        check_against_engine(frames, live)
        first, *rest = frames["deals"]
        assert first["result"]["valat"] == 0 and first["totals"] == [35, 0]
        assert frames["target_score"] == 30 and first["target"] == 36  # the leader + 1
        assert [d["target"] for d in rest] == [36] * len(rest)
        assert frames["winner"] == 0

    run(with_client(db_url, body))


def test_unknown_match_is_404(db_url: str) -> None:
    async def body(client: httpx2.AsyncClient, repo: Repository) -> None:
        response = await client.get("/api/matches/nope/replay")
        assert response.status_code == 404
        assert response.json()["detail"]["code"] == "match_not_found"

    run(with_client(db_url, body))

