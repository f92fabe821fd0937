# Shared helpers of the local scripts: find or install what the project needs on this machine.
# shellcheck shell=bash
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
VENV="$ROOT/.venv"
PY="$VENV/bin/python"
export PYTHONPATH="$ROOT/platform:$ROOT"
mkdir -p "$ROOT/var"

say() { printf '\033[1m==> %s\033[0m\n' "$*"; }

_apt_updated=""
apt_install() {
  if [ "$(id -u)" != "0" ]; then
    echo "Missing: $*. Install it (as root: apt-get install $*) and run this again." >&2
    exit 1
  fi
  if [ -z "$_apt_updated" ]; then
    say "apt-get update"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    _apt_updated=1
  fi
  say "apt-get install $*"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# Stamp files remember what an install step was run for, so a step runs again only when its
# inputs changed.
stamp_ok() { [ -f "$1" ] && [ "$(cat "$1")" = "$2" ]; }

find_python() {
  for candidate in python3.11 python3; do
    if command -v "$candidate" >/dev/null 2>&1 &&
       "$candidate" -c 'import sys, venv; sys.exit(sys.version_info[:2] < (3, 11))' 2>/dev/null; then
      command -v "$candidate"
      return
    fi
  done
  apt_install python3 python3-venv python3-dev
  command -v python3
}

# Python packages come from the locks (every package pinned, with its hashes): the product's
# (requirements.lock) for `make run`, plus the test and lint tools (requirements-dev.lock) for
# the suites. pip shows its progress; the first install downloads about 1 GB (OpenCV,
# mediapipe, PyTorch-free) and takes a few minutes.
ensure_venv() {
  local lock="${1:-requirements.lock}"
  if [ ! -x "$PY" ]; then
    say "Creating the virtualenv (.venv)"
    "$(find_python)" -m venv "$VENV"
  fi
  local want dev
  want="$(cat "$lock" requirements-nodeps.txt | sha256sum | cut -d' ' -f1)"
  dev="$(cat requirements-dev.lock requirements-nodeps.txt | sha256sum | cut -d' ' -f1)"
  # The development lock holds the product's packages too.
  if stamp_ok "$VENV/.requirements.sha" "$dev"; then want="$dev"; fi
  if ! stamp_ok "$VENV/.requirements.sha" "$want"; then
    say "Installing Python packages from $lock (the first time takes a few minutes)"
    "$PY" -m pip install -q --upgrade pip
    "$PY" -m pip install --progress-bar on --require-hashes -r "$lock"
    "$PY" -m pip install --progress-bar on --no-deps -r requirements-nodeps.txt
    echo "$want" > "$VENV/.requirements.sha"
  fi
  "$PY" -c "import atelier.cli" 2>/dev/null || "$PY" -m pip install -q -e clients/python  # the atelier SDK and CLI
}

# The product's packages and the test and lint tools.
ensure_dev_venv() { ensure_venv requirements-dev.lock; }

ensure_node() {
  if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
    apt_install nodejs npm
  fi
  local want
  want="$(sha256sum package-lock.json | cut -d' ' -f1)"
  if [ ! -d node_modules ] || ! stamp_ok node_modules/.lock.sha "$want"; then
    say "Installing npm packages"
    npm ci --no-audit --no-fund --loglevel=error
    echo "$want" > node_modules/.lock.sha
  fi
}

build_webapp() {
  local want
  want="$(cat package-lock.json webapp/*.js webapp/*.json webapp/index.html \
          $(find webapp/src -type f | sort) | sha256sum | cut -d' ' -f1)"
  if [ ! -f webapp/dist/index.html ] || ! stamp_ok webapp/dist/.sources.sha "$want"; then
    say "Building the web app"
    npm run --silent build >/dev/null
    echo "$want" > webapp/dist/.sources.sha
  fi
}

# Debian's Chromium for the browser suite; Playwright drives it (never a downloaded browser).
ensure_chromium() {
  [ -x /usr/bin/chromium ] || command -v chromium >/dev/null 2>&1 || apt_install chromium
}

ensure_redis_binary() {
  command -v redis-server >/dev/null 2>&1 || apt_install redis-server
}

# What the suites and the benchmarks run on: Python and npm packages, redis-server, Chromium for
# the browser suite and the built web app it serves.
ensure_suite_deps() {
  ensure_dev_venv
  ensure_node
  ensure_redis_binary
  ensure_chromium
  build_webapp
}

# One Django setting's value (settings read the environment and .env).
django_setting() {
  DJANGO_SETTINGS_MODULE=config.settings "$PY" -c \
    'import sys, django; django.setup(); from django.conf import settings; print(getattr(settings, sys.argv[1]))' "$1"
}

# host port from a redis:// URL
redis_port() { "$PY" -c 'import sys, urllib.parse as u; print(u.urlparse(sys.argv[1]).port or 6379)' "$1"; }

tcp_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

ensure_postgres() {
  if tcp_open 5432; then return; fi
  if ! ls /etc/postgresql/*/main >/dev/null 2>&1; then
    apt_install postgresql
  fi
  local version
  version="$(ls /etc/postgresql | sort -V | tail -n1)"
  say "Starting PostgreSQL $version"
  pg_ctlcluster --skip-systemctl-redirect "$version" main start 2>/dev/null ||
    pg_ctlcluster "$version" main start
  for _ in $(seq 1 30); do tcp_open 5432 && break; sleep 1; done
  # A cluster we started ourselves may ask for passwords on TCP: give the test role one.
  if [ "$(id -u)" = "0" ]; then
    su postgres -c "psql -qc \"ALTER USER postgres PASSWORD 'postgres'\"" >/dev/null 2>&1 || true
  fi
}
