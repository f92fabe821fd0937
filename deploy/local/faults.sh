#!/usr/bin/env bash
# The reliability suite (`make faults`): fault scenarios with real processes (workers
# SIGKILLed, Redis stopped, PostgreSQL restarted, storage and Drive failing, clients hanging
# up) and the load runs (partners against gunicorn, a drained backlog). Not part of
# `make test`. It runs on PostgreSQL, as production does; it stops and restarts the local
# PostgreSQL cluster (ATELIER_SKIP_POSTGRES=1: SQLite, and the PostgreSQL scenario skips).
#
# Sizes (the issue's numbers by default):
#   FAULTS_PARTNERS=200 FAULTS_SECONDS=120 FAULTS_BACKLOG=10000
#   FAULTS_REDIS_OUTAGE_SECONDS=30 FAULTS_PG_DOWN_SECONDS=15 FAULTS_DRIVE_OUTAGE_SECONDS=20
# Several runs can share a machine: set ATELIER_TEST_ID and ATELIER_TEST_REDIS_PORT.
# Extra arguments go to pytest (e.g. -k redis).
source "$(dirname "$0")/lib.sh"
ensure_dev_venv
ensure_redis_binary
export ATELIER_FAULTS=1
if [ -z "${ATELIER_SKIP_POSTGRES:-}" ]; then
  ensure_postgres
  export DATABASE_URL="${TEST_POSTGRES_URL:-postgres://postgres:postgres@127.0.0.1:5432/atelier}"
  say "Reliability suite on PostgreSQL"
else
  unset DATABASE_URL
  say "Reliability suite on SQLite"
fi
rm -f "var/test-logs/faults-report${ATELIER_TEST_ID:-}.jsonl"
# The load runs last several minutes; pytest.ini's 300 s per test is too short for them.
"$PY" -m pytest tests/faults tests/load -s --timeout=1200 "$@"
