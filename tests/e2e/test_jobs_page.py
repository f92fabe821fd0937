"""The job history in a real browser: a batch run on a real worker with one failing item shows
the failure and its reason on /jobs after a reload, its batch view counts the outcome, the
report downloads, and retry puts the failed item back in the queue."""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest

from accounts.models import User
from jobs.models import Job, JobStatus
from jobs.selectors import job_wait
from jobs.services import job_submit_batch
from tests.e2e.conftest import shot, sign_in
from tests.support.processes import start_worker
from tools.registry import TOOLS

pytestmark = pytest.mark.django_db(transaction=True)

EMAIL = "lea@atelier-history.test"
REASON = "The diagnostic job failed as asked."


def no_sideways_scroll(page: Any) -> bool:
    return bool(page.evaluate(
        "document.documentElement.scrollWidth <= document.documentElement.clientWidth"))


def test_a_failed_batch_item_is_on_the_job_history_and_goes_back_to_the_queue(
        page: Any) -> None:
    sign_in(page, "/", EMAIL, "Maison History")
    user = User.objects.get(email=EMAIL)
    assert user.organization is not None

    # Three diagnostic items in one batch, the second asked to fail, run on a real worker.
    worker = start_worker(name="worker-jobs-page")
    try:
        batch = job_submit_batch(
            org=user.organization, user=user, tool=TOOLS["diagnostics.sleep"],
            payloads=[{"seconds": 0}, {"seconds": 0, "fail": True}, {"seconds": 0}])
        ended = [job_wait(job_id=job.pk, timeout=60) for job in batch.jobs]
    finally:
        worker.stop()  # what is retried below stays queued for the page to show
    assert [job.status for job in ended] == [JobStatus.SUCCEEDED, JobStatus.FAILED,
                                             JobStatus.SUCCEEDED]
    failed = ended[1]

    # From the user menu to the history; the failure is there after a reload too.
    page.get_by_role("button", name=EMAIL).click()
    page.get_by_role("menuitem", name="Job history").click()
    page.wait_for_url("**/jobs")
    page.reload()
    table = page.get_by_role("table", name="Jobs")
    table.get_by_text(REASON).wait_for()
    assert page.title() == "Jobs · Atelier"
    assert table.get_by_text("Failed", exact=True).count() == 1
    assert table.get_by_text("Succeeded", exact=True).count() == 2
    # each succeeded item links its output
    assert table.get_by_role("link", name="diagnostic-0.json").count() == 2
    shot(page, "jobs-history")

    # The batch view: the outcome of every item, the failure with its reason.
    table.get_by_role("link", name=f"Batch {str(batch.batch_id)[:8]}").first.click()
    panel = page.get_by_role("region", name=f"Batch {str(batch.batch_id)[:8]}")
    summary = panel.get_by_role("status")
    summary.filter(has_text="2 of 3 done · 1 failed").wait_for()
    panel.get_by_text(f"Failed: {REASON}").wait_for()

    # The report: one row per item, the failure's code and reason.
    report = page.get_by_role("link", name="Download report")
    resp = page.request.get(report.get_attribute("href"))
    assert resp.status == 200
    assert resp.headers["content-disposition"].startswith("attachment;")
    rows = list(csv.reader(io.StringIO(resp.text())))
    assert rows[0][:4] == ["job_id", "tool", "source", "status"]
    by_id = {row[0]: row for row in rows[1:]}
    assert len(by_id) == 3
    assert by_id[str(failed.pk)][3:6] == ["failed", "diagnostic_failure", REASON]

    # A phone-wide screen: the table scrolls in its own box, the page never sideways.
    page.set_viewport_size({"width": 375, "height": 800})
    assert no_sideways_scroll(page)
    shot(page, "jobs-batch-375")
    page.set_viewport_size({"width": 1280, "height": 900})

    # Retry: only the failed item goes back to the queue.
    page.get_by_role("button", name="Retry 1 failed item").click()
    page.get_by_text("1 item is back in the queue.").wait_for()
    assert Job.objects.get(pk=failed.pk).status == JobStatus.QUEUED
    assert sorted(Job.objects.filter(batch_id=batch.batch_id).values_list("status", flat=True)
                  ) == [JobStatus.QUEUED, JobStatus.SUCCEEDED, JobStatus.SUCCEEDED]
    summary.filter(has_text="2 of 3 done").wait_for()
    assert panel.get_by_text(f"Failed: {REASON}").count() == 0
    page.get_by_role("table", name="Jobs of this batch").get_by_text("Queued", exact=True).wait_for()
    assert page.get_by_role("button", name="Retry failed items").is_disabled()
    shot(page, "jobs-batch-retried")
