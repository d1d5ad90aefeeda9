"""How ``make test`` (``pytest -n 6 --dist loadfile``) spreads the tests over its workers.

xdist's ``loadfile`` sends each worker whole test files.  Here the browser tests' files
go out in E2E_UNITS units instead, each run by one worker from start to end, so that
the e2e package's server and Chromium (``tests/e2e/conftest.py``, package scope) start
once a unit rather than once for each file a worker takes between other files: about
15 s a file on an idle machine, four times that under load.  (xdist's ``loadgroup``
would say it with markers, but it renames test ids in a way pytest 9 ignores.)
"""

from __future__ import annotations

from pathlib import Path

import pytest
from xdist.remote import Producer  # type: ignore[import-untyped]  # xdist has no types
from xdist.scheduler import LoadFileScheduling  # type: ignore[import-untyped]

E2E_UNITS = 3  # three of make test's six workers run the browser tests, all run the rest
BROWSER_FILES = sorted(path.name for path in (Path(__file__).parent / "e2e").glob("test_*.py"))


class Units(LoadFileScheduling):  # type: ignore[misc]
    def _split_scope(self, nodeid: str) -> str:
        return work_unit(nodeid.split("::")[0])


def work_unit(path: str) -> str:
    """The unit of the test file at ``path`` (relative to the root, as in a test's id)."""
    folder, _, name = path.rpartition("/")
    if folder.endswith("e2e") and name in BROWSER_FILES:
        return f"e2e-{BROWSER_FILES.index(name) % E2E_UNITS}"
    return path


@pytest.hookimpl(tryfirst=True, optionalhook=True)  # before xdist chooses; none without xdist
def pytest_xdist_make_scheduler(config: pytest.Config, log: Producer) -> Units | None:
    return Units(config, log) if config.getvalue("dist") == "loadfile" else None
