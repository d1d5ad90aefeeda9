"""How a table refuses a command: a code for the client, an HTTP status for the REST layer."""

from __future__ import annotations


class TableError(Exception):
    """A refused command; ``status`` is the HTTP status the REST layer answers with, and
    ``retry_after`` (seconds) when trying again later will help (a 429)."""

    def __init__(self, code: str, message: str, status: int = 409,
                 retry_after: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.status = status
        self.retry_after = retry_after


def shutting_down() -> TableError:
    """The refusal of a stopping server: 503, so clients retry after the restart."""
    return TableError("shutting_down", "the server is restarting; try again shortly", 503)
