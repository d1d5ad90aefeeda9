"""Against a real uvicorn server on a loopback port, with the websockets library's client:
four humans, many random matches with drops and reconnects, and the secrecy check that
no frame ever carried a card another seat still held."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from app.container import running
from app.storage import MemoryLog, MemoryStorage
from engine import Match, card_name
from engine.cards import cards_of
from engine.declarations import COMBOS
from tests.conftest import LiveServer, Rest
from tests.waiting import Deadline, received

Frame = tuple[int | None, dict[str, Any]]  # (the recipient's seat, the message)
CARDS = frozenset(card_name(c) for c in range(32))
GUARD = 90  # seconds: a hang fails the test instead of blocking the suite
PATIENCE = 30  # seconds a client waits for its next frame


async def join(live: LiveServer, table_id: str, token: str) -> ClientConnection:
    ws = await connect(live.ws(table_id))
    await ws.send(json.dumps({"type": "hello", "protocol": 1, "token": token}))
    return ws


CUT_ONLY = {"reshuffle_each_deal": False}  # the next deck is a cut of the last one
PASS_RATE = 0.9  # at cut-only tables: most deals are thrown in, the rest played


def choose(legal: list[str], rng: random.Random, pass_rate: float) -> str:
    """A random legal action; "pass", when legal, at least ``pass_rate`` of the time."""
    if pass_rate and "pass" in legal and rng.random() < pass_rate:
        return "pass"
    return rng.choice(legal)


async def human(live: LiveServer, table_id: str, guest: dict[str, str], seat: int,
                rng: random.Random, frames: list[Frame], drop: float = 0.0,
                ready: asyncio.Event | None = None, pass_rate: float = 0.0) -> None:
    """Play random legal actions (and the odd illegal one), dropping the socket now and
    then, until the match is over; keep every frame received.  A ``pass_rate`` gets deals
    thrown in (all four pass)."""
    deadline = Deadline(GUARD, f"seat {seat} to see the match end")
    while True:
        deadline.check()
        ws = await join(live, table_id, guest["token"])
        acted_at = -1
        try:
            async for text in received(ws, PATIENCE, f"a frame for seat {seat}"):
                message = json.loads(text)
                frames.append((seat, message))
                if message.get("table", {}).get("status") == "over":
                    return
                if ready is not None and message["type"] == "snapshot":
                    ready.set()
                view = message.get("view")
                if (message["type"] in ("snapshot", "event") and message["turn"] == seat
                        and view["legal_actions"] and message["version"] != acted_at):
                    acted_at = version = message["version"]
                    actions = [(f"a{version}", choose(view["legal_actions"], rng, pass_rate))]
                    if rng.random() < 0.05:
                        actions.insert(0, (f"x{version}", rng.choice(sorted(CARDS))))
                    for action_id, action in actions:
                        request = {"type": "action", "id": action_id, "version": version,
                                   "action": action}
                        frames.append((seat, {"sent": request}))
                        await ws.send(json.dumps(request))
                if rng.random() < drop:
                    break  # gone for a moment: the bot covers, then a fresh snapshot
        finally:
            await ws.close()


async def spectator(live: LiveServer, table_id: str, guest: dict[str, str],
                    frames: list[Frame]) -> None:
    ws = await join(live, table_id, guest["token"])
    async with ws:
        async for text in received(ws, PATIENCE, "a frame for the spectator"):
            message = json.loads(text)
            frames.append((None, message))
            if message.get("table", {}).get("status") == "over":
                return


def hands_by_version(stored: MemoryLog) -> tuple[dict[int, list[int]], Match]:
    """Every seat's hand after each logged version, rebuilt from the match's seed and the
    storage log's actions (independently of the replay a restart does)."""
    meta = stored.meta
    match = Match(meta.match_options(), seed=meta.seed)
    assert match.deal is not None
    hands = {meta.version: list(match.deal.hands)}
    for entry in stored.actions:
        assert entry.version is not None
        match.apply_action(entry.action, entry.seat)
        hands[entry.version] = list(match.deal.hands)
    assert match.is_over
    return hands, match


def card_tokens(value: Any) -> set[str]:
    """Every card name anywhere in a message: alone, in "announce QS KS AS", in "KH+belot",
    or inside an error's text."""
    if isinstance(value, dict):
        return set().union(*(card_tokens(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(card_tokens(v) for v in value)) if value else set()
    if isinstance(value, str):
        words = value.replace("+", " ").replace("(", " ").replace(")", " ").split()
        return {w for w in words if w in CARDS}
    return set()


def check_secrecy(frames: list[Frame], stored: MemoryLog) -> int:
    """No frame shows a card another seat holds at that version; a seat's own view shows
    exactly its hand.  Returns how many card names the frames showed in all."""
    hands, match = hands_by_version(stored)
    versions = sorted(hands)
    # The card played at a version is public, even when the next deal, dealt in the same
    # step, gives that card to another seat.
    played = {e.version: card_name(e.action % 32) for e in stored.actions if e.action < 64}
    last_seen: dict[int | None, int] = {}
    shown = 0
    sent: dict[tuple[int | None, str], set[str]] = {}
    for seat, message in frames:
        if "sent" in message:  # what the client itself said may come back in an error
            sent[seat, message["sent"]["id"]] = card_tokens(message["sent"]["action"])
            continue
        version = message.get("version", last_seen.get(seat, -1))
        last_seen[seat] = version
        known = [v for v in versions if v <= version]
        if not known:
            assert card_tokens(message) == set(), message
            continue
        current = hands[known[-1]]
        hidden = {card_name(c) for s in range(4) if s != seat for c in cards_of(current[s])}
        echoed = sent.get((seat, message["id"]), set()) if message["type"] == "error" else set()
        if message["type"] == "event" and message["event"]["kind"] == "action":
            echoed.add(played.get(version, ""))
        view = message.get("view")
        if view is not None:
            deal = match.deals[view["deal"]]
            if view["turned"] is not None:  # classic: turned face up for all, then taken
                assert deal.turned is not None and view["turned"] == card_name(deal.turned)
                echoed.add(view["turned"])
            if view["deal"] > 0:  # the last deal's announcements, revealed
                revealed = card_tokens(view["previous_announcements"])
                announced = match.deals[view["deal"] - 1].announcements
                assert revealed <= {card_name(c) for _, k in announced
                                    for c in cards_of(COMBOS[k].mask)}
                echoed |= revealed
                if view["previous_trick"] is not None:  # its last trick, seen by all
                    echoed |= set(view["previous_trick"]["cards"])
        leaked = (card_tokens(message) - echoed) & hidden
        assert not leaked, f"seat {seat} saw {sorted(leaked)} at version {version}: {message}"
        if seat is not None and view is not None:
            assert view["hand"] == [card_name(c) for c in cards_of(current[seat])]
        shown += len(card_tokens(message))
    return shown


def thrown_in(stored: MemoryLog) -> int:
    return sum(r.outcome == "redeal" for r in stored.results)


@pytest.mark.slow
@pytest.mark.parametrize(("options", "pass_rate"), [({}, 0.0), (CUT_ONLY, PASS_RATE)],
                         ids=["reshuffled", "cut-only"])
def test_four_humans_play_a_match_over_real_sockets(live: LiveServer, live_rest: Rest,
                                                    options: dict[str, Any],
                                                    pass_rate: float) -> None:
    """Cut only, the players pass often: a thrown-in deck, never seen, is cut for the next
    deal, so nothing of it may reach a seat."""
    guests = [live_rest.guest(f"P{i}") for i in range(4)]
    table_id = live_rest.table(guests[0], list(guests), options=options)
    frames: list[Frame] = []

    async def play() -> None:
        ready = [asyncio.Event() for _ in guests]
        players = asyncio.gather(*(
            human(live, table_id, g, seat, random.Random(seat), frames, ready=ready[seat],
                  pass_rate=pass_rate)
            for seat, g in enumerate(guests)))
        await asyncio.wait_for(asyncio.gather(*(r.wait() for r in ready)), GUARD)
        await asyncio.to_thread(live_rest.start, table_id, guests[0])
        await asyncio.wait_for(players, GUARD)

    asyncio.run(play())
    final = live_rest.http.get(f"/api/tables/{table_id}").json()
    assert final["status"] == "over" and final["winner"] in (0, 1)
    storage = running(live.app).storage
    assert isinstance(storage, MemoryStorage)
    stored = storage.matches[table_id]
    assert {e.by for e in stored.actions} == {"player"}
    assert check_secrecy(frames, stored) > 0
    assert stored.meta.options == options
    assert thrown_in(stored) > 0 or not pass_rate


def cut_only(i: int) -> dict[str, bool]:
    """Half the tables of the next test, of both variants, deal by cutting only."""
    return CUT_ONLY if i % 4 >= 2 else {}


@pytest.mark.slow
def test_no_seat_ever_sees_another_seats_unplayed_card(live: LiveServer,
                                                       live_rest: Rest) -> None:
    """Many random matches at once, both variants, reshuffled or cut only (with humans who
    pass often, for thrown-in deals), humans and bots, drops and reconnects, illegal
    attempts, a spectator at every table; every frame is checked."""
    watcher = live_rest.guest("Watcher")
    tables: list[tuple[str, list[tuple[int, dict[str, str]]]]] = []
    for i in range(12):
        variant = "classic" if i % 2 else "bulgarian"
        target = 301 if variant == "classic" else 51
        humans = [(s, live_rest.guest(f"H{i}{s}")) for s in range(4) if s == 0 or i % 3]
        seats: list[dict[str, str] | str] = ["easy"] * 4
        for s, g in humans:
            seats[s] = g
        table_id = live_rest.table(humans[0][1], seats, variant=variant,
                                   options={"target_score": target} | cut_only(i))
        tables.append((table_id, humans))
    frames: dict[str, list[Frame]] = {table_id: [] for table_id, _ in tables}

    async def play() -> None:
        watchers = [asyncio.create_task(spectator(live, t, watcher, frames[t]))
                    for t, _ in tables]
        await asyncio.sleep(0)
        for table_id, humans in tables:  # each owned by its first human (3 tables at most)
            await asyncio.to_thread(live_rest.start, table_id, humans[0][1])
        rng = random.Random(7)
        players = [human(live, t, g, s, random.Random(rng.random()), frames[t], drop=0.01,
                         pass_rate=PASS_RATE if cut_only(i) else 0.0)
                   for i, (t, humans) in enumerate(tables) for s, g in humans]
        await asyncio.wait_for(asyncio.gather(*players, *watchers), GUARD)

    asyncio.run(play())
    storage = running(live.app).storage
    assert isinstance(storage, MemoryStorage)
    for table_id, _ in tables:
        assert storage.matches[table_id].end is not None
        assert check_secrecy(frames[table_id], storage.matches[table_id]) > 0
    assert any(e.by == "cover" for t, _ in tables for e in storage.matches[t].actions)
    assert any(thrown_in(storage.matches[t]) for i, (t, _) in enumerate(tables) if cut_only(i))


def test_oversize_frames_are_closed_by_the_server(live: LiveServer, live_rest: Rest) -> None:
    ana = live_rest.guest("Ana")
    table_id = live_rest.table(ana, [ana])

    async def scenario() -> int | None:
        ws = await join(live, table_id, ana["token"])
        await ws.recv()
        await ws.recv()
        await ws.send("x" * 100_000)
        with pytest.raises(ConnectionClosed) as closed:
            async for _ in received(ws, PATIENCE, "the server to close the socket"):
                pass
        return closed.value.rcvd.code if closed.value.rcvd else None

    assert asyncio.run(asyncio.wait_for(scenario(), GUARD)) == 1009
