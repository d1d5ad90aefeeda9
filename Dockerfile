# The server image: slim Python, the project installed from its own pyproject, a non-root
# user; migrations run before uvicorn starts (the same two steps as `make run`).
# One image for one server and for every node of a cluster (REDIS_URL set: README,
# "Several nodes"); nothing in it is per node.  Replicas may start at once: their
# migrations take turns (a PostgreSQL advisory lock in migrations/env.py) and all but the
# first find nothing to do; docker-compose.yml also runs them once before any node starts.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
WORKDIR /srv

# Installed in place, as `make run` does, so that the C extension (the hard bot's exact
# search, built here with gcc, which is removed again) lands beside the sources that
# /srv imports.
COPY pyproject.toml setup.py README.md ./
COPY engine engine
COPY ai ai
COPY app app
RUN apt-get update \
 && apt-get install -y --no-install-recommends gcc libc6-dev \
 && pip install --quiet pip==26.3 && pip install --quiet -e . \
 && python -c "import sys, ai.solver; sys.exit(not ai.solver.NATIVE)" \
 && apt-get purge -y --auto-remove gcc libc6-dev && rm -rf /var/lib/apt/lists/* build

COPY alembic.ini ./
COPY migrations migrations
RUN useradd --create-home --uid 10001 belote && mkdir -p data && chown belote data
USER belote

EXPOSE 8000
# Liveness only (/healthz); /readyz, which needs the database (and Redis in a cluster), is
# for load balancers.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s \
  CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2)"]
CMD ["sh", "-c", "alembic upgrade head && exec python -m app --host 0.0.0.0 --port 8000"]
