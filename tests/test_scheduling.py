"""make test's work units (tests/scheduling.py): a file each, the browser tests' in
E2E_UNITS of about equal seconds."""

from tests.scheduling import (
    BROWSER_FILES,
    E2E_UNITS,
    UNIT_SECONDS,
    browser_units,
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
