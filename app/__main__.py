"""``python -m app [--host H] [--port P]``: serve with uvicorn; every other setting comes
from the environment (see app/config.py)."""

from __future__ import annotations

import argparse
import contextlib
import gc

import uvicorn

from .config import get_settings
from .main import server_config


def main(argv: list[str] | None = None) -> None:
    settings = get_settings()
    parser = argparse.ArgumentParser(
        prog="python -m app",
        description="Serve the Belote table server. Every other setting (SECRET_KEY, "
        "BOT_DELAY, DATABASE_URL, ...) comes from the environment or .env: see app/config.py.",
    )
    parser.add_argument("--host", default=settings.host)
    parser.add_argument("--port", type=int, default=settings.port)
    args = parser.parse_args(argv)
    settings = settings.model_copy(update={"host": args.host, "port": args.port})
    server = uvicorn.Server(server_config(settings))
    # Everything alive now (modules, classes, the app) lives as long as the process: keep
    # it out of full collections, whose pauses stall every table at once.
    gc.freeze()
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C: uvicorn has shut down cleanly
        server.run()


if __name__ == "__main__":
    main()
