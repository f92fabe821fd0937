#!/usr/bin/env bash
# Benchmarks print figures and ratios against a baseline measured in the same run.
source "$(dirname "$0")/lib.sh"
ensure_venv
ensure_redis_binary
"$PY" -m pytest tests/bench -p no:randomly -s -q -o python_files="bench_*.py" -o python_functions="bench_*" "$@"
