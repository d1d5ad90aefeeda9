"""``/docs``: the API in Swagger UI, FastAPI's page served with a policy of its own.

Swagger UI's script and style come from a CDN, as with FastAPI's own page (so the page
needs the internet; the schema, ``/openapi.json``, does not), and the page starts it with
one inline script.  The site's policy (app/headers.py) allows neither; this page's allows
that CDN's files and that one script by its hash, nothing else inline, and like every
page no frame around it.  ReDoc (``/redoc``) is not served: it needs inline styles and
more hosts, and says nothing Swagger UI does not."""

from __future__ import annotations

import base64
import hashlib
import re

from fastapi import APIRouter, Request
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse

router = APIRouter(include_in_schema=False)

SWAGGER_UI = "https://cdn.jsdelivr.net/npm/swagger-ui-dist@5"
INLINE_SCRIPT = re.compile(r"<script>(.*?)</script>", re.DOTALL)


@router.get("/docs")
def swagger_ui(request: Request) -> HTMLResponse:
    root = request.scope.get("root_path", "").rstrip("/")
    page = get_swagger_ui_html(
        openapi_url=root + request.app.openapi_url, title=f"{request.app.title} - Swagger UI",
        swagger_js_url=f"{SWAGGER_UI}/swagger-ui-bundle.js",
        swagger_css_url=f"{SWAGGER_UI}/swagger-ui.css", swagger_favicon_url="/favicon.svg")
    scripts = " ".join(f"'sha256-{_digest(script)}'"
                       for script in INLINE_SCRIPT.findall(bytes(page.body).decode()))
    page.headers["Content-Security-Policy"] = "; ".join([
        "default-src 'none'",
        f"script-src {SWAGGER_UI}/ {scripts}",
        f"style-src {SWAGGER_UI}/",
        "img-src 'self' data:",  # Swagger UI's icons are data: URLs in its style sheet
        "connect-src 'self'",  # the schema, and "Try it out"
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ])
    return page


def _digest(script: str) -> str:
    return base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
