"""A table's statuses, and the refusal every command meets while its log is behind."""

from __future__ import annotations

WAITING, PLAYING, OVER, CLOSED = "waiting", "playing", "over", "closed"
LOG_DOWN = "the match log cannot be written now; the table goes on once it can"
