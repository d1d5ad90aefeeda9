"""The match log on both databases: writes, record rebuild, recovery, failures."""

from __future__ import annotations

import asyncio
import gc
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, cast

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.pool import NullPool

from app.db.match_log import load_logs
from app.db.repository import Repository
from app.db.session import Database, StorageError, StorageUnavailable
from app.db.url import async_url
from app.matchlog import LoggedAction, MatchEnd
from app.vocabulary import EndReason
from engine import Match, Options, replay
from engine.record import replay_report
from tests.test_db_support import opened

from .test_db_support import BACKENDS, SEATS, pass_the_first_deal, play_logged, run

pytest_plugins = ["tests.test_db_support"]  # the database fixtures

OPTIONS = [
    Options.make("bulgarian"),
    Options.make("classic", target_score=301),
    Options.make("bulgarian", reshuffle_each_deal=False, target_score=51),
    # a preset with a flag over it: the log keeps the preset's name and the flags applied
    Options.make("coinche", preset="bga_coinche", target_score=1000),
]


@pytest.mark.parametrize("options", OPTIONS, ids=["bulgarian", "classic", "cut-only",
                                                  "coinche"])
def test_record_rebuilt_from_log_equals_live_record(db_url: str, options: Options) -> None:
    async def scenario() -> None:
        async with opened(db_url) as db:
            repo = Repository(db)
            live = await play_logged(repo, "m1", options, seed=11)
            assert live.match.is_over
            log = await repo.load("m1")
            assert log is not None
            record = log.record()
            assert record == live.record(record)
            assert record["seats"][1] == {"name": "Bot", "kind": "bot", "level": "hard"}
            rebuilt = replay(record)
            assert replay_report(rebuilt) == replay_report(live.match)
            assert rebuilt.results == live.match.results
            assert (rebuilt.totals, rebuilt.winner) == (live.match.totals, live.match.winner)
            assert await repo.load_unfinished() == []

    run(scenario())


def test_unfinished_matches_are_recovered_where_they_stopped(db_url: str) -> None:
    async def scenario() -> None:
        async with opened(db_url) as db:
            repo = Repository(db)
            done = await play_logged(repo, "done", OPTIONS[0], seed=3)
            mid = await play_logged(repo, "mid", OPTIONS[1], seed=4, stop_after=50)
            fresh = await play_logged(repo, "fresh", OPTIONS[0], seed=5, stop_after=0)
            assert done.match.is_over and not fresh.match.deals
            logs = await repo.load_unfinished()
            assert [log.match.id for log in logs] == ["mid", "fresh"]
            for log, live in zip(logs, (mid, fresh), strict=True):
                record = log.record()
                assert record == live.record(record)
                table = log.replay()
                assert table.current_player() == live.match.current_player()
                assert table.legal_actions() == live.match.legal_actions()
                if live.match.deals:
                    assert table.observation(0).to_dict() == live.match.observation(0).to_dict()
                assert [s.name for s in log.seats] == [s.name for s in SEATS]

    run(scenario())


def test_public_record_leaves_out_the_deal_in_progress(db_url: str) -> None:
    async def scenario() -> None:
        async with opened(db_url) as db:
            repo = Repository(db)
            live = await play_logged(repo, "m", OPTIONS[0], seed=8, stop_after=80)
            assert live.match.deal is not None and not live.match.deal.is_over
            log = await repo.load("m")
            assert log is not None
            public = log.record(public=True)
            finished = len(live.match.results)
            assert len(public["deals"]) == finished
            assert public["deals"] == log.record()["deals"][:finished]
            assert replay(public).results == live.match.results

    run(scenario())


@pytest.mark.parametrize(("options", "held"), [(OPTIONS[0], False), (OPTIONS[2], True)],
                         ids=["reshuffled", "cut-only"])
def test_public_record_holds_back_a_thrown_in_deck_the_next_deal_is_cut_from(
    db_url: str, options: Options, held: bool
) -> None:
    """Until the match ends: the next deal (here in progress) is a cut of that deck."""
    async def scenario() -> None:
        async with opened(db_url) as db:
            repo = Repository(db)
            live = await play_logged(repo, "m", options, seed=3, choose=pass_the_first_deal,
                                     stop_after=6)
            assert [r.outcome for r in live.match.results] == ["redeal"]
            log = await repo.load("m")
            assert log is not None
            assert len(log.record(public=True)["deals"]) == (0 if held else 1)
            await repo.finish_match("m", MatchEnd(EndReason.ABANDONED, live.match.totals, None))
            log = await repo.load("m")
            assert log is not None and log.public_deals() == 1
            assert replay(log.record(public=True)).results == live.match.results

    run(scenario())


def test_concurrent_tables_each_keep_their_order(db_url: str) -> None:
    """Many tables writing at once: no lock errors on SQLite, every log complete."""

    async def scenario() -> None:
        async with opened(db_url) as db:
            repo = Repository(db)
            lives = await asyncio.gather(*(
                play_logged(repo, f"t{i}", OPTIONS[i % 2], seed=i, stop_after=40)
                for i in range(12)
            ))
            logs = {log.match.id: log for log in await repo.load_unfinished()}
            for live in lives:
                record = logs[live.id].record()
                assert record == live.record(record)

    run(scenario())


def test_an_action_at_a_taken_place_is_refused_and_a_retry_is_not(db_url: str) -> None:
    async def scenario() -> None:
        async with opened(db_url) as db:
            repo = Repository(db)
            await play_logged(repo, "m", OPTIONS[0], seed=1, stop_after=1)
            log = await repo.load("m")
            assert log is not None
            [first] = log.actions[0]
            await repo.append_action("m", 0, 0, first)  # a retry: nothing changes
            other = LoggedAction(first.seat, first.action ^ 1, first.by)  # another action
            with pytest.raises(StorageError) as caught:
                await repo.append_action("m", 0, 0, other)
            assert not isinstance(caught.value, StorageUnavailable)
            again = await repo.load("m")
            assert again is not None and again.actions == [[first]]
            with pytest.raises(StorageError):  # no such deal
                await repo.append_action("m", 5, 0, first)

    run(scenario())


def test_bad_options_and_seats_are_refused_before_writing(db_url: str) -> None:
    async def scenario() -> None:
        async with opened(db_url) as db:
            repo = Repository(db)
            with pytest.raises(ValueError):
                await repo.create_match("m", "bulgarian", {"no_such_flag": 1}, SEATS)
            with pytest.raises(ValueError):
                await repo.create_match("m", "bulgarian", {}, SEATS[:3])
            with pytest.raises(ValueError, match="one seat"):  # its history would list it twice
                await repo.create_match("m", "bulgarian", {}, [SEATS[0], *SEATS[1:3], SEATS[0]])
            assert await repo.load("m") is None

    run(scenario())


@pytest.mark.parametrize("backend", BACKENDS)
def test_unreachable_database_raises_storage_unavailable(backend: str, tmp_path: Path) -> None:
    # A directory where the SQLite file should be; a loopback port nobody listens on.
    url = f"sqlite:///{tmp_path}" if backend == "sqlite" else (
        "postgresql://postgres@127.0.0.1:1/test"
    )

    async def scenario() -> None:
        async with opened(url) as db:
            with pytest.raises(StorageUnavailable):
                await Repository(db).append_action(uuid.uuid4().hex, 0, 0, LoggedAction(0, 70))
            with pytest.raises(StorageUnavailable):
                await Repository(db).load_unfinished()
            # The failed aiosqlite connection sits in a traceback cycle: finalise it while
            # its loop still runs, or its worker thread reports into a closed loop.
            gc.collect()

    run(scenario())


@pytest.mark.parametrize(
    ("plain", "expected"),
    [
        ("sqlite:///data/belote.db", "sqlite+aiosqlite:///data/belote.db"),
        ("sqlite+aiosqlite:///x.db", "sqlite+aiosqlite:///x.db"),
        ("postgresql://u:p@h/db", "postgresql+asyncpg://u:p@h/db"),
        ("postgres://u:p@h:5433/db", "postgresql+asyncpg://u:p@h:5433/db"),
        ("postgresql+psycopg2://u@h/db", "postgresql+asyncpg://u@h/db"),
        ("postgresql://u@h/db?sslmode=require", "postgresql+asyncpg://u@h/db?ssl=require"),
    ],
)
def test_database_url_gets_the_async_driver(plain: str, expected: str) -> None:
    assert async_url(plain).render_as_string(hide_password=False) == expected


def test_other_databases_are_refused() -> None:
    with pytest.raises(ValueError, match="unsupported"):
        async_url("mysql://u@h/db")


@pytest.mark.postgres
def test_a_dropped_postgresql_connection_is_replaced(migrated_urls: dict[str, str]) -> None:
    """A server restart kills pooled connections: the next write reconnects (pre-ping)
    instead of stopping the table with StorageUnavailable."""

    async def scenario() -> None:
        db = Database(migrated_urls["postgresql"])
        admin = Database(migrated_urls["postgresql"], poolclass=NullPool)
        try:
            repo = Repository(db)
            await repo.create_match("dropped", "bulgarian", {}, SEATS)
            await repo.start_deal("dropped", 0, 0, list(range(32)))
            async with admin.write() as conn:
                killed = await conn.scalar(text(
                    "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                    "WHERE datname = current_database() AND pid <> pg_backend_pid() "
                    "AND backend_type = 'client backend'"
                ))
            assert killed == 1  # the pooled connection of ``db``
            await repo.append_action("dropped", 0, 0, LoggedAction(0, 70))
            log = await repo.load("dropped")
            assert log is not None and [a.action for a in log.actions[0]] == [70]
        finally:
            await admin.dispose()
            await db.dispose()

    run(scenario())


class _TablePlaysOn:
    """A read session between whose queries a table begins its next deal and plays into
    it, as a table may while a reader loads its log: the write comes just before the
    log's actions are read (``load_logs``' one ``execute``)."""

    def __init__(self, session: AsyncSession, write: Callable[[], Awaitable[None]]) -> None:
        self._session, self._write = session, write

    async def scalars(self, *args: Any, **kwargs: Any) -> Any:
        return await self._session.scalars(*args, **kwargs)

    async def execute(self, *args: Any, **kwargs: Any) -> Any:
        await self._write()
        return await self._session.execute(*args, **kwargs)


async def _play_logged_action(repo: Repository, match: Match, match_id: str) -> None:
    index, seq = len(match.deals) - 1, len(match.deals[-1].history)
    seat, action = match.current_player(), match.legal_actions()[0]
    assert seat is not None
    match.apply_action(action, seat)
    await repo.append_action(match_id, index, seq, LoggedAction(seat, action, "bot"))


def test_a_log_read_while_its_table_deals_again_is_a_prefix_of_it(db_url: str) -> None:
    """What failed a history page under load (IndexError, a 500): the next deal and its
    first action were written between the reader's query of the deals and of the actions."""
    async def scenario() -> None:
        async with opened(db_url) as db:
            repo = Repository(db)
            match = (await play_logged(repo, "m", OPTIONS[1], seed=4, stop_after=80)).match
            while not match.deals[-1].is_over:  # the deal under way ends
                await _play_logged_action(repo, match, "m")
            await repo.finish_deal("m", len(match.deals) - 1, match.results[-1])
            assert not match.is_over
            before = await repo.load("m")
            assert before is not None

            async def next_deal() -> None:
                deal = match.start_deal()
                await repo.start_deal("m", len(match.deals) - 1, deal.dealer, deal.deck)
                await _play_logged_action(repo, match, "m")

            async with db.read() as session:
                [log] = await load_logs(cast(AsyncSession, _TablePlaysOn(session, next_deal)),
                                        ["m"])
            assert len(match.deals) == len(log.deals) + 1 and match.deals[-1].history
            assert log.actions == before.actions
            assert log.record(public=True) == before.record(public=True)
            assert replay(log.record(public=True)).results == match.results

    run(scenario())
