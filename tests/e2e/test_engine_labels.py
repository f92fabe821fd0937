"""Every result says which engine made it (issue 20, item 4 and Done-when): a Try-On run from
the page without a provider account shows "Local preview"; once an organisation admin has
added a FASHN account in Settings, pointing at a loopback server that speaks FASHN's protocol,
the same page's run goes through it and shows "FASHN · studio"."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from accounts.models import User
from jobs.models import Job
from tests.e2e.conftest import FIXTURES, drop, partner_api, shot, sign_in
from tests.providers.servers import FakeFashn, fake_fashn
from tests.support.processes import CeleryProcess, start_worker

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

EMAIL, ORG = "labels@maison-labels.test", "Maison Labels"
MODEL, GARMENT = FIXTURES / "model" / "051918_0.jpg", FIXTURES / "garment" / "050191_1.jpg"
RUN_TIMEOUT = 120_000


@pytest.fixture(scope="module")
def runner(django_db_setup: Any) -> Iterator[CeleryProcess]:
    """A worker with no deployment default (ENGINE_PROVIDERS) that may call loopback servers."""
    proc = start_worker(concurrency=2, env={"ENGINE_PROVIDERS": "{}",
                                            "OUTBOUND_ALLOW": "127.0.0.1"})
    yield proc
    proc.stop()


@pytest.fixture
def fashn() -> Iterator[FakeFashn]:
    with fake_fashn(statuses=["in_queue", "processing", "completed"]) as server:
        yield server


@pytest.fixture(autouse=True)
def loopback_allowed(settings: Any) -> None:
    settings.OUTBOUND_ALLOW = ["127.0.0.1"]


def run_try_on(page: Any, urls: tuple[str, str]) -> Any:
    """Fill the page with a model and a garment from the drive, run, and wait for the result."""
    page.get_by_label("Base Image URL").fill(urls[0])
    page.get_by_label("Desired Garment Image URL").fill(urls[1])
    page.get_by_role("button", name="Run", exact=True).click()
    page.get_by_role("img", name="Virtual try-on result").wait_for(timeout=RUN_TIMEOUT)
    return page.get_by_role("region", name="Result")


def test_try_on_says_local_preview_without_an_account_and_fashn_studio_with_one(
        page: Any, live_server: Any, runner: CeleryProcess, fashn: FakeFashn) -> None:
    sign_in(page, "/virtual-try-on", EMAIL, ORG)
    User.objects.filter(email=EMAIL).update(is_org_admin=True)
    api = partner_api(EMAIL, live_server)
    urls = drop(api, "recolor", MODEL), drop(api, "recolor", GARMENT)

    # No account: the local engine makes a preview, and the result says so.
    result = run_try_on(page, urls)
    result.get_by_text("Local preview", exact=True).wait_for()
    assert result.get_by_text("· studio").count() == 0
    local = Job.objects.get(tool="virtual-try-on")
    assert (local.made_by, local.tier) == ("local", "preview")
    # the tool's recent jobs say it too
    page.get_by_role("region", name="Recent jobs").get_by_text("Local preview").wait_for()
    shot(page, "engine-label-local-preview")

    # The organisation admin adds a FASHN account in Settings, pointed at the loopback server.
    page.goto("/settings")
    page.get_by_role("button", name="Add a provider account").click()
    form = page.get_by_role("form", name="Add a provider account")
    form.get_by_label("Provider", exact=True).select_option(label="FASHN")
    form.get_by_label("Label", exact=True).fill("Loopback FASHN")
    form.get_by_label("API key", exact=True).fill(fashn.api_key)
    form.get_by_label("Base URL", exact=True).fill(fashn.url)
    form.get_by_role("button", name="Add account").click()
    page.get_by_text("Loopback FASHN").first.wait_for()

    # The same page's run now goes through FASHN with its documented body.
    page.goto("/virtual-try-on")
    result = run_try_on(page, urls)
    result.get_by_text("FASHN · studio", exact=True).wait_for()
    assert result.get_by_text("Local preview").count() == 0
    shot(page, "engine-label-fashn-studio")

    call = fashn.api_calls("/v1/run")[-1]
    assert call.headers["Authorization"] == f"Bearer {fashn.api_key}"
    assert call.json["model_name"] == "tryon-v1.6" and set(call.json) == {"model_name", "inputs"}
    studio = Job.objects.filter(tool="virtual-try-on").latest("created_at")
    assert (studio.made_by, studio.tier) == ("fashn:tryon-v1.6", "studio")

    # The job history labels both runs.
    page.goto("/jobs")
    table = page.get_by_role("table", name="Jobs")
    table.get_by_text("FASHN · studio").wait_for()
    assert table.get_by_text("Local preview").count() == 1
