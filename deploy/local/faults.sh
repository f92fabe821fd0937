#!/usr/bin/env bash
# The reliability suite (`make faults`): fault scenarios with real processes (workers and
# pool children SIGKILLed, Redis stopped, PostgreSQL restarted, storage and Drive failing,
# webhook endpoints failing, clients hanging up) and the load runs (partners against gunicorn,
# a drained backlog). Not part of `make test`. Each scenario counts effects where they happen
# (engine runs, webhook events, drive files: tests/faults/effects.py) and reports lost,
# doubled and recovery seconds.
#
# It runs twice, on SQLite and on PostgreSQL, then writes tests/faults/RESULTS.md from both
# runs' figures (tests/faults/results.py); with extra pytest arguments (a part of the suite)
# the table goes to var/test-logs/faults-results.md instead. PostgreSQL is a cluster of the
# suite's own (FAULTS_PG_CLUSTER on FAULTS_PG_PORT, created once), since a scenario stops and
# restarts it; without root it is the local one on 5432. ATELIER_SKIP_POSTGRES=1 or
# ATELIER_SKIP_SQLITE=1 leaves a database out; FAULTS_SIDE_BY_SIDE=1 runs the two databases'
# fault scenarios at once, then their load runs one after the other (200 partners against one
# deploy is the scenario, not against two deploys sharing the cores).
#
# Sizes (the issue's numbers by default):
#   FAULTS_PARTNERS=200 FAULTS_SECONDS=120 FAULTS_BACKLOG=10000
#   FAULTS_REDIS_OUTAGE_SECONDS=30 FAULTS_PG_DOWN_SECONDS=15 FAULTS_DRIVE_OUTAGE_SECONDS=20
#   FAULTS_FAILING_ENDPOINTS=20
# Several runs can share a machine: set ATELIER_TEST_ID and ATELIER_TEST_REDIS_PORT.
# Extra arguments go to pytest (e.g. -k redis).
source "$(dirname "$0")/lib.sh"
ensure_dev_venv
ensure_redis_binary
export ATELIER_FAULTS=1
started="$(date +%s)"
mkdir -p var/test-logs
report_base="var/test-logs/faults-report${ATELIER_TEST_ID:-}"
rm -f "$report_base-sqlite.jsonl" "$report_base-postgresql.jsonl"

# A PostgreSQL cluster for this suite alone: the restart scenario stops it, and nobody else's
# tests are connected to it.
private_postgres() {
  local version cluster port
  version="$(ls /etc/postgresql | sort -V | tail -n1)"
  cluster="${FAULTS_PG_CLUSTER:-faults${ATELIER_TEST_ID:-}}"
  port="${FAULTS_PG_PORT:-5442}"
  if ! pg_lsclusters -h 2>/dev/null | awk '{print $1" "$2}' | grep -qx "$version $cluster"; then
    say "Creating the PostgreSQL cluster $cluster on port $port"
    pg_createcluster "$version" "$cluster" -p "$port" -- --auth=trust >/dev/null
  fi
  port="$(pg_lsclusters -h | awk -v v="$version" -v c="$cluster" '$1==v && $2==c {print $3}')"
  pg_ctlcluster --skip-systemctl-redirect "$version" "$cluster" start 2>/dev/null || true
  for _ in $(seq 1 30); do tcp_open "$port" && break; sleep 1; done
  export FAULTS_PG_CLUSTER="$cluster"
  export DATABASE_URL="postgres://postgres:postgres@127.0.0.1:$port/atelier"
}

postgres_env() {
  if [ "$(id -u)" = "0" ]; then
    command -v pg_createcluster >/dev/null 2>&1 || ensure_postgres
    private_postgres
  else
    ensure_postgres
    export FAULTS_PG_CLUSTER=main
    export DATABASE_URL="${TEST_POSTGRES_URL:-postgres://postgres:postgres@127.0.0.1:5432/atelier}"
  fi
}

# pytest's 5 is "no test selected": a -k for one scenario leaves the other folder empty.
suite() {
  local rc=0
  "$PY" -m pytest -s --timeout=1200 "$@" || rc=$?
  [ "$rc" = 5 ] && rc=0
  return "$rc"
}

sqlite_rc=skipped
postgres_rc=skipped
how="one after the other"
if [ -n "${FAULTS_SIDE_BY_SIDE:-}" ] && [ -z "${ATELIER_SKIP_SQLITE:-}" ] &&
   [ -z "${ATELIER_SKIP_POSTGRES:-}" ]; then
  # Both databases at once (about half the time; the two runs share the cores, so latencies
  # and drain rates are lower than alone). The PostgreSQL run gets a Redis of its own.
  how="side by side"
  postgres_env
  logs="var/test-logs/faults-run${ATELIER_TEST_ID:-}"
  say "Reliability suite on SQLite and PostgreSQL side by side ($logs-*.log)"
  pg_redis="${FAULTS_PG_REDIS_PORT:-$(( ${ATELIER_TEST_REDIS_PORT:-6390} + 100 ))}"
  (unset DATABASE_URL; suite tests/faults "$@") >"$logs-sqlite.log" 2>&1 &
  sqlite_pid=$!
  (export ATELIER_TEST_REDIS_PORT="$pg_redis"; suite tests/faults "$@") >"$logs-postgresql.log" 2>&1 &
  postgres_pid=$!
  sqlite_rc=0; wait "$sqlite_pid" || sqlite_rc=$?
  postgres_rc=0; wait "$postgres_pid" || postgres_rc=$?
  say "Load runs, one database at a time"
  (unset DATABASE_URL; suite tests/load "$@") >>"$logs-sqlite.log" 2>&1 || sqlite_rc=$?
  (export ATELIER_TEST_REDIS_PORT="$pg_redis"; suite tests/load "$@") >>"$logs-postgresql.log" 2>&1 \
    || postgres_rc=$?
  for db in sqlite postgresql; do
    say "$db"; sed -n '/reliability figures/,$p' "$logs-$db.log"
  done
else
  if [ -z "${ATELIER_SKIP_SQLITE:-}" ]; then
    say "Reliability suite on SQLite"
    sqlite_rc=0
    (unset DATABASE_URL; suite tests/faults tests/load "$@") || sqlite_rc=$?
  fi
  if [ -z "${ATELIER_SKIP_POSTGRES:-}" ]; then
    postgres_env
    say "Reliability suite on PostgreSQL"
    postgres_rc=0
    suite tests/faults tests/load "$@" || postgres_rc=$?
  fi
fi

out=tests/faults/RESULTS.md
if [ "$#" -gt 0 ]; then out="var/test-logs/faults-results${ATELIER_TEST_ID:-}.md"; fi
"$PY" tests/faults/results.py --out "$out" --seconds "$(( $(date +%s) - started ))" \
  --outcome "sqlite=$sqlite_rc" --outcome "postgresql=$postgres_rc" --databases "$how" \
  "$report_base-sqlite.jsonl" "$report_base-postgresql.jsonl"
say "Figures written to $out"
[ "$sqlite_rc" = 0 ] || [ "$sqlite_rc" = skipped ] || exit "$sqlite_rc"
[ "$postgres_rc" = 0 ] || [ "$postgres_rc" = skipped ] || exit "$postgres_rc"
