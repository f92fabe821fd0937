"""Tool pages run for real: the browser, the server, a Celery worker and the engines.
The images come from the organisation's own drive (signed links), as a partner's would."""

from __future__ import annotations

from typing import Any

import pytest

from drives.models import DriveFolder
from drives.services import drive_client
from tests.e2e.conftest import FIXTURES, drop, partner_api, shot, sign_in
from tests.support.processes import CeleryProcess, wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

EMAIL, ORG = "run@maison-runs.test", "Maison Runs"


def signed_in(page: Any, live_server: Any, start: str) -> Any:
    sign_in(page, start, EMAIL, ORG)
    return partner_api(EMAIL, live_server)


def test_recolor_page_runs_a_card_to_the_output_drive(page: Any, live_server: Any,
                                                      runner: CeleryProcess) -> None:
    api = signed_in(page, live_server, "/recoloring")
    # the page's Examples gallery: the three shipped renders, served and decoded
    examples = page.get_by_role("region", name="Examples").get_by_role("img")
    examples.nth(2).wait_for()
    assert examples.count() == 3
    for n in range(3):
        examples.nth(n).scroll_into_view_if_needed()
        page.wait_for_function("el => el.complete && el.naturalWidth > 300",
                               arg=examples.nth(n).element_handle())
    drop(api, "recolor", sorted((FIXTURES / "garment").glob("*.jpg"))[0])
    page.get_by_role("button", name="Get URLs").click()
    page.get_by_text("✅ URLs Retrieved").wait_for()
    page.get_by_label("Target Color", exact=True).fill("#4A5D23")
    page.get_by_label("Garment Type").select_option("polo")
    page.get_by_role("button", name="Run", exact=True).click()
    # the spec's Success! once the job is done (counted until then)
    success = page.get_by_role("dialog", name="Success!")
    success.get_by_role("region", name="Batch progress").get_by_text(
        "1 of 1 done", exact=False).wait_for(timeout=120_000)
    shot(page, "recolor-run-done", full_page=False)
    out = DriveFolder.objects.get(organization__name="Maison Runs", tool="recolor",
                                  role="output")
    wait_for(lambda: len(list(drive_client(out).list(out.locator))) == 1, 60,
             what="the recoloured image in the output drive")


def test_rebody_page_runs_and_shows_the_result(page: Any, live_server: Any,
                                               runner: CeleryProcess) -> None:
    api = signed_in(page, live_server, "/rebody")
    url = drop(api, "recolor", sorted((FIXTURES / "model").glob("*.jpg"))[0])
    page.get_by_label("Full Body Look Image URL", exact=False).fill(url)
    page.get_by_label("Body Type", exact=True).select_option("Curvy Fit")
    page.get_by_role("button", name="Run", exact=True).click()
    page.get_by_role("img", name="Rebody result").wait_for(timeout=120_000)
    page.get_by_text("SYSTEM LOG: Result ready.").wait_for()
    shot(page, "rebody-run-done")
    from jobs.models import Job

    job = Job.objects.get(tool="rebody")
    assert job.status == "succeeded" and job.input["target_bodytype"] == "Curvy Fit"
