"""An organisation's own provider account, from the Settings API to a real worker: an org admin
connects FASHN, fal or Vertex AI (loopback servers speaking their protocols), a partner's run
goes through that account with its key and model, the job records the engine, usage lists it,
and without the account the same tool runs locally. The worker has no ENGINE_PROVIDERS."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any

import pytest
from rest_framework.test import APIClient

from jobs.models import Job
from tests.conftest import client_for
from tests.providers.servers import fake_fal, fake_fashn, fake_vertex
from tests.support.factories import UserFactory
from tests.support.fake_providers import jpeg, png
from tests.support.polling import wait_job
from tests.support.processes import CeleryProcess, start_worker

pytestmark = pytest.mark.django_db(transaction=True)

PERSON = jpeg((180, 150, 130), (300, 400))
GARMENT = png((20, 40, 200), (300, 300))


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, Any]]:
    with ExitStack() as stack:
        found = {"fashn": stack.enter_context(fake_fashn(statuses=["in_queue", "completed"])),
                 "fal": stack.enter_context(fake_fal(statuses=["IN_PROGRESS", "COMPLETED"])),
                 "vertex": stack.enter_context(fake_vertex(location="us-central1"))}
        found["fashn"].files.update({"person.jpg": PERSON, "garment.png": GARMENT})
        yield found


@pytest.fixture(scope="module")
def plain_worker(django_db_setup: Any, django_db_blocker: Any) -> Iterator[CeleryProcess]:
    proc = start_worker(concurrency=1, env={"ENGINE_PROVIDERS": "{}",
                                            "OUTBOUND_ALLOW": "127.0.0.1"})
    yield proc
    proc.stop()


@pytest.fixture
def org_apis(settings: Any) -> tuple[APIClient, APIClient]:
    settings.OUTBOUND_ALLOW = ["127.0.0.1"]
    admin = UserFactory(is_org_admin=True)
    return client_for(admin), client_for(UserFactory(organization=admin.organization))


def _urls(servers: dict[str, Any]) -> tuple[str, str]:
    origin = servers["fashn"].origin
    return f"{origin}/files/person.jpg", f"{origin}/files/garment.png"


def _connect(admin: APIClient, **body: Any) -> dict[str, Any]:
    resp = admin.post("/api/providers/", body, format="json")
    assert resp.status_code == 201, resp.json()
    return dict(resp.json())


def _run(api: APIClient, path: str, body: dict[str, Any]) -> Job:
    resp = api.post(path, body, format="json", HTTP_PREFER="respond-async")
    assert resp.status_code == 202, resp.content
    return wait_job(resp["Location"].rstrip("/").rpartition("/")[2], timeout=90)


def test_an_org_fashn_account_runs_try_on_then_usage_lists_it(
        plain_worker: CeleryProcess, servers: dict[str, Any],
        org_apis: tuple[APIClient, APIClient]) -> None:
    admin, partner = org_apis
    fashn = servers["fashn"]
    account = _connect(admin, kind="fashn", label="Paris", api_key=fashn.api_key,
                       base_url=fashn.url, tools=["virtual-try-on"])
    assert admin.post(f"/api/providers/{account['id']}/test/").json()["ok"] is True
    person, garment = _urls(servers)
    runs_before = len(fashn.api_calls("/v1/run"))

    job = _run(partner, "/api/try-on", {"modelUrl": person, "garmentUrl": garment})

    assert job.status == "succeeded", (job.error_code, job.error_message)
    call = fashn.api_calls("/v1/run")[-1]
    assert call.headers["Authorization"] == f"Bearer {fashn.api_key}"
    assert call.json["model_name"] == "tryon-v1.6" and "model_image" in call.json["inputs"]
    assert (job.made_by, job.tier) == ("fashn:tryon-v1.6", "studio")
    detail = partner.get(f"/api/jobs/{job.pk}/").json()
    assert (detail["engine"], detail["tier"]) == ("fashn:tryon-v1.6", "studio")

    usage = partner.get("/api/usage/").json()
    assert {"tool": "virtual-try-on", "provider": "fashn", "jobs": 1, "succeeded": 1,
            "failed": 0}.items() <= next(
        r for r in usage["rows"] if r["provider"] == "fashn").items()

    # Without the account, the same page's run does not reach FASHN: the local engine runs.
    assert admin.delete(f"/api/providers/{account['id']}/").status_code == 204
    local = _run(partner, "/api/try-on", {"modelUrl": person, "garmentUrl": garment})
    assert len(fashn.api_calls("/v1/run")) == runs_before + 1
    assert not local.made_by.startswith("fashn")


def test_an_org_fal_account_runs_restyle_with_its_model(
        plain_worker: CeleryProcess, servers: dict[str, Any],
        org_apis: tuple[APIClient, APIClient]) -> None:
    admin, partner = org_apis
    fal = servers["fal"]
    _connect(admin, kind="fal", api_key=fal.api_key, base_url=fal.url,
             models={"restyle": "fal-ai/leffa/virtual-tryon"})
    person, garment = _urls(servers)

    job = _run(partner, "/api/restyle/garment-restyle", {"outfit_url": person,
                                                         "garment_url": garment})

    assert job.status == "succeeded", (job.error_code, job.error_message)
    submit = [c for c in fal.calls if c.method == "POST"][-1]
    assert submit.path == "/fal-ai/leffa/virtual-tryon"
    assert submit.headers["Authorization"] == f"Key {fal.api_key}"
    assert (job.made_by, job.tier) == ("fal:fal-ai/leffa/virtual-tryon", "studio")


def test_an_org_vertex_account_runs_garment_integration(
        plain_worker: CeleryProcess, servers: dict[str, Any],
        org_apis: tuple[APIClient, APIClient]) -> None:
    admin, partner = org_apis
    vertex = servers["vertex"]
    _connect(admin, kind="vertex", api_key=json.dumps(vertex.service_account()),
             base_url=vertex.url, tools=["garment-integration"])
    person, garment = _urls(servers)

    job = _run(partner, "/api/restyle-editorial/process", {"outfit_url": person,
                                                           "garment_url": garment})

    assert job.status == "succeeded", (job.error_code, job.error_message)
    assert [c.path for c in vertex.calls][-2:] == ["/token", vertex.predict_path()]
    assert (job.made_by, job.tier) == ("vertex:virtual-try-on-preview-08-04", "studio")
