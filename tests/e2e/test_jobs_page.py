"""Failures and progress partners can trust, in a real browser: a batch run on a real worker with
one failing item shows the failure and its reason in the overlay, the tool page's recent jobs
and /jobs after a reload, its batch view counts the outcome, the report downloads, and retry
puts the failed item back in the queue; a batch's bar never goes back, not even when a lost
run is retried."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from accounts.models import User
from jobs.models import Job, JobStatus
from jobs.selectors import job_wait
from jobs.services import job_submit_batch, jobs_reconcile
from tests.e2e.conftest import FIXTURES, drop, partner_api, shot, sign_in
from tests.support.processes import start_worker, wait_for
from tools.registry import TOOLS

pytestmark = pytest.mark.django_db(transaction=True)

EMAIL = "lea@atelier-history.test"
REASON = "The diagnostic job failed as asked."


def no_sideways_scroll(page: Any) -> bool:
    return bool(page.evaluate(
        "document.documentElement.scrollWidth <= document.documentElement.clientWidth"))


def history_after_reload(page: Any, email: str, reason: str) -> Any:
    """Open /jobs from the user menu, reload it, and wait for REASON in its table."""
    page.get_by_role("button", name=email).click()
    page.get_by_role("menuitem", name="Job history").click()
    page.wait_for_url("**/jobs")
    page.reload()
    table = page.get_by_role("table", name="Jobs")
    table.get_by_text(reason).wait_for()
    return table


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
    table = history_after_reload(page, EMAIL, REASON)
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


TOO_SMALL = ("The garment photo is 100x120 px; its shorter side must be at least 256 px. "
             "Send a larger photo.")


def test_a_failed_card_shows_in_the_overlay_the_recent_jobs_and_the_history_after_a_reload(
        page: Any, live_server: Any, tmp_path: Path) -> None:
    email = "ana@atelier-history.test"
    sign_in(page, "/recoloring", email, "Maison Failures")
    api = partner_api(email, live_server)
    good = drop(api, "recolor", FIXTURES / "garment" / "051988_1.jpg")
    small = tmp_path / "swatch.jpg"
    Image.new("RGB", (100, 120), (190, 40, 40)).save(small)
    bad = drop(api, "recolor", small)

    # Two cards, the first one's photo too small for the engine, run on a real worker.
    for n, url in enumerate([bad, good]):
        if n:
            page.get_by_role("button", name=re.compile("Add Card")).click()
        page.get_by_label("Image URL").nth(n).fill(url)
        page.get_by_label("Target Color", exact=True).nth(n).fill("#4A5D23")
        page.get_by_label("Garment Type").nth(n).select_option("polo")
    worker = start_worker(name="worker-failed-card")
    try:
        page.get_by_role("button", name="Run", exact=True).click()
        # The overlay counts the jobs, then says which failed and why; never Success!
        overlay = page.get_by_role("dialog", name="1 of 2 done · 1 failed")
        overlay.wait_for(timeout=120_000)
    finally:
        worker.stop()
    overlay.get_by_text(f"Failed: {TOO_SMALL}").wait_for()
    overlay.get_by_text("1 image went to the drive; 1 image failed: the reasons are shown "
                        "below.").wait_for()
    assert overlay.get_by_text("Success!").count() == 0
    overlay.get_by_role("button", name="Retry 1 failed item").wait_for()
    shot(page, "recolor-failed-card-overlay", full_page=False)

    # Closed: the batch stays under the form, and the recent jobs give the reason.
    overlay.get_by_role("button", name="Start New Recolor").click()
    page.get_by_role("region", name="Last batch").get_by_role("status").filter(
        has_text="1 of 2 done · 1 failed").wait_for()
    log = page.get_by_role("table", name="Recent jobs")
    log.get_by_text(TOO_SMALL).wait_for()

    # After a reload the recent jobs still say it...
    page.reload()
    log.get_by_text(TOO_SMALL).wait_for()
    assert log.get_by_text("Failed", exact=True).count() == 1
    assert log.get_by_text("Succeeded", exact=True).count() == 1
    assert log.get_by_role("link", name=re.compile(r"\.png$")).count() == 1
    shot(page, "recolor-failed-card-reloaded")

    # ...and so does the job history, its batch view and its retry.
    history = history_after_reload(page, email, TOO_SMALL)
    batch_id = str(Job.objects.get(error_code__gt="").batch_id)
    history.get_by_role("link", name=f"Batch {batch_id[:8]}").first.click()
    panel = page.get_by_role("region", name=f"Batch {batch_id[:8]}")
    panel.get_by_role("status").filter(has_text="1 of 2 done · 1 failed").wait_for()
    panel.get_by_text(f"Failed: {TOO_SMALL}").wait_for()
    page.get_by_role("button", name="Retry 1 failed item").wait_for()


BAR_RECORDER = """(label) => {
  window.__bar = [];
  window.__items = [];
  const snap = () => {
    const bar = document.querySelector(`[role=progressbar][aria-label="${label}"]`);
    if (bar) {
      const value = Number(bar.getAttribute('aria-valuenow'));
      if (window.__bar.at(-1) !== value) window.__bar.push(value);
    }
    for (const item of document.querySelectorAll('.batch-job-status')) {
      const text = item.textContent.trim();
      if (!window.__items.includes(text)) window.__items.push(text);
    }
  };
  snap();
  new MutationObserver(snap).observe(document.body, { subtree: true, childList: true,
                                                      characterData: true, attributes: true });
}"""


def test_progress_never_goes_back_not_even_when_a_lost_run_is_retried(page: Any) -> None:
    email = "mo@atelier-history.test"
    sign_in(page, "/", email, "Maison Progress")
    user = User.objects.get(email=email)
    assert user.organization is not None

    # Two diagnostic items of a few seconds, followed on the batch view from submit to the end.
    batch = job_submit_batch(org=user.organization, user=user, tool=TOOLS["diagnostics.sleep"],
                             payloads=[{"seconds": 3}, {"seconds": 3}])  # under the suite's 4 s limit
    label = f"Batch {str(batch.batch_id)[:8]}"
    page.goto(f"/jobs?batch={batch.batch_id}")
    page.get_by_role("progressbar", name=label).wait_for()
    page.evaluate(BAR_RECORDER, label)

    # The worker dies mid-run (SIGKILL, no goodbye); once its heartbeat is stale the
    # reconciler puts both jobs back in the queue, and a new worker runs them again.
    worker = start_worker(name="worker-lost", concurrency=2)
    try:
        wait_for(lambda: min(j.progress for j in Job.objects.filter(batch_id=batch.batch_id))
                 >= 30, 60, what="both jobs a third done")
    finally:
        worker.kill()
    def requeued() -> bool:
        jobs_reconcile()
        return not Job.objects.filter(batch_id=batch.batch_id,
                                      status=JobStatus.RUNNING).exists()

    wait_for(requeued, 30, interval=0.5, what="the lost runs requeued")
    requeued = list(Job.objects.filter(batch_id=batch.batch_id))
    assert all(j.status == JobStatus.QUEUED and j.attempts == 1 for j in requeued)
    page.get_by_text("retrying (attempt 2)").first.wait_for()
    worker = start_worker(name="worker-again", concurrency=2)
    try:
        page.get_by_role("region", name=label).get_by_role("status").filter(
            has_text="2 of 2 done").wait_for(timeout=60_000)
    finally:
        worker.stop()

    bar = page.evaluate("window.__bar")
    items = page.evaluate("window.__items")
    print("batch bar:", bar)
    assert bar[-1] == 100
    # the lost runs' progress was shown (it holds while the jobs wait for their second run)
    assert any(0 < value < 100 for value in bar), bar
    assert all(a <= b for a, b in zip(bar, bar[1:], strict=False)), bar
    assert any("retrying (attempt 2)" in text for text in items), items
    assert [j.attempts for j in Job.objects.filter(batch_id=batch.batch_id)] == [2, 2]
