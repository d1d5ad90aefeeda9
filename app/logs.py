"""Logging for the whole process: plain text, or JSON lines (``LOG_FORMAT=json``) that
collectors parse without regexes.  Lines logged from a table's work carry its table and
match ids, taken from context variables the table actor sets (its tasks inherit them)."""

from __future__ import annotations

import json
import logging
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

from .sections import ServerSettings

TABLE_ID: ContextVar[str | None] = ContextVar("table_id", default=None)
MATCH_ID: ContextVar[str | None] = ContextVar("match_id", default=None)


class TableContext(logging.Filter):
    """Copies the context's ids onto each record, for both formats."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.table_id = TABLE_ID.get()
        record.match_id = MATCH_ID.get()
        return True


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key in ("table_id", "match_id"):
            if getattr(record, key, None) is not None:
                line[key] = getattr(record, key)
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line)


class TextFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        ids = [f"{key}={value}" for key in ("table_id", "match_id")
               if (value := getattr(record, key, None)) is not None]
        return f"{text} [{' '.join(ids)}]" if ids else text


def log_config(settings: ServerSettings) -> dict[str, Any]:
    """The ``logging.config.dictConfig`` uvicorn applies: one stderr handler on the root,
    which uvicorn's own loggers propagate to."""
    formatter: dict[str, Any] = (
        {"()": JsonFormatter} if settings.log_format == "json"
        else {"()": TextFormatter, "format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}
    )
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"table": {"()": TableContext}},
        "formatters": {"default": formatter},
        "handlers": {"stderr": {"class": "logging.StreamHandler", "formatter": "default",
                                "filters": ["table"], "stream": "ext://sys.stderr"}},
        "root": {"handlers": ["stderr"], "level": settings.log_level.upper()},
        "loggers": {name: {"handlers": [], "propagate": True}
                    for name in ("uvicorn", "uvicorn.error", "uvicorn.access")},
    }
