"""Every REST call under ``/api`` counted per bearer token and per client address before
it runs (ASGI), through the server's limiter (app/limiter.py: in a cluster, in Redis, so
the limits hold however the balancer spreads the calls); past either, 429
``too_many_requests`` with ``Retry-After``.

Not counted: the probes and metrics (outside ``/api``), the browser client's files, the
sockets (their own limits: docs/protocol.md), and a call another node of the cluster
forwarded to the table's owner here: the node it reached first counted it."""

from __future__ import annotations

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from ..accounts.sessions import token_hash
from ..cluster.relay import RELAY, relayed
from ..container import running
from ..errors import ErrorCode
from ..limiter import Limit, Limited
from ..sections import RestSettings
from ..shared import UNREACHABLE
from .errors import error_answer, error_responses

# What every REST route may answer besides its own refusals (where it has its own 429,
# OpenAPI shows that one).
RATE_LIMITED = error_responses({429: "`too_many_requests`: the token's or the client "
                                     "address's rate (docs/protocol.md), with `Retry-After`"})


class RestLimits:
    def __init__(self, app: ASGIApp, rest: RestSettings) -> None:
        self.app = app
        self.per_token = Limit.rate("rest-token", rest.rest_rate_per_token)
        self.per_address = Limit.rate("rest-address", rest.rest_rate_per_address)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith("/api/"):
            await self.app(scope, receive, send)
            return
        container = running(scope["app"])
        headers = Headers(scope=scope)
        cluster = container.cluster
        if cluster is not None and relayed(headers.get(RELAY), cluster.mark):
            await self.app(scope, receive, send)
            return
        wanted: list[tuple[Limit, str]] = []
        scheme, _, token = headers.get("authorization", "").partition(" ")
        if scheme.lower() == "bearer" and token:
            wanted.append((self.per_token, token_hash(token)))  # no token kept as it is
        if scope.get("client"):
            wanted.append((self.per_address, scope["client"][0]))
        try:
            await container.limiter.take(wanted)
        except Limited as limited:
            message = f"too many requests; try again in {limited.retry_after} s"
            response = error_answer(ErrorCode.TOO_MANY_REQUESTS, message,
                                    {"Retry-After": str(limited.retry_after)})
            await response(scope, receive, send)
            return
        except UNREACHABLE:
            pass  # Redis away: the API stays up, unlimited here meanwhile (nginx's holds)
        await self.app(scope, receive, send)
