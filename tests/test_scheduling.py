"""make test's work units (tests/scheduling.py): a file each, the browser tests' in E2E_UNITS."""

from tests.scheduling import BROWSER_FILES, E2E_UNITS, work_unit


def test_the_browser_files_make_two_units_and_every_other_file_its_own() -> None:
    units = [work_unit(f"tests/e2e/{name}") for name in BROWSER_FILES]
    assert sorted(set(units)) == [f"e2e-{n}" for n in range(E2E_UNITS)]
    assert abs(units.count("e2e-0") - units.count("e2e-1")) <= 1
    assert work_unit("tests/test_waiting.py") == "tests/test_waiting.py"
    assert work_unit("tests/test_e2e.py") == "tests/test_e2e.py"
