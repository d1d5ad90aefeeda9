"""The headers a browser obeys, on every kind of answer: the page, a file, an API call,
its errors (a 500 too), the metrics; /docs with a policy of its own that allows its one
inline script by hash and nothing else inline (tests/e2e/test_csp.py checks the pages in
Chromium)."""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.api.routes.docs import SWAGGER_UI
from app.headers import HEADERS, POLICY
from app.main import create_app
from app.storage import MemoryStorage
from tests.conftest import app_settings


@pytest.fixture
def client() -> Iterator[TestClient]:
    app = create_app(app_settings(), MemoryStorage())

    async def fails() -> None:
        raise RuntimeError("a defect")

    app.add_api_route("/api/fails", fails)
    app.router.routes.insert(0, app.router.routes.pop())  # before the client's files
    with TestClient(app, raise_server_exceptions=False) as test_client:
        yield test_client


@pytest.mark.parametrize(("method", "path", "status"), [
    ("GET", "/", 200), ("GET", "/js/main.js", 200), ("GET", "/css/app.css", 200),
    ("GET", "/favicon.svg", 200), ("GET", "/i18n/en/core.json", 200),
    ("GET", "/api/protocol", 200), ("GET", "/api/tables", 200), ("GET", "/openapi.json", 200),
    ("GET", "/metrics", 200), ("GET", "/healthz", 200),
    ("GET", "/api/tables/nope", 404), ("GET", "/no/such/file.js", 404),
    ("POST", "/api/guests", 422), ("POST", "/api/tables", 401), ("GET", "/api/fails", 500),
])
def test_every_answer_carries_the_headers(client: TestClient, method: str, path: str,
                                          status: int) -> None:
    response = client.request(method, path)
    assert response.status_code == status
    for name, value in HEADERS.items():
        assert response.headers.get_list(name) == [value], name


def test_the_policy_allows_only_the_site_itself() -> None:
    directives = dict(d.split(" ", 1) for d in POLICY.split("; "))
    assert directives == {"default-src": "'self'", "object-src": "'none'",
                          "base-uri": "'none'", "form-action": "'self'",
                          "frame-ancestors": "'none'"}


def test_docs_allow_their_cdn_and_their_one_inline_script(client: TestClient) -> None:
    page = client.get("/docs")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    (policy,) = page.headers.get_list("Content-Security-Policy")
    directives = dict(d.split(" ", 1) for d in policy.split("; "))
    (inline,) = re.findall(r"<script>(.*?)</script>", page.text, re.DOTALL)
    digest = base64.b64encode(hashlib.sha256(inline.encode()).digest()).decode()
    assert directives["script-src"] == f"{SWAGGER_UI}/ 'sha256-{digest}'"
    assert directives["style-src"] == f"{SWAGGER_UI}/"
    assert directives["default-src"] == "'none'" and directives["frame-ancestors"] == "'none'"
    assert "unsafe" not in policy
    assert re.findall(r'(?:src|href)="([^"]+)"', page.text) == [
        f"{SWAGGER_UI}/swagger-ui.css", "/favicon.svg", f"{SWAGGER_UI}/swagger-ui-bundle.js"]
    assert "url: '/openapi.json'" in inline
    for name in HEADERS.keys() - {"Content-Security-Policy"}:
        assert page.headers[name] == HEADERS[name]
    assert client.get("/redoc").status_code == 404  # not served: it needs inline styles
