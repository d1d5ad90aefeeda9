"""``python -m app [--host H] [--port P]``: serve with uvicorn; every other setting comes
from the environment (see app/config.py)."""

from __future__ import annotations

import argparse
import contextlib
import gc
import signal
import sys
from types import FrameType

from pydantic import ValidationError

from .config import get_settings
from .main import make_server

GC_YOUNG_OBJECTS = 50_000  # net new container objects between young collections


def main(argv: list[str] | None = None) -> None:
    try:
        settings = get_settings()
    except ValidationError as exc:  # one line per problem, not a traceback
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'settings'}: {e['msg']}"
                             for e in exc.errors())
        sys.exit(f"refusing to start: {problems}")
    parser = argparse.ArgumentParser(
        prog="python -m app",
        description="Serve the Belote table server. Every other setting (SECRET_KEY, "
        "BOT_DELAY, DATABASE_URL, ...) comes from the environment or .env: see app/config.py.",
    )
    parser.add_argument("--host", default=settings.host)
    parser.add_argument("--port", type=int, default=settings.port)
    args = parser.parse_args(argv)
    settings = settings.model_copy(update={"host": args.host, "port": args.port})
    serving = make_server(settings)
    tune_gc()
    # uvicorn re-raises the signal it shut down for; after a clean shutdown, SIGTERM (how
    # Docker and systemd stop us) means exit 0, not "killed".
    signal.signal(signal.SIGTERM, _stopped)
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C: uvicorn has shut down cleanly
        serving.run()


def tune_gc() -> None:
    """Keep the garbage collector's pauses, which stall every table at once, rare and short.

    Everything alive now (modules, classes, the app: nearly all there will be at idle)
    lives as long as the process: frozen, no collection scans it again.  Young collections
    run after GC_YOUNG_OBJECTS new objects instead of 700: with hundreds of tables the
    default ran several a second and freed nothing, but moved objects that live a second
    or two into the old generation, until a full collection (66-280 ms with 300-500
    tables, one to five a minute) scanned every table's objects to free next to nothing
    (docs/benchmarks-server.md has the measurements).
    """
    gc.freeze()
    gc.set_threshold(GC_YOUNG_OBJECTS, *gc.get_threshold()[1:])


def _stopped(signum: int, frame: FrameType | None) -> None:
    sys.exit(0)


if __name__ == "__main__":
    main()
