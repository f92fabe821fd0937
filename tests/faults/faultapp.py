"""The product's Celery app with fault switches, for workers started by the fault suite
(`celery -A tests.faults.faultapp worker ...`). The switches are environment variables, read
once when the worker starts (before the pool forks, so every child has them):

FAULTS_STORAGE=full       output storage fills up: a write stops half-way with ENOSPC
FAULTS_STORAGE=readonly   output storage refuses writes (EROFS)
FAULTS_GOOGLE_URL=<url>   Google Drive folders talk to the loopback fake at <url> (fast retry
                          policy), instead of Google
FAULTS_DRIVE_WRITE_DELAY=<s>  every drive upload sleeps first (a slow drive), and each upload
                          that went through is noted in FAULTS_DRIVE_WRITES (a file)
FAULTS_CLOCKS=production  the product's heartbeat, staleness and reconcile clocks instead of
                          the suites' quick ones (tests/settings.py), so that a recovery time
                          is the one production would see

Nothing of the product is changed: only what it is given underneath (storage, drive client).
"""

from __future__ import annotations

import errno
import os
import time
from typing import Any

from config.celery_app import app  # noqa: F401 - sets Django up; the app the worker runs

if os.environ.get("FAULTS_CLOCKS") == "production":
    from django.conf import settings

    import config.settings as product
    from workers.queues import beat_schedule

    for _name in ("JOB_HEARTBEAT_SECONDS", "JOB_HEARTBEAT_STALE_SECONDS",
                  "JOB_RECONCILE_SECONDS"):
        setattr(settings, _name, getattr(product, _name))
    app.conf.beat_schedule = beat_schedule(reconcile_seconds=settings.JOB_RECONCILE_SECONDS)

_storage = os.environ.get("FAULTS_STORAGE", "")
if _storage:
    from django.core.files.storage import FileSystemStorage

    _real_save = FileSystemStorage._save

    def _faulty_save(self: Any, name: str, content: Any) -> str:
        if not name.startswith("jobs/"):
            return _real_save(self, name, content)  # only job outputs are hit
        if _storage == "readonly":
            raise OSError(errno.EROFS, "Read-only file system", name)
        # A disk that fills up during the write: half the bytes land, then ENOSPC.
        full_path = self.path(name)
        os.makedirs(os.path.dirname(full_path), exist_ok=True)
        data = content.read()
        with open(full_path, "wb") as fh:
            fh.write(data[: max(1, len(data) // 2)])
        raise OSError(errno.ENOSPC, "No space left on device", name)

    FileSystemStorage._save = _faulty_save  # type: ignore[method-assign]

_google = os.environ.get("FAULTS_GOOGLE_URL", "")
_delay = float(os.environ.get("FAULTS_DRIVE_WRITE_DELAY") or 0)
_writes = os.environ.get("FAULTS_DRIVE_WRITES", "")
if _google or _delay:
    from drives import services
    from drives.models import DriveKind

    _real_client = services.drive_client

    def _client(folder: Any) -> Any:
        if folder.kind == DriveKind.GOOGLE and _google:
            from google.oauth2.credentials import Credentials

            from drivesync.google import GoogleDrive, RetryPolicy

            client = GoogleDrive(Credentials(token="faults"), base_url=_google, timeout=10, retry=RetryPolicy(
                max_attempts=3, base_delay=0.2, max_delay=1.0, max_elapsed=5.0))
        else:
            client = _real_client(folder)
        return _Slow(client) if (_delay or _writes) else client

    class _Slow:
        def __init__(self, inner: Any) -> None:
            self._inner = inner

        def __getattr__(self, name: str) -> Any:
            return getattr(self._inner, name)

        def write(self, *args: Any, **kwargs: Any) -> Any:
            time.sleep(_delay)
            found = self._inner.write(*args, **kwargs)
            if _writes:
                with open(_writes, "a") as fh:
                    fh.write(f"{kwargs.get('app_key')} {os.getpid()} {time.time()}\n")
            return found

    services.drive_client = _client
