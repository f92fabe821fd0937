#!/usr/bin/env bash
# Every benchmark of the project in one go; the whole report is also written to
# var/bench/latest.md, with the bars gathered at its end.
#
# A figure is a ratio only to a baseline measured in the same run: raw Celery no-op tasks
# (the worker's drain), /healthz and /api/me/ (HTTP latency), plain decode+encode and one
# plain OpenCV op on the same image (engines), os.scandir (drives), the same calls at 0 jobs
# of history (scale). The specification's quoted times are printed as "spec says", never as
# a ratio's baseline. Absolute times depend on the machine and on what else runs on it (the
# load average is printed at the start and end).
#
# The HTTP and scale benchmarks run on PostgreSQL only, the drain on SQLite and PostgreSQL,
# the rest on no database. Sizes: BENCH_HTTP_SECONDS, BENCH_JOBS, BENCH_SCALE_SIZES, ...
# (see each tests/bench/bench_*.py); BENCH_ONLY="bench_jobs bench_scale" runs those alone.
# Extra arguments go to pytest.
source "$(dirname "$0")/lib.sh"
ensure_suite_deps
ensure_postgres
command -v hey >/dev/null 2>&1 || apt_install hey
command -v wrk >/dev/null 2>&1 || apt_install wrk
PG_URL="${BENCH_POSTGRES_URL:-${TEST_POSTGRES_URL:-postgres://postgres:postgres@127.0.0.1:5432/atelier}}"

mkdir -p var/bench
report="var/bench/latest.md"
explain="var/bench/scale-explain.md"
rm -f "$explain"
load() { cut -d' ' -f1-3 /proc/loadavg; }
{
  echo "# Atelier benchmarks"
  echo
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)," \
       "$(nproc) cores, $(python3 -c 'import platform; print(platform.processor() or platform.machine())'), load average at start $(load)"
  echo
  echo "A ratio's baseline is always measured in the same run; the specification's quoted times"
  echo "are printed as \"spec says\" only. Absolute times depend on this machine and its load."
  echo
} > "$report"

# Which databases each benchmark runs on.
databases() {
  case "$1" in
    bench_jobs.py) echo "sqlite postgresql" ;;
    bench_http.py | bench_scale.py) echo "postgresql" ;;
    *) echo "none" ;;
  esac
}

status=0
for file in tests/bench/bench_*.py; do
  name="${file#tests/bench/}"
  if [ -n "${BENCH_ONLY:-}" ] && [[ " $BENCH_ONLY " != *" ${name%.py} "* ]]; then continue; fi
  for db in $(databases "$name"); do
    case "$db" in
      postgresql) envs=(env "DATABASE_URL=$PG_URL"); title="$name (PostgreSQL)" ;;
      sqlite) envs=(env -u DATABASE_URL); title="$name (SQLite)" ;;
      *) envs=(env -u DATABASE_URL); title="$name" ;;
    esac
    say "$title"
    out="$(mktemp)"
    if ! "${envs[@]}" "$PY" -m pytest "$file" -p no:randomly -s -q -o python_files="bench_*.py" \
        -o python_functions="bench_*" "$@" 2>&1 | tee "$out"; then
      status=1
    fi
    {
      echo "## $title"
      echo
      echo '```'
      grep -v -E '^(\.|=|-{5,}|platform |rootdir|configfile|plugins|collected|django: |timeout|INFO:|WARNING:|W0000|$)' "$out" \
        | grep -v -E 'passed in|warnings summary|Docs: https' || true
      echo '```'
      echo
    } >> "$report"
    rm -f "$out"
  done
done
bars="$(grep -h -E 'bar met|NOT MET' "$report" | sed 's/^\[bench\] //' || echo "no bar was printed")"
{
  echo "## Bars"
  echo
  echo '```'
  echo "$bars"
  echo '```'
  echo
  echo "Load average at the end: $(load)"
  echo
  if [ -f "$explain" ]; then cat "$explain"; fi
} >> "$report"
# The measured table of deploy/CAPACITY.md from this report (--write deploy/CAPACITY.md puts
# it there).
table="$("$PY" tests/bench/capacity.py "$report" || true)"
printf '## Capacity table (deploy/CAPACITY.md)\n\n%s\n' "$table" >> "$report"
say "Report written to $report"
exit $status
