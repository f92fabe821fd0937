#!/usr/bin/env bash
# Image quality: every batch engine on our fixtures, each bar of the issue measured; writes
# var/fidelity/latest.md and one contact sheet per tool under var/fidelity/ (look at them).
source "$(dirname "$0")/lib.sh"
ensure_dev_venv
say "Fidelity: measuring the engines on the fixtures"
"$PY" -m tests.fidelity.run "$@"
