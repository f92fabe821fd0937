#!/bin/sh
# The one entrypoint of the Atelier image: the first argument picks the process.
#
#   web                  gunicorn serving config.wsgi:application on :8000
#   worker QUEUE         a Celery worker consuming QUEUE only (interactive, batch, video, drivesync, webhooks);
#                        concurrency from CONCURRENCY_<QUEUE> (default 1)
#   beat                 Celery beat (run exactly ONE, whatever the scale of the rest)
#   flower               Flower on :5555 behind FLOWER_BASIC_AUTH, persistent db in /data
#   migrate              python manage.py migrate (a one-shot: run it before web and workers)
#   wait-for-migrations  block until the database has every migration of this image
#   manage ARGS...       python manage.py ARGS (createpartner, shell, ...)
#   probe PATH           exit 0 when http://127.0.0.1:8000PATH answers 200 (healthchecks)
#   anything else        executed as given
set -eu

role="${1:-web}"
[ "$#" -gt 0 ] && shift
CELERY="celery -A config.celery_app"

# Prometheus multiprocess mode (platform/config/metrics.py): when PROMETHEUS_MULTIPROC_DIR is
# set, web and worker processes count in files there (an emptyDir of the pod in Kubernetes),
# emptied here of a previous start's files (a restarted container keeps its emptyDir).
metrics_dir() {
  if [ -n "${PROMETHEUS_MULTIPROC_DIR:-}" ]; then
    mkdir -p "$PROMETHEUS_MULTIPROC_DIR"
    rm -f "$PROMETHEUS_MULTIPROC_DIR"/*.db
  fi
}

case "$role" in
  web)
    # Give nginx a copy of the static files of THIS image (compose mounts a shared volume
    # here); whitenoise serves them too, so an empty or missing folder only costs speed.
    if [ -n "${STATIC_EXPORT_DIR:-}" ] && [ -d "$STATIC_EXPORT_DIR" ]; then
      cp -R /app/var/static/. "$STATIC_EXPORT_DIR"/ || echo "entrypoint: static export failed" >&2
    fi
    # Direct tools hold a request for up to 230 s (DIRECT_WAIT_SECONDS): gthread workers
    # with a 300 s timeout; nginx/ingress proxy timeouts are above that too.
    # The root filesystem may be read-only (Kubernetes): the workers' heartbeat files go to
    # /dev/shm (a tmpfs in every container), and gunicorn's control socket, which defaults to
    # $HOME/.gunicorn, to $XDG_RUNTIME_DIR (/tmp, an emptyDir there).
    # config.gunicorn: access lines as JSON with the request id (LOG_FORMAT=plain for people).
    export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-${TMPDIR:-/tmp}}"
    metrics_dir
    exec gunicorn -c python:config.gunicorn config.wsgi:application \
      --bind "${WEB_BIND:-0.0.0.0}:${PORT:-8000}" \
      --worker-class gthread \
      --worker-tmp-dir "${WEB_WORKER_TMP_DIR:-/dev/shm}" \
      --workers "${WEB_WORKERS:-2}" --threads "${WEB_THREADS:-8}" \
      --timeout "${WEB_TIMEOUT:-300}" --graceful-timeout "${WEB_GRACEFUL_TIMEOUT:-30}" \
      --access-logfile - "$@"
    ;;
  worker)
    queue="${1:?usage: worker QUEUE (interactive, batch, video, drivesync, webhooks)}"
    shift
    upper="$(printf '%s' "$queue" | tr '[:lower:]' '[:upper:]')"
    concurrency="$(printenv "CONCURRENCY_$upper" || true)"
    # SIGTERM starts Celery's warm shutdown: no new tasks, running ones finish. The stop
    # grace of the service (compose stop_grace_period, k8s terminationGracePeriodSeconds,
    # systemd TimeoutStopSec) must exceed the queue's hard time limit (workers/queues.py).
    # WORKER_METRICS_PORT: the worker's main process serves its pool's metrics there.
    metrics_dir
    exec $CELERY worker -Q "$queue" -n "$queue@%h" -c "${concurrency:-1}" \
      --loglevel "${LOG_LEVEL:-INFO}" "$@"
    ;;
  beat)
    exec $CELERY beat -s "${BEAT_SCHEDULE_FILE:-/data/celerybeat-schedule}" \
      --loglevel "${LOG_LEVEL:-INFO}" "$@"
    ;;
  flower)
    : "${FLOWER_BASIC_AUTH:?FLOWER_BASIC_AUTH (user:password) must be set}"
    exec $CELERY flower --address="${FLOWER_ADDRESS:-0.0.0.0}" --port="${FLOWER_PORT:-5555}" \
      --basic-auth="$FLOWER_BASIC_AUTH" --persistent=True \
      --db="${FLOWER_DB:-/data/flower.db}" "$@"
    ;;
  migrate)
    exec python manage.py migrate --noinput "$@"
    ;;
  wait-for-migrations)
    # `migrate --check` exits non-zero while migrations are unapplied (or the database is
    # unreachable): pods wait here for the migrate Job of their own version.
    until python manage.py migrate --check >/dev/null 2>&1; do
      echo "entrypoint: waiting for migrations" >&2
      sleep 5
    done
    ;;
  manage)
    exec python manage.py "$@"
    ;;
  probe)
    # Django checks the Host header (DJANGO_ALLOWED_HOSTS) and may redirect plain HTTP to
    # HTTPS: the probe presents the first allowed host and, behind a TLS proxy, the proxy's
    # X-Forwarded-Proto, exactly as a request through nginx would.
    exec python - "${1:-/healthz}" <<'PY'
import os, sys, urllib.request
hosts = [h.strip() for h in os.environ.get("DJANGO_ALLOWED_HOSTS", "localhost").split(",")]
host = next((h for h in hosts if h and "*" not in h and not h.startswith(".")), "localhost")
req = urllib.request.Request(
    f"http://127.0.0.1:{os.environ.get('PORT', '8000')}{sys.argv[1]}",
    headers={"Host": host, "X-Forwarded-Proto": "https"},
)
try:
    with urllib.request.urlopen(req, timeout=5) as resp:
        sys.exit(0 if resp.status == 200 else 1)
except Exception as exc:
    print(f"probe {sys.argv[1]}: {exc}", file=sys.stderr)
    sys.exit(1)
PY
    ;;
  *)
    exec "$role" "$@"
    ;;
esac
