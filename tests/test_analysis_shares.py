"""The analysis queue's bounds hold under bursts, and a few requesters cannot fill it for
everyone (issue #29; docs/analysis.md, "In the server"): on one server with SQLite, and
on two real nodes of a cluster with PostgreSQL and Redis.  The servers have no analysis
worker, so every job asked for stays queued and counts.  Each requester sends from a
loopback address of its own (the client binds 127.x.y.z), which is what the server sees;
requests at once are ``asyncio.gather``-ed over the servers' nodes."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime

import httpx2
import pytest
from sqlalchemy import delete, func, insert, select

from app.analysis.admission import Admission, QueueFull, SlotsFull, share
from app.db import models
from app.db.analyses import PENDING, Held, Pending
from app.db.migrate import upgrade
from tests.cluster_nodes import cluster_of
from tests.conftest import app_settings, run_server
from tests.test_db_support import BACKENDS, opened, run

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.processes]

MATCHES = 40  # finished matches stored, "m00" to "m39"
CAPACITY, SLOTS = 20, 3  # ANALYSIS_QUEUE_MAX and ANALYSIS_SLOTS: the defaults
Ask = tuple[str, dict[str, str], str]  # from this address, with these headers, for this match


@dataclass
class Site:
    """One backend's servers (their base URLs, requests spread over them) and database."""

    urls: list[str]
    database_url: str
    _hosts: Iterator[int] = field(default_factory=lambda: itertools.count(2))

    def address(self) -> str:
        """A loopback address no earlier test sent from: the window counts of
        ANALYSES_PER_ADDRESS stay each test's own."""
        host = next(self._hosts)
        return f"127.1.{host // 250}.{host % 250 + 1}"

    def client(self, address: str, node: int = 0) -> httpx2.AsyncClient:
        return httpx2.AsyncClient(base_url=self.urls[node % len(self.urls)], timeout=30,
                                  transport=httpx2.AsyncHTTPTransport(local_address=address))

    async def guest(self, address: str) -> dict[str, str]:
        """A new guest's Authorization header, asked for from ``address``."""
        async with self.client(address) as http:
            response = await http.post("/api/guests", json={"name": "Asker"})
        assert response.status_code == 201, response.text
        return {"Authorization": f"Bearer {response.json()['token']}"}

    async def ask(self, requests: list[Ask]) -> list[httpx2.Response]:
        """POST each (address, headers, match id) at once, spread over the nodes."""
        clients = [self.client(address, node) for node, (address, _, _) in enumerate(requests)]
        try:
            return await asyncio.gather(*(
                http.post(f"/api/matches/{match_id}/analysis", headers=headers)
                for http, (_, headers, match_id) in zip(clients, requests, strict=True)))
        finally:
            await asyncio.gather(*(http.aclose() for http in clients))

    async def pending(self) -> int:
        async with opened(self.database_url) as db, db.read() as session:
            a = models.Analysis
            return int(await session.scalar(
                select(func.count()).select_from(a).where(a.status.in_(PENDING))) or 0)


async def store_matches(url: str) -> None:
    now = datetime.now(UTC)
    async with opened(url) as db, db.write() as conn:
        await conn.execute(insert(models.Match), [
            {"id": f"m{i:02}", "variant": "bulgarian", "options": {}, "meta": {},
             "started_at": now, "finished_at": now, "end_reason": "won"}
            for i in range(MATCHES)])


async def forget_jobs(url: str) -> None:
    async with opened(url) as db, db.write() as conn:
        await conn.execute(delete(models.Analysis))


@pytest.fixture(scope="module", params=BACKENDS)
def site(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
         ) -> Iterator[Site]:
    folder = tmp_path_factory.mktemp(f"analysis-{request.param}")
    if request.param == "sqlite":
        url = f"sqlite:///{folder / 'belote.db'}"
        upgrade(url)
        run(store_matches(url))
        settings = app_settings(database_url=url, analysis_workers=0,
                                analyses_per_address=10)  # the default, as the cluster's
        with contextlib.contextmanager(run_server)(settings) as server:
            yield Site([server.http], url)
        return
    with cluster_of(folder, "AB", env={"ANALYSIS_WORKERS": "0"}) as cluster:
        run(store_matches(cluster.database_url))
        yield Site([node.http for node in cluster.nodes.values()], cluster.database_url)


@pytest.fixture
def fresh(site: Site) -> Site:
    """The site with no job: each test starts with an empty queue."""
    run(forget_jobs(site.database_url))
    return site


def codes(responses: list[httpx2.Response]) -> list[tuple[int, str | None]]:
    """Each answer's status and error code (None: accepted)."""
    return [(r.status_code, None if r.status_code == 202 else r.json()["detail"]["code"])
            for r in responses]


def tally(responses: list[httpx2.Response]) -> dict[tuple[int, str | None], int]:
    return dict(Counter(codes(responses)))


def test_the_queue_never_holds_more_than_its_cap_under_a_burst(fresh: Site) -> None:
    """30 requesters, each from an address of its own, ask at once: exactly 20 jobs are
    queued (the count and the insert are one transaction, one new job at a time), and the
    others are told the queue is full, with Retry-After."""
    async def body() -> None:
        requests: list[Ask] = [(fresh.address(), {}, f"m{i:02}") for i in range(30)]
        answers = await fresh.ask(requests)
        assert tally(answers) == {(202, None): CAPACITY,
                                  (429, "too_many_analyses"): 30 - CAPACITY}
        assert all(r.headers["Retry-After"] == "60" for r in answers if r.status_code == 429)
        assert await fresh.pending() == CAPACITY

    run(body())


def test_two_requesters_cannot_take_every_slot(fresh: Site) -> None:
    """Two players on two addresses each ask for 10 analyses at once (their window of
    ANALYSES_PER_ADDRESS, 10, let the two fill the 20 places): each gets its share, 3, the
    rest 429 ``analysis_slots_full_for_you``; a third still gets a job queued."""
    async def body() -> None:
        first, second, third = (fresh.address() for _ in range(3))
        one, two, three = [await fresh.guest(address) for address in (first, second, third)]
        requests: list[Ask] = [(first, one, f"m{i:02}") for i in range(10)]
        requests += [(second, two, f"m{i:02}") for i in range(10, 20)]
        answers = await fresh.ask(requests)
        for mine in (answers[:10], answers[10:]):
            assert tally(mine) == {(202, None): SLOTS,
                                   (429, "analysis_slots_full_for_you"): 10 - SLOTS}
        assert all(r.headers["Retry-After"] == "60" for r in answers if r.status_code == 429)
        late = await fresh.ask([(third, three, "m30")])
        assert codes(late) == [(202, None)]

    run(body())


def test_one_player_from_many_addresses_holds_its_share(fresh: Site) -> None:
    """One guest's token sent from four addresses: the player's slots count, not only each
    address's."""
    async def body() -> None:
        addresses = [fresh.address() for _ in range(4)]
        token = await fresh.guest(addresses[0])
        answers = await fresh.ask([(addresses[i % 4], token, f"m{i:02}") for i in range(12)])
        assert tally(answers) == {(202, None): SLOTS,
                                  (429, "analysis_slots_full_for_you"): 12 - SLOTS}
        assert await fresh.pending() == SLOTS

    run(body())


def test_one_address_holds_its_share_whoever_asks(fresh: Site) -> None:
    """Four guests and callers without a token, all from one address: the address's slots
    count, whatever token (or none) comes with the request."""
    async def body() -> None:
        address = fresh.address()
        tokens = [await fresh.guest(address) for _ in range(4)] + [{}]
        answers = await fresh.ask([(address, tokens[i % 5], f"m{i:02}") for i in range(10)])
        assert tally(answers) == {(202, None): SLOTS,
                                  (429, "analysis_slots_full_for_you"): 10 - SLOTS}
        assert await fresh.pending() == SLOTS

    run(body())


def test_the_share_shrinks_as_requesters_come() -> None:
    """ANALYSIS_SLOTS while few hold jobs; then the room split among those who do and one
    more: a newcomer finds room once the shares drained to the new size."""
    assert [share(CAPACITY, SLOTS, n) for n in (1, 5, 6, 9, 10, 19, 40)] == [3, 3, 2, 2, 1, 1, 1]
    for holders in range(1, CAPACITY):
        assert holders * share(CAPACITY, SLOTS, holders) < CAPACITY
    admit = Admission(CAPACITY, SLOTS)
    admit(Pending(12, Held(0, 6), Held(0, 6)))  # a newcomer, with six holding jobs
    with pytest.raises(SlotsFull):  # seven hold some: 20 // 8 = 2 each
        admit(Pending(12, Held(2, 7), None))
    with pytest.raises(QueueFull):  # full is full, even for a newcomer
        admit(Pending(CAPACITY, Held(0, 1), Held(0, 1)))
    admit(Pending(5, None, None))  # no token, no address: the cap alone
