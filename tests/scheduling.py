"""How ``make test`` (``pytest -n 6 --dist loadfile``) spreads the tests over its workers.

xdist's ``loadfile`` sends each worker whole test files.  Here the browser tests' files
go out in E2E_UNITS units instead, each run by one worker from start to end, so that
the e2e package's server and Chromium (``tests/e2e/conftest.py``, package scope) start
once a unit rather than once for each file a worker takes between other files: about
15 s a file on an idle machine, four times that under load.  (xdist's ``loadgroup``
would say it with markers, but it renames test ids in a way pytest 9 ignores.)

The browser units are filled by the seconds their files took (SECONDS): each file goes
to the unit with the fewest seconds so far, longest files first, so that the units end
together (by name, one of three took twice another's time).  They are handed out in
xdist's order (most tests first), which leaves the cluster's few long files for the end:
handed out longest first, those files ran beside the three browser units, at a load of
16, and two of their timed takeovers failed (2026-12-07).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from xdist.remote import Producer  # type: ignore[import-untyped]  # xdist has no types
from xdist.scheduler import LoadFileScheduling  # type: ignore[import-untyped]

E2E_UNITS = 3  # three of make test's six workers run the browser tests, all run the rest
BROWSER_FILES = sorted(path.name for path in (Path(__file__).parent / "e2e").glob("test_*.py"))

# Seconds each browser file took (setup, call and teardown of its tests; pytest
# --junitxml) in a run of tests/e2e alone on two cores shared with other sessions,
# 2026-12-07, after that day's cuts (`pytest -n 2 --dist loadfile`, load 2.4 to 5.5;
# docs/testing.md).  Only the split they give matters: refresh them when a file's time
# changes much.  A browser file missing here counts NEW_BROWSER_FILE.
SECONDS = {
    "tests/e2e/test_layout.py": 69,
    "tests/e2e/test_presence_ui.py": 64,
    "tests/e2e/test_deal_end.py": 62,
    "tests/e2e/test_analysis.py": 54,
    "tests/e2e/test_community_ui.py": 45,
    "tests/e2e/test_coinche.py": 40,
    "tests/e2e/test_newcomer.py": 40,
    "tests/e2e/test_turn_timer.py": 38,
    "tests/e2e/test_accounts_ui.py": 28,
    "tests/e2e/test_rules_help.py": 26,
    "tests/e2e/test_tournaments.py": 25,
    "tests/e2e/test_play.py": 24,
    "tests/e2e/test_two_players.py": 22,
    "tests/e2e/test_resend.py": 20,
    "tests/e2e/test_play_now.py": 17,
    "tests/e2e/test_problems.py": 17,
    "tests/e2e/test_small_defects.py": 17,
    "tests/e2e/test_lobby.py": 15,
    "tests/e2e/test_sounds.py": 15,
    "tests/e2e/test_chat.py": 12,
    "tests/e2e/test_csp.py": 12,
    "tests/e2e/test_history.py": 11,
    "tests/e2e/test_interruptions.py": 11,
    "tests/e2e/test_silence.py": 11,
    "tests/e2e/test_comfort.py": 10,
    "tests/e2e/test_scoresheet.py": 10,
    "tests/e2e/test_history_details.py": 9,
    "tests/e2e/test_errors.py": 5,
    "tests/e2e/test_lobby_pages.py": 3,
}
NEW_BROWSER_FILE = 20


def browser_units(names: list[str]) -> dict[str, str]:
    """The unit of each browser file: the one with the fewest seconds so far, the longest
    files placed first (ties by name, so every worker computes the same split)."""
    totals = [0.0] * E2E_UNITS
    units = {}
    for name in sorted(names, key=lambda n: (-seconds(f"tests/e2e/{n}"), n)):
        emptiest = totals.index(min(totals))
        totals[emptiest] += seconds(f"tests/e2e/{name}")
        units[name] = f"e2e-{emptiest}"
    return units


def seconds(path: str) -> float:
    return SECONDS.get(path, NEW_BROWSER_FILE)


UNITS = browser_units(BROWSER_FILES)
UNIT_SECONDS = {unit: sum(seconds(f"tests/e2e/{name}") for name, u in UNITS.items() if u == unit)
                for unit in sorted(set(UNITS.values()))}


class Units(LoadFileScheduling):  # type: ignore[misc]
    def _split_scope(self, nodeid: str) -> str:
        return work_unit(nodeid.split("::")[0])


def work_unit(path: str) -> str:
    """The unit of the test file at ``path`` (relative to the root, as in a test's id)."""
    folder, _, name = path.rpartition("/")
    if folder.endswith("e2e") and name in UNITS:
        return UNITS[name]
    return path


@pytest.hookimpl(tryfirst=True, optionalhook=True)  # before xdist chooses; none without xdist
def pytest_xdist_make_scheduler(config: pytest.Config, log: Producer) -> Units | None:
    return Units(config, log) if config.getvalue("dist") == "loadfile" else None
