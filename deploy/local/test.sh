#!/usr/bin/env bash
# Every suite: jest, then pytest against SQLite and against PostgreSQL. Each pytest run
# starts its own redis-server (tests/conftest.py) and its own Celery workers and beat.
source "$(dirname "$0")/lib.sh"
ensure_suite_deps
if [ -z "${ATELIER_SKIP_POSTGRES:-}" ]; then ensure_postgres; fi

say "Web app: API types as the OpenAPI schema generates them, type check and jest"
npm run --silent api:check
npm run --silent typecheck
npm test --silent -- --ci

# The slow fault, load and benchmark runs are `make faults` and `make bench`.
SLOW=(--ignore=tests/faults --ignore=tests/load)
say "Python suites on SQLite"
env -u DATABASE_URL "$PY" -m pytest "${SLOW[@]}" "$@"

if [ -z "${ATELIER_SKIP_POSTGRES:-}" ]; then
  # The suites that touch the database run again on PostgreSQL; the engines, drive clients,
  # deployment checks and the browser suite do not depend on it and ran above.
  say "Python suites on PostgreSQL"
  DATABASE_URL="${TEST_POSTGRES_URL:-postgres://postgres:postgres@127.0.0.1:5432/atelier}" \
    "$PY" -m pytest "${SLOW[@]}" --ignore=tests/engines --ignore=tests/drivesync \
    --ignore=tests/deploy --ignore=tests/e2e --ignore=tests/fuzz "$@"
fi
