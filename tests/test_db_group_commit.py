"""Group commit of the match log (app/db/group.py), on SQLite and PostgreSQL: the writes
of many tables share one transaction, each is answered only once that transaction has
committed, and a write the database refuses fails alone, its batch written without it."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from sqlalchemy import Connection, event, select

from app.db import models
from app.db.group import GroupCommit
from app.db.repository import Repository
from app.db.session import Database, StorageError, StorageUnavailable
from app.db.storage import DatabaseStorage
from app.matchlog import LoggedAction, MatchMeta, Owner, TableMeta
from app.storage import Fenced
from engine import Match, Options

from .test_db_support import SEATS, opened, run
from .waiting import eventually, within

pytest_plugins = ["tests.test_db_support"]  # the database fixtures

OPTIONS = Options.make("bulgarian")
TABLES = 12


def counting_commits(db: Database) -> list[int]:
    """A list that grows by one at each commit of ``db``'s engines."""
    commits: list[int] = []
    for engine in db.engines:
        event.listen(engine, "commit", lambda conn: commits.append(1))
    return commits


async def dealt(repo: Repository, match_id: str) -> tuple[Match, LoggedAction]:
    """A match created and its first deal logged; the first action it may take."""
    match = Match(OPTIONS, seed=7, auto_deal=False)
    await repo.create_match(match_id, OPTIONS.variant, OPTIONS.changed(), SEATS)
    deal = match.start_deal()
    await repo.start_deal(match_id, 0, deal.dealer, deal.deck)
    seat = match.current_player()
    assert seat is not None
    return match, LoggedAction(seat, match.legal_actions()[0], "bot", 1)


async def committed(url: str, match_id: str) -> int:
    """How many actions of ``match_id`` another connection sees (committed ones only)."""
    async with opened(url) as other, other.read() as session:
        rows = await session.scalars(select(models.Action.seq)
                                     .where(models.Action.match_id == match_id))
        return len(list(rows))


def test_each_write_returns_after_the_commit_that_holds_it(db_url: str) -> None:
    """Twelve tables' actions at once: fewer commits than writes, and as each write
    returns another connection already reads its row."""

    async def scenario() -> None:
        async with opened(db_url) as db:
            repo = Repository(db)
            entries = {f"t{i}": (await dealt(repo, f"t{i}"))[1] for i in range(TABLES)}
            commits = counting_commits(db)
            seen: dict[str, int] = {}

            async def table(match_id: str) -> None:
                await repo.append_action(match_id, 0, 0, entries[match_id])
                seen[match_id] = await committed(db_url, match_id)

            await within(asyncio.gather(*(table(m) for m in entries)), 30, "the writes")
            assert seen == dict.fromkeys(entries, 1)
            assert 0 < len(commits) < TABLES

    run(scenario())


def test_a_refused_write_fails_alone(db_url: str) -> None:
    """In one batch: a different action at a taken place (refused by the log's check), an
    action of a match that does not exist (refused by the database itself, which aborts
    the transaction on PostgreSQL): each fails with StorageError, the others commit, a
    retry of a write already committed among them."""

    async def scenario() -> None:
        async with opened(db_url) as db:
            repo = Repository(db)
            entries = {f"t{i}": (await dealt(repo, f"t{i}"))[1] for i in range(TABLES)}
            await repo.append_action("t3", 0, 0, entries["t3"])
            await repo.append_action("t4", 0, 0, entries["t4"])  # t4's again below: a retry
            other = LoggedAction(entries["t3"].seat, entries["t3"].action, "timer", 9)
            writes: dict[str, Awaitable[None]] = {
                m: repo.append_action(m, 0, 0, e) for m, e in entries.items() if m != "t3"}
            writes["t3"] = repo.append_action("t3", 0, 0, other)
            writes["nowhere"] = repo.append_action("nowhere", 0, 0, entries["t0"])
            done = await within(asyncio.gather(*writes.values(), return_exceptions=True),
                                 30, "the writes")
            outcome = dict(zip(writes, done, strict=True))
            refused = {m for m, result in outcome.items() if result is not None}
            assert refused == {"t3", "nowhere"}, outcome
            assert all(type(outcome[m]) is StorageError for m in refused), outcome
            for match_id in entries:
                assert await committed(db_url, match_id) == 1
            log = await repo.load("t3")
            assert log is not None and log.actions[0] == [entries["t3"]]  # kept as it was

    run(scenario())


def test_the_fence_covers_each_match_of_a_batch(db_url: str) -> None:
    """A cluster node writes its tables' actions in one batch after another node took one
    of them over: that one is refused (Fenced), the others are written."""

    async def scenario() -> None:
        async with opened(db_url) as db, opened(db_url) as elsewhere:
            mine = DatabaseStorage(db, fencing=True)
            entries = {}
            for i in range(TABLES):
                match_id = f"t{i}"
                await mine.create_match(match_id, meta(match_id))
                match = Match(OPTIONS, seed=7)
                assert match.deal is not None
                await mine.start_deal(match_id, 0, match.deal.dealer, match.deal.deck)
                seat = match.current_player()
                assert seat is not None
                entries[match_id] = LoggedAction(seat, match.legal_actions()[0], "bot", 2)
            taker = DatabaseStorage(elsewhere, fencing=True)
            assert await taker.claim("t5") is not None
            done = await within(asyncio.gather(
                *(mine.append_action(m, 0, 0, e) for m, e in entries.items()),
                return_exceptions=True), 30, "the writes")
            outcome = dict(zip(entries, done, strict=True))
            assert isinstance(outcome.pop("t5"), Fenced)
            assert set(outcome.values()) == {None}, outcome
            assert await committed(db_url, "t5") == 0
            assert await committed(db_url, "t4") == 1

    run(scenario())


def meta(match_id: str) -> MatchMeta:
    return MatchMeta(variant=OPTIONS.variant, seed=7, seats=list(SEATS), version=1,
                     table=TableMeta(name=match_id, turn_seconds=30, private=False,
                                     timeout_forfeits=False),
                     owner=Owner(id="p-ana", name="Ana"))


# ------------------------------------------------------------------ the batching alone


class Transactions:
    """A stand-in for ``Database.transaction``: each transaction commits only when the
    test lets it (``release``), or fails its commit with ``fail``."""

    def __init__(self) -> None:
        self.commits: list[list[str]] = []  # what each committed transaction held
        self.open: list[str] | None = None
        self.release = asyncio.Event()
        self.fail: Exception | None = None

    async def __call__(self, work: Callable[[Connection], None]) -> None:
        held: list[str] = []
        self.open = held
        work(held)  # type: ignore[arg-type]  # the works below take it as their connection
        await self.release.wait()
        self.open = None
        if self.fail is not None:
            raise self.fail
        self.commits.append(held)


def noting(name: str) -> Callable[[Connection, bool], None]:
    """A write that puts ``name`` in its transaction's list."""
    def work(conn: Connection, inserted: bool) -> None:
        conn.append(name)  # type: ignore[attr-defined]
    return work


def test_writes_that_come_during_a_commit_share_the_next_and_wait_for_it() -> None:
    async def scenario() -> None:
        transactions = Transactions()
        group = GroupCommit(transactions)
        first = asyncio.create_task(group.write(noting("a")))
        await eventually(lambda: transactions.open == ["a"], 5, "a's transaction")
        later = [asyncio.create_task(group.write(noting(name))) for name in "bcd"]
        await asyncio.sleep(0.01)
        assert not first.done() and not any(t.done() for t in later)  # nothing committed
        transactions.release.set()
        await within(asyncio.gather(first, *later), 5, "the writes")
        assert transactions.commits == [["a"], ["b", "c", "d"]]

    run(scenario())


def test_an_unavailable_database_fails_the_whole_batch() -> None:
    async def scenario() -> None:
        transactions = Transactions()
        transactions.fail = StorageUnavailable("gone")
        transactions.release.set()
        group = GroupCommit(transactions)
        done = await within(asyncio.gather(*(group.write(noting(n)) for n in "abc"),
                                           return_exceptions=True), 5, "the writes")
        assert [type(d) for d in done] == [StorageUnavailable] * 3
        assert transactions.commits == []

    run(scenario())
