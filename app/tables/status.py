"""The refusal every command meets while a table's log is behind."""

from __future__ import annotations

LOG_DOWN = "the match log cannot be written now; the table goes on once it can"
