"""How ``make test`` (``pytest -n 6 --dist loadfile``) spreads the tests over its workers.

xdist's ``loadfile`` sends each worker whole test files.  Here the browser tests' files
go out in E2E_UNITS units instead, each run by one worker from start to end, so that
the e2e package's server and Chromium (``tests/e2e/conftest.py``, package scope) start
once a unit rather than once for each file a worker takes between other files: about
15 s a file on an idle machine, four times that under load.  (xdist's ``loadgroup``
would say it with markers, but it renames test ids in a way pytest 9 ignores.)

The units are filled and handed out by the seconds their files took (SECONDS): each
browser file goes to the unit with the fewest seconds so far, longest files first, so
that the units end together (by name, one of three took twice another's time); and a
free worker takes the longest unit left, where xdist would take the one with the most
tests (a file of four long cluster tests came last, and ran on alone at the end).
"""

from __future__ import annotations

from collections import OrderedDict
from pathlib import Path
from typing import Any

import pytest
from xdist.remote import Producer  # type: ignore[import-untyped]  # xdist has no types
from xdist.scheduler import LoadFileScheduling  # type: ignore[import-untyped]

E2E_UNITS = 3  # three of make test's six workers run the browser tests, all run the rest
BROWSER_FILES = sorted(path.name for path in (Path(__file__).parent / "e2e").glob("test_*.py"))

# Seconds each file took (setup, call and teardown of its tests; pytest --junitxml) on two
# cores shared with other sessions, 2026-12-07 (docs/testing.md): the browser files in a
# run of tests/e2e alone after that day's cuts (`pytest -n 2 --dist loadfile`, load 2.4
# to 5.5), the others, those of 15 s or more, in the whole suite's run before them (the
# same command, load 5.4 to 6.1; the files cut since at their new share).  Only the order
# they give matters (the browser units stay the longest either way): refresh them when a
# file's time changes much.  A browser file missing here counts NEW_BROWSER_FILE.
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
    "tests/test_cluster.py": 122,
    "tests/test_analysis_api.py": 115,
    "tests/test_cluster_failover.py": 98,
    "tests/test_review.py": 90,
    "tests/test_cluster_pauses.py": 66,
    "tests/test_rating_integrity.py": 73,
    "tests/test_tournaments_cluster.py": 56,
    "tests/test_community.py": 44,
    "tests/test_properties.py": 41,
    "tests/test_recovery.py": 37,
    "tests/test_accounts.py": 35,
    "tests/test_tournaments_api.py": 35,
    "tests/test_analysis_shares.py": 31,
    "tests/test_db_migrations.py": 29,
    "tests/test_tournaments_process.py": 28,
    "tests/test_problems.py": 18,
    "tests/test_tiers.py": 23,
    "tests/test_deploy_server.py": 23,
    "tests/test_db_repository.py": 20,
    "tests/test_scoresheets.py": 19,
    "tests/test_rated.py": 19,
    "tests/test_cluster_play.py": 19,
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
    if path in SECONDS:
        return SECONDS[path]
    return NEW_BROWSER_FILE if path.startswith("tests/e2e/") else 0.0


UNITS = browser_units(BROWSER_FILES)
UNIT_SECONDS = {unit: sum(seconds(f"tests/e2e/{name}") for name, u in UNITS.items() if u == unit)
                for unit in sorted(set(UNITS.values()))}


class Units(LoadFileScheduling):  # type: ignore[misc]
    def _split_scope(self, nodeid: str) -> str:
        return work_unit(nodeid.split("::")[0])

    def _assign_work_unit(self, node: object) -> None:
        longest_first(self.workqueue)
        super()._assign_work_unit(node)  # takes the queue's first unit


def work_unit(path: str) -> str:
    """The unit of the test file at ``path`` (relative to the root, as in a test's id)."""
    folder, _, name = path.rpartition("/")
    if folder.endswith("e2e") and name in UNITS:
        return UNITS[name]
    return path


def longest_first(queue: OrderedDict[str, Any]) -> None:
    """The longest unit of ``queue`` moved to its front; among units of unknown length
    (none of SECONDS) the first, as xdist ordered them (most tests first)."""
    longest = max(queue, key=unit_seconds)  # max keeps the first of equals
    queue.move_to_end(longest, last=False)


def unit_seconds(unit: str) -> float:
    return UNIT_SECONDS[unit] if unit in UNIT_SECONDS else seconds(unit)


@pytest.hookimpl(tryfirst=True, optionalhook=True)  # before xdist chooses; none without xdist
def pytest_xdist_make_scheduler(config: pytest.Config, log: Producer) -> Units | None:
    return Units(config, log) if config.getvalue("dist") == "loadfile" else None
