"""Health, readiness, the API schema and docs, and the web app fallback."""

from __future__ import annotations

from typing import Any

from django.test import Client


def test_healthz_and_readyz(db: Any) -> None:
    client = Client()
    assert client.get("/healthz").json() == {"status": "ok"}
    ready = client.get("/readyz")
    assert ready.status_code == 200
    assert ready.json() == {"status": "ready", "database": "ok", "broker": "ok"}


def test_readyz_is_503_when_the_broker_does_not_answer(db: Any, settings: Any) -> None:
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"
    resp = Client().get("/readyz")
    assert resp.status_code == 503
    assert resp["Retry-After"] == "5"
    assert "broker" in resp.json()["message"]


def test_schema_and_docs(db: Any) -> None:
    client = Client()
    schema = client.get("/api/schema/")
    assert schema.status_code == 200
    text = schema.content.decode()
    for path in ("/api/jobs/", "/api/queues/", "/api/activity/", "/api/me/",
                 "/api/diagnostics/sleep"):
        assert path in text, path
    docs = client.get("/api/docs/")
    assert docs.status_code == 200 and b"swagger-ui" in docs.content


def test_client_routes_serve_the_web_app(db: Any, settings: Any, tmp_path: Any) -> None:
    (tmp_path / "index.html").write_text("<div id=root></div>")
    settings.WEBAPP_DIST = tmp_path
    client = Client()
    for path in ("/", "/login", "/recoloring", "/no/such/page"):
        resp = client.get(path)
        assert resp.status_code == 200, path
        assert b"<div id=root>" in b"".join(resp.streaming_content)
    assert client.get("/api/unknown").status_code == 404
