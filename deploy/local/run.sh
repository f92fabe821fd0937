#!/usr/bin/env bash
# Start the whole product on its embedded defaults: Redis (if none answers), web on
# 127.0.0.1:8000, one worker per queue, beat and Flower. Ctrl-C stops everything.
source "$(dirname "$0")/lib.sh"
"$ROOT/deploy/local/bootstrap.sh"

WEB_PORT="${WEB_PORT:-8000}"
FLOWER_PORT="${FLOWER_PORT:-5555}"
REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379/0}"
export REDIS_URL
FLOWER_BASIC_AUTH="$(django_setting FLOWER_BASIC_AUTH)"
LOGS="$ROOT/var/log"
mkdir -p "$LOGS" "$ROOT/var/redis"

pids=()
stop_all() {
  trap - INT TERM EXIT
  say "Stopping"
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap stop_all INT TERM EXIT

start() {  # name, command...
  local name="$1"; shift
  "$@" >>"$LOGS/$name.log" 2>&1 &
  pids+=($!)
  printf '  %-12s pid %-7s log var/log/%s.log\n' "$name" "$!" "$name"
}

say "Starting Atelier"
port="$(redis_port "$REDIS_URL")"
if ! tcp_open "$port"; then
  start redis redis-server --port "$port" --bind 127.0.0.1 --dir "$ROOT/var/redis" \
    --appendonly yes --save ""
  for _ in $(seq 1 50); do tcp_open "$port" && break; sleep 0.1; done
fi

CELERY=("$VENV/bin/celery" -A config.celery_app)
# Prometheus multiprocess mode (config.metrics): web and workers count in files of one folder,
# emptied of the last run's files at each start, so the web's /metrics sums every process of
# this run, workers included.
METRICS_DIR="${PROMETHEUS_MULTIPROC_DIR:-$ROOT/var/prometheus}"
mkdir -p "$METRICS_DIR" && rm -f "$METRICS_DIR"/*.db
METRICS_ENV=(env "PROMETHEUS_MULTIPROC_DIR=$METRICS_DIR")
# config.gunicorn: access lines as JSON with the request id (LOG_FORMAT=plain for people).
# WEB_THREADS is read by the settings too (DIRECT_WAIT_SLOTS: half the threads may wait).
export WEB_THREADS="${WEB_THREADS:-4}"
start web "${METRICS_ENV[@]}" "$VENV/bin/gunicorn" -c python:config.gunicorn config.wsgi \
  --bind "127.0.0.1:$WEB_PORT" --workers 2 \
  --threads "$WEB_THREADS" --timeout 300 --graceful-timeout 30 --access-logfile -
for queue in interactive batch video drivesync webhooks; do
  upper="$(echo "$queue" | tr a-z A-Z)"
  concurrency_var="CONCURRENCY_$upper"
  start "worker-$queue" "${METRICS_ENV[@]}" "${CELERY[@]}" worker -Q "$queue" -n "$queue@%h" \
    -c "${!concurrency_var:-1}" --loglevel INFO
done
start beat "${CELERY[@]}" beat -s "$ROOT/var/celerybeat-schedule" --loglevel INFO
start flower "${CELERY[@]}" flower --address=127.0.0.1 --port="$FLOWER_PORT" \
  --basic-auth="$FLOWER_BASIC_AUTH" --persistent=True --db="$ROOT/var/flower.db"

for _ in $(seq 1 100); do tcp_open "$WEB_PORT" && break; sleep 0.2; done
cat <<MSG

  Atelier is running:  http://127.0.0.1:$WEB_PORT/
  API docs:            http://127.0.0.1:$WEB_PORT/api/docs/
  Flower (ops):        http://127.0.0.1:$FLOWER_PORT/  (user:password from FLOWER_BASIC_AUTH)

  A partner account and API token:
    .venv/bin/python manage.py createpartner you@example.com --org "Your Brand" --password 'choose-one'
  Staff (ops) account, for the admin and the diagnostic tool: add --staff.
  Models for Earfit, Baghold, Flats, Remodel and Model Swap (two public-domain samples):
    .venv/bin/python manage.py addmodel --org "Your Brand" --samples

  Ctrl-C stops everything.
MSG

# Stop everything when any one process dies, so a half-running product never lingers.
wait -n "${pids[@]}"
say "A process stopped; see var/log/"
