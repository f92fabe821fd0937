"""Job outputs delivered to the output folder exactly once, whatever is retried."""

from __future__ import annotations

from typing import Any

import pytest

from drives.models import DriveFolder
from drives.services import drive_client, drive_folders_ensure, job_outputs_deliver
from jobs.models import JobOutput
from jobs.services import job_start, job_submit, job_succeed
from tools.registry import TOOLS
from workers.engines.base import EngineOutput


@pytest.fixture(autouse=True)
def _drives_root(settings: Any, tmp_path: Any) -> None:
    settings.DRIVES_ROOT = tmp_path / "drives"


def recolored(partner: Any) -> Any:
    job = job_submit(org=partner.organization, user=partner, tool=TOOLS["recolor"], payload={
        "image_url": "https://cdn.maison.test/looks/polo-beige.jpg", "target_color": "#c5b299",
        "garment_type": "polo"}).job
    lease = job_start(job_id=job.pk).lease
    job_succeed(job=job, lease=lease, outputs=[
        EngineOutput(b"\x89PNG-first", "image/png", "recolor.png"),
        EngineOutput(b"\x89PNG-second", "image/png", "recolor.png")])
    return job


def output_files(partner: Any) -> list[Any]:
    folder = DriveFolder.objects.get(organization=partner.organization, tool="recolor",
                                     role="output")
    return sorted(drive_client(folder).list(folder.locator), key=lambda f: f.name)


def test_outputs_land_in_the_output_folder_once(partner: Any) -> None:
    drive_folders_ensure(org=partner.organization)
    job = recolored(partner)

    assert job_outputs_deliver(job_id=job.pk) == 2
    assert job_outputs_deliver(job_id=job.pk) == 0  # a second delivery finds nothing to do
    files = output_files(partner)
    short = str(job.pk)[:8]
    assert [f.name for f in files] == [f"polo-beige_recolor_{short}_0.png",
                                       f"polo-beige_recolor_{short}_1.png"]
    assert all(o.drive_file_id for o in JobOutput.objects.filter(job=job))


def test_a_delivery_that_died_after_uploading_does_not_upload_again(partner: Any) -> None:
    folders = {(f.tool, f.role): f for f in drive_folders_ensure(org=partner.organization)}
    job = recolored(partner)
    output = JobOutput.objects.get(job=job, index=0)
    # the worker wrote the file, then died before it recorded the delivery
    drive_client(folders[("recolor", "output")]).write(
        folders[("recolor", "output")].locator, "polo-beige_recolor_x_0.png", b"\x89PNG-first",
        "image/png", app_key=f"{job.pk}:{output.index}")

    assert job_outputs_deliver(job_id=job.pk) == 1  # only the second output is uploaded
    assert len(output_files(partner)) == 2


def test_two_deliveries_of_one_job_never_upload_at_once(partner: Any) -> None:
    from django.utils import timezone

    from jobs.models import Job

    drive_folders_ensure(org=partner.organization)
    job = recolored(partner)
    # another delivery is at work on this job right now
    Job.objects.filter(pk=job.pk).update(delivering_until=timezone.now()
                                         + timezone.timedelta(minutes=5))
    assert job_outputs_deliver(job_id=job.pk) == 0
    assert output_files(partner) == []
    Job.objects.filter(pk=job.pk).update(delivering_until=None)  # it ended (or expired)
    assert job_outputs_deliver(job_id=job.pk) == 2
    assert Job.objects.get(pk=job.pk).delivering_until is None


@pytest.mark.django_db(transaction=True)
def test_the_reconciler_enqueues_a_waiting_delivery_once(partner: Any, settings: Any) -> None:
    # given a succeeded job whose delivery waits behind other work (no drivesync worker runs)
    import redis
    from django.core.cache import cache

    from workers.tasks.drives import deliver_outputs, deliveries_reconcile

    broker = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    broker.delete("drivesync")
    cache.clear()
    drive_folders_ensure(org=partner.organization)
    job = recolored(partner)

    # when the reconciler finds it pending on tick after tick
    enqueued = [deliveries_reconcile(older_than_seconds=0) for _ in range(5)]

    # then one message waits for it, not five
    assert enqueued == [1, 0, 0, 0, 0]
    assert broker.llen("drivesync") == 1
    # and once that delivery ran, the job is neither pending nor enqueued again
    assert deliver_outputs.run(str(job.pk)) == 2
    assert deliveries_reconcile(older_than_seconds=0) == 0
    broker.delete("drivesync")
