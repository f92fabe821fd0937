#!/usr/bin/env bash
# Install what is missing: virtualenv and requirements, npm packages, the web app build,
# redis-server. Safe to run again: each step runs only when its inputs changed.
source "$(dirname "$0")/lib.sh"
ensure_venv
ensure_node
build_webapp
ensure_redis_binary
"$PY" manage.py migrate --noinput -v0
"$PY" manage.py collectstatic --noinput -v0
