"""Coinche at the table server (issue #31): its flags and presets served and taken by a
table, its bids told as COINCHE.md §10 writes them (the view's contract with its value and
multiplier, each deal's result), a coinche out of turn taken from a seat that is not to
move when the table's flags allow it and refused otherwise, no seat told another's cards,
and a deal's bid stored (migration 0013) and read back in the match's history."""

from __future__ import annotations

import asyncio
import json
import random
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app import ratings
from app.auth import Player
from app.bots import BotRunner
from app.db import models
from app.db.migrate import upgrade
from app.db.queries import get_match
from app.db.repository import Repository
from app.db.session import Database
from app.db.storage import DatabaseStorage
from app.replays import trick_out
from app.storage import MemoryStorage, Storage
from app.tables import Attach, Client, Lobby, PlayAction, SitDown, StartMatch, Table, TableConfig
from engine import Match, Options, parse_action
from engine.cards import card_list, card_name
from tests.actors import ANA
from tests.conftest import Rest, app_settings
from tests.test_accounts import auth, make_client, sign_up
from tests.test_analysis_api import app_client, wait_done
from tests.test_db_support import opened, play_logged, run

pytest_plugins = ["tests.test_db_support"]

GUARD = 90  # seconds: a hang fails the test instead of blocking the suite
PLAYERS = (ANA, Player("p-ivo", "Ivo"), Player("p-eva", "Eva"), Player("p-teo", "Teo"))
PRESETS = ["default", "ffb_contree", "ffb_coinche", "pagat", "bga_coinche", "colver",
           "club_simple"]


# ------------------------------------------------------------------ REST: flags and presets

def test_variants_list_coinche_with_its_presets(client: TestClient) -> None:
    flags = client.get("/api/variants").json()["coinche"]
    assert flags["preset"] == {"default": "default", "values": PRESETS}
    assert flags["target_score"]["default"] == 1000
    assert flags["coinche_timing"] == {"default": "in_turn", "values": ["in_turn", "any_time"]}
    presets = client.get("/api/variants/presets").json()
    assert presets["bulgarian"] == {} and list(presets["coinche"]) == PRESETS
    assert presets["coinche"]["default"] == {}
    assert presets["coinche"]["ffb_contree"] == {
        "target_score": 2000, "undertrump_on_opponent_ruff": "optional",
        "partner_ruff_no_undertrump": False, "belote_on_failure": "to_winner"}


def test_a_table_takes_a_preset_and_a_flag_over_it(client: TestClient, rest: Rest) -> None:
    ana = rest.guest("Ana")
    body = {"name": "Contrée", "variant": "coinche",
            "options": {"preset": "ffb_contree", "target_score": 3000}}
    created = client.post("/api/tables", json=body, headers=rest.auth(ana))
    assert created.status_code == 201, created.text
    options = created.json()["options"]
    assert options["preset"] == "ffb_contree" and options["target_score"] == 3000
    assert options["belote_on_failure"] == "to_winner"  # from the preset
    for bad in [{"preset": "belote_com"}, {"coinche_timing": "sometimes"},
                {"litige": "carry"}, {"generale_value": 700}, {"target_score": 10001}]:
        refused = client.post("/api/tables", json=body | {"options": bad},
                              headers=rest.auth(ana))
        assert refused.status_code == 422, bad
        assert refused.json()["detail"]["code"] == "bad_options"


def test_every_bot_level_has_a_coinche_rating() -> None:
    levels = ratings.BOT_RATINGS["coinche"]
    assert levels["easy"].mu < levels["normal"].mu < levels["hard"].mu
    assert all(rating.bot for rating in levels.values())


def test_play_now_rated_and_the_queue_seat_coinche(db_url: str) -> None:
    with make_client(db_url) as client:
        ana, ivo = sign_up(client, "ana"), sign_up(client, "ivo")
        made = client.post("/api/quickplay", json={"variant": "coinche", "rated": True,
                                                   "level": "hard"},
                           headers=auth(ana["token"]))
        assert made.status_code == 201, made.text
        table = made.json()
        assert (table["variant"], table["rated"], table["status"]) == ("coinche", True, "playing")
        hard = ratings.BOT_RATINGS["coinche"]["hard"]
        assert [s["rating"]["mu"] for s in table["seats"][1:]] == [hard.mu] * 3
        queued = client.post("/api/queue", json={"variant": "coinche", "rated": True},
                             headers=auth(ivo["token"]))
        assert queued.status_code == 200, queued.text
        assert queued.json()["variant"] == "coinche" and queued.json()["status"] == "waiting"


# ------------------------------------------------------------------ a table of four people

@dataclass
class Seated:
    """A person at the table: their socket's stand-in, the newest state it was sent and
    the answers (acks, errors) to their actions."""

    client: Client
    last: dict[str, Any] = field(default_factory=dict)
    answers: list[dict[str, Any]] = field(default_factory=list)

    def read(self) -> None:
        """Take what the table sent (all of it is queued by the time a submitted command
        returns)."""
        while not self.client.outbox.empty():
            sent = self.client.outbox.get_nowait()
            assert isinstance(sent, str), sent
            message = json.loads(sent)
            if message["type"] in ("snapshot", "event"):
                self.last = message
            else:
                self.answers.append(message)

    @property
    def view(self) -> dict[str, Any]:
        view: dict[str, Any] = self.last["view"]
        return view


async def four_people(lobby: Lobby, options: Options) -> tuple[Table, list[Seated]]:
    """A started table of four people, each attached."""
    table = lobby.create(ANA, TableConfig("coinche", options, 600, False, False))
    seated = []
    for seat, player in enumerate(PLAYERS):
        await table.submit(SitDown(player, seat))
        client = Client(player, 10_000)
        await table.submit(Attach(client))
        seated.append(Seated(client))
    await table.submit(StartMatch(ANA))
    for person in seated:
        person.read()
    return table, seated


async def send(table: Table, people: list[Seated], seat: int, action: str) -> dict[str, Any]:
    """``seat`` sends ``action`` from the newest version; its answer.  Everyone's newest
    state is read meanwhile."""
    await table.submit(PlayAction(people[seat].client, f"a{table.version}", table.version,
                                  action))
    for person in people:
        person.read()
    return people[seat].answers[-1]


async def in_lobby(scenario: Callable[[Lobby], Awaitable[None]], storage: Storage) -> None:
    bots = BotRunner(app_settings().bots)
    await bots.start()
    lobby = Lobby(app_settings().tables, bots, storage)
    try:
        await scenario(lobby)
    finally:
        await lobby.stop()
        await bots.close()


def in_memory(scenario: Callable[[Lobby], Awaitable[None]]) -> None:
    asyncio.run(asyncio.wait_for(in_lobby(scenario, MemoryStorage()), GUARD))


def held(table: Table, seat: int) -> set[str]:
    assert table.match is not None and table.match.deal is not None
    return {card_name(c) for c in card_list(table.match.deal.hands[seat])}


def test_a_coinche_out_of_turn_is_taken_from_an_opponent_who_is_not_to_move() -> None:
    async def scenario(lobby: Lobby) -> None:
        table, people = await four_people(
            lobby, Options.make("coinche", coinche_timing="any_time"))
        assert table.match is not None
        bidder = table.match.current_player()
        assert bidder is not None
        assert (await send(table, people, bidder, "80H"))["type"] == "ack"
        eldest, partner, far = (bidder + 1) % 4, (bidder + 2) % 4, (bidder + 3) % 4
        view = people[far].view
        assert people[far].last["turn"] == eldest
        assert view["contract"] == "80H" and view["value"] == 80
        assert view["multiplier"] == 1 and view["declarer"] == bidder
        assert view["legal_actions"] == ["coinche"]  # not its turn, yet it may
        assert people[partner].view["legal_actions"] == []
        assert people[bidder].view["legal_actions"] == []
        for seat, person in enumerate(people):  # each seat its own eight cards, no other's
            assert set(person.view["hand"]) == held(table, seat)
            assert len(person.view["hand"]) == 8

        refused = await send(table, people, partner, "coinche")  # a partner of the bid
        assert refused["type"] == "error" and refused["code"] == "not_your_turn"
        assert (await send(table, people, far, "coinche"))["type"] == "ack"
        after = people[bidder].last
        assert after["view"]["multiplier"] == 2 and after["view"]["contract"] == "80H"
        assert after["turn"] == bidder  # the seat after the coincher: eldest lost its turn
        assert after["event"]["seat"] == far and after["event"]["action"] == "coinche"
        assert "surcoinche" in after["view"]["legal_actions"]
        assert people[far].view["legal_actions"] == []

    in_memory(scenario)


def test_in_turn_only_nobody_else_may_coinche() -> None:
    async def scenario(lobby: Lobby) -> None:
        table, people = await four_people(lobby, Options.make("coinche"))
        assert table.match is not None
        bidder = table.match.current_player()
        assert bidder is not None
        await send(table, people, bidder, "80H")
        far = (bidder + 3) % 4
        assert people[far].view["legal_actions"] == []
        refused = await send(table, people, far, "coinche")
        assert refused["type"] == "error" and refused["code"] == "not_your_turn"

    in_memory(scenario)


async def play_a_deal(table: Table, people: list[Seated]) -> None:
    """The seat to move bids 90 in spades if it may, else passes, then plays its first
    legal card, until the first deal is scored."""
    assert table.match is not None
    while not table.match.results:
        seat = table.match.current_player()
        assert seat is not None
        legal = people[seat].view["legal_actions"]
        action = "90S" if "90S" in legal else "pass" if "pass" in legal else legal[0]
        assert (await send(table, people, seat, action))["type"] == "ack"


def test_a_deal_s_bid_is_stored_and_read_back_with_its_value(db_url: str) -> None:
    async def main() -> None:
        db = Database(db_url)
        try:
            await in_lobby(scenario, DatabaseStorage(db))
            async with db.read() as session:
                row = (await session.scalars(select(models.Deal).where(
                    models.Deal.match_id == played[0], models.Deal.idx == 0))).one()
                detail = await get_match(session, played[0])
        finally:
            await db.dispose()
        assert (row.value, row.contract, row.multiplier) == (90, 3, 1)  # spades
        assert detail is not None and detail.options["preset"] == "pagat"
        assert detail.deals[0].contract == "90S" and detail.deals[0].value == 90

    played: list[str] = []

    async def scenario(lobby: Lobby) -> None:
        table, people = await four_people(lobby, Options.make("coinche", preset="pagat"))
        played.append(table.id)
        await play_a_deal(table, people)
        told = people[0].last["event"]["deal_results"][0]
        assert told["contract"] == "90S" and told["value"] == 90 and told["multiplier"] == 1
        assert told["outcome"] in ("made", "failed")
        results = people[0].view["results"]
        assert results[0]["contract"] == "90S" and results[0]["value"] == 90

    run(asyncio.wait_for(main(), GUARD))


def test_a_trick_is_valued_as_the_table_values_its_cards() -> None:
    """Tout-atout values its cards its own way (J 13, 9 9, A 7, 10 5, K 3, Q 1): the
    trick the replay and the live event show counts them so."""
    match = Match(Options.make("coinche", allow_ta=True), seed=3)
    for call in ("80TA", "pass", "pass", "pass"):
        match.apply_action(parse_action(call))
    for _ in range(4):
        match.apply_action(match.legal_actions()[0])
    deal = match.deal
    assert deal is not None and deal.tricks
    leader, cards = deal.tricks[0]
    tout_atout = {"J": 13, "9": 9, "A": 7, "T": 5, "K": 3, "Q": 1}
    shown = trick_out(leader, tuple(cards), deal)
    assert shown.points == sum(tout_atout.get(card_name(c)[0], 0) for c in cards)


@pytest.mark.slow
def test_a_finished_coinche_match_is_replayed_and_analysed(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'belote.db'}"
    upgrade(url)

    async def store() -> None:
        async with opened(url) as db:
            await play_logged(Repository(db), "done", Options.make("coinche", target_score=10),
                              5, choose=first_bid_then_pass)

    run(store())
    with app_client(url) as client:
        replay = client.get("/api/matches/done/replay").json()
        played = [d["result"] for d in replay["deals"] if d["result"]["outcome"] != "redeal"]
        assert played and all(re.fullmatch(rf"{r['value']}(C|D|H|S)", r["contract"])
                              for r in played)  # "80H": the lowest bid, its value
        assert client.post("/api/matches/done/analysis").status_code == 202
        review = wait_done(client, "done")["result"]
    assert len(review["seats"]) == 4
    judged = {d["kind"] for d in review["decisions"]}
    assert "bid" in judged and "card" in judged  # the point auction is judged too


def first_bid_then_pass(match: Match, rng: random.Random) -> int:
    """The lowest point bid if nobody bid yet, pass after; a random legal card."""
    legal = match.legal_actions()
    deal = match.deal
    if deal is not None and deal.phase == "auction":
        return legal[0] if deal.bid < 0 else parse_action("pass")
    return rng.choice(legal)
