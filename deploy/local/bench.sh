#!/usr/bin/env bash
# Every benchmark of the project in one go. Each prints its figures beside a baseline measured
# in the same run (raw Celery, plain decode+encode, os.scandir, the spec's quoted times...);
# the whole report is also written to var/bench/latest.md.
source "$(dirname "$0")/lib.sh"
ensure_suite_deps
mkdir -p var/bench
report="var/bench/latest.md"
{
  echo "# Atelier benchmarks"
  echo
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, $(python3 -c 'import platform; print(platform.processor() or platform.machine())')"
  echo
} > "$report"
status=0
for file in tests/bench/bench_*.py; do
  say "$file"
  out="$(mktemp)"
  if ! "$PY" -m pytest "$file" -p no:randomly -s -q -o python_files="bench_*.py" \
      -o python_functions="bench_*" "$@" 2>&1 | tee "$out"; then
    status=1
  fi
  {
    echo "## ${file#tests/bench/}"
    echo
    echo '```'
    grep -v -E '^(\.|=|-{5,}|platform |rootdir|configfile|plugins|collected|django: |timeout|INFO:|WARNING:|W0000|$)' "$out" \
      | grep -v -E 'passed in|warnings summary|Docs: https' || true
    echo '```'
    echo
  } >> "$report"
  rm -f "$out"
done
say "Report written to $report"
exit $status
