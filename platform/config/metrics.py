"""The Prometheus metrics, defined once: the processes that do the work import them and
`.inc()` or `.observe()` (web requests in config.observability, runs in workers.runner, the
reconciler in jobs.services, webhook deliveries in webhooks.services).

Multiprocess mode (prometheus_client's documented way): when PROMETHEUS_MULTIPROC_DIR names a
folder (deploy/local/run.sh, the compose file and the Kubernetes manifests set it, and wipe it
when they start), every process, each gunicorn worker and each Celery pool process, writes its
counters and histograms to its own files there, and a scrape sums them all
(`scrape_registry`). A counter then only ever grows, whichever process answers the scrape, and
it keeps the counts of processes that exited. Without the variable (tests, development) each
process counts in memory, as a single process does.

Only counters and histograms live here: figures read at scrape time (queued and running jobs,
queue depth) are in config.observability, served by the web process alone.
"""

from __future__ import annotations

import os

from prometheus_client import CollectorRegistry, Counter, Histogram
from prometheus_client import multiprocess as _multiprocess

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"

# Where the metrics of this process are counted: the default registry (in multiprocess mode
# its values are backed by this process's files, which a scrape reads back).
REGISTRY = CollectorRegistry(auto_describe=True)

HTTP_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 240)
# A run takes from a fraction of a second (classical tools) to many minutes (videos).
RUN_TIME_BUCKETS = (0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 90, 120, 180, 300, 600, 900, 1800)

# --- web --------------------------------------------------------------------------------------
REQUESTS = Counter("atelier_http_requests_total", "HTTP requests by method and status.",
                   ["method", "status"], registry=REGISTRY)
LATENCY = Histogram("atelier_http_request_seconds", "HTTP request latency.", ["method"],
                    registry=REGISTRY, buckets=HTTP_BUCKETS)

# --- job runs (workers.runner) ------------------------------------------------------------------
JOBS_STARTED = Counter("atelier_jobs_started_total", "Job runs started, by tool.", ["tool"],
                       registry=REGISTRY)
JOBS_SUCCEEDED = Counter("atelier_jobs_succeeded_total", "Job runs that succeeded, by tool.",
                         ["tool"], registry=REGISTRY)
JOBS_FAILED = Counter("atelier_jobs_failed_total",
                      "Job runs that failed, by tool and reason (the job's error code).",
                      ["tool", "reason"], registry=REGISTRY)
RUN_SECONDS = Histogram("atelier_job_run_seconds",
                        "Run time of finished job runs, by tool and outcome.",
                        ["tool", "outcome"], registry=REGISTRY, buckets=RUN_TIME_BUCKETS)

# --- the reconciler (jobs.services.jobs_reconcile) -------------------------------------------
LEASE_TAKEOVERS = Counter("atelier_job_lease_takeovers_total",
                          "Running jobs whose worker stopped heartbeating and whose lease the "
                          "reconciler took back, by tool.", ["tool"], registry=REGISTRY)
RECONCILER_ACTIONS = Counter("atelier_reconciler_actions_total",
                             "What the reconciler did: requeued (a lost worker's job), "
                             "failed_time_limit, failed_worker_lost, reenqueued (a queued job "
                             "the broker did not hold).", ["action"], registry=REGISTRY)

# --- webhooks (webhooks.services) --------------------------------------------------------------
WEBHOOK_DELIVERIES = Counter("atelier_webhook_deliveries_total",
                             "Webhook delivery attempts by outcome: succeeded, failed (given "
                             "up), retry (another attempt is scheduled).", ["outcome"],
                             registry=REGISTRY)


def multiproc_dir() -> str:
    """The folder of multiprocess mode, or '' when this process counts alone."""
    return os.environ.get(MULTIPROC_ENV, "")


def scrape_registry() -> CollectorRegistry:
    """What a scrape reads: in multiprocess mode every process's files summed (a fresh
    registry each time, as prometheus_client documents), else this process's registry."""
    folder = multiproc_dir()
    if not folder:
        return REGISTRY
    registry = CollectorRegistry()
    _multiprocess.MultiProcessCollector(registry, path=folder)
    return registry


def mark_process_dead(pid: int) -> None:
    """A process of the folder exited (gunicorn's child_exit): its live gauges go."""
    if multiproc_dir():
        _multiprocess.mark_process_dead(pid)


def start_exporter(port: int) -> None:
    """Serve the folder's metrics on `port` (a worker pod's main process; Kubernetes scrapes
    it). Without multiprocess mode, this process's own metrics."""
    from prometheus_client import start_http_server

    start_http_server(port, registry=scrape_registry())
