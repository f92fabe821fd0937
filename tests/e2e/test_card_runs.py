"""The card tool pages run for real: Refabric, Reshape, Earfit and Baghold, from the
organisation's input drive through the page's cards to the files in its output drive, with the
browser, the server, a Celery worker and the engines. Each page also shows one of its refusals."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from django.core.files.base import ContentFile
from PIL import Image

from drives.models import DriveFolder
from drives.services import drive_client, folder_locator
from jobs.models import Job
from tests.e2e.conftest import FIXTURES, drop, partner_api, shot, sign_in
from tests.engines.placement_support import png
from tests.engines.synthetic_products import bag_shot, earring_shot
from tests.support.processes import CeleryProcess, wait_for
from tools.models import LibraryModel

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

ORG = "Maison Cards"
TROUSERS = FIXTURES / "garment" / "051988_1.jpg"  # plain cream trousers on white
SWEATSHIRT = FIXTURES / "garment" / "049805_1.jpg"  # purple sweatshirt with a print
DRESS = FIXTURES / "garment" / "053319_1.jpg"
FACE = FIXTURES / "model" / "model_3.png"  # half body, face and ears visible
FULL_BODY = FIXTURES / "model" / "model_9.png"  # head to feet, hands free


def signed_in(page: Any, live_server: Any, start: str, email: str) -> Any:
    sign_in(page, start, email, ORG)
    return partner_api(email, live_server)


def get_urls(page: Any, toast: str, description: str) -> None:
    page.get_by_role("button", name="Get URLs").click()
    page.get_by_text(toast, exact=True).wait_for()
    page.get_by_text(description, exact=True).wait_for()


def run_through_overlays(page: Any, endpoint: str, button: str, overlay: str, name: str) -> Any:
    """Press the run button and hold the submit until the processing overlay has been seen
    (and shot); then let the real request through. Returns the success overlay."""
    held: list[Any] = []
    page.route(f"**{endpoint}", lambda route: held.append(route))
    page.get_by_role("button", name=button, exact=True).click()
    processing = page.get_by_role("dialog", name=overlay)
    processing.wait_for()
    while not held:  # let the route handler run
        page.wait_for_timeout(50)
    shot(page, f"{name}-processing", full_page=False)
    held[0].continue_()
    page.unroute(f"**{endpoint}")
    # The result overlay follows the batch: its headline counts the jobs done while they run.
    result = page.get_by_role("dialog").filter(has=page.get_by_role("region", name="Batch progress"))
    result.wait_for()
    processing.wait_for(state="detached")
    return result


def wait_done(result: Any, done: int, total: int) -> Any:
    progress = result.get_by_role("region", name="Batch progress")
    progress.get_by_text(f"{done} of {total} done", exact=False).wait_for(timeout=120_000)
    if done == total:  # the spec's success text only once every job succeeded
        result.get_by_text("Success! You can now check the drive for your images.").wait_for()
    return progress


def output_images(tool: str, count: int) -> list[tuple[str, Image.Image]]:
    """The files of the tool's output drive, once COUNT are there, decoded."""
    out = DriveFolder.objects.get(organization__name=ORG, tool=tool, role="output")
    client = drive_client(out)
    wait_for(lambda: len(list(client.list(folder_locator(out)))) == count, 60,
             what=f"{count} files in the {tool} output drive")
    images: list[tuple[str, Image.Image]] = []
    for item in sorted(client.list(folder_locator(out)), key=lambda f: f.name):
        image = Image.open(io.BytesIO(client.read(folder_locator(out), item.id)))
        image.load()
        images.append((item.name, image))
    return images


def open_output_drive_and_download(page: Any, success: Any, name: str) -> Image.Image:
    """Follow the success overlay's Output Drive link and download the file NAME there."""
    success.get_by_role("link", name="Output Drive").click()
    page.get_by_role("cell", name=name, exact=True).wait_for()
    with page.expect_download() as info:
        page.get_by_role("link", name=f"Download {name}").click()
    data = Path(info.value.path()).read_bytes()
    assert len(data) > 10_000
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


def changed_pixels(source: Path, result: Image.Image) -> np.ndarray:
    """Where RESULT differs visibly from the SOURCE photo (same size required)."""
    before = np.asarray(Image.open(source).convert("RGB"), np.int16)
    after = np.asarray(result.convert("RGB"), np.int16)
    assert after.shape == before.shape
    return np.abs(after - before).max(axis=2) > 12


def product_height(image: Image.Image) -> int:
    """Rows from the top to the bottom of a product shot's garment (on its white sweep)."""
    rows = np.nonzero((np.asarray(image.convert("RGB")).min(axis=2) < 200).sum(axis=1) > 3)[0]
    return int(rows.max() - rows.min() + 1)


def library_model(code: str, gender: str, photo: Path) -> LibraryModel:
    from accounts.models import Organization

    model = LibraryModel(organization=Organization.objects.get(name=ORG), code=code,
                         name=code.title(), gender=gender, height_cm=170)
    model.photo.save(photo.name, ContentFile(photo.read_bytes()), save=True)
    return model


def cards_in_drive_order(page: Any, card: str, url_label: str, *files: str) -> list[Any]:
    """One card per file of the input drive, in the drive's (name) order, each holding its
    file's link: the cards, first to last."""
    cards = [page.get_by_role("listitem", name=f"{card} {n}") for n in range(1, len(files) + 1)]
    for found, name in zip(cards, files, strict=True):
        assert found.get_by_label(url_label).input_value().endswith(f"/{name}")
    return cards


def refused_as_incomplete(page: Any, run: Any, why: str) -> None:
    """Pressing ``run`` with no complete card says why in a toast and opens no overlay."""
    run.click()
    toast = page.locator(".toast-destructive")
    toast.get_by_text("No Valid Cards", exact=True).wait_for()
    toast.get_by_text(why).wait_for()
    assert page.get_by_role("dialog").count() == 0


def product_shot(tmp_path: Path, name: str, rgb: Any) -> Path:
    path = tmp_path / name
    path.write_bytes(png(rgb))
    return path


def test_refabric_page_runs_complete_cards_to_the_output_drive(page: Any, live_server: Any,
                                                               runner: CeleryProcess) -> None:
    # given two garments in the organisation's Refabric input drive
    api = signed_in(page, live_server, "/refabric", "refabric@maison-cards.test")
    drop(api, "refabric", TROUSERS)
    drop(api, "refabric", SWEATSHIRT)
    get_urls(page, "✅ URLs Retrieved", "Fetched 2 URLs and created 2 cards")
    sweatshirt, trousers = cards_in_drive_order(page, "Card", "Image URL",
                                                "049805_1.jpg", "051988_1.jpg")
    trousers.get_by_role("img", name="Image URL preview").wait_for()
    run = page.get_by_role("button", name="Run", exact=True)
    # Run stays disabled while no card has both a URL and a fabric ...
    assert run.is_disabled()

    # ... and a card with a fabric but no finish or garment is not complete
    trousers.get_by_label("Fabric Type").select_option("denim")
    refused_as_incomplete(page, run, "Please fill in at least one complete card (URL, fabric "
                                     "type, material finish, and garment type)")

    # when both cards are completed and run
    trousers.get_by_label("Material Finish").select_option("matte")
    trousers.get_by_label("Garment Type").select_option("trousers")
    sweatshirt.get_by_label("Fabric Type").select_option("wool")
    sweatshirt.get_by_label("Material Finish").select_option("textured")
    sweatshirt.get_by_label("Garment Type").select_option("sweatshirt")
    shot(page, "refabric-cards")
    success = run_through_overlays(page, "/api/refabricing/refabric", "Run",
                                   "Processing Your Refabric Requests", "refabric")

    # then the batch is followed to its end ...
    progress = wait_done(success, 2, 2)
    progress.get_by_text("051988_1.jpg", exact=False).wait_for()
    progress.get_by_text("049805_1.jpg", exact=False).wait_for()
    shot(page, "refabric-run-done", full_page=False)
    jobs = Job.objects.filter(tool="refabric")
    assert sorted((j.input["image_url"].rsplit("/", 1)[1], j.status, j.input["re_fabric"],
                   j.input["material_finish"], j.input["target_garment"]) for j in jobs) == [
        ("049805_1.jpg", "succeeded", "wool", "textured", "sweatshirt"),
        ("051988_1.jpg", "succeeded", "denim", "matte", "trousers")]
    # ... and the output drive holds both garments, at their size, in the new fabric
    files = output_images("refabric", 2)
    assert [n.split("_refabric_")[0] for n, _ in files] == ["049805_1", "051988_1"]
    assert all(image.size == (384, 512) for _, image in files)
    for (_, image), source in zip(files, (SWEATSHIRT, TROUSERS), strict=True):
        changed = changed_pixels(source, image)
        # the garment's surface, not the sweep above and below it (a matte denim twill on the
        # cream trousers, band-limited to what 512 px can show, changes ~1.7 % of the frame by
        # more than 12 levels: a subtle ecru twill, no longer a high-contrast pixel checkerboard)
        assert 0.01 < changed.mean() < 0.6
        assert not changed[:8].any() and not changed[-8:].any()

    # and the partner finds them behind the Output Drive link
    downloaded = open_output_drive_and_download(page, success, files[0][0])
    assert downloaded.size == (384, 512)
    page.get_by_role("cell", name=files[1][0], exact=True).wait_for()
    shot(page, "refabric-output-drive")


def test_reshape_page_runs_a_card_with_two_changes(page: Any, live_server: Any,
                                                   runner: CeleryProcess) -> None:
    api = signed_in(page, live_server, "/reshaping", "reshape@maison-cards.test")
    # A card without a URL is not complete: nothing is sent.
    card = page.get_by_role("listitem", name="Card 1")
    card.get_by_label("Target Garment").select_option("Dress")
    card.get_by_label("Area of change 1").select_option("length")
    card.get_by_label("Instruction 1").fill("shorter by 10%")
    refused_as_incomplete(page, page.get_by_role("button", name="Run", exact=True),
                          "Please fill in at least one complete card (URL, garment type, and at "
                          "least one change)")
    shot(page, "reshape-no-valid-cards")

    # given a dress in the input drive, brought in by Get URLs (fresh cards)
    drop(api, "reshape", DRESS)
    get_urls(page, "✅ URLs Retrieved", "Fetched 1 URLs and created 1 cards")
    assert card.get_by_label("Target Garment").input_value() == ""
    card.get_by_role("img", name="Image URL preview").wait_for()

    # when the card gets a garment, two changes and an unfinished third, and runs
    card.get_by_label("Target Garment").select_option("Dress")
    card.get_by_label("Area of change 1").select_option("length")
    card.get_by_label("Instruction 1").fill("shorter by 10%")
    card.get_by_role("button", name="Add Change (1/10)").click()
    card.get_by_label("Area of change 2").select_option("waist")
    card.get_by_label("Instruction 2").fill("tighter")
    card.get_by_role("button", name="Add Change (2/10)").click()
    card.get_by_label("Area of change 3").select_option("sleeves")  # no instruction: not sent
    card.get_by_role("button", name="Add Change (3/10)").wait_for()
    shot(page, "reshape-card")
    success = run_through_overlays(page, "/api/reshaping/reshape", "Run",
                                   "Processing Your Reshape Requests", "reshape")

    # then the job runs with the two complete changes, and the reshaped dress is delivered
    progress = wait_done(success, 1, 1)
    progress.get_by_text("053319_1.jpg", exact=False).wait_for()
    shot(page, "reshape-run-done", full_page=False)
    job = Job.objects.get(tool="reshape")
    assert job.status == "succeeded"
    assert job.input["target_garment"] == "dress"
    assert job.input["changes"] == [{"place": "length", "instruction": "shorter by 10%"},
                                    {"place": "waist", "instruction": "tighter"}]
    ((name, image),) = output_images("reshape", 1)
    assert name.startswith("053319_1_reshape_")
    assert 0.01 < changed_pixels(DRESS, image).mean() < 0.5  # hem up, waist in
    assert 0.06 < 1 - product_height(image) / product_height(Image.open(DRESS)) < 0.14

    # Start New Reshape: one blank card again, the batch stays below
    success.get_by_role("button", name="Start New Reshape").click()
    page.get_by_role("region", name="Last batch").get_by_text("1 of 1 done").wait_for()
    assert page.get_by_role("listitem", name="Card 2").count() == 0
    assert card.get_by_label("Image URL").input_value() == ""


def test_earfit_page_places_the_earring_on_the_library_model(page: Any, live_server: Any,
                                                             runner: CeleryProcess,
                                                             tmp_path: Path) -> None:
    # given an organisation whose library holds a model with a visible ear, and an earring shot
    api = signed_in(page, live_server, "/earring-catalog", "earfit@maison-cards.test")
    library_model("ana", "female", FACE)
    page.reload()
    page.get_by_role("heading", level=1, name="Earfit").wait_for()
    assert page.get_by_role("note").filter(has_text="model library is empty").count() == 0
    drop(api, "earfit", product_shot(tmp_path, "pearl-drop.png", earring_shot()),
         content_type="image/png")
    get_urls(page, "✅ URLs Retrieved", "Fetched 1 URLs and created 1 cards")
    card = page.get_by_role("listitem", name="Card 1")
    card.get_by_role("img", name="Ring Image URL preview").wait_for()
    height = card.get_by_label("Ring Height (inches)")
    assert height.input_value() == "0"  # fetched cards come with height 0

    # a height out of range is named under the field and the card is not sent
    height.fill("12")
    card.get_by_text("Must be between 0.5 and 10 inches", exact=True).wait_for()
    refused_as_incomplete(page, page.get_by_role("button", name="Generate Earfit"),
                          "Please fill in at least one complete card with ring image URL and "
                          "height between 0.5 and 10 inches")
    shot(page, "earfit-height-out-of-range")

    # when the height is 2 inches
    height.fill("2")
    assert card.get_by_text("Must be between 0.5 and 10 inches").count() == 0
    success = run_through_overlays(page, "/api/earring-catalog/process", "Generate Earfit",
                                   "Processing Your Earfit Requests", "earfit")

    # then one job per library model, named after the earring and the model, succeeds
    progress = wait_done(success, 1, 1)
    progress.get_by_text("1. pearl-drop.png · Ana").wait_for()
    shot(page, "earfit-run-done", full_page=False)
    job = Job.objects.get(tool="earfit")
    assert job.status == "succeeded"
    assert (job.input["model"], job.input["ring_height_in"]) == ("ana", 2.0)
    # and the model photo with the earring is in the output drive
    ((name, image),) = output_images("earfit", 1)
    changed = changed_pixels(FACE, image)
    assert 20 < changed.sum() and changed.mean() < 0.02  # the earring, nothing else
    downloaded = open_output_drive_and_download(page, success, name)
    assert downloaded.size == image.size
    shot(page, "earfit-output-drive")


def test_baghold_page_processes_only_the_ready_bags(page: Any, live_server: Any,
                                                   runner: CeleryProcess, tmp_path: Path) -> None:
    # given a female full-body model in the library and two bags in the input drive
    api = signed_in(page, live_server, "/bag-holder", "baghold@maison-cards.test")
    library_model("mila", "female", FULL_BODY)
    tote, _ = bag_shot()
    drop(api, "baghold", product_shot(tmp_path, "tan-tote.png", tote), content_type="image/png")
    drop(api, "baghold", product_shot(tmp_path, "small-tote.png", bag_shot(body_w=300)[0]),
         content_type="image/png")
    get_urls(page, "✅ URLs Retrieved!", "Found 2 processed bag holder images")
    small, tan = cards_in_drive_order(page, "Bag Holder", "Bag Image URL",
                                      "small-tote.png", "tan-tote.png")
    tan.get_by_role("img", name="Bag preview").wait_for()
    panel = page.get_by_role("region", name="Ready to Process")
    process = panel.get_by_role("button", name="Process Bags")
    panel.get_by_text("0 of 2 bags ready").wait_for()
    assert process.is_disabled()

    # a URL that is not an image is named and keeps its bag from being ready
    kept = small.get_by_label("Bag Image URL").input_value()
    small.get_by_label("Bag Image URL").fill("https://cdn.maison.test/bags/tote")
    small.get_by_text("Invalid image URL", exact=True).wait_for()
    for label, value in (("Width (cm)", "30"), ("Height (cm)", "22"), ("Depth (cm)", "10")):
        small.get_by_label(label).fill(value)
    small.get_by_label("Gender").select_option("Female")
    panel.get_by_text("0 of 2 bags ready").wait_for()
    assert process.is_disabled()
    shot(page, "baghold-invalid-url")

    # when the tan tote is complete and the small one has its image back but no depth
    small.get_by_label("Bag Image URL").fill(kept)
    small.get_by_label("Depth (cm)").fill("")
    for label, value in (("Width (cm)", "32"), ("Height (cm)", "24"), ("Depth (cm)", "12"),
                         ("Handle drop (cm, optional)", "20")):
        tan.get_by_label(label).fill(value)
    tan.get_by_label("Gender").select_option("Female")
    panel.get_by_text("1 of 2 bags ready").wait_for()
    shot(page, "baghold-ready")
    success = run_through_overlays(page, "/api/bag-holder/process", "Process Bags",
                                   "Processing Your Baghold Requests", "baghold")
    page.get_by_text("✅ Processing Started", exact=True).wait_for()
    page.get_by_text("1 image is being processed. Please wait about 90 seconds per bag before "
                     "fetching results.").wait_for()

    # then only the ready bag was sent, held by the library model, and delivered
    progress = wait_done(success, 1, 1)
    progress.get_by_text("1. tan-tote.png · Mila").wait_for()
    shot(page, "baghold-run-done", full_page=False)
    job = Job.objects.get(tool="baghold")
    assert job.status == "succeeded"
    assert (job.input["Width"], job.input["Height"], job.input["Depth"], job.input["Handle"],
            job.input["Strap"], job.input["Gender"], job.input["model"]) == (
        32.0, 24.0, 12.0, 20.0, None, "Female", "mila")
    assert job.input["Bag_Url"].endswith("/tan-tote.png")
    ((name, image),) = output_images("baghold", 1)
    changed = changed_pixels(FULL_BODY, image)
    assert 500 < changed.sum() and changed.mean() < 0.2  # a bag in her hand, nothing else
    success.get_by_role("button", name="Start New Session").click()
    page.get_by_role("listitem", name="Bag Holder 1").get_by_label("Bag Image URL").wait_for()
    assert page.get_by_role("listitem", name="Bag Holder 2").count() == 0
    panel.get_by_text("0 of 1 bag ready").wait_for()
