"""The Celery app: settings come from Django's (CELERY_* names), tasks from workers.tasks."""

from __future__ import annotations

import os
import sys
from pathlib import Path

# Workers are started as `celery -A config.celery_app`; make both source roots importable.
_REPO = Path(__file__).resolve().parents[2]
for _p in (_REPO / "platform", _REPO):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import copy  # noqa: E402
import logging  # noqa: E402
import logging.config  # noqa: E402
from typing import Any  # noqa: E402

import django  # noqa: E402
from celery import Celery, signals  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402

from workers.queues import QUEUES, beat_schedule  # noqa: E402

app = Celery("atelier")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.task_queues = [q.kombu_queue() for q in QUEUES.values()]
app.conf.task_default_queue = "interactive"
app.conf.include = [
    "workers.tasks.jobs", "workers.tasks.maintenance", "workers.tasks.diagnostics",
    "workers.tasks.drives", "workers.tasks.webhooks",
]
# Celery's Django fix-up closes the database connection after every task unless told to reuse
# it; jobs reuse it (CONN_MAX_AGE, with health checks at the start of each run).
app.conf["CELERY_DB_REUSE_MAX"] = 1000
app.conf.beat_schedule = beat_schedule(reconcile_seconds=settings.JOB_RECONCILE_SECONDS)


@signals.setup_logging.connect
def _log_like_django(*, loglevel: object = None, logfile: str | None = None,
                     **_kwargs: object) -> None:
    # Connected, this replaces Celery's own logging set-up, which would otherwise swap our
    # root handler for its plain-text one: workers and beat log the JSON lines (with job id,
    # tool, organization, attempt and queue) that the web process does, to --logfile when
    # one is given, at --loglevel.
    config: dict[str, Any] = copy.deepcopy(settings.LOGGING)
    if logfile:
        config["handlers"]["console"] |= {"class": "logging.FileHandler", "filename": logfile}
    if loglevel:
        config["root"]["level"] = (logging.getLevelName(loglevel) if isinstance(loglevel, int)
                                   else str(loglevel).upper())
    logging.config.dictConfig(config)


_announcer = None


@signals.worker_ready.connect
def _announce_worker(sender: object, **_kwargs: object) -> None:
    # Tells the ETA how many processes consume each queue, across hosts (jobs.presence).
    global _announcer
    from jobs.presence import Announcer

    controller = getattr(sender, "controller", None)
    queues = [q.name for q in getattr(getattr(sender, "task_consumer", None), "queues", [])]
    processes = int(getattr(controller, "concurrency", 0) or 0)
    if not queues or not processes:
        return
    _announcer = Announcer(node=str(getattr(sender, "hostname", "")), queues=queues,
                           processes=processes)
    _announcer.start()


@signals.worker_ready.connect
def _export_metrics(**_kwargs: object) -> None:
    # A worker pod's metrics (config.metrics: runs, run times, reconciler, webhooks), summed
    # over its pool processes' files in PROMETHEUS_MULTIPROC_DIR, served by the main process on
    # WORKER_METRICS_PORT (Kubernetes, compose). On a single host the web's /metrics reads the
    # same folder instead, and the port is left unset.
    port = os.environ.get("WORKER_METRICS_PORT", "")
    if not port:
        return
    from config.metrics import start_exporter

    try:
        start_exporter(int(port))
    except OSError as exc:  # the port is taken: the worker still works
        logging.getLogger(__name__).warning("worker metrics not served on %s: %s", port, exc)


@signals.worker_shutdown.connect
def _withdraw_worker(**_kwargs: object) -> None:
    if _announcer is not None:
        _announcer.stop()
