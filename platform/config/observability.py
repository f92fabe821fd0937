"""Request ids, structured logs and Prometheus metrics.

Logs are JSON lines (LOG_FORMAT=json, the default outside the embedded run) carrying the
request id of the web request or the job id of the worker run that wrote them. Metrics are
served at /metrics to staff or to a scrape token (METRICS_TOKEN): the counters and histograms
of config.metrics (summed over every process writing to PROMETHEUS_MULTIPROC_DIR: gunicorn's
workers, and on a single host the Celery workers too), and two figures read at scrape time,
both cheap: queued and running jobs (an indexed filter on status, O(active jobs)) and the
queue depths (Redis LLEN)."""

from __future__ import annotations

import contextvars
import hmac
import logging
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

from django.conf import settings
from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily

# The metrics themselves live in config.metrics; these names stay importable from here.
from config.metrics import (  # noqa: F401 - REGISTRY, RUN_TIME_BUCKETS: re-exported
    LATENCY,
    REGISTRY,
    REQUESTS,
    RUN_TIME_BUCKETS,
    scrape_registry,
)

request_id_var: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="")
job_id_var: contextvars.ContextVar[str] = contextvars.ContextVar("job_id", default="")
# What ops filter a worker's lines by: tool, organization, attempt and queue of the run.
JOB_FIELDS = ("tool", "organization", "attempt", "queue")
job_context_var: contextvars.ContextVar[tuple[str, ...]] = contextvars.ContextVar(
    "job_context", default=("",) * len(JOB_FIELDS))


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
        if request.path_info == "/metrics" and _scrape_token_ok(request):
            _scrape_host(request)
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


def _scrape_token_ok(request: HttpRequest) -> bool:
    token = settings.METRICS_TOKEN
    header = request.headers.get("Authorization", "")
    return bool(token) and hmac.compare_digest(header, f"Bearer {token}")


def _scrape_host(request: HttpRequest) -> None:
    """Prometheus scrapes a pod or container by its address (Host: 10.1.2.3:8000), which is
    in no DJANGO_ALLOWED_HOSTS, and cannot send another Host header: a scrape that carries
    the token is answered as if it named the first allowed host."""
    host = next((h for h in settings.ALLOWED_HOSTS if h and "*" not in h
                 and not h.startswith(".")), "")
    if host:
        request.META["HTTP_HOST"] = host


class JobsCollector:
    """Figures read at scrape time, by the web process only, so every web process reports the
    same truth. Both are cheap whatever the history: the jobs queued or running (an indexed
    filter on status) and the messages waiting in each queue (LLEN)."""

    def describe(self) -> list[Any]:
        return []  # nothing to read before the apps are loaded

    def collect(self) -> Iterator[Any]:
        from jobs.models import Job, JobStatus
        from workers.queues import QUEUES

        jobs = GaugeMetricFamily("atelier_jobs", "Jobs queued or running, by tool and status.",
                                 labels=["tool", "status"])
        for row in (Job.objects.filter(status__in=[JobStatus.QUEUED, JobStatus.RUNNING])
                    .values("tool", "status").annotate(n=Count("pk")).order_by()):
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


LIVE = CollectorRegistry(auto_describe=False)
LIVE.register(JobsCollector())  # type: ignore[arg-type]


def metrics(request: HttpRequest) -> HttpResponse:
    by_token = _scrape_token_ok(request)
    user = getattr(request, "user", None)
    if not (by_token or (user is not None and user.is_authenticated and user.is_staff)):
        return HttpResponse("Staff or the scrape token only.\n", status=403,
                            content_type="text/plain")
    # The counters of every process (config.metrics), then the figures read now.
    body = generate_latest(scrape_registry()) + generate_latest(LIVE)
    return HttpResponse(body, content_type=CONTENT_TYPE_LATEST)
