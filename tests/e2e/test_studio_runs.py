"""Editorial, Tonelab, Editorial Product, Open Lab and Tech Pack Lab run for real: the browser,
the server, a Celery worker and the local engines. Base and reference images come from the
organisation's own drive (signed links), the others from the partner's files, as a partner's
would; the downloads are checked as files."""

from __future__ import annotations

import base64
import io
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image
from playwright.sync_api import expect

from jobs.models import Job
from tests.e2e.conftest import FIXTURES, drop, partner_api, shot, sign_in
from tests.support.processes import CeleryProcess

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

EMAIL, ORG = "studio@maison-studio.test", "Maison Studio"
RUN_TIMEOUT = 120_000
MODELS = sorted((FIXTURES / "model").glob("*.jpg"))
GARMENTS = sorted((FIXTURES / "garment").glob("*.jpg"))
EDITORIAL_FIELDS = ("Scene Composition", "Pose & Action", "Lighting", "Color & Style",
                    "Camera Details", "Outfit Changes", "Model Features")
TONELAB_FIELDS = ("Lighting", "Color & Style", "Camera Details")


def signed_in(page: Any, live_server: Any, start: str) -> Any:
    sign_in(page, start, EMAIL, ORG)
    return partner_api(EMAIL, live_server)


def decoded(data: bytes, min_side: int = 64) -> tuple[int, int]:
    """The size of an image file, after checking it decodes and is not a token few bytes."""
    assert len(data) > 2_000, f"{len(data)} bytes is no image"
    with Image.open(io.BytesIO(data)) as image:
        image.load()
        assert min(image.size) >= min_side, image.size
        return image.size


def saved(download: Any, folder: Path) -> bytes:
    path = folder / download.suggested_filename
    download.save_as(path)
    return path.read_bytes()


def downloads_of(page: Any, click: Any, count: int, folder: Path) -> dict[str, bytes]:
    """Files of one click that downloads several, by name."""
    seen: list[Any] = []

    def collect(download: Any) -> None:
        seen.append(download)

    page.on("download", collect)
    click()
    for _ in range(100):
        if len(seen) >= count:
            break
        page.wait_for_timeout(100)
    page.remove_listener("download", collect)
    assert len(seen) == count, [d.suggested_filename for d in seen]
    return {d.suggested_filename: saved(d, folder) for d in seen}


def colourfulness(data: bytes) -> float:
    """Mean HSV saturation (0-255) of an image file."""
    with Image.open(io.BytesIO(data)) as image:
        hsv = image.convert("RGB").resize((96, 128)).convert("HSV")
        return float(np.asarray(hsv)[..., 1].mean())


def img_src_bytes(locator: Any) -> bytes:
    """The bytes of an <img> whose src is a data URL."""
    src = str(locator.get_attribute("src"))
    assert src.startswith("data:image/"), src[:40]
    return base64.b64decode(src.split(",", 1)[1])


def field_values(page: Any, labels: tuple[str, ...]) -> dict[str, str]:
    return {label: page.get_by_label(label).input_value() for label in labels}


def toast(page: Any, title: str, description: str | None = None) -> None:
    region = page.get_by_role("region", name="Notifications")
    region.get_by_text(title, exact=True).wait_for()
    if description:
        region.get_by_text(description, exact=True).first.wait_for()


def analyse_reference(page: Any) -> tuple[Any, dict[str, str]]:
    """Enter in the reference field analyses the reference: the Analysis Complete region and
    what it found (term -> text)."""
    page.get_by_label("Reference Image URL (optional)").press("Enter")
    analysis = page.get_by_role("region", name="Analysis Complete")
    analysis.wait_for(timeout=RUN_TIMEOUT)
    toast(page, "Analysis complete", "Reference image analyzed successfully")
    found = dict(zip(analysis.locator("dt").all_inner_texts(), analysis.locator("dd").all_inner_texts(),
                     strict=True))
    return analysis, found


def preset_round_trip(page: Any, folder: Path, labels: tuple[str, ...], keys: tuple[str, ...],
                      bad_title: str, bad_message: str) -> None:
    """Download Preset (named) → a .json of the fields; Reset; Upload it back → the same fields,
    all marked edited; a broken .json → the spec's error."""
    before = field_values(page, labels)
    assert all(before.values()), before
    page.once("dialog", lambda dialog: dialog.accept("Golden hour"))
    with page.expect_download() as download:
        page.get_by_role("button", name="Download Preset").click()
    assert download.value.suggested_filename == "Golden hour.json"
    preset = json.loads(saved(download.value, folder))
    assert tuple(preset) == keys
    toast(page, "Preset Downloaded", '"Golden hour" saved successfully')

    page.get_by_role("button", name="Reset Fields").click()
    assert set(field_values(page, labels).values()) == {""}
    with page.expect_file_chooser() as chooser:
        page.get_by_role("button", name="Upload Preset").click()
    chooser.value.set_files(str(folder / "Golden hour.json"))
    toast(page, "Preset Loaded", "Preset has been applied to the form successfully")
    assert field_values(page, labels) == before
    expect(page.locator(".touched-mark")).to_have_count(len(labels))  # every field shown

    broken = folder / "broken.json"
    broken.write_text('{"lighting": "soft key light",')
    with page.expect_file_chooser() as chooser:
        page.get_by_role("button", name="Upload Preset").click()
    chooser.value.set_files(str(broken))
    alert = page.get_by_role("alert").filter(has_text=bad_message)
    expect(alert).to_contain_text(bad_title)
    assert field_values(page, labels) == before


def run_three(page: Any, process: str, name: str, folder: Path, shot_name: str,
              ready: tuple[str, str | None] | None = None) -> dict[str, bytes]:
    """Process → the ETA countdown → three results (and the `ready` toast, looked for while it
    shows: it leaves after 5 s); one Download, Download All, Expand and Escape, then New
    Generation. Returns Download All's files by name."""
    page.get_by_role("button", name=process).click()
    expect(page.locator(".eta-countdown")).to_have_text(re.compile(r"^(ETA \d+s|FINALIZING\.\.\.)$"))
    expect(page.get_by_role("button", name="Processing...")).to_be_disabled()
    results = page.get_by_role("img", name=re.compile(r"^Result \d$"))
    expect(results).to_have_count(3, timeout=RUN_TIMEOUT)
    if ready:
        toast(page, *ready)
    expect(page.locator(".eta-countdown")).to_have_count(0)
    for index in range(3):  # every result is a shown picture, not a broken one
        assert results.nth(index).evaluate("img => img.complete && img.naturalWidth > 0")
    shot(page, shot_name)

    cards = page.locator(".result-card")
    with page.expect_download() as download:
        cards.nth(1).get_by_role("button", name="Download").click()
    assert download.value.suggested_filename == name.format(n=2)
    one = saved(download.value, folder)
    decoded(one)

    files = downloads_of(page, page.get_by_role("button", name="Download All").click, 3, folder)
    assert sorted(files) == [name.format(n=n) for n in (1, 2, 3)]
    assert files[name.format(n=2)] == one
    sizes = {decoded(data) for data in files.values()}
    assert len(sizes) == 1  # three variants of one frame

    cards.nth(0).get_by_role("button", name="Expand").click()
    lightbox = page.get_by_role("dialog", name="Result 1")
    expect(lightbox.get_by_role("img", name="Result 1")).to_be_visible()
    shot(page, f"{shot_name}-lightbox", full_page=False)
    page.keyboard.press("Escape")
    expect(lightbox).to_have_count(0)

    page.get_by_role("button", name="New Generation").click()
    expect(results).to_have_count(0)
    expect(page.get_by_role("heading", name="05 Results")).to_have_count(0)
    expect(page.get_by_role("button", name=process)).to_be_enabled()
    return files


def test_editorial_analyses_a_reference_and_generates_three_editorials(
        page: Any, live_server: Any, runner: CeleryProcess, tmp_path: Path) -> None:
    api = signed_in(page, live_server, "/editorial")
    base = drop(api, "recolor", MODELS[0])
    reference = drop(api, "recolor", MODELS[3])

    page.get_by_label("Catalog Image URL").fill(base)
    expect(page.get_by_role("img", name="Catalog Image URL preview")).to_be_visible()
    # typed before the analysis: the analysis must not overwrite it
    page.get_by_label("Lighting").fill("soft window light from the left")
    page.get_by_label("Reference Image URL (optional)").fill(reference)
    expect(page.get_by_role("img", name="Reference image preview")).to_be_visible()
    analysis, found = analyse_reference(page)
    assert set(found) == {"Scene Composition", "Pose & Action", "Lighting", "Color & Style",
                          "Camera Details"}
    assert all(text.strip() for text in found.values()), found
    values = field_values(page, EDITORIAL_FIELDS)
    assert values["Scene Composition"] == found["Scene Composition"]
    assert values["Camera Details"] == found["Camera Details"]
    assert values["Lighting"] == "soft window light from the left"
    expect(page.locator(".touched-mark")).to_have_count(1)
    analysis.get_by_role("button", name="Refill Fields").click()
    assert page.get_by_label("Lighting").input_value() == found["Lighting"]
    expect(page.locator(".touched-mark")).to_have_count(0)

    templates = page.get_by_role("list", name="Camera templates")
    templates.get_by_role("button", name="Warm 70s Film Look").click()
    expect(templates.get_by_role("button", name="Warm 70s Film Look")).to_have_attribute("aria-pressed", "true")
    camera = page.get_by_label("Camera Details").input_value()
    assert camera and camera != found["Camera Details"]
    page.get_by_label("Outfit Changes").fill("roll up the sleeves")
    page.get_by_label("Model Features").fill("short dark hair")

    files = run_three(page, "Process Editorial", "editorial_{n}.jpg", tmp_path, "editorial-run-done",
                      ready=("Editorial image ready",
                             "Your editorial image has been generated successfully"))
    preset_round_trip(page, tmp_path, EDITORIAL_FIELDS,
                      ("sceneComposition", "poseAction", "lighting", "colorStyle", "cameraDetails",
                       "outfitChanges", "modelFeatures"),
                      "Invalid File", "The selected file is not a valid preset file")
    shot(page, "editorial-preset-loaded")

    analysed = Job.objects.get(organization__name=ORG, tool="editorial.analyze")
    generated = Job.objects.get(organization__name=ORG, tool="editorial.generate")
    assert (analysed.status, generated.status) == ("succeeded", "succeeded")
    assert analysed.input["image_reference"] == reference
    assert generated.input["outfit"] == base
    assert generated.input["camera_details"] == camera
    assert generated.input["lighting"] == found["Lighting"]
    assert generated.input["outfit_changes"] == "roll up the sleeves"
    assert generated.input["lead"] == "Generate a fashion editorial photograph."
    assert generated.input["original_prompt"].split("\n")[-1] == camera
    assert generated.outputs.filter(content_type__startswith="image/").count() >= 1
    assert len(files) == 3


def test_tonelab_grades_a_base_image_after_a_reference(
        page: Any, live_server: Any, runner: CeleryProcess, tmp_path: Path) -> None:
    api = signed_in(page, live_server, "/tonelab")
    base = drop(api, "recolor", MODELS[0])  # a red top: colour to grade away
    reference = drop(api, "recolor", MODELS[2])

    page.get_by_label("Base Editorial Image URL").fill(base)
    expect(page.get_by_role("img", name="Base Editorial Image URL preview")).to_be_visible()
    page.get_by_label("Reference Image URL (optional)").fill(reference)
    analysis, found = analyse_reference(page)
    assert set(found) == set(TONELAB_FIELDS)
    assert field_values(page, TONELAB_FIELDS) == found
    # an edit, then Refill Fields puts the analysis back
    page.get_by_label("Color & Style").fill("muted teal and orange")
    expect(page.get_by_text("(edited)")).to_have_count(1)
    analysis.get_by_role("button", name="Refill Fields").click()
    assert field_values(page, TONELAB_FIELDS) == found

    templates = page.get_by_role("list", name="Camera templates")
    expect(templates.get_by_role("button")).to_have_count(8)
    templates.get_by_role("button", name="Grainy High-Contrast B&W").click()
    camera = page.get_by_label("Camera Details").input_value()
    assert camera and camera != found["Camera Details"]

    files = run_three(page, "Process Tonelab", "tonelab_{n}.jpg", tmp_path, "tonelab-run-done",
                      ready=("Tonelab image ready", None))
    preset_round_trip(page, tmp_path, TONELAB_FIELDS,
                      ("lighting", "colorStyle", "cameraDetails", "outfitChanges", "modelFeatures"),
                      "Error", "Failed to load preset. Please check the file format.")
    # cancelling the preset name saves nothing
    seen: list[Any] = []
    page.on("download", lambda download: seen.append(download))
    page.once("dialog", lambda dialog: dialog.dismiss())
    page.get_by_role("button", name="Download Preset").click()
    page.wait_for_timeout(300)
    assert seen == []

    analysed = Job.objects.get(organization__name=ORG, tool="tonelab.analyze")
    generated = Job.objects.get(organization__name=ORG, tool="tonelab.generate")
    assert (analysed.status, generated.status) == ("succeeded", "succeeded")
    assert generated.input["outfit"] == base and generated.input["reference"] == reference
    assert generated.input["camera_details"] == camera
    assert generated.input["color_style"] == found["Color & Style"]
    # a black-and-white template: the strongest variant is graded to (near) grey
    assert min(colourfulness(data) for data in files.values()) < colourfulness(
        MODELS[0].read_bytes()) / 3


def test_editorial_product_stages_two_canvas_images(
        page: Any, live_server: Any, runner: CeleryProcess, tmp_path: Path) -> None:
    signed_in(page, live_server, "/editorial-product")
    page.get_by_text("Images 0/10").wait_for()
    expect(page.get_by_role("button", name="Generate Product")).to_be_disabled()
    page.get_by_label("Aspect Ratio").select_option("16:9")
    page.get_by_text("Ratio 16:9").wait_for()
    with page.expect_file_chooser() as chooser:
        page.get_by_role("button", name="Upload Images").click()
    chooser.value.set_files(str(GARMENTS[2]))
    toast(page, "Images uploaded", "1 image(s) added to canvas")
    page.get_by_text("Images 1/10").wait_for()
    # a second product pasted from the clipboard, as Ctrl+V gives it
    shoes = base64.b64encode((FIXTURES / "shoes" / "shoes_049205_0.jpg").read_bytes()).decode()
    page.evaluate("""async (b64) => {
        const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
        const data = new DataTransfer();
        data.items.add(new File([bytes], 'shoes.jpg', { type: 'image/jpeg' }));
        window.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data }));
    }""", shoes)
    toast(page, "Image pasted", "Image added to canvas")
    page.get_by_text("Images 2/10").wait_for()
    # the pasted image is selected and lies over the first: drag it to the right, then make it
    # bigger and turn it a little
    controls = page.get_by_label("Selected image")
    expect(controls).to_contain_text("img-2")
    box = page.locator("canvas.product-canvas").bounding_box()
    assert box and round(box["width"] / box["height"], 2) == 1.78
    unit = 1920 / box["width"]
    x, y = (float(v) for v in re.search(r"position (\d+), (\d+)", controls.inner_text()).groups())
    page.mouse.move(box["x"] + x / unit, box["y"] + y / unit)
    page.mouse.down()
    page.mouse.move(box["x"] + (x + 500) / unit, box["y"] + (y + 150) / unit, steps=8)
    page.mouse.up()
    expect(controls).to_contain_text(f"position {round(x + 500)}, {round(y + 150)}")
    controls.get_by_role("button", name="Zoom in").click()
    controls.get_by_role("button", name="Rotate right 15°").click()
    expect(controls).to_contain_text("15°")

    page.get_by_label("Photography Preset").select_option("Luxury Fashion")
    description = page.get_by_label("Description", exact=True).input_value()
    assert description
    page.get_by_role("button", name="Generate Product").click()
    expect(page.get_by_role("progressbar", name="Generation progress")).to_be_visible()
    expect(page.get_by_role("button", name="Generating...")).to_be_disabled()
    results = page.get_by_role("img", name=re.compile(r"^Result \d$"))
    expect(results).to_have_count(2, timeout=RUN_TIMEOUT)
    toast(page, "Success")
    expect(page.get_by_role("button", name="Generate Product")).to_be_enabled()
    for index in range(2):  # shown whole, at the canvas's ratio, not cropped
        shown = results.nth(index).bounding_box()
        assert shown and round(shown["width"] / shown["height"], 2) == 1.78, shown
    shot(page, "editorial-product-run-done")

    with page.expect_download() as download:
        page.locator(".result-card").nth(0).get_by_role("button", name="Download").click()
    assert download.value.suggested_filename == "editorial-product-1.png"
    first = saved(download.value, tmp_path)
    assert decoded(first) == (1920, 1080)  # the 16:9 canvas
    files = downloads_of(page, page.get_by_role("button", name="Download All").click, 2, tmp_path)
    assert sorted(files) == ["editorial-product-1.png", "editorial-product-2.png"]
    assert files["editorial-product-1.png"] == first
    assert files["editorial-product-2.png"] != first
    assert decoded(files["editorial-product-2.png"]) == (1920, 1080)

    job = Job.objects.get(organization__name=ORG, tool="editorial-product.generate")
    assert job.status == "succeeded"
    assert job.input["preset"] == "Luxury Fashion" and job.input["prompt"] == description
    assert job.outputs.count() >= 2


def test_open_lab_template_attachment_and_work_from_this(
        page: Any, live_server: Any, runner: CeleryProcess, tmp_path: Path) -> None:
    signed_in(page, live_server, "/open-lab")
    page.get_by_role("button", name="Templates").click()
    page.get_by_role("menuitem", name="Image to Flat").click()
    box = page.get_by_role("textbox", name="Message")
    expect(page.locator("mark.placeholder-required")).to_have_count(1)
    # fill the placeholder where it stands: select it and type over it
    text = box.input_value()
    placeholder = re.search(r"\[REQUIRED:[^\]]*\]", text)
    assert placeholder
    box.evaluate("(el, [start, end]) => el.setSelectionRange(start, end)",
                 [placeholder.start(), placeholder.end()])
    page.keyboard.type("t-shirt")
    expect(page.locator("mark.placeholder-required")).to_have_count(0)
    prompt = box.input_value()
    assert "t-shirt" in prompt and "[REQUIRED" not in prompt

    with page.expect_file_chooser() as chooser:
        page.get_by_role("button", name="Add image").click()
    chooser.value.set_files(str(GARMENTS[0]))
    composer = page.get_by_role("region", name="Message")
    expect(composer.get_by_role("img", name="Attachment 1")).to_be_visible()
    box.press("Enter")
    expect(box).to_have_value("")
    expect(composer.get_by_role("img", name="Attachment 1")).to_have_count(0)
    you = page.get_by_role("article", name="You", exact=True)
    expect(you.get_by_role("img", name="Attachment 1")).to_be_visible()
    page.get_by_role("status").filter(has_text="Generating…").wait_for()
    reply = page.get_by_role("article", name="Open Lab", exact=True)
    expect(reply.get_by_role("img", name=re.compile(r"^Result \d$"))).to_have_count(2, timeout=RUN_TIMEOUT)
    expect(reply).to_contain_text("Here are your results.")
    # the conversation scrolls down to the reply, its pictures included
    log = page.get_by_role("region", name="Conversation")
    for _ in range(30):
        gap = log.evaluate("el => el.scrollHeight - el.clientHeight - el.scrollTop")
        if gap <= 8:  # the log's own bottom padding
            break
        page.wait_for_timeout(100)
    assert gap <= 8, gap
    expect(reply.get_by_role("button", name="Work from this").first).to_be_in_viewport()
    shot(page, "open-lab-run-done")

    with page.expect_download() as download:
        reply.get_by_role("button", name="Download").nth(1).click()
    assert download.value.suggested_filename == "result-2.png"
    back = saved(download.value, tmp_path)
    front = img_src_bytes(reply.get_by_role("img", name="Result 1"))
    assert decoded(back) == decoded(front) and back != front
    # flats are line drawings on white, not the lilac tee cut out
    for data in (front, back):
        assert colourfulness(data) < 5, colourfulness(data)

    reply.get_by_role("button", name="Work from this").first.click()
    attached = composer.get_by_role("img", name="Attachment 1")
    expect(attached).to_be_visible()
    assert attached.get_attribute("src") == reply.get_by_role("img", name="Result 1").get_attribute("src")
    expect(box).to_be_focused()

    job = Job.objects.get(organization__name=ORG, tool="open-lab.generate")
    assert job.status == "succeeded" and job.input["prompt"] == prompt.strip()
    assert job.outputs.filter(content_type="image/png").count() == 2


def test_tech_pack_lab_both_steps_then_work_from_it_and_start_new(
        page: Any, live_server: Any, runner: CeleryProcess) -> None:
    api = signed_in(page, live_server, "/tech-pack")
    describe = page.get_by_role("button", name="Get Tech Pack Description")
    process = page.get_by_role("button", name="Process Tech Pack")
    expect(process).to_be_disabled()
    description = page.get_by_label("Description (Required)")
    description.fill("A relaxed-fit cotton t-shirt with a crew neck and short sleeves, 180 gsm jersey")
    page.get_by_label("Reference Image (Optional)").set_input_files(str(GARMENTS[0]))
    expect(page.get_by_role("img", name="Reference image preview")).to_be_visible()

    describe.click()
    done1 = page.get_by_role("button", name="✓ Description Generated")
    done1.wait_for(timeout=RUN_TIMEOUT)
    expect(done1).to_be_disabled()
    toast(page, "✅ Tech Pack Description Generated", "You can now proceed to Step 2")
    page.get_by_text("~20 seconds • 100%").wait_for()
    expect(description).to_be_disabled()
    page.get_by_role("note").filter(
        has_text="DESCRIPTION IS ONLY NEEDED TO GENERATE THE TECH PACK DESCRIPTION").wait_for()
    panel = page.get_by_role("region", name="Generated Tech Pack")
    expect(panel).to_contain_text("Click 'Edit' to modify the tech pack description")
    title = panel.get_by_role("heading", level=3).first  # the markdown's "#", under the h2
    expect(title).to_contain_text("Tech Pack")
    expect(panel.get_by_role("table").first).to_be_visible()
    shot(page, "tech-pack-described")

    panel.get_by_role("button", name="Edit", exact=True).click()
    expect(panel).to_contain_text("Click 'Done' to see the formatted version")
    editor = panel.get_by_role("textbox", name="Tech pack description")
    markdown = editor.input_value()
    style = re.search(r"^# Tech Pack — (.+)$", markdown, re.M)
    assert style, markdown[:200]
    edited = markdown.replace(style.group(1), "Atelier Studio Tee")
    editor.fill(edited)
    panel.get_by_role("button", name="Done", exact=True).click()
    expect(title).to_have_text("Tech Pack — Atelier Studio Tee")

    expect(process).to_be_enabled()
    process.click()
    done2 = page.get_by_role("button", name="✓ Tech Pack Processed")
    done2.wait_for(timeout=RUN_TIMEOUT)
    toast(page, "✅ Tech Pack Processed Successfully", "Your result image is ready")
    page.get_by_text("~40 seconds • 100%").wait_for()
    result = page.get_by_role("img", name="Tech pack result")
    shown = img_src_bytes(result)
    assert decoded(shown) == (1920, 1080)
    shot(page, "tech-pack-processed")

    described = Job.objects.get(organization__name=ORG, tool="tech-pack.describe")
    processed = Job.objects.get(organization__name=ORG, tool="tech-pack.process")
    assert (described.status, processed.status) == ("succeeded", "succeeded")
    assert described.input["description"].startswith("A relaxed-fit cotton t-shirt")
    assert "_sources" in described.input  # the reference image went along
    assert processed.input["tech_pack"] == edited.strip()
    # the sheet the page shows is the job's output, as the API downloads it
    output = api.get(f"/api/jobs/{processed.pk}/outputs/0")
    assert output.status_code == 200
    assert b"".join(output.streaming_content if output.streaming else [output.content]) == shown

    page.get_by_role("button", name="Work from this Tech Pack").click()
    toast(page, "Ready to Continue", "Using the processed tech pack as your new reference image. "
                                     "You can now edit the tech pack and process again.")
    expect(result).to_have_count(0)
    assert img_src_bytes(page.get_by_role("img", name="Reference image preview")) == shown
    expect(page.get_by_role("button", name="Process Tech Pack")).to_be_enabled()
    expect(done1).to_be_visible()
    expect(page.get_by_role("button", name="Work from this Tech Pack")).to_have_count(0)

    page.get_by_role("button", name="Start New Tech Pack").click()
    expect(description).to_be_enabled()
    expect(description).to_have_value("")
    expect(panel).to_have_count(0)
    expect(describe).to_be_enabled()
    expect(page.get_by_role("button", name="Process Tech Pack")).to_be_disabled()
    expect(page.get_by_role("img", name="Reference image preview")).to_have_count(0)
