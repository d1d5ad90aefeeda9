"""Every HTTP error answers one shape (issue 13): ``{"detail": {"code", "message"}}``, with
``fields`` when the request did not validate; the status's own headers are kept, and the
OpenAPI schema declares that body for every error the API lists."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
import pytest
from fastapi.testclient import TestClient

from app.api.deps import get_lobby
from app.container import running
from tests.conftest import Rest

ROOT = Path(__file__).resolve().parents[1]
Call = Callable[[TestClient, Rest], httpx2.Response]


@dataclass
class Case:
    status: int
    code: str
    call: Call
    fields: list[tuple[str, str]] = field(default_factory=list)  # (field, code), 422 only
    headers: dict[str, str] = field(default_factory=dict)


def token(rest: Rest, name: str = "Ana") -> dict[str, str]:
    return rest.auth(rest.guest(name))


def create(client: TestClient, headers: dict[str, str] | None = None,
           **body: Any) -> httpx2.Response:
    return client.post("/api/tables", json={"name": "t"} | body, headers=headers)


def one_table_too_many(client: TestClient, rest: Rest) -> httpx2.Response:
    """A player holds 3 open tables; the 4th is refused until the oldest expires."""
    ana = token(rest)
    for _ in range(3):
        assert create(client, ana).status_code == 201
    return create(client, ana)


def start_half_empty(client: TestClient, rest: Rest) -> httpx2.Response:
    ana = rest.guest("Ana")
    return client.post(f"/api/tables/{rest.table(ana, [ana])}/start", headers=rest.auth(ana))


def seat_four(client: TestClient, rest: Rest) -> httpx2.Response:
    ana = rest.guest("Ana")
    return client.put(f"/api/tables/{rest.table(ana, [])}/seats/4", headers=rest.auth(ana))


def while_stopping(client: TestClient, rest: Rest) -> httpx2.Response:
    ana = token(rest)
    assert client.portal is not None
    client.portal.call(running(client.app).lobby.stop, 1)  # type: ignore[arg-type]
    return create(client, ana)


def broken_route(client: TestClient, rest: Rest) -> httpx2.Response:
    """An unexpected exception in a route; this client answers 500 rather than raise."""
    def broken() -> None:
        raise RuntimeError("a bug")
    client.app.dependency_overrides[get_lobby] = broken  # type: ignore[attr-defined]
    return TestClient(client.app, raise_server_exceptions=False).get("/api/tables")


CASES = {
    "401 no token": Case(401, "missing_token", lambda c, r: create(c),
                         headers={"WWW-Authenticate": "Bearer"}),
    "401 bad token": Case(401, "bad_token",
                          lambda c, r: create(c, {"Authorization": "Bearer nope"}),
                          headers={"WWW-Authenticate": "Bearer"}),
    "404 table": Case(404, "no_table", lambda c, r: c.get("/api/tables/nope")),
    "404 route": Case(404, "not_found", lambda c, r: c.get("/api/nope")),
    "405": Case(405, "method_not_allowed", lambda c, r: c.patch("/api/tables"),
                headers={"Allow": "GET, HEAD"}),
    "409": Case(409, "seats_empty", start_half_empty),
    "422 refused name": Case(422, "name_reserved",
                             lambda c, r: c.post("/api/guests", json={"name": "Bot 2"}),
                             fields=[("body.name", "name_reserved")]),
    "422 body": Case(422, "invalid_request",
                     lambda c, r: create(c, token(r), turn_seconds=0, private="maybe"),
                     fields=[("body.turn_seconds", "greater_than_equal"),
                             ("body.private", "bool_parsing")]),
    "422 not json": Case(422, "invalid_request",
                         lambda c, r: c.post("/api/guests", content=b"{",
                                             headers={"Content-Type": "application/json"}),
                         fields=[("body.1", "json_invalid")]),
    "422 query": Case(422, "invalid_request", lambda c, r: c.get("/api/tables?limit=0"),
                      fields=[("query.limit", "greater_than_equal")]),
    "422 path": Case(422, "invalid_request", seat_four,
                     fields=[("path.seat", "less_than_equal")]),
    "422 house rule": Case(422, "bad_options",
                           lambda c, r: create(c, token(r), options={"made_up": True})),
    "429": Case(429, "too_many_tables_for_you", one_table_too_many),
    "503": Case(503, "shutting_down", while_stopping),
    "500": Case(500, "internal", broken_route),
}


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_every_error_answers_one_shape(client: TestClient, rest: Rest, case: Case) -> None:
    response = case.call(client, rest)
    assert response.status_code == case.status, response.text
    body = response.json()
    assert list(body) == ["detail"], body
    detail = body["detail"]
    assert sorted(detail) == sorted(["code", "message"] + (["fields"] if case.fields else []))
    assert detail["code"] == case.code
    assert isinstance(detail["message"], str) and detail["message"]
    if case.fields:
        assert [(f["field"], f["code"]) for f in detail["fields"]] == case.fields
        assert all(sorted(f) == ["code", "field", "message"] and f["message"]
                   for f in detail["fields"])
    for name, value in case.headers.items():
        assert response.headers[name] == value


def test_a_refused_name_says_why_in_the_message(client: TestClient) -> None:
    refused = client.post("/api/guests", json={"name": "Bot 2"}).json()["detail"]
    assert refused["message"] == "body.name: that name is kept for bots"
    assert refused["fields"][0]["message"] == "that name is kept for bots"


def test_retry_after_is_kept_on_a_429(client: TestClient, rest: Rest) -> None:
    assert int(one_table_too_many(client, rest).headers["Retry-After"]) > 0


def test_the_schema_declares_the_shape_for_every_error(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    errors = {(method, path, status): answer["content"]["application/json"]["schema"]
              for path, operations in schema["paths"].items() if path.startswith("/api")
              for method, operation in operations.items()
              for status, answer in operation["responses"].items() if status[0] in "45"}
    assert errors and all(ref == {"$ref": "#/components/schemas/ErrorBody"}
                          for ref in errors.values()), errors
    assert ("post", "/api/guests", "422") in errors and ("post", "/api/tables", "401") in errors
    assert "HTTPValidationError" not in schema["components"]["schemas"]
    assert sorted(schema["components"]["schemas"]["ErrorDetail"]["required"]) == [
        "code", "message"]
