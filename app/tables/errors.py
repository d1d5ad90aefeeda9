"""How a table refuses a command: a code (app/errors.py), its HTTP status the REST layer's."""

from __future__ import annotations

from ..errors import ErrorCode


class TableError(Exception):
    """A refused command, with ``retry_after`` (seconds) when trying again later will help
    (a 429)."""

    def __init__(self, code: ErrorCode, message: str, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.retry_after = retry_after


def shutting_down() -> TableError:
    """The refusal of a stopping server: 503, so clients retry after the restart."""
    return TableError(ErrorCode.SHUTTING_DOWN, "the server is restarting; try again shortly")
