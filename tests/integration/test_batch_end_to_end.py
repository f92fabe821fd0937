"""A catalogue team's day, end to end with real processes: photos dropped into the Recolor
input drive, Get URLs, a batch of the spec's example cards, a real worker recolours them,
the results land in the output drive once each, and a signed webhook announces the jobs and
the batch."""

from __future__ import annotations

import hashlib
import hmac
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image
from rest_framework.test import APIClient

from drives.models import DriveFolder
from drives.services import drive_client
from jobs.models import Job, JobOutput
from tests.support.polling import wait_job
from tests.support.processes import CeleryProcess, start_worker, wait_for
from tests.support.receiver import Receiver, receiver

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "fashion" / "garment"


@pytest.fixture
def hook_receiver(settings: Any) -> Iterator[Receiver]:
    settings.OUTBOUND_ALLOW = ["127.0.0.1"]
    with receiver() as rec:
        yield rec


@pytest.fixture
def batch_worker(django_db_setup: Any) -> Iterator[CeleryProcess]:
    proc = start_worker(concurrency=2, env={"OUTBOUND_ALLOW": "127.0.0.1"})
    yield proc
    proc.stop()


def test_recolor_batch_from_drive_to_drive_with_webhooks(
    partner: Any, api: APIClient, hook_receiver: Receiver, batch_worker: CeleryProcess
) -> None:
    api.defaults["HTTP_HOST"] = "localhost"  # links must be URLs a card accepts
    secret = api.post("/api/webhooks/", {"url": hook_receiver.url, "events": [
        "job.succeeded", "batch.completed"]}, format="json").json()["secret"]
    folders = {(f["tool"], f["role"]): f for f in api.get("/api/drives/").json()}
    polo = sorted(FIXTURES.glob("*.jpg"))[0]
    upload = SimpleUploadedFile("polo-beige.jpg", polo.read_bytes(), "image/jpeg")
    folder = folders[("recolor", "input")]["folder"]
    assert api.post(f"/api/drives/{folder}/files", {"file": upload},
                    format="multipart").status_code == 201

    (url,) = [u["img_url"] for u in api.get("/api/recoloring/urls").json()]
    cards = [{"image_url": url, "target_color": c, "garment_type": "polo"}
             for c in ("#C5B299", "#8E8E93", "#4A5D23")]
    resp = api.post("/api/recoloring/recolor", cards, format="json")
    assert resp.status_code == 202, resp.json()
    batch = resp.json()
    for job in batch["jobs"]:
        finished = wait_job(job["id"], timeout=180)
        assert finished.status == "succeeded", (finished.error_code, finished.error_message)

    # each output delivered to the output drive exactly once
    out = DriveFolder.objects.get(organization=partner.organization, tool="recolor",
                                  role="output")
    wait_for(lambda: not JobOutput.objects.filter(job__batch_id=batch["batch_id"],
                                                  drive_file_id="").exists(), 60,
             what="deliveries")
    files = list(drive_client(out).list(out.locator))
    assert len(files) == 3 == JobOutput.objects.filter(job__batch_id=batch["batch_id"]).count()

    # the garment's colour moved toward each target
    for job in Job.objects.filter(batch_id=batch["batch_id"]):
        output = job.outputs.get()
        with output.file.open("rb") as handle:
            image = np.asarray(Image.open(handle).convert("RGB"), dtype=np.float32)
        target = np.array([int(job.input["target_color"][i:i + 2], 16) for i in (1, 3, 5)])
        source = np.asarray(Image.open(polo).convert("RGB").resize(
            (image.shape[1], image.shape[0])), dtype=np.float32)
        changed = np.abs(image - source).sum(axis=2) > 30
        assert changed.mean() > 0.05
        assert np.abs(image[changed].mean(axis=0) - target).mean() < np.abs(
            source[changed].mean(axis=0) - target).mean()

    # signed calls: three jobs and one batch
    wait_for(lambda: len(hook_receiver.calls) >= 4, 60, what="webhook calls")
    events = sorted(c.json["event"] for c in hook_receiver.calls)
    assert events == ["batch.completed", "job.succeeded", "job.succeeded", "job.succeeded"]
    for call in hook_receiver.calls:
        parts = dict(p.split("=", 1) for p in call.headers["Atelier-Signature"].split(","))
        mac = hmac.new(secret.encode(), f"{parts['t']}.".encode() + call.body, hashlib.sha256)
        assert hmac.compare_digest(mac.hexdigest(), parts["v1"])


def test_deliveries_lost_with_the_broker_are_made_once_by_the_reconciler(
    partner: Any, api: APIClient, redis_server: Any, django_db_setup: Any
) -> None:
    api.defaults["HTTP_HOST"] = "localhost"
    editors = start_worker(queues="interactive,batch", concurrency=1)
    procs: list[CeleryProcess] = [editors]
    try:
        folders = {(f["tool"], f["role"]): f for f in api.get("/api/drives/").json()}
        polo = sorted(FIXTURES.glob("*.jpg"))[0]
        folder = folders[("recolor", "input")]["folder"]
        api.post(f"/api/drives/{folder}/files",
                 {"file": SimpleUploadedFile("polo.jpg", polo.read_bytes(), "image/jpeg")},
                 format="multipart")
        (url,) = [u["img_url"] for u in api.get("/api/recoloring/urls").json()]
        batch = api.post("/api/recoloring/recolor", [
            {"image_url": url, "target_color": c, "garment_type": "polo"}
            for c in ("#8E8E93", "#4A5D23")], format="json").json()
        for job in batch["jobs"]:
            assert wait_job(job["id"], timeout=180).status == "succeeded"

        redis_server.flushall()  # the delivery messages are gone with the broker's data
        from tests.support.processes import start_beat

        procs += [start_worker(queues="drivesync", concurrency=1), start_beat()]
        wait_for(lambda: not JobOutput.objects.filter(job__batch_id=batch["batch_id"],
                                                      drive_file_id="").exists(), 90,
                 what="deliveries by the reconciler")
        out = DriveFolder.objects.get(organization=partner.organization, tool="recolor",
                                      role="output")
        time.sleep(3)  # give a duplicate delivery, if any, time to show
        assert len(list(drive_client(out).list(out.locator))) == 2
    finally:
        for proc in procs:
            proc.kill()
