"""Whether a service the node depends on (Redis, the database) answered its last call,
told once per change: one WARNING with the reason when it stops answering, one INFO when
it answers again.  An outage is expected and ridden out (docs/cluster.md), so a loop that
retries every period must not log a line, let alone a traceback, at every attempt."""

from __future__ import annotations

import logging


class Outage:
    def __init__(self, log: logging.Logger, what: str, answering: bool | None = None) -> None:
        self._log, self.what = log, what
        self.answering = answering  # None: not asked yet

    def answered(self) -> None:
        if self.answering is not True:
            self._log.info("cluster: %s answers", self.what)
        self.answering = True

    def failed(self, error: BaseException) -> None:
        if self.answering is not False:
            self._log.warning("cluster: %s unavailable: %s", self.what, reason(error))
        self.answering = False


def reason(error: BaseException) -> str:
    """What went wrong, in a few words: the driver's error behind ours (a timeout's own
    message is empty)."""
    cause = error.__cause__ or error
    text = str(cause).strip()
    return f"{type(cause).__name__}: {text}" if text else type(cause).__name__
