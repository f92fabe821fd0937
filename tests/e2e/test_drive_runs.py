"""The drive (sync) tool pages run for real: Spinview, Flats Ecommerce and Remodel.

The partner's files go into the organisation's input drive folders, the page's Run sync takes
them, a real Celery worker runs the engines and delivers to the output drive folder; the tests
follow the status bar, the progress panels and the activity log in the browser, then open the
output drive and check the files themselves."""

from __future__ import annotations

import io
import re
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from django.core.files.base import ContentFile
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image
from playwright.sync_api import expect

from accounts.models import Organization
from drives.models import DriveFolder
from drives.services import drive_client
from jobs.models import Job
from tests.e2e.conftest import FIXTURES, partner_api, shot, sign_in
from tests.support.processes import CeleryProcess, wait_for
from tools.models import LibraryModel

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

EMAIL, ORG = "drive@maison-drives.test", "Maison Drives"
RUN_TIMEOUT = 120_000  # ms: a cold worker imports the engines on its first job
CLOCK = re.compile(r"^\d{1,2}:\d{2}( ?[AP]M)?$")

# Every render of the page, as text: transient states (a 200 ms POST, a job seen running by
# one 2 s poll) are kept even when no polling loop of the test happens to look at that moment.
RECORDER = """(selectors) => {
  window.__seen = [];
  const snap = () => {
    const row = {};
    for (const [key, css] of Object.entries(selectors)) {
      row[key] = Array.from(document.querySelectorAll(css)).map((el) => el.textContent.trim());
    }
    const text = JSON.stringify(row);
    if (window.__seenLast !== text) { window.__seenLast = text; window.__seen.push(row); }
  };
  snap();
  new MutationObserver(snap).observe(document.body, { subtree: true, childList: true,
                                                      characterData: true, attributes: true });
}"""


def signed_in(page: Any, live_server: Any, start: str) -> Any:
    sign_in(page, start, EMAIL, ORG)
    return partner_api(EMAIL, live_server)


def folder_of(api: Any, tool: str, role: str = "input", category: str | None = None) -> str:
    return str(next(f["folder"] for f in api.get("/api/drives/").json()
                    if f["tool"] == tool and f["role"] == role and f["category"] == category))


def drop_as(api: Any, tool: str, path: Path, name: str, category: str | None = None) -> None:
    """Put a fixture photo in an input folder (Flats: its category's) under the name given."""
    kind = "image/png" if path.suffix == ".png" else "image/jpeg"
    resp = api.post(f"/api/drives/{folder_of(api, tool, category=category)}/files",
                    {"file": SimpleUploadedFile(name, path.read_bytes(), kind)},
                    format="multipart")
    assert resp.status_code == 201, resp.content


def library_model(code: str, name: str, photo: Path, gender: str = "female") -> LibraryModel:
    model = LibraryModel(organization=Organization.objects.get(name=ORG), code=code, name=name,
                         gender=gender, height_cm=176)
    model.photo.save(f"{code}{photo.suffix}", ContentFile(photo.read_bytes()), save=True)
    return model


def output_files(tool: str) -> dict[str, bytes]:
    """Name -> bytes of the organisation's output drive folder of the tool."""
    out = DriveFolder.objects.get(organization__name=ORG, tool=tool, role="output")
    client = drive_client(out)
    return {f.name: client.read(out.locator, f.id) for f in client.list(out.locator)}


def wait_for_outputs(tool: str, count: int) -> dict[str, bytes]:
    wait_for(lambda: len(output_files(tool)) >= count, 60, interval=0.5,
             what=f"{count} file(s) in the {tool} output drive")
    return output_files(tool)


def decoded(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


def seen(page: Any) -> list[dict[str, list[str]]]:
    return list(page.evaluate("window.__seen"))


def status_of(page: Any) -> dict[str, str]:
    """The status bar as {Status, Queue, ETA} (or Model for Remodel)."""
    bar = page.get_by_role("group", name="Tool status")
    bar.wait_for()
    # One read of the whole bar: two reads could straddle a render.
    pairs = bar.evaluate("""bar => [...bar.querySelectorAll('.status-item')].map(
        item => [item.querySelector('dt').textContent.trim(),
                 item.querySelector('dd').textContent.trim()])""")
    return dict(pairs)


def activity_rows(page: Any) -> list[list[str]]:
    rows = page.locator(".activity-log tbody tr")
    return [[c.strip() for c in row.locator("td").all_text_contents()] for row in rows.all()]


def check_drive_link(page: Any, name: str, folder: str, files: list[str], back_to: str,
                     screenshot: str | None = None) -> None:
    """The page's drive link opens our drive browser on that folder, listing the files."""
    link = page.get_by_role("link", name=name, exact=True)
    assert link.get_attribute("href") == f"/drives/{folder}"
    link.click()
    page.wait_for_url(f"**/drives/{folder}")
    table = page.get_by_role("table", name=re.compile("^Files in "))
    for file in files:
        table.get_by_role("cell", name=file, exact=True).wait_for()
    assert table.locator("tbody tr").count() == len(files)
    if screenshot:
        shot(page, screenshot)
    page.go_back()
    page.wait_for_url(f"**{back_to}")


def download_from_drive_browser(page: Any, name: str) -> bytes:
    with page.expect_download() as info:
        page.get_by_role("link", name=f"Download {name}").click()
    download = info.value
    assert download.suggested_filename == name
    return Path(download.path()).read_bytes()


# --- Spinview ----------------------------------------------------------------------------------

SPIN_PRODUCTS = {
    "TEE0426": ["garment/00126_00.jpg", "garment/050181_1.jpg"],
    "JEAN0311": ["garment/051827_1.jpg", "garment/051988_1.jpg"],
}


def mp4_frames(data: bytes) -> tuple[dict[str, Any], int]:
    """The stream's metadata and the number of frames ffmpeg decodes from it."""
    import imageio_ffmpeg

    with tempfile.NamedTemporaryFile(suffix=".mp4") as fh:
        fh.write(data)
        fh.flush()
        frames = imageio_ffmpeg.read_frames(fh.name)
        meta = next(frames)
        count = sum(1 for _ in frames)
    return meta, count


def test_spinview_sync_makes_a_turntable_video_per_product(page: Any, live_server: Any,
                                                           runner: CeleryProcess) -> None:
    api = signed_in(page, live_server, "/catalog-video")
    names = []
    for code, views in SPIN_PRODUCTS.items():
        for index, view in enumerate(views, start=1):
            names.append(f"{code}_{index}.jpg")
            drop_as(api, "spinview", FIXTURES / view, names[-1])
    page.get_by_role("heading", level=1, name="Spinview").wait_for()
    check_drive_link(page, "Input Drive", folder_of(api, "spinview"), sorted(names),
                     "/catalog-video", screenshot="spinview-input-drive")
    assert status_of(page) == {"Status": "System Ready", "Queue": "0", "ETA": "—"}

    page.evaluate(RECORDER, {"bar": "[aria-label='Tool status'] dd", "state": ".sync-state",
                             "button": ".sync-row button", "jobs": ".batch-job-status"})
    page.get_by_role("button", name="Run sync").click()
    page.get_by_text("✅ Sync Complete!").wait_for()
    page.get_by_text("Videos have been synchronized successfully.").wait_for()
    page.get_by_role("status").filter(has_text="Your video queue is been processed. Average "
                                      "completion time: 110s per video.").wait_for()
    progress = page.get_by_role("region", name="Sync progress")
    progress.get_by_text("2 of 2 done").wait_for(timeout=RUN_TIMEOUT)
    for code in SPIN_PRODUCTS:
        progress.get_by_text(re.compile(rf"\. {code}$")).wait_for()
    # Complete, then back to idle 3 s later, as the spec says; the queue empties with the
    # videos (the status bar polls every 5 s).
    page.get_by_role("group", name="Tool status").get_by_text("System Ready").wait_for(
        timeout=15_000)
    wait_for(lambda: status_of(page)["Queue"] == "0", 15, what="the queue empty")
    bar = status_of(page)
    assert bar["Queue"] == "0" and CLOCK.match(bar["ETA"]), bar  # ETA: the last sync's time

    history = seen(page)
    assert any(row["state"] == ["Sync in progress…"] and row["button"] == ["Syncing…"]
               for row in history), "the button never showed the sync in progress"
    busy = [row["bar"] for row in history if row["bar"][0] == "Processing"]
    assert busy and all(int(bar[1]) >= 1 for bar in busy), "never Processing with a queue"
    assert any(row["bar"][0] == "Complete" for row in history), "never Complete"
    assert any(s.startswith(("Queued", "Running")) for row in history for s in row["jobs"])

    # The activity log (the server's entries, last 5): the sync and each product's video.
    wait_for(lambda: len(activity_rows(page)) == 3
             and all(r[2] == "Success" for r in activity_rows(page)), 20,
             what="the sync and both jobs in the activity log")
    rows = activity_rows(page)
    assert ["Sync Started", "Success", "Your video queue is been processed. Average completion "
            "time: 110s per video."] in [r[1:] for r in rows]
    assert [r[1:] for r in rows].count(["Spinview job", "Success", "Finished with 2 output(s)."]) == 2
    shot(page, "spinview-run-done")

    # The output drive: an MP4 and its poster per product code.
    files = wait_for_outputs("spinview", 4)
    assert len(files) == 4, sorted(files)
    jobs = {job.input["code"]: job for job in Job.objects.filter(tool="spinview")}
    assert set(jobs) == set(SPIN_PRODUCTS) and all(j.status == "succeeded" for j in jobs.values())
    for code, job in jobs.items():
        short = str(job.pk)[:8]
        video = files[f"{code}_spinview_{short}_0.mp4"]
        meta, count = mp4_frames(video)
        assert meta["codec"] == "h264" and meta["size"] == (1080, 1080), meta
        assert count == 6 * 24 and meta["fps"] == 24
        poster = decoded(files[f"{code}_spinview_{short}_1.png"])
        assert poster.format == "PNG" and poster.size == (1080, 1080)

    # The Output Drive link lists them, and a partner can download the video.
    out_folder = folder_of(api, "spinview", role="output")
    check_drive_link(page, "Output Drive", out_folder, sorted(files, key=str.lower),
                     "/catalog-video")
    page.get_by_role("link", name="Output Drive", exact=True).click()
    mp4_name = sorted(n for n in files if n.endswith(".mp4"))[0]
    shot(page, "spinview-output-drive")
    assert download_from_drive_browser(page, mp4_name) == files[mp4_name]


def test_spinview_sync_without_work_and_refused(page: Any, live_server: Any, settings: Any,
                                                runner: CeleryProcess) -> None:
    api = signed_in(page, live_server, "/catalog-video")
    run = page.get_by_role("button", name="Run sync")

    # An empty Input Drive: the sync succeeds with nothing to do.
    run.click()
    page.get_by_text("No new files in the Input Drive.").wait_for()
    wait_for(lambda: [r[1:] for r in activity_rows(page)] == [
        ["Sync Started", "Success", "0 job(s) queued; 0 file(s) skipped."]], 20,
             what="the empty sync in the activity log")

    # One view is no turntable: the file is listed as skipped, with the reason.
    drop_as(api, "spinview", FIXTURES / "garment" / "00055_00.jpg", "SOLO01_1.jpg")
    run.click()
    skipped = page.get_by_role("region", name="Sync progress")
    skipped.get_by_text("SOLO01_1.jpg").wait_for()
    skipped.get_by_text("A turntable needs at least two views of the product.").wait_for()
    assert not Job.objects.filter(tool="spinview").exists()

    # The server refuses the sync (the organisation is at its cap of active jobs): the spec's
    # failure toast with the status text, Error, then idle again after 3 s.
    settings.ORG_MAX_ACTIVE_JOBS = 0
    run.click()
    toast = page.locator(".toast-destructive")
    toast.get_by_text("❌ Sync Failed").wait_for()
    toast.get_by_text("Sync failed: Too Many Requests").wait_for()
    state = page.locator(".sync-state")
    assert state.text_content().startswith("Error: Your organisation already has 0 jobs")
    shot(page, "spinview-sync-refused", full_page=False)
    expect(state).to_have_text("", timeout=6_000)
    assert run.is_enabled() and status_of(page)["Status"] == "System Ready"


# --- Flats Ecommerce -------------------------------------------------------------------------

FLATS_LOOK = {  # category -> view -> fixture
    "shoes": {"FRONT": "shoes/shoes_049205_0.jpg", "BACK": "shoes/shoes_049205_0.jpg",
              "SIDE": "shoes/shoes_049205_0.jpg"},
    "bottom": {"FRONT": "garment/051827_1.jpg", "BACK": "garment/051827_1.jpg"},
    "top": {"FRONT": "garment/050181_1.jpg", "BACK": "garment/050191_1.jpg"},
}
STEPS = ["Analyzing input clothing items", "Compositing outfit on model",
         "Uploading to output drive"]


def test_flats_sync_dresses_the_library_model(page: Any, live_server: Any,
                                              runner: CeleryProcess) -> None:
    api = signed_in(page, live_server, "/flats-catalog")
    model_photo = FIXTURES / "model" / "049205_0.jpg"
    library_model("ines", "Ines", model_photo)
    for category, views in FLATS_LOOK.items():
        for view, fixture in views.items():
            drop_as(api, "flats", FIXTURES / fixture, f"LOOK01_{view}.jpg", category=category)

    # Four input drives in the spec's order and the output drive, each a drive browser.
    links = page.get_by_role("navigation", name="Input drives").get_by_role("link")
    links.first.wait_for()
    assert links.all_text_contents() == ["SHOES", "BOTTOM", "TOP", "OVERLAYER", "Output Drive"]
    for category in ("shoes", "bottom", "top", "overlayer"):
        link = page.get_by_role("link", name=category.upper(), exact=True)
        assert link.get_attribute("href") == f"/drives/{folder_of(api, 'flats', category=category)}"
    check_drive_link(page, "SHOES", folder_of(api, "flats", category="shoes"),
                     ["LOOK01_BACK.jpg", "LOOK01_FRONT.jpg", "LOOK01_SIDE.jpg"], "/flats-catalog")
    assert status_of(page) == {"Status": "System Ready", "Queue": "0/1", "ETA": "—"}

    page.evaluate(RECORDER, {"bar": "[aria-label='Tool status'] dd", "countdown": ".countdown",
                             "done": ".steps li.is-done", "jobs": ".batch-job-status"})
    page.get_by_role("button", name="Run", exact=True).click()
    panel = page.get_by_role("region", name="Sync progress")
    panel.get_by_text("Sync complete.").wait_for(timeout=RUN_TIMEOUT)
    outfits = panel.get_by_role("region", name="Outfits")
    outfits.get_by_text("1 of 1 done").wait_for()
    outfits.get_by_text("1. LOOK01", exact=True).wait_for()
    assert panel.locator(".steps li.is-done").count() == 3
    assert status_of(page) == {"Status": "System Ready", "Queue": "0/1", "ETA": "—"}

    history = seen(page)
    processing = [row for row in history if row["bar"][:1] == ["Processing"]]
    assert processing and all(row["bar"][1] == "1/1" and CLOCK.match(row["bar"][2])
                              for row in processing), processing[:3]
    assert any(row["countdown"][:1] and row["countdown"][0].startswith("About ")
               for row in processing)
    # The steps move with the job: each render's done steps are the first ones, never a gap,
    # and the job was seen running with its own progress figure before the end.
    for row in history:
        done = [STEPS.index(label.lstrip("✓1234567890").replace(" (done)", "").strip())
                for label in row["done"]]
        assert done == list(range(len(done))), row
    running = [s for row in history for s in row["jobs"] if s.startswith("Running · ")]
    assert running, "the job was never seen running"
    assert any(len(row["done"]) == 0 for row in processing)

    wait_for(lambda: [r[1:3] for r in activity_rows(page)][:2] == [
        ["Flats Ecommerce job", "Success"], ["Sync Started", "Success"]], 20,
             what="the sync and its job in the activity log")
    rows = activity_rows(page)
    assert rows[0][3] == "Finished with 3 output(s)."
    assert rows[1][3] == "1 job(s) queued; 0 file(s) skipped."
    shot(page, "flats-run-done")

    job = Job.objects.get(tool="flats")
    assert job.status == "succeeded" and job.input["outfit"] == "LOOK01"
    assert job.input["model"] == "ines"
    files = wait_for_outputs("flats", 3)
    short = str(job.pk)[:8]
    assert sorted(files) == [f"LOOK01_ines_flats_{short}_{i}.png" for i in range(3)]
    images = {Path(n).stem.rsplit("_", 1)[1]: decoded(d) for n, d in files.items()}
    model_size = Image.open(model_photo).size
    assert images["0"].size == model_size and images["1"].size == model_size  # front, back
    assert images["2"].size == (1024, 1280)  # the flat-lay
    assert all(im.format == "PNG" for im in images.values())
    # The front on-model image is the model, dressed: most of the frame kept, not all of it.
    front = np.asarray(images["0"].convert("RGB"), np.float32)
    before = np.asarray(Image.open(model_photo).convert("RGB"), np.float32)
    changed = (np.abs(front - before).max(axis=2) > 40).mean()
    assert 0.03 < changed < 0.6, changed

    check_drive_link(page, "Output Drive", folder_of(api, "flats", role="output"),
                     sorted(files, key=str.lower), "/flats-catalog",
                     screenshot="flats-output-drive")


def test_flats_sync_without_files_and_refused(page: Any, live_server: Any, settings: Any,
                                              runner: CeleryProcess) -> None:
    api = signed_in(page, live_server, "/flats-catalog")
    run = page.get_by_role("button", name="Run", exact=True)
    run.click()
    panel = page.get_by_role("region", name="Sync progress")
    panel.get_by_text("No new files in the input drives.").wait_for()
    panel.get_by_text("Sync complete.").wait_for()

    # A file without its view suffix is skipped, with the rule it breaks.
    drop_as(api, "flats", FIXTURES / "garment" / "00055_00.jpg", "tee.jpg", category="top")
    run.click()
    panel.get_by_text("tee.jpg").wait_for()
    panel.get_by_text("Flats files end in _FRONT, _BACK or _SIDE.").wait_for()
    assert not Job.objects.filter(tool="flats").exists()

    settings.ORG_MAX_ACTIVE_JOBS = 0  # a real refusal: 429 from the server
    run.click()
    toast = page.locator(".toast-destructive")
    toast.get_by_text("Sync Failed", exact=True).wait_for()
    toast.get_by_text("Sync failed: Too Many Requests").wait_for()
    panel.get_by_text("Sync failed.").wait_for()
    assert panel.locator(".steps li.is-done").count() == 0
    shot(page, "flats-sync-refused", full_page=False)
    # The error resets to idle after 3 s: the panel goes and Run is back.
    panel.wait_for(state="detached", timeout=6_000)
    assert run.is_enabled() and status_of(page)["Status"] == "System Ready"


# --- Remodel -------------------------------------------------------------------------------------

REMODEL_INPUTS = ["01861_00.jpg", "02849_00.jpg"]  # catalogue photos with the face in frame


def test_remodel_puts_the_chosen_model_on_each_input(page: Any, live_server: Any,
                                                     runner: CeleryProcess) -> None:
    api = signed_in(page, live_server, "/remodel")
    library_model("ines", "Ines", FIXTURES / "model" / "model_3.png")
    marco = library_model("marco", "Marco", FIXTURES / "model" / "model_6.png", gender="male")
    for name in REMODEL_INPUTS:
        drop_as(api, "remodel", FIXTURES / "model" / name, name)
    page.reload()

    picker = page.get_by_role("radiogroup", name="Model")
    picker.get_by_role("radio", name="Ines").wait_for()
    assert picker.get_by_role("radio").count() == 2
    run = page.get_by_role("button", name="Run", exact=True)
    assert run.is_disabled()  # Run requires a selected model
    check_drive_link(page, "Input Drive", folder_of(api, "remodel"), REMODEL_INPUTS, "/remodel")
    picker.get_by_role("radio", name="Marco").check()
    assert status_of(page) == {"Status": "System Ready", "Model": "Marco", "ETA": "—"}

    page.evaluate(RECORDER, {"bar": "[aria-label='Tool status'] dd",
                             "jobs": ".batch-job-status"})
    run.click()
    page.get_by_text("Generation Started!").wait_for()
    page.get_by_text("This takes about 15 seconds per image.").wait_for()
    progress = page.get_by_role("region", name="Generation progress")
    for index, name in enumerate(REMODEL_INPUTS, start=1):
        progress.get_by_text(f"{index}. {name} · Marco").wait_for()
    progress.get_by_text("2 of 2 done").wait_for(timeout=RUN_TIMEOUT)
    page.get_by_role("group", name="Tool status").get_by_text("System Ready").wait_for()
    history = seen(page)
    # Processing (with an ETA) while the jobs run, Complete when they are done, then idle.
    busy = [row for row in history if row["bar"][0] == "Processing"]
    assert busy and all(row["bar"][1] == "Marco" and row["bar"][2].startswith("~")
                        for row in busy), busy[:3]
    assert any(s.startswith(("Queued", "Running")) for row in busy for s in row["jobs"])
    complete = next(i for i, row in enumerate(history) if row["bar"][0] == "Complete")
    assert all(s == "Done" for s in history[complete]["jobs"]) and history[complete]["jobs"]
    shot(page, "remodel-run-done")

    jobs = list(Job.objects.filter(tool="remodel").order_by("source_drive_file"))
    assert [j.source_drive_file for j in jobs] == REMODEL_INPUTS
    assert all(j.status == "succeeded" and j.input["model"] == marco.code for j in jobs)
    files = wait_for_outputs("remodel", 2)
    for name in REMODEL_INPUTS:
        job = next(j for j in jobs if j.source_drive_file == name)
        out_name = f"{Path(name).stem}_{marco.code}_remodel_{str(job.pk)[:8]}_0.jpg"
        result = decoded(files[out_name])
        before = Image.open(FIXTURES / "model" / name).convert("RGB")
        assert result.format == "JPEG" and result.size == before.size
        diff = np.abs(np.asarray(result.convert("RGB"), np.float32)
                      - np.asarray(before, np.float32)).max(axis=2) > 40
        assert 0.002 < diff.mean() < 0.25, (name, diff.mean())  # a face changed, not the photo

    check_drive_link(page, "Output Drive", folder_of(api, "remodel", role="output"),
                     sorted(files, key=str.lower), "/remodel")
    page.get_by_role("link", name="Output Drive", exact=True).click()
    first = sorted(files, key=str.lower)[0]
    shot(page, "remodel-output-drive")
    assert decoded(download_from_drive_browser(page, first)).size == (384, 512)


def test_remodel_photo_without_a_face_fails_with_the_reason(page: Any, live_server: Any,
                                                            runner: CeleryProcess) -> None:
    api = signed_in(page, live_server, "/remodel")
    page.get_by_text("Your model library is empty: ask Atelier to add your models.",
                     exact=False).wait_for()
    assert page.get_by_role("button", name="Run", exact=True).is_disabled()

    library_model("ines", "Ines", FIXTURES / "model" / "model_3.png")
    drop_as(api, "remodel", FIXTURES / "garment" / "00055_00.jpg", "tee-flat.jpg")
    page.reload()
    page.get_by_role("radio", name="Ines").check()
    page.get_by_role("button", name="Run", exact=True).click()
    progress = page.get_by_role("region", name="Generation progress")
    progress.get_by_text("0 of 1 done · 1 failed").wait_for(timeout=RUN_TIMEOUT)
    progress.get_by_text("Failed: No face was found in the catalogue photo.").wait_for()
    shot(page, "remodel-no-face")
    job = Job.objects.get(tool="remodel")
    assert job.status == "failed" and job.error_code == "no_face"
    assert output_files("remodel") == {}
