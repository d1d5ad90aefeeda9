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
    # Everything alive now (modules, classes, the app) lives as long as the process: keep
    # it out of full collections, whose pauses stall every table at once.
    gc.freeze()
    # uvicorn re-raises the signal it shut down for; after a clean shutdown, SIGTERM (how
    # Docker and systemd stop us) means exit 0, not "killed".
    signal.signal(signal.SIGTERM, _stopped)
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C: uvicorn has shut down cleanly
        serving.run()


def _stopped(signum: int, frame: FrameType | None) -> None:
    sys.exit(0)


if __name__ == "__main__":
    main()
