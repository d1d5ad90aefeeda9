"""make test's work units (tests/scheduling.py): a file each, the browser tests' in
E2E_UNITS of about equal seconds, handed out longest first."""

from collections import OrderedDict

from tests.scheduling import (
    BROWSER_FILES,
    E2E_UNITS,
    UNIT_SECONDS,
    browser_units,
    longest_first,
    seconds,
    work_unit,
)


def test_the_browser_files_make_units_of_about_equal_seconds() -> None:
    units = [work_unit(f"tests/e2e/{name}") for name in BROWSER_FILES]
    assert sorted(set(units)) == [f"e2e-{n}" for n in range(E2E_UNITS)]
    longest_file = max(seconds(f"tests/e2e/{name}") for name in BROWSER_FILES)
    assert max(UNIT_SECONDS.values()) - min(UNIT_SECONDS.values()) <= longest_file
    assert work_unit("tests/test_waiting.py") == "tests/test_waiting.py"
    assert work_unit("tests/test_e2e.py") == "tests/test_e2e.py"


def test_a_new_browser_file_has_a_unit_too() -> None:
    units = browser_units([*BROWSER_FILES, "test_new.py"])
    assert units["test_new.py"] in {f"e2e-{n}" for n in range(E2E_UNITS)}


def test_the_longest_unit_goes_first_the_others_in_xdist_s_order() -> None:
    queue = OrderedDict.fromkeys(["tests/test_waiting.py", "tests/test_cli.py",
                                  "tests/test_review.py", "e2e-1", "tests/test_cluster.py"])
    order = []
    while queue:
        longest_first(queue)
        order.append(queue.popitem(last=False)[0])
    assert order[:3] == sorted(["e2e-1", "tests/test_cluster.py", "tests/test_review.py"],
                               key=lambda unit: -UNIT_SECONDS.get(unit, seconds(unit)))
    assert order[3:] == ["tests/test_waiting.py", "tests/test_cli.py"]  # as they came
