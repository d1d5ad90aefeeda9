# The two commands of the README: `make run` and `make test`.  Both set up .venv first.
# `make test-fast` is the quick tier of `make test` (docs/testing.md).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

# The browser tests (tests/e2e) drive Debian's Chromium through the `playwright` package of
# the dev extra, which carries its own driver but no browser.  `playwright install` would
# download a browser build, which cannot work here: never run it.  When /usr/bin/chromium
# is missing, `make test` installs Debian's package instead (as root, else with sudo); when
# it is there, this target does nothing.
CHROMIUM := /usr/bin/chromium
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)

.PHONY: run test test-fast lint bench screenshots clean

# The install also compiles ai/_solver.c (the hard bot's exact search), so a change to it
# reinstalls.
$(STAMP): pyproject.toml setup.py ai/_solver.c
	@echo "Setting up $(VENV): installing the packages and compiling the hard bot's search"
	@echo "(a minute or two, once; quiet while it works)..."
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet pip==26.3
	rm -f ai/_solver.*.so  # else a failed (optional) build leaves the old one in use
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	@echo "Migrating the database..."
	$(BIN)/alembic upgrade head
	@echo "Serving on http://$${HOST:-127.0.0.1}:$${PORT:-8000}/ (another port: PORT=8080 make run; Ctrl-C stops)"
	$(BIN)/python -m app

$(CHROMIUM):
	$(SUDO) apt-get update
	$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium

# The project's sources compiled once before a run: the run starts some hundreds of
# Python processes (workers, servers, cluster nodes, their bot pools), and where
# PYTHONDONTWRITEBYTECODE is set (this machine sets it) each would compile them again,
# about 0.3 s of CPU a start.  compileall writes the .pyc files whatever that says.
COMPILE := $(BIN)/python -m compileall -q app engine ai migrations tests

# Every test.  When no PostgreSQL or Redis answers on BELOTE_TEST_POSTGRES or
# BELOTE_TEST_REDIS (the local ones by default), the run starts a throwaway one of its own
# (tests/tiers.py): the installed packages are enough.
test: $(STAMP) $(CHROMIUM)
	$(COMPILE)
	$(BIN)/python -m pytest -n 6 --dist loadfile

# The tests that need no service, no process of their own, no browser and little CPU
# (the markers of pyproject.toml): under a minute on two idle cores.  Mostly CPU, so one
# worker per core.
FAST := not (postgres or redis or processes or e2e or slow)
test-fast: $(STAMP)
	$(COMPILE)
	$(BIN)/python -m pytest -n auto --dist loadfile -m "$(FAST)"

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/python bench/engine_speed.py

# docs/screenshots/*.png: a table with bots in Chromium (see tools/screenshots.py).
screenshots: $(STAMP) $(CHROMIUM)
	$(BIN)/python -m tools.screenshots

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
