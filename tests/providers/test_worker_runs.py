"""Each provider adapter from a real Celery worker: a partner's job through the API, a real Redis
and a worker process whose ENGINE_PROVIDERS points the try-on tools at the loopback servers.

One worker per module (its settings are read at start): FASHN runs Virtual Try-On, fal runs
Restyle and Vertex AI runs Garment Integration; a second worker runs Virtual Try-On on
Replicate and Recolor on the OpenAI-compatible server.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any

import pytest
from django.conf import settings
from rest_framework.test import APIClient

from jobs.models import Job
from tests.providers.servers import (
    FakeFal,
    FakeFashn,
    FakeReplicate,
    FakeVertex,
    fake_fal,
    fake_fashn,
    fake_replicate,
    fake_vertex,
)
from tests.support.fake_providers import FakeOpenAI, fake_openai, jpeg, png
from tests.support.polling import wait_job
from tests.support.processes import (
    CeleryProcess,
    RedisServer,
    fresh_redis,
    port_open,
    start_worker,
)

pytestmark = pytest.mark.django_db(transaction=True)

PERSON = jpeg((180, 150, 130), (300, 400))
GARMENT = png((20, 40, 200), (300, 300))
FAST = {"poll_interval": 0.05, "backoff": 0.05, "timeout": 10, "deadline": 60,
        "fetch_allow": ["127.0.0.1"]}


@pytest.fixture(scope="module")
def redis_server() -> Iterator[RedisServer | None]:
    # tests/providers/conftest.py turns Redis off for the adapter tests; these need it.
    if port_open(settings.TEST_REDIS_PORT):  # the suite's own, already serving
        yield None
        return
    with fresh_redis(settings.TEST_REDIS_PORT) as server:
        yield server


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, Any]]:
    with ExitStack() as stack:
        found = {"fashn": stack.enter_context(fake_fashn(statuses=["in_queue", "completed"])),
                 "fal": stack.enter_context(fake_fal(statuses=["IN_PROGRESS", "COMPLETED"])),
                 "vertex": stack.enter_context(fake_vertex()),
                 "replicate": stack.enter_context(fake_replicate(
                     statuses=["processing", "succeeded"])),
                 "openai": stack.enter_context(fake_openai(output="url"))}
        found["fashn"].files.update({"person.jpg": PERSON, "garment.png": GARMENT})
        yield found


@pytest.fixture(autouse=True)
def _worker_settled(transactional_db: Any) -> Iterator[None]:
    """The test's tables are emptied as it ends (TRUNCATE): first let the worker finish what a
    job's end set off (its delivery task, its events), or the two deadlock. Settled when no
    queue holds a message and none is unacked (tasks are acked late, once done). The job
    figures' lists (run times, end notices) are no queue: counted, every test waited the whole
    30 s."""
    yield
    import time

    import redis

    from jobs.figures import PREFIX

    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        lists = [k for k in client.scan_iter(count=1000)
                 if client.type(k) == b"list" and not k.startswith(PREFIX.encode())]
        if client.hlen("unacked") == 0 and not any(client.llen(k) for k in lists):
            break
        time.sleep(0.1)


def _start(redis_server: Any, providers: dict[str, Any]) -> CeleryProcess:
    return start_worker(concurrency=1, env={"ENGINE_PROVIDERS": json.dumps(providers),
                                            "OUTBOUND_ALLOW": "127.0.0.1"})


@pytest.fixture(scope="module")
def studio_worker(redis_server: Any, django_db_setup: Any, django_db_blocker: Any,
                  servers: dict[str, Any]) -> Iterator[CeleryProcess]:
    fashn: FakeFashn = servers["fashn"]
    fal: FakeFal = servers["fal"]
    vertex: FakeVertex = servers["vertex"]
    proc = _start(redis_server, {
        "virtual_try_on": {"provider": "fashn", "base_url": fashn.url, "api_key": fashn.api_key,
                           **FAST},
        "restyle": {"provider": "fal", "base_url": fal.url, "api_key": fal.api_key,
                    "model": "fal-ai/leffa/virtual-tryon", **FAST},
        "garment_integration": {"provider": "vertex", "base_url": vertex.url,
                                "service_account": vertex.service_account(),
                                "location": vertex.location, **FAST},
    })
    yield proc
    proc.stop()


@pytest.fixture(scope="module")
def second_worker(redis_server: Any, django_db_setup: Any, django_db_blocker: Any,
                  servers: dict[str, Any], studio_worker: CeleryProcess,
                  ) -> Iterator[CeleryProcess]:
    studio_worker.stop()  # one worker at a time: each takes every queue
    replicate: FakeReplicate = servers["replicate"]
    openai: FakeOpenAI = servers["openai"]
    proc = _start(redis_server, {
        "virtual_try_on": {"provider": "replicate", "base_url": replicate.url,
                           "api_key": replicate.api_key, "model": "cuuupid/idm-vton:0123abcd",
                           **FAST},
        "recolor": {"provider": "openai", "base_url": openai.url, "api_key": openai.api_key,
                    "model": "gpt-image-1", **FAST},
    })
    yield proc
    proc.stop()


def _urls(servers: dict[str, Any]) -> tuple[str, str]:
    origin = servers["fashn"].origin
    return f"{origin}/files/person.jpg", f"{origin}/files/garment.png"


def _run(api: APIClient, path: str, body: dict[str, Any]) -> Job:
    resp = api.post(path, body, format="json", HTTP_PREFER="respond-async")
    assert resp.status_code == 202, resp.content
    job_id = resp["Location"].rstrip("/").rpartition("/")[2]
    job = wait_job(job_id, timeout=90)
    assert job.status == "succeeded", (job.error_code, job.error_message)
    assert job.outputs.count() >= 1
    return job


def _made_by(job: Job, expected: str) -> None:
    # The job's engine label, where this checkout's jobs record it.
    if hasattr(job, "made_by"):
        assert (job.made_by, getattr(job, "tier", "studio")) == (expected, "studio")


def test_fashn_runs_virtual_try_on_from_a_worker(studio_worker: CeleryProcess, api: APIClient,
                                                 servers: dict[str, Any]) -> None:
    person, garment = _urls(servers)
    job = _run(api, "/api/try-on", {"modelUrl": person, "garmentUrl": garment})
    body = servers["fashn"].api_calls("/v1/run")[-1].json
    assert body["model_name"] == "tryon-v1.6"
    assert set(body["inputs"]) == {"model_image", "garment_image", "category"}
    _made_by(job, "fashn:tryon-v1.6")


def test_fal_runs_restyle_from_a_worker(studio_worker: CeleryProcess, api: APIClient,
                                        servers: dict[str, Any]) -> None:
    person, garment = _urls(servers)
    job = _run(api, "/api/restyle/garment-restyle", {"outfit_url": person,
                                                     "garment_url": garment})
    submit = [c for c in servers["fal"].calls if c.method == "POST"][-1]
    assert submit.path == "/fal-ai/leffa/virtual-tryon"
    assert submit.headers["Authorization"] == f"Key {servers['fal'].api_key}"
    assert {"human_image_url", "garment_image_url"} <= set(submit.json)
    _made_by(job, "fal:fal-ai/leffa/virtual-tryon")


def test_vertex_runs_garment_integration_from_a_worker(studio_worker: CeleryProcess,
                                                       api: APIClient,
                                                       servers: dict[str, Any]) -> None:
    person, garment = _urls(servers)
    job = _run(api, "/api/restyle-editorial/process", {"outfit_url": person,
                                                       "garment_url": garment})
    vertex: FakeVertex = servers["vertex"]
    assert [c.path for c in vertex.calls][-2:] == ["/token", vertex.predict_path()]
    _made_by(job, "vertex:virtual-try-on-preview-08-04")


def test_replicate_runs_virtual_try_on_from_a_worker(second_worker: CeleryProcess,
                                                     api: APIClient,
                                                     servers: dict[str, Any]) -> None:
    person, garment = _urls(servers)
    job = _run(api, "/api/try-on", {"modelUrl": person, "garmentUrl": garment})
    create = [c for c in servers["replicate"].calls if c.method == "POST"][-1]
    assert create.path == "/v1/predictions"
    assert create.json["version"] == "0123abcd"
    _made_by(job, "replicate:cuuupid/idm-vton:0123abcd")


def test_openai_runs_recolor_from_a_worker(second_worker: CeleryProcess, api: APIClient,
                                           servers: dict[str, Any]) -> None:
    person, _ = _urls(servers)
    resp = api.post("/api/recoloring/recolor", [
        {"image_url": person, "target_color": "#112233", "garment_type": "polo"}],
        format="json")
    assert resp.status_code == 202, resp.content
    (queued,) = resp.json()["jobs"]
    job = wait_job(queued["id"], timeout=90)
    assert job.status == "succeeded", (job.error_code, job.error_message)
    edit = servers["openai"].api_calls("/images/edits")[-1]
    assert edit.form["model"] == ["gpt-image-1"]
    assert edit.form["prompt"][0].startswith("Recolour the polo to #112233")
    _made_by(job, "openai:gpt-image-1")
