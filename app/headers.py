"""Headers a browser obeys, on every HTTP answer: the client's pages, its files, the API,
its errors.

The Content-Security-Policy lets a page run, style, show and connect to (sockets too:
'self' covers ws: and wss: to the same host) only what comes from this site: no inline
script, no inline style, no other host, no frame around it.  Were hostile text ever to
reach the page as HTML, nothing of it would run.  An answer that brings a policy of its
own keeps it (the API's /docs page: app/api/routes/docs.py).  HSTS is the TLS proxy's
to send: this server speaks plain HTTP.
"""

from __future__ import annotations

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

POLICY = "; ".join([
    "default-src 'self'",  # scripts, styles, images, fonts, fetches and sockets
    "object-src 'none'",
    "base-uri 'none'",  # these three do not fall back to default-src
    "form-action 'self'",
    "frame-ancestors 'none'",  # no site may show this one in a frame (clickjacking)
])
HEADERS = {
    "Content-Security-Policy": POLICY,
    "X-Content-Type-Options": "nosniff",  # a file is what its Content-Type says
    "Referrer-Policy": "no-referrer",  # a private table's link goes nowhere by itself
    "Cross-Origin-Opener-Policy": "same-origin",  # a page it opens cannot reach back
}


class SecurityHeaders:
    """Pure ASGI: adds :data:`HEADERS` as an answer starts, and passes everything else
    (bodies, streams, sockets) through untouched."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                headers = MutableHeaders(scope=message)
                for name, value in HEADERS.items():
                    if name not in headers:
                        headers[name] = value
            await send(message)

        await self.app(scope, receive, with_headers)
