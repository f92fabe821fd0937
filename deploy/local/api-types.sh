#!/usr/bin/env bash
# The web app's API types, generated from the OpenAPI schema by openapi-typescript.
#   npm run api:types   writes webapp/src/types/openapi.d.ts
#   npm run api:check   fails when the committed file is not what the schema generates
set -euo pipefail
cd "$(dirname "$0")/../.."
PY="${PY:-.venv/bin/python}"
OUT=webapp/src/types/openapi.d.ts
schema="$(mktemp --suffix=.json)"
trap 'rm -f "$schema"' EXIT

DJANGO_SETTINGS_MODULE=config.settings "$PY" manage.py spectacular --format openapi-json \
  --validate --fail-on-warn --file "$schema"
if [ "${1:-}" = "--check" ]; then
  if ! node_modules/.bin/openapi-typescript "$schema" --output "$OUT" --check; then
    echo "$OUT is not what the OpenAPI schema generates: run npm run api:types" >&2
    exit 1
  fi
else
  node_modules/.bin/openapi-typescript "$schema" --output "$OUT"
fi
