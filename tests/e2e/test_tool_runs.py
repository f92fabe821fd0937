"""Tool pages run for real: the browser, the server, a Celery worker and the engines.
The images come from the organisation's own drive (signed links), as a partner's would."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from rest_framework.test import APIClient

from accounts.models import User
from drives.models import DriveFolder
from drives.services import drive_client
from tests.conftest import client_for
from tests.e2e.conftest import SHOTS
from tests.support.processes import CeleryProcess, start_worker, wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "fashion"
EMAIL, PASSWORD = "run@maison-runs.test", "pw-for-real-runs"


@pytest.fixture
def runner(django_db_setup: Any) -> Iterator[CeleryProcess]:
    proc = start_worker(concurrency=2)
    yield proc
    proc.stop()


def signed_in(page: Any, live_server: Any, start: str) -> APIClient:
    call_command("createpartner", EMAIL, "--org", "Maison Runs", "--password", PASSWORD,
                 stdout=io.StringIO())
    page.goto(start)
    page.get_by_role("button", name="ACCESS PLATFORM").click()
    page.wait_for_url("**/auth/login/**")
    page.get_by_label("E-mail").fill(EMAIL)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="ACCESS PLATFORM").click()
    page.get_by_role("button", name=EMAIL).wait_for()
    api = client_for(User.objects.get(email=EMAIL))
    api.defaults["HTTP_HOST"] = live_server.url.split("://", 1)[1]
    return api


def drop(api: APIClient, tool: str, path: Path) -> str:
    folder = next(f for f in api.get("/api/drives/").json()
                  if f["tool"] == tool and f["role"] == "input")
    resp = api.post(f"/api/drives/{folder['folder']}/files",
                    {"file": SimpleUploadedFile(path.name, path.read_bytes(), "image/jpeg")},
                    format="multipart")
    assert resp.status_code == 201
    return str(resp.json()["url"])


def test_recolor_page_runs_a_card_to_the_output_drive(page: Any, live_server: Any,
                                                      runner: CeleryProcess) -> None:
    api = signed_in(page, live_server, "/recoloring")
    drop(api, "recolor", sorted((FIXTURES / "garment").glob("*.jpg"))[0])
    page.get_by_role("button", name="Get URLs").click()
    page.get_by_text("✅ URLs Retrieved").wait_for()
    page.get_by_label("Target Color", exact=True).fill("#4A5D23")
    page.get_by_label("Garment Type").select_option("polo")
    page.get_by_role("button", name="Run", exact=True).click()
    success = page.get_by_role("dialog", name="Success!")
    success.get_by_role("region", name="Batch progress").get_by_text(
        "1 of 1 done", exact=False).wait_for(timeout=120_000)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "recolor-run-done.png"))
    out = DriveFolder.objects.get(organization__name="Maison Runs", tool="recolor",
                                  role="output")
    wait_for(lambda: len(list(drive_client(out).list(out.locator))) == 1, 60,
             what="the recoloured image in the output drive")


def test_rebody_page_runs_and_shows_the_result(page: Any, live_server: Any,
                                               runner: CeleryProcess) -> None:
    api = signed_in(page, live_server, "/rebody")
    url = drop(api, "recolor", sorted((FIXTURES / "model").glob("*.jpg"))[0])
    page.get_by_label("Full Body Look Image URL", exact=False).fill(url)
    page.get_by_label("Body Type", exact=False).select_option("Curvy Fit")
    page.get_by_role("button", name="Run", exact=True).click()
    page.get_by_role("img", name="Rebody result").wait_for(timeout=120_000)
    page.get_by_text("SYSTEM LOG: Result ready.").wait_for()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "rebody-run-done.png"), full_page=True)
    from jobs.models import Job

    job = Job.objects.get(tool="rebody")
    assert job.status == "succeeded" and job.input["target_bodytype"] == "Curvy Fit"
