"""Settings for the test suites: the product's settings with a test broker and quick clocks."""

import os

from config.settings import *  # noqa: F403
from config.settings import DATABASES, VAR_DIR

# The suites run their own redis-server on this port, so that they can stop, restart and
# wipe it without touching a Redis that `make run` or anything else uses.
TEST_REDIS_PORT = int(os.environ.get("ATELIER_TEST_REDIS_PORT", "6390"))
REDIS_URL = CELERY_BROKER_URL = f"redis://127.0.0.1:{TEST_REDIS_PORT}/0"
CACHES = {"default": {**CACHES["default"], "LOCATION": REDIS_URL}}  # noqa: F405
MEDIA_ROOT = VAR_DIR / "test-media"
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# Quick clocks so that recovery scenarios finish in seconds.
JOB_HEARTBEAT_SECONDS = 0.5
JOB_HEARTBEAT_STALE_SECONDS = 3.0
JOB_TAKEOVER_SECONDS = 3.0
JOB_ENQUEUE_GRACE_SECONDS = 2.0
JOB_RECONCILE_SECONDS = 1.0
JOB_PROGRESS_MIN_INTERVAL = 0.1
JOB_ETA_CACHE_SECONDS = 0.0
DIAGNOSTICS_SOFT_LIMIT = 4
DIAGNOSTICS_HARD_LIMIT = 6

# Several runs can share a machine: ATELIER_TEST_ID keeps their databases apart (set
# ATELIER_TEST_REDIS_PORT too).
TEST_ID = os.environ.get("ATELIER_TEST_ID", "")
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    DATABASES["default"]["TEST"]["NAME"] = str(VAR_DIR / f"test{TEST_ID}.sqlite3")
else:
    DATABASES["default"]["TEST"] = {"NAME": f"test_{DATABASES['default']['NAME']}{TEST_ID}"}

DRIVES_ROOT = VAR_DIR / f"test-drives{TEST_ID}"
DELIVERY_GRACE_SECONDS = 2.0
DELIVERY_MARKER_SECONDS = 8

if os.environ.get("ATELIER_TEST_WORKER"):
    # Worker and beat processes started by the suites use the database that pytest-django
    # created for the run.
    DATABASES["default"]["NAME"] = DATABASES["default"]["TEST"]["NAME"]
