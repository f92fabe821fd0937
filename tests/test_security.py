"""Throttles, the per-organisation cap, security headers and the deploy checks."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from django.core.cache import cache
from django.test import Client
from rest_framework.test import APIClient

from jobs.models import Job

REPO = Path(__file__).resolve().parents[1]


def test_a_partner_past_the_rate_gets_429_with_retry_after(api: APIClient, settings: Any) -> None:
    cache.clear()
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK,
                               "DEFAULT_THROTTLE_RATES": {"partner": "3/min"}}
    from rest_framework.settings import api_settings
    from rest_framework.throttling import SimpleRateThrottle

    api_settings.reload()
    SimpleRateThrottle.THROTTLE_RATES = api_settings.DEFAULT_THROTTLE_RATES
    try:
        codes = [api.get("/api/queues/").status_code for _ in range(4)]
        assert codes == [200, 200, 200, 429]
        last = api.get("/api/queues/")
        assert last.json()["error"] == "throttled" and int(last["Retry-After"]) > 0
    finally:
        settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK,
                                   "DEFAULT_THROTTLE_RATES": {"partner": "1200/min"}}
        api_settings.reload()
        SimpleRateThrottle.THROTTLE_RATES = api_settings.DEFAULT_THROTTLE_RATES
        cache.clear()


def test_an_organisation_past_its_active_job_cap_gets_429(staff_api: APIClient,
                                                          settings: Any) -> None:
    settings.ORG_MAX_ACTIVE_JOBS = 2
    for _ in range(2):
        assert staff_api.post("/api/diagnostics/sleep", {"seconds": 1},
                              format="json").status_code == 202
    refused = staff_api.post("/api/diagnostics/sleep", {"seconds": 1}, format="json")
    assert refused.status_code == 429
    assert "already has 2 jobs" in refused.json()["message"] and refused["Retry-After"] == "31"
    assert Job.objects.count() == 2


def test_security_headers(db: Any) -> None:
    resp = Client().get("/healthz")
    assert resp["X-Frame-Options"] == "DENY"
    assert resp["X-Content-Type-Options"] == "nosniff"
    csp = resp["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp


def test_check_deploy_is_clean_with_production_settings(db: Any) -> None:
    env = dict(os.environ) | {
        "DJANGO_SETTINGS_MODULE": "config.settings", "DJANGO_DEBUG": "0",
        "DJANGO_SECRET_KEY": "x" * 20 + "prod-secret-from-the-environment-0123456789abcdef",
        "PROVIDER_KEYS_SECRET": "y" * 20 + "provider-keys-secret-0123456789",
        "DJANGO_ALLOWED_HOSTS": "atelier.example", "SECURE_TLS": "1",
        "SECURE_SSL_REDIRECT": "1", "SECURE_HSTS_SECONDS": "31536000",
        "SECURE_PROXY_SSL_HEADER": "1",
    }
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)  # set by the browser suite for its own thread
    run = subprocess.run([sys.executable, "manage.py", "check", "--deploy", "--fail-level",
                          "WARNING"], cwd=REPO, env=env, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "no issues" in run.stdout
