"""Metrics across processes: a real gunicorn with two workers and a real Celery worker share one
PROMETHEUS_MULTIPROC_DIR, as on the embedded single host (deploy/local/run.sh). Six scrapes of
/metrics see counters that never go down, whichever gunicorn worker answers, and the worker's
run metrics (jobs by tool and reason, run-time histogram)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.support.processes import REPO, _env, port_open, start_worker, wait_for
from tests.test_access_log import free_port

TOKEN = "h10-scrape-token"  # noqa: S105 - a test's own token


@contextlib.contextmanager
def gunicorn_with(tmp_path: Path, env: dict[str, str], workers: int = 2) -> Iterator[int]:
    """Gunicorn as deploy/ starts it (config.gunicorn), on this run's test database."""
    port = free_port()
    with open(tmp_path / "web.log", "w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", "python:config.gunicorn", "config.wsgi",
             "--bind", f"127.0.0.1:{port}", "--workers", str(workers)],
            env=_env(env | {"XDG_RUNTIME_DIR": str(tmp_path)}), cwd=REPO, stdout=out,
            stderr=subprocess.STDOUT, start_new_session=True)
    try:
        wait_for(lambda: proc.poll() is not None or port_open(port), 30, what="gunicorn")
        assert proc.poll() is None, (tmp_path / "web.log").read_text()
        yield port
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(30)


def get(port: int, path: str, headers: dict[str, str] | None = None) -> str:
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers=headers or {})
    with urllib.request.urlopen(request, timeout=30) as resp:
        return str(resp.read().decode())


def scrape(port: int) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of one scrape: (name, sorted labels) → value."""
    text = get(port, "/metrics", {"Authorization": f"Bearer {TOKEN}"})
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def total(samples: dict[Any, float], name: str, **labels: str) -> float:
    return sum(value for (n, got), value in samples.items()
               if n == name and labels.items() <= dict(got).items())


@pytest.mark.django_db(transaction=True)
def test_six_scrapes_across_processes_are_monotonic_with_worker_metrics(
        staff: Any, tmp_path: Path) -> None:
    from tests.conftest import client_for
    from tests.support.polling import wait_job

    folder = tmp_path / "prometheus"
    folder.mkdir()
    env = {"PROMETHEUS_MULTIPROC_DIR": str(folder), "METRICS_TOKEN": TOKEN}
    exporter = free_port()  # the worker's own port, as in a Kubernetes worker pod
    worker = start_worker(queues="interactive", concurrency=2,
                          env=env | {"WORKER_METRICS_PORT": str(exporter)})
    try:
        with gunicorn_with(tmp_path, env) as port:
            api = client_for(staff)
            ids = [api.post("/api/diagnostics/sleep", {"seconds": 0.05 * i}, format="json")
                   .json()["id"] for i in range(3)]
            ids.append(api.post("/api/diagnostics/sleep", {"seconds": 0, "fail": True},
                                format="json").json()["id"])
            jobs = [wait_job(job_id, timeout=60) for job_id in ids]
            assert [j.status for j in jobs] == ["succeeded"] * 3 + ["failed"]

            served = 0  # GET requests answered 200 so far, the scrapes included
            requests_seen: list[float] = []
            samples: dict[Any, float] = {}
            for _ in range(6):
                for _ in range(8):  # spread over both gunicorn workers
                    get(port, "/healthz")
                    served += 1
                samples = scrape(port)
                served += 1
                seen = total(samples, "atelier_http_requests_total", method="GET",
                             status="200")
                # Everything answered before this scrape is counted (its own request is
                # counted after its answer), whichever worker answered it.
                assert seen >= served - 1, (seen, served)
                requests_seen.append(seen)

            # The run metrics, written by the worker's pool processes: counted after the job's
            # row ends, so the last scrape may be a moment ahead of them.
            def runs_counted() -> dict[Any, float] | None:
                now = scrape(port)
                done = total(now, "atelier_jobs_succeeded_total", tool="diagnostics.sleep")
                return now if done == 3 and total(now, "atelier_jobs_failed_total") == 1 else None

            samples = wait_for(runs_counted, 30, interval=0.2, what="the worker's run metrics")
            served_by_worker = {
                (s.name, tuple(sorted(s.labels.items()))): s.value
                for family in text_string_to_metric_families(get(exporter, "/metrics"))
                for s in family.samples}
    finally:
        worker.stop()

    assert requests_seen == sorted(requests_seen) and len(set(requests_seen)) == 6, requests_seen
    assert total(samples, "atelier_jobs_started_total", tool="diagnostics.sleep") == 4
    # The worker's port serves the same folder (no token, no database figures).
    assert total(served_by_worker, "atelier_jobs_succeeded_total",
                 tool="diagnostics.sleep") == 3
    assert "atelier_queue_depth" not in {name for name, _ in served_by_worker}
    assert total(samples, "atelier_jobs_failed_total", tool="diagnostics.sleep",
                 reason="diagnostic_failure") == 1
    succeeded = {dict(labels)["le"]: value for (name, labels), value in samples.items()
                 if name == "atelier_job_run_seconds_bucket"
                 and dict(labels)["outcome"] == "succeeded"}
    assert succeeded["+Inf"] == 3 and succeeded["1800.0"] == 3
    bounds = sorted(succeeded, key=lambda le: float(le))
    assert len(bounds) == 17  # 16 real buckets and +Inf
    assert [succeeded[b] for b in bounds] == sorted(succeeded[b] for b in bounds)
    assert total(samples, "atelier_job_run_seconds_count", outcome="succeeded") == 3
    assert total(samples, "atelier_job_run_seconds_sum", outcome="succeeded") >= 0.15
    # Nothing is left queued or running; the queue depth is read from the broker.
    assert total(samples, "atelier_jobs") == 0
    assert ("atelier_queue_depth", (("queue", "interactive"),)) in samples
    # The folder holds the files of several processes: two gunicorn workers and the pool.
    pids = {p.stem.rsplit("_", 1)[-1] for p in folder.glob("*.db")}
    assert len(pids) >= 3, sorted(p.name for p in folder.glob("*.db"))


# --- in one process (no PROMETHEUS_MULTIPROC_DIR: counters in memory) -------------------------

def sample(name: str, **labels: str) -> float:
    from config.metrics import REGISTRY

    return REGISTRY.get_sample_value(name, labels) or 0.0


@pytest.mark.django_db(transaction=True)
def test_the_reconciler_counts_lease_takeovers_and_its_actions(partner: Any,
                                                               settings: Any) -> None:
    from datetime import timedelta

    from django.utils import timezone

    from jobs.models import Job
    from jobs.services import job_start, job_submit, jobs_reconcile
    from tools.registry import TOOLS

    def stale_job(**fields: Any) -> Any:
        job = job_submit(org=partner.organization, user=partner,
                         tool=TOOLS["diagnostics.sleep"], payload={"seconds": 0.1}).job
        job_start(job_id=job.pk)
        stale = timezone.now() - timedelta(seconds=5)
        Job.objects.filter(pk=job.pk).update(heartbeat_at=stale, started_at=stale, **fields)
        return job

    before = {a: sample("atelier_reconciler_actions_total", action=a)
              for a in ("requeued", "failed_worker_lost")}
    takeovers = sample("atelier_job_lease_takeovers_total", tool="diagnostics.sleep")
    stale_job()
    stale_job(attempts=settings.JOB_MAX_ATTEMPTS)
    report = jobs_reconcile()
    assert (report.requeued_stale, report.failed_stale) == (1, 1)
    assert sample("atelier_reconciler_actions_total", action="requeued") == \
        before["requeued"] + 1
    assert sample("atelier_reconciler_actions_total", action="failed_worker_lost") == \
        before["failed_worker_lost"] + 1
    assert sample("atelier_job_lease_takeovers_total", tool="diagnostics.sleep") == takeovers + 2


@pytest.mark.django_db(transaction=True)
def test_webhook_deliveries_are_counted_by_outcome(partner: Any, settings: Any) -> None:
    from webhooks.models import Webhook, WebhookDelivery
    from webhooks.services import delivery_send, new_secret

    from tests.support.receiver import receiver

    settings.OUTBOUND_ALLOW = ["127.0.0.1"]
    before = {o: sample("atelier_webhook_deliveries_total", outcome=o)
              for o in ("succeeded", "retry", "failed")}
    with receiver() as rec:
        rec.answers = [503, 200, 410]
        hook = Webhook.objects.create(organization=partner.organization, created_by=partner,
                                      url=rec.url, events=["job.succeeded"],
                                      secret=new_secret())
        first = WebhookDelivery.objects.create(webhook=hook, event="job.succeeded",
                                               payload={"n": 1})
        second = WebhookDelivery.objects.create(webhook=hook, event="job.succeeded",
                                                payload={"n": 2})
        assert delivery_send(delivery_id=first.pk) == "retry"  # 503
        WebhookDelivery.objects.filter(pk=first.pk).update(status="pending")
        assert delivery_send(delivery_id=first.pk) == "succeeded"  # 200
        assert delivery_send(delivery_id=second.pk) == "failed"  # 410: not retried
    for outcome in ("succeeded", "retry", "failed"):
        assert sample("atelier_webhook_deliveries_total", outcome=outcome) == \
            before[outcome] + 1, outcome


def test_a_scrape_by_the_pods_address_is_answered_with_the_token(db: Any,
                                                                  settings: Any) -> None:
    from django.test import Client

    settings.METRICS_TOKEN = TOKEN
    settings.ALLOWED_HOSTS = ["atelier.example.com", "localhost"]
    pod = {"HTTP_HOST": "10.1.2.3:8000"}  # what Prometheus sends: the target's address
    answer = Client().get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}", **pod)
    assert answer.status_code == 200
    assert b"atelier_http_requests_total" in answer.content
    assert Client().get("/metrics", HTTP_AUTHORIZATION="Bearer nope", **pod).status_code == 400
    assert Client().get("/healthz", HTTP_AUTHORIZATION=f"Bearer {TOKEN}",
                        **pod).status_code == 400


# --- the scrape configurations in deploy/ --------------------------------------------------------

DEPLOY = REPO / "deploy"


def test_the_dashboard_asks_for_metrics_that_exist() -> None:
    import json
    import re

    from config import metrics

    names = {m._name for m in vars(metrics).values()
             if hasattr(m, "_name") and hasattr(m, "_type")}
    dashboard = json.loads((DEPLOY / "grafana" / "atelier.json").read_text())
    exprs = [t["expr"] for p in dashboard["panels"] for t in p["targets"]]
    assert len(exprs) >= 10
    used = {n for e in exprs for n in re.findall(r"\b((?:atelier|flower)_[a-z_]+)", e)}
    served = {f"{n}_total" for n in names} | {f"{n}_bucket" for n in names} | {
        "atelier_jobs", "atelier_queue_depth", "flower_worker_online",
        "flower_task_runtime_seconds_bucket"}
    assert used <= served, used - served
    titles = " ".join(p["title"] for p in dashboard["panels"])
    for needed in ("by tool", "p50 / p95", "Queue depth", "Webhook", "HTTP"):
        assert needed in titles, needed


def test_prometheus_and_the_monitors_scrape_web_workers_and_flower() -> None:
    import yaml

    from workers.queues import QUEUES

    config = yaml.safe_load((DEPLOY / "prometheus" / "prometheus.yml").read_text())
    jobs = {j["job_name"]: j for j in config["scrape_configs"]}
    assert set(jobs) == {"atelier-web", "atelier-workers", "flower"}
    assert jobs["atelier-web"]["authorization"]["credentials_file"] == "/run/secrets/metrics_token"
    (workers,) = jobs["atelier-workers"]["dns_sd_configs"]
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    services = compose["services"]
    assert set(workers["names"]) == {f"worker-{q}" for q in QUEUES} <= set(services)
    for name in workers["names"]:
        env = services[name]["environment"]
        assert env["WORKER_METRICS_PORT"] == str(workers["port"])
        assert env["PROMETHEUS_MULTIPROC_DIR"]
    assert services["web"]["environment"]["PROMETHEUS_MULTIPROC_DIR"]
    assert "metrics_token" in services["prometheus"]["secrets"]

    monitors = [d for d in yaml.safe_load_all(
        (DEPLOY / "k8s" / "monitoring" / "monitors.yaml").read_text()) if d]
    deployments = {d["metadata"]["name"]: d for path in (DEPLOY / "k8s").glob("*.yaml")
                   for d in yaml.safe_load_all(path.read_text())
                   if d and d.get("kind") == "Deployment"}
    for monitor in monitors:
        assert monitor["apiVersion"] == "monitoring.coreos.com/v1"
        wanted = monitor["spec"]["selector"]["matchLabels"]
        chosen = [d for d in deployments.values()
                  if wanted.items() <= d["spec"]["template"]["metadata"]["labels"].items()]
        assert chosen, monitor["metadata"]["name"]
        endpoints = monitor["spec"].get("endpoints") or monitor["spec"]["podMetricsEndpoints"]
        for deployment in chosen:
            pod = deployment["spec"]["template"]["spec"]
            ports = {p["name"] for c in pod["containers"] for p in c.get("ports", [])}
            assert {e["port"] for e in endpoints} <= ports, deployment["metadata"]["name"]
            for container in pod["containers"]:
                env = {e["name"]: e.get("value") for e in container.get("env", [])}
                if monitor["kind"] == "PodMonitor" or monitor["metadata"]["name"] == "atelier-web":
                    folder = env["PROMETHEUS_MULTIPROC_DIR"]
                    mounts = {m["mountPath"] for m in container["volumeMounts"]}
                    assert folder in mounts, deployment["metadata"]["name"]
    assert {m["kind"] for m in monitors} == {"ServiceMonitor", "PodMonitor"}
