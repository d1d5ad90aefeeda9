"""A cut-only match played through the server on both databases: the deck of a deal thrown
in at the start, which nobody saw, stays out of the public record and replay while the
deal cut from it is on (docs/storage.md, Hidden cards)."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import ExitStack
from typing import Any

from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession

from app.main import create_app
from app.matchlog import deck_text, parse_deck
from engine import Deal, Options, parse_card, replay
from engine.cards import mask_of
from tests.conftest import Rest, app_settings
from tests.test_app_ws import seated, until

pytest_plugins = ["tests.test_db_support"]  # db_url: migrated SQLite, then PostgreSQL

Message = dict[str, Any]
CUT_ONLY = Options.make("bulgarian", reshuffle_each_deal=False)


class Players:
    """Four humans on four sockets; each action is read back from every socket, so when
    ``act`` returns the server has logged it (a table writes before it tells anyone)."""

    def __init__(self, sockets: list[WebSocketTestSession], start: list[Message]) -> None:
        self.sockets = sockets
        self.states = start

    def act(self, choose: Callable[[Message], str]) -> Message:
        state = self.states[0]
        seat, version = state["turn"], state["version"]
        mover = self.states[seat]
        self.sockets[seat].send_json({"type": "action", "id": f"a{version}", "version": version,
                                      "action": choose(mover["view"])})
        self.states = [until(ws, lambda m: m["type"] == "event" and m["version"] == version + 1)
                       for ws in self.sockets]
        return self.states[0]


def passes(view: Message) -> str:
    return "pass"


def first_legal(view: Message) -> str:
    action: str = view["legal_actions"][0]
    return action


def attack(record: Message, dealer: int, seat: int, hand: list[str]) -> list[str]:
    """What a seated player would do: every cut of the record's last deck that deals its
    own first five cards to it.  Returns the decks found, in record notation."""
    if not record["deals"]:
        return []
    deck = parse_deck(record["deals"][-1]["deck"])
    own = mask_of([parse_card(c) for c in hand])
    found: list[str] = []
    for k in range(32):
        cut = deck[k:] + deck[:k]
        if Deal(CUT_ONLY, dealer, cut).hands[seat] == own:
            found.append(deck_text(cut))
    return found


def public(client: TestClient, table_id: str) -> tuple[Message, Message]:
    record = client.get(f"/api/matches/{table_id}/record")
    frames = client.get(f"/api/matches/{table_id}/replay")
    assert record.status_code == frames.status_code == 200, (record.text, frames.text)
    return record.json(), frames.json()


def test_a_thrown_in_deck_stays_hidden_while_a_deal_cut_from_it_is_on(db_url: str) -> None:
    with TestClient(create_app(app_settings(database_url=db_url))) as client, ExitStack() as on:
        rest = Rest(client)
        guests = [rest.guest(f"P{i}") for i in range(4)]
        table_id = rest.table(guests[0], list(guests), options={"reshuffle_each_deal": False})
        sockets = [on.enter_context(seated(client, table_id, g))[0] for g in guests]
        rest.start(table_id, guests[0])
        started = [until(ws, lambda m: m["type"] == "event" and m["event"]["kind"] == "start")
                   for ws in sockets]
        players = Players(sockets, started)
        state = started[0]
        while state["view"]["deal"] < 2:  # two deals thrown in: a chain of cuts
            state = players.act(passes)
        view = players.states[0]["view"]
        assert (view["deal"], view["phase"], len(view["hand"])) == (2, "auction", 5)
        dealer, hand = view["dealer"], view["hand"]

        record, frames = public(client, table_id)
        assert attack(record, dealer, 0, hand) == []
        assert record["deals"] == [] and frames["deals"] == []  # held back, whole
        assert replay(record).results == []  # what is published still replays
        detail = client.get(f"/api/matches/{table_id}").json()
        assert [d["outcome"] for d in detail["deals"]] == ["redeal", "redeal", None]
        assert all("deck" not in d for d in detail["deals"])

        while state["view"]["deal"] == 2:  # the next deal is played out
            state = players.act(first_legal)
        record, frames = public(client, table_id)
        outcomes = [d["result"]["outcome"] for d in frames["deals"]]
        assert outcomes[:2] == ["redeal", "redeal"] and outcomes[2] != "redeal"
        assert len(record["deals"]) == 3 and replay(record).results[2].outcome == outcomes[2]
        # Now public, and as telling as feared: deal 2's deck is found from deal 1's.
        earlier = {**record, "deals": record["deals"][:2]}
        assert attack(earlier, dealer, 0, hand) == [record["deals"][2]["deck"]]
