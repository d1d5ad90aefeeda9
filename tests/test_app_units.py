"""Table-server pieces without a server: views, message parsing, tokens, storage."""

from __future__ import annotations

import asyncio
import gc
import random

import pytest
from fastapi.testclient import TestClient

from ai import Level
from app.auth import InvalidToken, Tokens
from app.bots import BotRunner
from app.events import ActionEvent
from app.main import create_app
from app.matchlog import LoggedAction, MatchEnd, MatchMeta, Owner, Seat, TableMeta
from app.protocol import ActionRequest, Hello, ProtocolError, parse
from app.storage import MemoryStorage, StorageError
from app.tables import BotMove, Lobby, PlayAction, TakeBack
from app.views import action_events, spectator_view
from app.vocabulary import Actor, EndReason, SeatKind
from engine import Match, Options, action_name, write_record
from engine.actions import ANNOUNCE
from engine.scoring import DealResult
from tests.actors import my_turn, solo_table
from tests.conftest import app_settings


def match_with_announcement() -> Match:
    """Play random legal actions until someone has announced a combination."""
    for seed in range(200):
        match = Match(Options.make("bulgarian"), seed=seed)
        rng = random.Random(seed)
        while match.deal is not None and match.deal.phase != "over" and not match.is_over:
            legal = match.legal_actions()
            announces = [a for a in legal if a >= ANNOUNCE]
            match.apply_action(announces[0] if announces else rng.choice(legal))
            if match.deal.announcements and match.deal.phase == "play":
                return match
    raise AssertionError("no announcement in 200 seeds")


def test_spectator_view_hides_hand_legal_actions_and_announced_cards() -> None:
    match = match_with_announcement()
    deal = match.deal
    assert deal is not None
    announcer = deal.announcements[0][0]
    own = match.observation(announcer)
    assert own.to_dict()["announcements"][0]["cards"] is not None  # the announcer sees them
    view = spectator_view(match)
    assert view["seat"] is None and view["hand"] == [] and view["legal_actions"] == []
    assert all(a["cards"] is None for a in view["announcements"])
    assert view["announcements"][0]["kind"] == own.to_dict()["announcements"][0]["kind"]
    assert view["trick"] == own.to_dict()["trick"]  # public cards stay
    assert view["hand_sizes"] == list(own.hand_sizes)


def test_action_event_shows_announced_cards_to_the_announcer_only() -> None:
    match = match_with_announcement()
    deal = match.deal
    assert deal is not None
    seat, combo = deal.announcements[0]
    action = ANNOUNCE + combo
    event_for = action_events(seat, action, Actor.PLAYER)
    assert event_for(seat) == ActionEvent(seat=seat, action=action_name(action),
                                          by=Actor.PLAYER)
    for viewer in [None, *(s for s in range(4) if s != seat)]:
        assert event_for(viewer) == ActionEvent(seat=seat, action="announce", by=Actor.PLAYER)
    assert {action_events(1, 5, Actor.BOT)(viewer) for viewer in (None, 0, 1, 2, 3)} == {
        ActionEvent(seat=1, action=action_name(5), by=Actor.BOT)}


def test_spectator_view_shows_no_card_a_seat_holds() -> None:
    """Along random matches of both variants, announcing whenever it can: while a deal
    runs, no card still in a hand is in the spectators' view as a hand or announced
    (tests/test_properties.py checks every field)."""
    for seed, variant in enumerate(["bulgarian", "classic"] * 3):
        match = Match(Options.make(variant), seed=seed)
        rng = random.Random(seed)
        while not match.is_over:
            deal = match.deal
            assert deal is not None
            if deal.phase != "over":
                held = {action_name(c) for s in range(4) for c in range(32)
                        if deal.hands[s] >> c & 1}
                view = spectator_view(match)
                shown = {c for a in view["announcements"] for c in a["cards"] or []}
                assert not (set(view["hand"]) | shown) & held
            legal = match.legal_actions()
            announces = [a for a in legal if a >= ANNOUNCE]
            match.apply_action(announces[0] if announces else rng.choice(legal))


@pytest.mark.parametrize(("text", "code"), [
    ("{", "bad_json"),
    ("[" * 3000, "bad_json"),
    ("[1, 2]", "bad_message"),
    ('"hello"', "bad_message"),
    ('{"type": "shout"}', "unknown_type"),
    ('{"type": ["action"]}', "unknown_type"),
    ('{"no": "type"}', "unknown_type"),
    ('{"type": "action", "id": "a", "version": "x", "action": "TH"}', "bad_message"),
    ('{"type": "action", "id": "", "version": 1, "action": "TH"}', "bad_message"),
    ('{"type": "action", "id": "a", "version": 1, "action": "TH", "more": 1}', "bad_message"),
    ('{"type": "hello", "protocol": 1}', "bad_message"),
])
def test_parse_refuses_with_a_code(text: str, code: str) -> None:
    with pytest.raises(ProtocolError) as refused:
        parse(text)
    assert refused.value.code == code


def test_parse_accepts_the_documented_messages() -> None:
    assert isinstance(parse('{"type": "hello", "protocol": 1, "token": "t"}'), Hello)
    action = parse('{"type": "action", "id": "a1", "version": 7, "action": "TH"}')
    assert action == ActionRequest(type="action", id="a1", version=7, action="TH")


def test_tokens_round_trip_and_refuse_forgeries() -> None:
    tokens = Tokens("secret-one-0123456789", 3600)
    player, token = tokens.issue("Ana")
    assert tokens.read(token) == player
    forged = Tokens("another-secret-0123", 3600).issue("Ana")[1]
    for bad in ["", "garbage", token[:-2] + "xx", forged]:
        with pytest.raises(InvalidToken):
            tokens.read(bad)


def a_meta(seed: int) -> MatchMeta:
    bot = Seat(SeatKind.BOT, "Bot", level=Level.EASY)
    seats = [Seat(SeatKind.HUMAN, "Ana", "p-ana"), bot, bot, bot]
    return MatchMeta(variant="bulgarian", seed=seed, seats=seats, version=1,
                     table=TableMeta(name="t", turn_seconds=30, private=False,
                                     timeout_forfeits=False),
                     owner=Owner(id="p-ana", name="Ana"))


def test_memory_storage_keeps_unfinished_matches_in_order_and_checks_places() -> None:
    async def scenario() -> None:
        storage = MemoryStorage()
        await storage.create_match("t1", a_meta(1))
        await storage.create_match("t2", a_meta(2))
        live = Match(Options.make("bulgarian"), seed=1)
        deal = live.deals[0]
        await storage.start_deal("t1", 0, deal.dealer, deal.deck)
        await storage.start_deal("t1", 0, deal.dealer, deal.deck)  # a retry
        seat, action = live.current_player(), live.legal_actions()[0]
        assert seat is not None
        entry = LoggedAction(seat, action, "player", 2)
        await storage.append_action("t1", 0, 0, entry)
        await storage.append_action("t1", 0, 0, entry)  # a retry
        with pytest.raises(StorageError):  # another action at a taken place
            await storage.append_action("t1", 0, 0, LoggedAction(seat, action ^ 1, "bot", 2))
        with pytest.raises(StorageError):  # a place beyond the log's end
            await storage.append_action("t1", 0, 2, entry)
        with pytest.raises(StorageError):  # a deal not logged
            await storage.finish_deal("t1", 5, DealResult("redeal"))
        await storage.finish_match("t2", MatchEnd(EndReason.WON, (151, 0), 0))
        [unfinished] = await storage.load_unfinished()
        live.apply_action(action, seat)
        assert unfinished.table_id == "t1" and unfinished.version == 2
        assert write_record(unfinished.match) == write_record(live)
        small = MemoryStorage(keep_finished=2)
        for name in "abc":
            await small.create_match(name, a_meta(3))
            await small.finish_match(name, MatchEnd(EndReason.ABANDONED, (0, 0), None))
        assert sorted(small.matches) == ["b", "c"]  # the oldest finished match is forgotten

    asyncio.run(scenario())


async def cover_move_after_return() -> None:
    settings = app_settings()
    bots = BotRunner(settings.bots)
    await bots.start()
    try:
        table, client = await solo_table(Lobby(settings.tables, bots, MemoryStorage()), "back",
                                         Options.make("bulgarian"))
        state = await my_turn(client)
        assert table.match is not None
        # A cover bot's move for seat 0, decided while Ana was away, lands after her return.
        table.post(BotMove(state["version"], 0, table.match.legal_actions()[0], Actor.COVER))
        await table.submit(TakeBack(client))  # handled after the move: the queue is in order
        assert table.version == state["version"]
        await table.submit(PlayAction(client, "mine", state["version"],
                                      state["view"]["legal_actions"][0]))
        assert table.version == state["version"] + 1  # the turn was still Ana's
    finally:
        await bots.close()


def test_a_cover_move_decided_before_the_player_came_back_is_dropped() -> None:
    asyncio.run(asyncio.wait_for(cover_move_after_return(), 60))


def test_what_start_up_made_is_frozen_while_the_app_serves() -> None:
    """Full collections would walk every object start-up made, the loop stopped meanwhile
    (app.main.frozen_heap): those are frozen while the app serves, thawed when it ends."""
    before = gc.get_freeze_count()
    with TestClient(create_app(app_settings(), MemoryStorage())) as client:
        assert client.get("/healthz").status_code == 200
        assert gc.get_freeze_count() > max(before, 10_000)
    assert gc.get_freeze_count() == before
