"""The card that completes a trick brings the finished trick in its ``action`` event
(docs/protocol.md §3): leader, cards, winner and points, the same for every recipient, so
that a client never works them out by comparing two states."""

from __future__ import annotations

import random
import re
from collections import defaultdict
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession

from app.main import create_app
from app.replays import TrickOut
from app.storage import MemoryStorage
from app.views import trick_event
from engine import Match, Options, card_name
from engine.actions import is_play
from tests.conftest import Rest, app_settings
from tests.waiting import Deadline

CARD = re.compile(r"^([789TJQKA][CDHS])(\+belot)?$")
PATIENCE = 60  # seconds to play one deal against easy bots
LAST_TRICK = 10  # the last trick's bonus (RULES §4)
Message = dict[str, Any]


@pytest.mark.parametrize("variant", ["bulgarian", "classic"])
def test_only_the_card_that_completes_a_trick_tells_it(variant: str) -> None:
    """Along random matches: every trick of every deal is told once, by its fourth card,
    with the winner the engine then gives the lead to, and points that add up to the
    deal's card points."""
    for seed in range(2):
        match = Match(Options.make(variant), seed=seed)
        rng = random.Random(seed)
        told: dict[int, list[TrickOut]] = defaultdict(list)  # deal index -> tricks
        while not match.is_over:
            assert match.deal is not None
            index, completes = len(match.deals) - 1, len(match.deal.trick) == 3
            action = rng.choice(match.legal_actions())
            match.apply_action(action)
            trick = trick_event(match, action)
            if is_play(action) and completes:
                assert trick is not None
                told[index].append(trick)
            else:
                assert trick is None
        for index, deal in enumerate(match.deals):
            tricks = told[index]
            assert [(t.leader, t.cards) for t in tricks] == [
                (leader, [card_name(c) for c in cards]) for leader, cards in deal.tricks]
            if not tricks:
                continue  # a thrown-in deal
            winners = [leader for leader, _ in deal.tricks[1:]] + [deal.leader]
            assert [t.winner for t in tricks] == winners
            points = [0, 0]
            for told_trick in tricks:
                points[told_trick.winner % 2] += told_trick.points
            points[winners[-1] % 2] += LAST_TRICK
            assert points == deal.points


def test_the_action_event_of_a_trick_s_last_card_carries_the_trick_to_everyone() -> None:
    """A seated player and a spectator, through a whole deal: each trick arrives once,
    with the cards the player saw fall and the seat that leads next (or, after the deal's
    last trick, the next deal's ``previous_trick``); the spectator gets the same."""
    with TestClient(create_app(app_settings(), MemoryStorage())) as client:
        rest = Rest(client)
        ana, ivo = rest.guest("Ana"), rest.guest("Ivo")
        table_id = rest.table(ana, [ana, "easy", "easy", "easy"],
                              options={"target_score": 1000})
        with client.websocket_connect(f"/api/tables/{table_id}/ws") as seat, \
                client.websocket_connect(f"/api/tables/{table_id}/ws") as watcher:
            for ws, guest in ((seat, ana), (watcher, ivo)):
                ws.send_json({"type": "hello", "protocol": 1, "token": guest["token"]})
                assert ws.receive_json()["type"] == "welcome"
                assert ws.receive_json()["type"] == "snapshot"
            rest.start(table_id, ana)
            told, last = play_one_deal(seat)
            seen = {version: trick for version, trick in actions_until(watcher, last)}
    assert len(told) == 8 and seen == told


def play_one_deal(ws: WebSocketTestSession) -> tuple[dict[int, Message], int]:
    """Play seat 0 until a deal with tricks ends, checking each action event; the tricks
    told, by version, and the version of the event that ended the deal."""
    deadline = Deadline(PATIENCE, lambda: "a played deal to end")
    before: Message | None = None
    told: dict[int, Message] = {}
    while True:
        deadline.check()
        message = ws.receive_json()
        if message["type"] not in ("event", "snapshot"):
            assert message["type"] != "error", message
            continue
        event = message["event"] or {}
        if event.get("kind") == "action":
            assert before is not None
            told |= check_trick(before, message)
            if event.get("deal_results") and told:
                return told, message["version"]
        if message["turn"] == 0 and message["view"]["legal_actions"]:
            ws.send_json({"type": "action", "id": str(message["version"]),
                          "version": message["version"],
                          "action": message["view"]["legal_actions"][0]})
        before = message


def check_trick(before: Message, after: Message) -> dict[int, Message]:
    """The trick ``after``'s event tells, by version: present exactly when its card was
    the fourth of ``before``'s trick, and as the two views show it."""
    event, open_trick = after["event"], before["view"]["trick"]
    card = CARD.match(event["action"])
    if card is None or before["view"]["phase"] != "play" or len(open_trick["cards"]) < 3:
        assert "trick" not in event, event
        return {}
    view = after["view"]
    winner = (view["trick"]["leader"] if view["deal"] == before["view"]["deal"]
              else view["previous_trick"]["winner"])
    trick = event["trick"]
    assert {k: trick[k] for k in ("leader", "cards", "winner")} == {
        "leader": open_trick["leader"], "cards": [*open_trick["cards"], card[1]],
        "winner": winner}
    assert isinstance(trick["points"], int) and trick["points"] >= 0
    return {after["version"]: trick}


def actions_until(ws: WebSocketTestSession, version: int) -> list[tuple[int, Message]]:
    """The tricks the socket's action events told, up to ``version``."""
    deadline = Deadline(PATIENCE, lambda: f"version {version} on the spectator's socket")
    found = []
    while True:
        deadline.check()
        message = ws.receive_json()
        if message["type"] == "event" and "trick" in message["event"]:
            found.append((message["version"], message["event"]["trick"]))
        if message.get("version", -1) >= version:
            return found
