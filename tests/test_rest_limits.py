"""REST calls are limited per bearer token and per client address (issue 29): a flood of
sit/leave calls on someone else's table is cut at the token's rate, a flood without a
token at the address's, each answered 429 ``too_many_requests`` with ``Retry-After`` in
the one error shape; the probes and the client's files are not counted.  In a cluster
the counts are the cluster's, and a call forwarded to a table's owner counts once.

Each call comes from an address of its own on loopback (127.0.0.x); the limits are per
day, so that no window turns within a test (one in memory turns at midnight, UTC)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx2
import pytest

from tests.cluster_nodes import Cluster, cluster_of
from tests.conftest import LiveServer, app_settings, run_server
from tests.test_db_support import run
from tests.waiting import within

PER_TOKEN, PER_ADDRESS = 20, 50
LIMITS = {"rest_rate_per_token": f"{PER_TOKEN}/day",
          "rest_rate_per_address": f"{PER_ADDRESS}/day"}
GUARD = 60  # seconds for a cluster test's coroutine


def at(address: str) -> httpx2.AsyncClient:
    """A client whose calls come from ``address`` (any of 127.0.0.0/8 reaches a server
    listening on 127.0.0.1)."""
    return httpx2.AsyncClient(transport=httpx2.AsyncHTTPTransport(local_address=address),
                              timeout=30)


def auth(guest: dict[str, str]) -> dict[str, str]:
    return {"Authorization": f"Bearer {guest['token']}"}


async def guest(http: httpx2.AsyncClient, base: str, name: str) -> dict[str, str]:
    response = await http.post(f"{base}/api/guests", json={"name": name})
    assert response.status_code == 201, response.text
    created: dict[str, str] = response.json()
    return created


async def table_of(http: httpx2.AsyncClient, base: str, owner: dict[str, str]) -> str:
    """A waiting table, its owner in seat 0 (so that it stays open while others leave)."""
    response = await http.post(f"{base}/api/tables", json={"name": "t"}, headers=auth(owner))
    assert response.status_code == 201, response.text
    table_id: str = response.json()["id"]
    response = await http.put(f"{base}/api/tables/{table_id}/seats/0", headers=auth(owner))
    assert response.status_code == 200, response.text
    return table_id


def passed(answers: list[httpx2.Response]) -> int:
    """How many were let through; every other one refused in the one shape."""
    for answer in answers:
        if answer.status_code == 429:
            assert answer.json()["detail"]["code"] == "too_many_requests", answer.text
            assert int(answer.headers["Retry-After"]) > 0
    return sum(answer.status_code != 429 for answer in answers)


def sit_and_leave(http: httpx2.AsyncClient, bases: list[str], table_id: str,
                  who: dict[str, str], count: int) -> list[Any]:
    """``count`` sit and leave calls on seat 1, sent round the ``bases``."""
    return [http.request("PUT" if i % 2 == 0 else "DELETE",
                         f"{bases[i % len(bases)]}/api/tables/{table_id}/seats/1",
                         headers=auth(who)) for i in range(count)]


def seated_or_refused(answers: list[httpx2.Response]) -> bool:
    """Whether every call let through reached the table: seated or left (200), or
    refused by it for the order they came in (403 ``not_your_seat``, 409 ``seat_taken``)."""
    return {a.status_code for a in answers} <= {200, 403, 409, 429}


@contextmanager
def served(**overrides: Any) -> Iterator[LiveServer]:
    yield from run_server(app_settings(**overrides))


async def flood(base: str) -> None:
    async with at("127.0.0.2") as owner_http, at("127.0.0.3") as http, \
            at("127.0.0.4") as anonymous, at("127.0.0.5") as elsewhere:
        table_id = await table_of(owner_http, base, await guest(owner_http, base, "Ana"))
        ivo = await guest(http, base, "Ivo")
        answers = await asyncio.gather(*sit_and_leave(http, [base], table_id, ivo, 60))
        assert passed(answers) == PER_TOKEN and seated_or_refused(answers)
        # The token is held back from any address; another token at its address is not.
        assert passed([await elsewhere.get(f"{base}/api/me", headers=auth(ivo))]) == 0
        eva = await guest(http, base, "Eva")
        assert (await http.get(f"{base}/api/me", headers=auth(eva))).status_code == 200

        answers = await asyncio.gather(*(anonymous.get(f"{base}/api/tables")
                                         for _ in range(60)))
        assert passed(answers) == PER_ADDRESS
        for path in ("/healthz", "/readyz", "/metrics", "/", "/js/api.js"):
            assert (await anonymous.get(base + path)).status_code == 200, path
        assert (await elsewhere.get(f"{base}/api/tables")).status_code == 200


def test_a_flood_is_cut_per_token_and_per_address() -> None:
    with served(**LIMITS) as server:
        run(flood(server.http))


async def across_nodes(cluster: Cluster) -> None:
    a, b = cluster["A"].http, cluster["B"].http
    async with at("127.0.0.2") as owner_http, at("127.0.0.3") as http, \
            at("127.0.0.4") as anonymous:
        table_id = await table_of(owner_http, a, await guest(owner_http, a, "Ana"))
        ivo = await guest(http, b, "Ivo")
        # Through B to A, the table's owner: counted on B, not again on A.
        forwarded = await asyncio.gather(*sit_and_leave(http, [b], table_id, ivo, 10))
        assert passed(forwarded) == 10 and seated_or_refused(forwarded)
        answers = await asyncio.gather(*(http.get(f"{(a, b)[i % 2]}/api/me", headers=auth(ivo))
                                         for i in range(30)))
        assert passed(answers) == PER_TOKEN - 10

        answers = await asyncio.gather(*(anonymous.get(f"{(a, b)[i % 2]}/api/tables")
                                         for i in range(60)))
        assert passed(answers) == PER_ADDRESS


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.processes
def test_the_limits_hold_across_nodes(tmp_path: Path) -> None:
    env = {name.upper(): value for name, value in LIMITS.items()}
    with cluster_of(tmp_path, "AB", env=env) as cluster:
        cluster.run(within(across_nodes(cluster), GUARD, "the test"))
        assert cluster.errors() == []
