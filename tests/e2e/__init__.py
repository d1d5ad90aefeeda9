"""Browser tests: the client in Debian's Chromium against the real server (harness.py).

They fail, never skip, without their tools: CI must prove them."""

from importlib.util import find_spec

if find_spec("playwright") is None:
    raise ImportError(
        "the browser tests need the `playwright` package of the dev extra: run `make test` "
        "(or `pip install -e '.[dev]'`); it drives /usr/bin/chromium, no browser download"
    )
