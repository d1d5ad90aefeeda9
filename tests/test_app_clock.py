"""The table's timers on a clock the test moves: a turn times out at its deadline and not
before, an absent player's seat goes after the grace, a table left waiting expires, and
bots pause as long as they are told; no test here waits real seconds for any of it."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from app.bots import BotRunner
from app.storage import MemoryStorage
from app.tables import Detach, Lobby, Table, TableConfig
from app.vocabulary import PACE_FACTORS, BotPace
from engine import Options, Phase
from engine.actions import PASS
from tests.actors import ANA, solo_table
from tests.conftest import app_settings
from tests.fake_clock import FakeClock
from tests.waiting import eventually

GUARD = 30  # seconds: a hang fails the test instead of blocking the suite
TURN, GRACE, PAUSE = 30.0, 60.0, 5.0  # seconds, on the fake clock


@contextlib.asynccontextmanager
async def lobby_on(clock: FakeClock, **settings_: Any) -> AsyncIterator[Lobby]:
    settings = app_settings(bot_delay=PAUSE, reconnect_grace=GRACE, **settings_)
    bots = BotRunner(settings.bots)
    await bots.start()
    lobby = Lobby(settings.tables, bots, MemoryStorage(), clock)
    try:
        yield lobby
    finally:
        await lobby.stop()
        await bots.close()


async def until(done: Callable[[], bool], what: str) -> None:
    """Let the actor and the bots' threads run (real time, bounded) until ``done``."""
    await eventually(done, 5, what, poll=0.01)


async def settle() -> None:
    """A moment of real time for whatever is already due (no timer will fire meanwhile)."""
    await asyncio.sleep(0.2)


async def bot_plays(table: Table, clock: FakeClock) -> None:
    """The bot to move ends its pause, decides and plays."""
    version = table.version
    clock.advance(PAUSE)
    await until(lambda: table.version > version, "a bot played")


async def the_timer_acts(table: Table, clock: FakeClock) -> tuple[str, int]:
    """The seat to move runs out of time: the phase it was in, and what was played."""
    assert table.match is not None and table.match.deal is not None
    deal = table.match.deal
    phase, before = deal.phase, len(deal.history)
    clock.advance(table.config.turn_seconds)
    await until(lambda: len(deal.history) > before, "the timer acted")
    return phase, deal.history[before][1]


def run(scenario: Callable[[], Any]) -> None:
    asyncio.run(asyncio.wait_for(scenario(), GUARD))


def test_a_turn_times_out_at_its_deadline_and_not_before() -> None:
    async def scenario() -> None:
        clock = FakeClock()
        async with lobby_on(clock) as lobby:
            options = Options.make("bulgarian")
            table, _ = await solo_table(lobby, "timer", options)
            while table.match is None or table.match.current_player() != 0:
                await bot_plays(table, clock)
            version = table.version
            assert table.turns.deadline == clock.now + table.config.turn_seconds
            clock.advance(table.config.turn_seconds - 0.1)
            await settle()
            assert table.version == version  # still Ana's turn
            clock.advance(0.1)
            await until(lambda: table.version == version + 1, "the timer played for Ana")
            assert table.seats[0].missed == 1

    run(scenario)


def test_a_timeout_passes_in_the_auction_and_lets_a_bot_play_a_card() -> None:
    """The timer never bids for a player (a contract they did not choose would bind their
    partner); in the play it picks a card as a bot would."""
    async def scenario() -> None:
        clock = FakeClock()
        async with lobby_on(clock, missed_turns_to_bot=100) as lobby:  # no cover bot
            table, _ = await solo_table(lobby, "timeouts", Options.make("bulgarian"))
            timed_out: list[tuple[str, int]] = []
            while len({phase for phase, _ in timed_out}) < 2:
                match = table.match
                assert match is not None and match.deal is not None and not match.is_over
                if match.current_player() != 0:
                    await bot_plays(table, clock)
                    continue
                timed_out.append(await the_timer_acts(table, clock))
            # The loop ended: the timer acted in the play too (the_timer_acts checks that
            # the seat's turn passed); in the auction it only ever passed.
            assert all(action == PASS for phase, action in timed_out if phase == Phase.AUCTION)

    run(scenario)


def test_an_absent_players_seat_goes_after_the_grace() -> None:
    async def scenario() -> None:
        clock = FakeClock()
        async with lobby_on(clock) as lobby:
            table, client = await solo_table(lobby, "grace", Options.make("bulgarian"))
            await table.submit(Detach(client))
            clock.advance(GRACE - 1)
            await settle()
            assert table.status == "playing" and table.seats[0].kind == "human"
            clock.advance(1)
            await until(lambda: table.status == "closed", "the table closed without humans")

    run(scenario)


def test_a_table_left_waiting_expires() -> None:
    async def scenario() -> None:
        clock = FakeClock()
        async with lobby_on(clock) as lobby:
            config = TableConfig("idle", Options.make("bulgarian"), TURN, False, False)
            table = lobby.create(ANA, config)
            clock.advance(lobby.tables[table.id].settings.waiting_table_ttl - 1)
            await settle()
            assert table.status == "waiting"
            clock.advance(1)
            await until(lambda: table.id not in lobby.tables, "the waiting table expired")

    run(scenario)


@pytest.mark.parametrize("pace", list(BotPace))
def test_a_tables_bots_wait_as_long_as_its_pace_says(pace: BotPace) -> None:
    """Issue #35: the creator's ``bot_pace`` scales BOT_DELAY (slow twice, fast about a
    third): a bot moves at that pause and not before."""
    async def scenario() -> None:
        clock = FakeClock()
        async with lobby_on(clock) as lobby:
            table, _ = await solo_table(lobby, "pace", Options.make("bulgarian"), bot_pace=pace)
            assert table.match is not None
            if table.match.current_player() == 0:
                await the_timer_acts(table, clock)
            version, pause = table.version, PAUSE * PACE_FACTORS[pace]
            clock.advance(pause - 0.01)
            await settle()
            assert table.version == version, "a bot moved before its pause ended"
            clock.advance(0.02)
            await until(lambda: table.version > version, "the bot played after its pause")
    run(scenario)
