"""The direct tool pages run for real: Restyle, Virtual Try-On, Ecommerce Asset, Garment
Integration and Model Swap. The browser, the server, a Celery worker and the engines; the
photos come from the organisation's own drive (signed links), as a partner's would."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from accounts.models import Organization
from jobs.models import Job
from tests.e2e.conftest import FIXTURES, drop, partner_api, shot, sign_in
from tests.support.processes import CeleryProcess

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

EMAIL, ORG = "direct@maison-direct.test", "Maison Direct"
MODEL, GARMENT = FIXTURES / "model", FIXTURES / "garment"
BAG = FIXTURES / "accessory" / "bag_053514_0.jpg"
RUN_TIMEOUT = 120_000

# Records what the status bar, the job's progress line and the progress bar showed while the
# job ran: a run can be over between two of the test's own looks.
WATCH = """() => {
  const seen = { status: [], details: [], progress: [] };
  const keep = (list, text) => { if (text && !list.includes(text)) list.push(text); };
  const record = () => {
    const bar = document.querySelector('[aria-label="Tool status"]');
    const text = (item) => [...item.children].filter((e) => !e.classList.contains('visually-hidden'))
      .map((e) => e.textContent.trim()).join(' ');
    if (bar) keep(seen.status, [...bar.querySelectorAll('.status-item')].map(text).join(' | '));
    document.querySelectorAll('.job-progress-details').forEach((e) => keep(seen.details, e.textContent));
    document.querySelectorAll('[role=progressbar]').forEach((e) => keep(seen.progress, e.getAttribute('aria-valuenow')));
  };
  new MutationObserver(record).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
  record();
  window.__seen = seen;
}"""


def signed_in(page: Any, live_server: Any, start: str) -> Any:
    sign_in(page, start, EMAIL, ORG)
    return partner_api(EMAIL, live_server)


def watch(page: Any) -> None:
    page.evaluate(WATCH)


def seen(page: Any) -> dict[str, list[str]]:
    return dict(page.evaluate("window.__seen"))


def log_lines(page: Any) -> list[str]:
    return list(page.get_by_role("log", name="System log").locator("p").all_inner_texts())


def assert_watched_a_real_run(page: Any) -> None:
    """The status bar said Processing with a queue of 1 and an ETA; the progress line showed
    the job's own state; the bar moved up to 100."""
    watched = seen(page)
    busy = [s for s in watched["status"] if s.startswith("Processing")]
    assert busy, watched
    assert any("Queue 1" in s and "ETA ~" in s for s in busy), watched
    assert any(d.startswith(("Queued", "Running")) for d in watched["details"]), watched
    assert any("ETA ~" in d for d in watched["details"]), watched
    assert "100" in watched["progress"], watched
    # the status bar's queue figures are polled (every 5 s): back to ready at the next poll
    page.get_by_role("group", name="Tool status").get_by_text("System Ready").wait_for(
        timeout=10_000)


def download(page: Any, control: Any, suffix: str) -> Image.Image:
    """Click a download control; the file is a decodable image of a sensible size."""
    with page.expect_download() as info:
        control.click()
    saved = info.value
    assert saved.suggested_filename.endswith(suffix), saved.suggested_filename
    data = Path(saved.path()).read_bytes()
    assert len(data) > 5_000, len(data)
    image = Image.open(io.BytesIO(data))
    image.load()
    assert image.width >= 256 and image.height >= 256, image.size
    return image


def not_an_image(tmp_path: Path) -> Path:
    notes = tmp_path / "fitting-notes.jpg"
    notes.write_text("Fitting notes: take the hem up 2 cm.")
    return notes


def only_job(tool: str) -> Job:
    jobs = list(Job.objects.filter(tool=tool))
    assert len(jobs) == 1, jobs
    return jobs[0]


def run_and_watch(page: Any, result: str, ready: str) -> None:
    """Run; the result image and the log's last line show, the log told the whole run and
    the page showed a real run's progress."""
    watch(page)
    page.get_by_role("button", name="Run", exact=True).click()
    page.get_by_role("img", name=result).wait_for(timeout=RUN_TIMEOUT)
    page.get_by_text(f"SYSTEM LOG: {ready}").wait_for()

    assert log_lines(page) == ["SYSTEM LOG: Generating…",
                               "SYSTEM LOG: Request sent. Waiting for result…",
                               f"SYSTEM LOG: {ready}"]
    assert_watched_a_real_run(page)


def succeeded_with(tool: str, **inputs: str) -> Job:
    """The tool's one job succeeded with these inputs."""
    job = only_job(tool)
    assert job.status == "succeeded"
    assert {key: job.input[key] for key in inputs} == inputs, job.input
    return job


def start_anew(page: Any, button: str, *labels: str) -> None:
    """The page's New button empties the URL fields."""
    page.get_by_role("button", name=button).click()
    for label in labels:
        assert page.get_by_label(label).input_value() == ""



# --- Virtual Try-On -----------------------------------------------------------------------------


def test_virtual_try_on_runs_downloads_and_starts_anew(page: Any, live_server: Any,
                                                      runner: CeleryProcess) -> None:
    api = signed_in(page, live_server, "/virtual-try-on")
    model_url = drop(api, "recolor", MODEL / "051918_0.jpg")
    garment_url = drop(api, "recolor", GARMENT / "050191_1.jpg")
    page.get_by_label("Base Image URL").fill(model_url)
    page.get_by_label("Desired Garment Image URL").fill(garment_url)
    page.get_by_role("img", name="Desired Garment Image URL preview").wait_for()
    run_and_watch(page, "Virtual try-on result", "Preview ready.")
    shot(page, "direct-try-on-done")
    succeeded_with("virtual-try-on", modelUrl=model_url, garmentUrl=garment_url)
    image = download(page, page.get_by_role("link", name="Download Image"), ".png")
    assert image.format == "PNG" and image.size == Image.open(MODEL / "051918_0.jpg").size

    start_anew(page, "New Virtual Try-On", "Base Image URL", "Desired Garment Image URL")
    assert log_lines(page) == ["SYSTEM LOG: Waiting for input URLs…"]
    page.get_by_text("The result shows here.").wait_for()
    assert page.get_by_role("img", name="Virtual try-on result").count() == 0
    assert page.get_by_role("progressbar").count() == 0


def test_virtual_try_on_without_both_urls_alerts_and_sends_nothing(page: Any,
                                                                   live_server: Any) -> None:
    api = signed_in(page, live_server, "/virtual-try-on")
    sent: list[str] = []
    page.on("request", lambda request: sent.append(request.url)
            if request.method == "POST" else None)
    page.get_by_label("Base Image URL").fill(drop(api, "recolor", MODEL / "051918_0.jpg"))
    page.get_by_role("button", name="Run", exact=True).click()
    page.get_by_text("SYSTEM ALERT: Provide both Desired Garment URL and Base Image URL.").wait_for()
    shot(page, "direct-try-on-missing-url")

    assert log_lines(page) == [
        "SYSTEM LOG: Waiting for input URLs…",
        "SYSTEM ALERT: Provide both Desired Garment URL and Base Image URL."]
    assert sent == [] and not Job.objects.exists()
    page.get_by_role("button", name="Run", exact=True).click()  # a second try says it again
    assert log_lines(page).count(
        "SYSTEM ALERT: Provide both Desired Garment URL and Base Image URL.") == 2
    assert sent == [] and not Job.objects.exists()


# --- Restyle ------------------------------------------------------------------------------------


def test_restyle_runs_downloads_and_starts_anew(page: Any, live_server: Any,
                                               runner: CeleryProcess) -> None:
    api = signed_in(page, live_server, "/restyle-tool")
    # (bare forearms: a sweatshirt's long sleeves under the tee's short ones are refused)
    outfit_url = drop(api, "recolor", MODEL / "051918_0.jpg")
    garment_url = drop(api, "recolor", GARMENT / "050181_1.jpg")
    run = page.get_by_role("button", name="Run Restyle")
    assert run.is_disabled()  # both URLs are required (spec part 1, §5)
    page.get_by_label("Full Body Outfit").fill(f"  {outfit_url} ")
    assert run.is_disabled()
    page.get_by_label("Garment Shot").fill(garment_url)
    assert run.is_enabled()
    watch(page)
    run.click()
    page.get_by_role("img", name="Restyled outfit").wait_for(timeout=RUN_TIMEOUT)
    page.get_by_role("status").filter(has_text="✅ Restyle Complete!").wait_for()

    assert_watched_a_real_run(page)
    shot(page, "direct-restyle-done")
    assert page.get_by_role("log", name="System log").count() == 0  # Restyle tells in toasts
    succeeded_with("restyle", outfit_url=outfit_url, garment_url=garment_url)
    image = download(page, page.get_by_role("link", name="Download", exact=True), ".png")
    assert image.format == "PNG" and image.size == Image.open(MODEL / "051918_0.jpg").size

    start_anew(page, "New Restyle", "Full Body Outfit", "Garment Shot")
    assert run.is_disabled()
    page.get_by_text("The result shows here.").wait_for()
    assert page.get_by_role("img", name="Restyled outfit").count() == 0


def test_restyle_of_a_file_that_is_not_an_image_fails_with_a_toast(
        page: Any, live_server: Any, runner: CeleryProcess, tmp_path: Path) -> None:
    api = signed_in(page, live_server, "/restyle-tool")
    page.get_by_label("Full Body Outfit").fill(drop(api, "recolor", MODEL / "051962_0.jpg"))
    page.get_by_label("Garment Shot").fill(drop(api, "recolor", not_an_image(tmp_path)))
    page.get_by_role("button", name="Run Restyle").click()
    toast = page.get_by_role("alert").filter(has_text="❌ Restyle Failed")
    toast.wait_for(timeout=RUN_TIMEOUT)
    shot(page, "direct-restyle-failed", full_page=False)

    job = only_job("restyle")
    assert job.status == "failed" and job.error_code == "unsupported_image"
    assert toast.get_by_text(f"Restyle failed: {job.error_message}", exact=True).is_visible()
    assert page.get_by_role("img", name="Restyled outfit").count() == 0
    page.get_by_role("button", name="New Restyle").click()
    assert page.get_by_label("Garment Shot").input_value() == ""
    assert page.get_by_role("button", name="Run Restyle").is_disabled()


def test_restyle_server_error_shows_the_status_text_toast(page: Any, live_server: Any) -> None:
    """A 500 cannot be had from our server for a good request: this one call is answered
    with one, to see the page's toast."""
    signed_in(page, live_server, "/restyle-tool")
    page.route("**/api/restyle/garment-restyle", lambda route: route.fulfill(
        status=500, content_type="text/html", body="<h1>Server Error (500)</h1>"))
    page.get_by_label("Full Body Outfit").fill("https://cdn.maison.test/look.jpg")
    page.get_by_label("Garment Shot").fill("https://cdn.maison.test/shirt.jpg")
    page.get_by_role("button", name="Run Restyle").click()
    toast = page.get_by_role("alert").filter(has_text="❌ Restyle Failed")
    toast.get_by_text("Restyle failed: Internal Server Error", exact=True).wait_for()
    shot(page, "direct-restyle-500", full_page=False)

    assert page.get_by_role("button", name="New Restyle").is_visible()
    assert page.get_by_role("group", name="Tool status").get_by_text("System Ready").is_visible()
    assert not Job.objects.exists()


# --- Ecommerce Asset ----------------------------------------------------------------------------


def test_ecommerce_asset_runs_downloads_and_starts_anew(page: Any, live_server: Any,
                                                       runner: CeleryProcess) -> None:
    api = signed_in(page, live_server, "/catalog-asset")
    model_url = drop(api, "recolor", MODEL / "053228_0.jpg")
    bag_url = drop(api, "recolor", BAG)
    page.get_by_label("Base Model Image URL").fill(model_url)
    page.get_by_label("Accessory Image URL").fill(bag_url)
    run_and_watch(page, "Ecommerce asset result", "Asset ready.")
    shot(page, "direct-ecommerce-asset-done")
    succeeded_with("ecommerce-asset", outfit_url=model_url, garment_url=bag_url)
    image = download(page, page.get_by_role("link", name="Download Image"), ".jpg")
    assert image.format == "JPEG"

    start_anew(page, "New Ecommerce Asset", "Base Model Image URL", "Accessory Image URL")
    assert log_lines(page) == ["SYSTEM LOG: Waiting for input URLs…"]
    assert page.get_by_role("img", name="Ecommerce asset result").count() == 0


def test_ecommerce_asset_with_an_invalid_url_says_why(page: Any, live_server: Any) -> None:
    api = signed_in(page, live_server, "/catalog-asset")
    page.get_by_label("Base Model Image URL").fill(drop(api, "recolor", MODEL / "053228_0.jpg"))
    page.get_by_label("Accessory Image URL").fill("bag-on-the-shelf.jpg")
    page.get_by_role("button", name="Run", exact=True).click()
    page.get_by_text("SYSTEM ERROR: Generation failed.").wait_for()
    shot(page, "direct-ecommerce-asset-invalid-url")

    lines = log_lines(page)
    assert lines[-2:] == ["SYSTEM ERROR: Generation failed.",
                          "SYSTEM ERROR: garment_url: Enter a valid URL."], lines
    assert not Job.objects.exists()
    assert page.get_by_role("button", name="New Ecommerce Asset").is_visible()


# --- Garment Integration ------------------------------------------------------------------------


def test_garment_integration_runs_under_its_overlay_and_starts_anew(
        page: Any, live_server: Any, runner: CeleryProcess) -> None:
    api = signed_in(page, live_server, "/restyle-editorial")
    editorial_url = drop(api, "recolor", MODEL / "049447_0.jpg")
    product_url = drop(api, "recolor", GARMENT / "00126_00.jpg")
    page.get_by_label("Editorial Image URL").fill(editorial_url)
    page.get_by_label("Product Image URL").fill(product_url)
    page.get_by_role("button", name="Run", exact=True).click()
    overlay = page.get_by_role("dialog", name="Integrating Your Garment")
    overlay.wait_for()
    assert overlay.get_by_text("This usually takes about 20 seconds.").is_visible()
    shot(page, "direct-garment-integration-overlay", full_page=False)
    overlay.wait_for(state="hidden", timeout=RUN_TIMEOUT)
    page.get_by_role("img", name="Integrated editorial").wait_for()
    page.get_by_text("SYSTEM LOG: Editorial ready.").wait_for()
    shot(page, "direct-garment-integration-done")

    assert log_lines(page) == ["SYSTEM LOG: Generating…",
                               "SYSTEM LOG: Request sent. Waiting for result…",
                               "SYSTEM LOG: Editorial ready."]
    succeeded_with("garment-integration", outfit_url=editorial_url, garment_url=product_url)
    image = download(page, page.get_by_role("link", name="Download Image"), ".png")
    assert image.size == Image.open(MODEL / "049447_0.jpg").size

    start_anew(page, "New Integration", "Editorial Image URL", "Product Image URL")
    assert log_lines(page) == ["SYSTEM LOG: Waiting for input URLs…"]


def test_garment_integration_of_a_file_that_is_not_an_image_logs_the_failure(
        page: Any, live_server: Any, runner: CeleryProcess, tmp_path: Path) -> None:
    api = signed_in(page, live_server, "/restyle-editorial")
    page.get_by_label("Editorial Image URL").fill(drop(api, "recolor", MODEL / "049447_0.jpg"))
    page.get_by_label("Product Image URL").fill(drop(api, "recolor", not_an_image(tmp_path)))
    page.get_by_role("button", name="Run", exact=True).click()
    page.get_by_text("SYSTEM ERROR: Generation failed.").wait_for(timeout=RUN_TIMEOUT)
    shot(page, "direct-garment-integration-failed")

    job = only_job("garment-integration")
    assert job.status == "failed" and job.error_code == "unsupported_image"
    assert log_lines(page) == ["SYSTEM LOG: Generating…",
                               "SYSTEM LOG: Request sent. Waiting for result…",
                               "SYSTEM ERROR: Generation failed.",
                               f"SYSTEM ERROR: {job.error_message}"]
    assert page.get_by_role("dialog", name="Integrating Your Garment").count() == 0
    assert page.get_by_role("img", name="Integrated editorial").count() == 0
    page.get_by_role("button", name="New Integration").click()
    assert log_lines(page) == ["SYSTEM LOG: Waiting for input URLs…"]
    assert page.get_by_label("Product Image URL").input_value() == ""


# --- Model Swap ---------------------------------------------------------------------------------


def library_model(code: str, name: str, photo: Path) -> Any:
    from django.core.files.base import ContentFile

    from tools.models import LibraryModel

    model = LibraryModel(organization=Organization.objects.get(name=ORG), code=code, name=name,
                         gender="female", height_cm=176)
    model.photo.save(photo.name, ContentFile(photo.read_bytes()), save=True)
    return model


def test_model_swap_recasts_the_photo_with_a_library_model(page: Any, live_server: Any,
                                                          runner: CeleryProcess) -> None:
    api = signed_in(page, live_server, "/model-swapper")
    library_model("ines", "Ines", MODEL / "02849_00.jpg")
    photo_url = drop(api, "recolor", MODEL / "01861_00.jpg")
    page.reload()
    page.get_by_label("Photo URL").fill(photo_url)
    page.get_by_role("radio", name="Ines").check()
    watch(page)
    page.get_by_role("button", name="Run", exact=True).click()
    page.get_by_role("img", name="Model swap result").wait_for(timeout=RUN_TIMEOUT)
    page.get_by_text("SYSTEM LOG: Result ready.").wait_for()
    shot(page, "direct-model-swap-done")

    assert_watched_a_real_run(page)
    assert log_lines(page) == ["SYSTEM LOG: Request sent. Waiting for result…",
                               "SYSTEM LOG: Result ready."]
    succeeded_with("model-swap", image_url=photo_url, modelId="ines")
    image = download(page, page.get_by_role("link", name="Download"), ".jpg")
    assert image.format == "JPEG" and image.size == Image.open(MODEL / "01861_00.jpg").size

    start_anew(page, "New Swap", "Photo URL")
    assert page.get_by_role("img", name="Model swap result").count() == 0


def test_model_swap_says_what_is_missing_or_wrong(page: Any, live_server: Any) -> None:
    signed_in(page, live_server, "/model-swapper")
    library_model("ines", "Ines", MODEL / "02849_00.jpg")
    page.reload()
    sent: list[str] = []
    page.on("request", lambda request: sent.append(request.url)
            if request.method == "POST" else None)
    page.get_by_label("Photo URL").fill("https://cdn.maison.test/look.jpg")
    page.get_by_role("button", name="Run", exact=True).click()
    page.get_by_text("SYSTEM ALERT: Provide a photo URL and choose a model.").wait_for()
    page.get_by_role("radio", name="Ines").check()
    page.get_by_label("Photo URL").fill("ftp://cdn.maison.test/look.jpg")
    page.get_by_role("button", name="Run", exact=True).click()
    page.get_by_text("SYSTEM ALERT: The photo URL must be an http or https link.").wait_for()
    shot(page, "direct-model-swap-invalid-url")

    assert sent == [] and not Job.objects.exists()


def test_model_swap_of_a_photo_without_a_face_says_so(page: Any, live_server: Any,
                                                      runner: CeleryProcess) -> None:
    api = signed_in(page, live_server, "/model-swapper")
    library_model("ines", "Ines", MODEL / "02849_00.jpg")
    page.reload()
    page.get_by_label("Photo URL").fill(drop(api, "recolor", MODEL / "049205_0.jpg"))
    page.get_by_role("radio", name="Ines").check()
    page.get_by_role("button", name="Run", exact=True).click()
    page.get_by_text("SYSTEM ERROR: No face was found in the catalogue photo.").wait_for(
        timeout=RUN_TIMEOUT)
    shot(page, "direct-model-swap-no-face")

    job = only_job("model-swap")
    assert job.status == "failed" and job.error_code == "no_face"
    assert page.get_by_role("img", name="Model swap result").count() == 0
    assert page.get_by_role("button", name="Run", exact=True).is_enabled()
