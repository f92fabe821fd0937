"""Request ids, structured logs and Prometheus metrics.

Logs are JSON lines (LOG_FORMAT=json, the default outside the embedded run) carrying the
request id of the web request or the job id of the worker run that wrote them. Metrics are
served at /metrics to staff or to a scrape token (METRICS_TOKEN)."""

from __future__ import annotations

import contextvars
import hmac
import logging
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily, HistogramMetricFamily

request_id_var: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="")
job_id_var: contextvars.ContextVar[str] = contextvars.ContextVar("job_id", default="")
# What ops filter a worker's lines by: tool, organization, attempt and queue of the run.
JOB_FIELDS = ("tool", "organization", "attempt", "queue")
job_context_var: contextvars.ContextVar[tuple[str, ...]] = contextvars.ContextVar(
    "job_context", default=("",) * len(JOB_FIELDS))

REGISTRY = CollectorRegistry(auto_describe=True)
REQUESTS = Counter("atelier_http_requests_total", "HTTP requests by method and status.",
                   ["method", "status"], registry=REGISTRY)
LATENCY = Histogram("atelier_http_request_seconds", "HTTP request latency.", ["method"],
                    registry=REGISTRY,
                    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 240))
RUN_TIME_BUCKETS = (0.5, 1, 2, 5, 10, 20, 30, 60, 90, 120, 180, 300, 600, 1800)


class ContextFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = request_id_var.get()
        record.job_id = job_id_var.get()
        for name, value in zip(JOB_FIELDS, job_context_var.get(), strict=True):
            setattr(record, name, value)
        return True


def job_log_context(*, job_id: str, tool: str = "", organization: str = "", attempt: int = 0,
                    queue: str = "") -> None:
    """Every log line of this worker run carries these, until the next run sets its own."""
    job_id_var.set(job_id)
    job_context_var.set((tool, organization, str(attempt or ""), queue))


class RequestIdMiddleware:
    """Takes X-Request-ID from the proxy (or makes one), logs with it, answers with it, and
    counts the request for the metrics."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        incoming = request.headers.get("X-Request-ID", "")
        rid = incoming if 0 < len(incoming) <= 100 and incoming.isprintable() else uuid.uuid4().hex
        token = request_id_var.set(rid)
        started = time.perf_counter()
        try:
            response = self.get_response(request)
        finally:
            request_id_var.reset(token)
        LATENCY.labels(request.method).observe(time.perf_counter() - started)
        REQUESTS.labels(request.method, str(response.status_code)).inc()
        response["X-Request-ID"] = rid
        return response


class JobsCollector:
    """Figures read from the database and the broker at scrape time, so every web process
    reports the same truth."""

    def describe(self) -> list[Any]:
        return []  # nothing to read before the apps are loaded

    def collect(self) -> Iterator[Any]:
        from jobs.models import Job, JobStatus
        from workers.queues import QUEUES

        jobs = GaugeMetricFamily("atelier_jobs", "Jobs by tool and status.",
                                 labels=["tool", "status"])
        for row in Job.objects.values("tool", "status").annotate(n=Count("pk")):
            jobs.add_metric([row["tool"], row["status"]], row["n"])
        yield jobs

        depth = GaugeMetricFamily("atelier_queue_depth", "Messages waiting in each queue.",
                                  labels=["queue"])
        try:
            import redis

            client = redis.Redis.from_url(settings.CELERY_BROKER_URL, socket_timeout=2,
                                          socket_connect_timeout=2)
            for name in QUEUES:
                depth.add_metric([name], client.llen(name))
        except Exception:  # noqa: BLE001 - broker down: no depth figures, still the rest
            logging.getLogger(__name__).warning("queue depth unavailable")
        yield depth

        # Run times of the last hour's succeeded jobs per tool, as histograms.
        since = timezone.now() - timedelta(hours=1)
        runs: dict[str, list[float]] = {}
        for tool, started, finished in Job.objects.filter(
                status=JobStatus.SUCCEEDED, finished_at__gte=since,
                started_at__isnull=False).values_list("tool", "started_at", "finished_at"):
            if started and finished:
                runs.setdefault(tool, []).append((finished - started).total_seconds())
        hist = HistogramMetricFamily("atelier_job_run_seconds",
                                     "Run time of jobs that succeeded in the last hour.",
                                     labels=["tool"])
        for tool, values in runs.items():
            buckets = [(str(b), sum(1 for v in values if v <= b)) for b in RUN_TIME_BUCKETS]
            buckets.append(("+Inf", len(values)))
            hist.add_metric([tool], buckets, sum(values))
        yield hist

        from jobs.models import Activity, ActivityStatus

        drive = GaugeMetricFamily("atelier_drive_errors_last_hour",
                                  "Drive and delivery errors recorded in the last hour.")
        drive.add_metric([], Activity.objects.filter(
            tool__in=("drives", "webhooks"), status=ActivityStatus.ERROR,
            timestamp__gte=since).count())
        yield drive


REGISTRY.register(JobsCollector())  # type: ignore[arg-type]


def metrics(request: HttpRequest) -> HttpResponse:
    token = settings.METRICS_TOKEN
    header = request.headers.get("Authorization", "")
    by_token = bool(token) and hmac.compare_digest(header, f"Bearer {token}")
    user = getattr(request, "user", None)
    if not (by_token or (user is not None and user.is_authenticated and user.is_staff)):
        return HttpResponse("Staff or the scrape token only.\n", status=403,
                            content_type="text/plain")
    return HttpResponse(generate_latest(REGISTRY), content_type=CONTENT_TYPE_LATEST)
