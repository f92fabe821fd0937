"""Drive set-up for the delivery scenarios: a recolor output folder on the loopback Google
Drive fake (tests/support/fake_drive.py) and succeeded recolor jobs with outputs to deliver."""

from __future__ import annotations

from collections import Counter
from typing import Any

from drives.models import DriveFolder, DriveKind, DriveRole
from drives.services import drive_folders_ensure
from drivesync.base import APP_KEY_PROPERTY
from jobs.models import Job
from jobs.services import job_start, job_submit, job_succeed
from tools.registry import TOOLS
from workers.engines.base import EngineOutput


def google_output_folder(fake: Any, org: Any) -> str:
    """Point the organisation's Recolor output folder at a folder of a shared drive."""
    drive_folders_ensure(org=org)
    folder_id = fake.add_folder(f"Recolor output {org.pk}")
    DriveFolder.objects.filter(organization=org, tool="recolor", role=DriveRole.OUTPUT).update(
        kind=DriveKind.GOOGLE, locator=folder_id)
    return folder_id


def succeeded_recolors(user: Any, *, count: int, outputs: int) -> list[Job]:
    """Recolor jobs that ran and succeeded (outputs in storage), not yet delivered."""
    jobs = []
    for i in range(count):
        job = job_submit(org=user.organization, user=user, tool=TOOLS["recolor"], payload={
            "image_url": f"https://cdn.maison.test/looks/look-{i}.jpg",
            "target_color": "#c5b299", "garment_type": "polo"}).job
        started = job_start(job_id=job.pk)
        assert started is not None and started.lease is not None
        assert job_succeed(job=started, lease=started.lease, outputs=[
            EngineOutput(b"\x89PNG-" + bytes([i, n]) * 4096, "image/png", "recolor.png")
            for n in range(outputs)])
        jobs.append(job)
    return jobs


def delivered_keys(fake: Any, folder_id: str) -> Counter[str]:
    """How many files of the folder carry each delivery key (job:index)."""
    return Counter((f.get("appProperties") or {}).get(APP_KEY_PROPERTY, "")
                   for f in fake.children(folder_id))
