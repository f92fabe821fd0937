#!/usr/bin/env bash
source "$(dirname "$0")/lib.sh"
ensure_venv
ensure_node
"$VENV/bin/ruff" check platform workers drivesync tests
"$VENV/bin/mypy"
npm run --silent typecheck
