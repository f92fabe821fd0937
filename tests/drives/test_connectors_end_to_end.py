"""A batch team's own storage, end to end with a real worker: the Recolor input folder is the
team's S3 bucket, the output folder its Google Drive folder, both connected by an admin
through the API; a photo dropped in the bucket is listed by Get URLs, recoloured by the
worker, delivered once to the Drive folder, and announced to the submit's webhook_url."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from standardwebhooks.webhooks import Webhook as StandardWebhook

from jobs.models import JobOutput
from tests.conftest import client_for
from tests.drives.conftest import s3_body, service_account
from tests.support.factories import UserFactory
from tests.support.fake_drive import FakeDrive
from tests.support.polling import wait_job
from tests.support.processes import CeleryProcess, start_worker, wait_for
from tests.support.receiver import Receiver, receiver

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

POLO = sorted((Path(__file__).resolve().parents[1] / "fixtures" / "fashion" / "garment")
              .glob("*.jpg"))[0]


@pytest.fixture
def storage_worker(django_db_setup: Any, fake: FakeDrive) -> Iterator[CeleryProcess]:
    """A worker that may reach the loopback servers and speaks to the Drive server."""
    proc = start_worker(concurrency=2, env={"OUTBOUND_ALLOW": "127.0.0.1",
                                            "GOOGLE_DRIVE_API_URL": fake.base_url})
    yield proc
    proc.stop()


@pytest.fixture
def callback(fake: FakeDrive) -> Iterator[Receiver]:
    with receiver() as rec:
        yield rec


def test_recolor_from_an_s3_bucket_to_a_google_drive_folder(
        fake: FakeDrive, moto_endpoint: str, bucket: Any, s3_keys: dict[str, str],
        private_key: str, callback: Receiver, storage_worker: CeleryProcess) -> None:
    api = client_for(UserFactory(is_org_admin=True))
    api.defaults["HTTP_HOST"] = "localhost"  # links must be URLs a card accepts
    folders = {(f["tool"], f["role"]): f["folder"] for f in api.get("/api/drives/").json()}
    target = fake.add_folder("Recolor deliveries")
    assert api.put(f"/api/drives/{folders['recolor', 'input']}/connector",
                   s3_body(moto_endpoint, bucket, s3_keys), format="json").status_code == 200
    assert api.put(f"/api/drives/{folders['recolor', 'output']}/connector", {
        "kind": "google", "service_account": json.dumps(service_account(fake, private_key)),
        "folder_id": target}, format="json").status_code == 200
    bucket.put_object(Bucket=bucket.name, Key="looks/in/polo-beige.jpg", Body=POLO.read_bytes())

    (url,) = [u["img_url"] for u in api.get("/api/recoloring/urls").json()]
    resp = api.post(f"/api/recoloring/recolor?webhook_url={callback.url}", [
        {"image_url": url, "target_color": "#4A5D23", "garment_type": "polo"}], format="json")
    assert resp.status_code == 202, resp.json()
    (job,) = resp.json()["jobs"]
    finished = wait_job(job["id"], timeout=180)
    assert finished.status == "succeeded", (finished.error_code, finished.error_message)

    wait_for(lambda: JobOutput.objects.filter(job_id=job["id"]).exclude(
        drive_file_id="").exists(), 60, what="the delivery to Drive")
    (delivered,) = fake.children(target)
    assert delivered["name"] == f"polo-beige_recolor_{job['id'][:8]}_0.png"
    with JobOutput.objects.get(job_id=job["id"]).file.open("rb") as handle:
        assert fake.contents[delivered["id"]] == handle.read()

    wait_for(lambda: callback.calls, 60, what="the webhook_url call")
    secret = api.get("/api/webhooks/request-secret/").json()["secret"]
    (call,) = callback.calls
    announced = StandardWebhook(secret).verify(call.body, call.headers)
    assert (announced["event"], announced["data"]["job"]["id"]) == ("job.succeeded", job["id"])
