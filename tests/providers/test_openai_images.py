"""The OpenAI-compatible image adapter against a loopback server speaking that API."""

from __future__ import annotations

import io
import json
import time
from typing import Any

import pytest
from PIL import Image

from tests.providers.conftest import Canceled, Progress
from tests.support.fake_providers import FakeOpenAI, fake_openai, jpeg, output_color, png
from workers.engines.base import EngineError
from workers.providers.config import ProviderConfig
from workers.providers.openai_images import openai_images, openai_prompt

PHOTO = png((200, 30, 60), (80, 120))


def config(server: FakeOpenAI, **kwargs: Any) -> ProviderConfig:
    values: dict[str, Any] = {"provider": "openai", "base_url": server.url,
                              "api_key": server.api_key, "model": "test-image-model",
                              "backoff": 0.01, "timeout": 5.0, "deadline": 10.0}
    values.update(kwargs)
    return ProviderConfig(**values)


def decoded(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


# --- images returned and decoded -----------------------------------------------------------


def test_text_only_calls_generations_and_decodes_b64(openai_server: FakeOpenAI,
                                                      progress: Progress) -> None:
    outputs = openai_images(config(openai_server), "open_lab",
                            {"prompt": "A linen shirt, flat lay on white"}, progress)

    assert [o.filename for o in outputs] == ["result-1.png", "result-2.png"]
    for i, out in enumerate(outputs):
        assert out.content_type == "image/png"
        assert decoded(out.data).getpixel((3, 3)) == output_color(i)
    (call,) = openai_server.api_calls()
    assert call.path == "/v1/images/generations"
    assert call.headers["Authorization"] == f"Bearer {openai_server.api_key}"
    assert call.json == {"prompt": "A linen shirt, flat lay on white", "n": 2,
                         "model": "test-image-model", "size": "1024x1024",
                         "response_format": "b64_json"}
    assert progress.values[-1] == 100
    assert progress.values == sorted(progress.values)


def test_gpt_image_models_get_no_response_format(openai_server: FakeOpenAI,
                                                 progress: Progress) -> None:
    # gpt-image models reject the field (the fake does too) and always answer base64.
    outputs = openai_images(config(openai_server, model="gpt-image-1"), "open_lab",
                            {"prompt": "A trench coat"}, progress)
    assert len(outputs) == 2
    assert "response_format" not in openai_server.api_calls()[0].json


def test_input_images_call_edits_with_multipart(openai_server: FakeOpenAI,
                                                progress: Progress) -> None:
    params = {"image": PHOTO, "image_url": "https://cdn.example/look.png",
              "target_color": "#AA3366", "garment_type": "dress"}
    outputs = openai_images(config(openai_server, size="auto", quality="high"), "recolor",
                            params, progress)

    assert [o.filename for o in outputs] == ["recolor.png"]
    assert decoded(outputs[0].data).size == (64, 48)
    (call,) = openai_server.api_calls()
    assert call.path == "/v1/images/edits"
    assert call.headers["Authorization"] == f"Bearer {openai_server.api_key}"
    assert [(p.name, p.content_type, p.data) for p in call.files] == [
        ("image[]", "image/png", PHOTO)]
    assert call.form["prompt"][0].startswith(
        "Recolour the dress to #AA3366, keep everything else")
    assert {k: v[0] for k, v in call.form.items() if k != "prompt"} == {
        "model": "test-image-model", "n": "1", "size": "auto", "quality": "high",
        "response_format": "b64_json"}


def test_two_input_images_are_sent_in_order(openai_server: FakeOpenAI, progress: Progress) -> None:
    person, garment = jpeg((10, 10, 10)), png((250, 250, 0))
    openai_images(config(openai_server), "open_lab",
                  {"prompt": "try the garment on", "image": person, "image_2": garment}, progress)
    (call,) = openai_server.api_calls()
    assert [(p.name, p.content_type, p.data) for p in call.files] == [
        ("image[]", "image/jpeg", person), ("image[]", "image/png", garment)]
    assert call.form["prompt"] == ["try the garment on"]


def test_image_field_and_mask_are_configurable(openai_server: FakeOpenAI,
                                               progress: Progress) -> None:
    mask = png((0, 0, 0))
    openai_images(config(openai_server, image_field="image"), "recolor",
                  {"image": PHOTO, "mask": mask, "target_color": "red", "garment_type": "top"},
                  progress)
    (call,) = openai_server.api_calls()
    assert [(p.name, p.data) for p in call.files] == [("image", PHOTO), ("mask", mask)]


def test_url_outputs_are_fetched_with_the_allow_list(progress: Progress) -> None:
    with fake_openai(output="url") as server:
        outputs = openai_images(config(server, fetch_allow=("127.0.0.1",)),
                                "editorial_generate",
                                {"image": PHOTO, "lead": "A summer campaign",
                                 "lighting": "golden hour"}, progress)
        fetched = [c for c in server.calls if c.path.startswith("/files/")]

    assert [o.filename for o in outputs] == ["editorial_1.png", "editorial_2.png",
                                             "editorial_3.png", "notes.json"]
    assert [decoded(o.data).getpixel((0, 0)) for o in outputs[:3]] == [
        output_color(i) for i in range(3)]
    # Output URLs are fetched without our key.
    assert len(fetched) == 3
    assert all("Authorization" not in c.headers for c in fetched)
    notes = json.loads(outputs[3].data)
    assert notes["provider"] == "openai" and notes["model"] == "test-image-model"
    assert notes["prompt"].startswith("A summer campaign. ")


def test_url_outputs_on_internal_addresses_are_refused_without_allow(progress: Progress) -> None:
    with fake_openai(output="url") as server:
        with pytest.raises(EngineError) as err:
            openai_images(config(server), "recolor",
                          {"image": PHOTO, "target_color": "red", "garment_type": "top"},
                          progress)
        assert not [c for c in server.calls if c.path.startswith("/files/")]
    assert err.value.code == "provider_error"
    assert "private or internal address" in err.value.message


def test_data_url_outputs_are_decoded(progress: Progress) -> None:
    with fake_openai(output="data_url") as server:
        outputs = openai_images(config(server), "rebody",
                                {"image": PHOTO, "target_bodytype": "Curvy Fit"}, progress)
    assert [o.filename for o in outputs] == ["rebody.png"]
    assert decoded(outputs[0].data).getpixel((0, 0)) == output_color(0)


def test_n_from_the_config_wins(openai_server: FakeOpenAI, progress: Progress) -> None:
    outputs = openai_images(config(openai_server, n=1), "editorial_generate",
                            {"image": PHOTO}, progress)
    assert [o.filename for o in outputs] == ["editorial_1.png", "notes.json"]
    assert openai_server.api_calls()[0].form["n"] == ["1"]


def test_options_are_merged_into_the_request(openai_server: FakeOpenAI,
                                             progress: Progress) -> None:
    openai_images(config(openai_server, options={"background": "transparent", "seed": 7}),
                  "open_lab", {"prompt": "a bag"}, progress)
    body = openai_server.api_calls()[0].json
    assert body["background"] == "transparent" and body["seed"] == 7


# --- provider errors -------------------------------------------------------------------------


@pytest.mark.parametrize("status", [400, 500, 503])
def test_provider_errors_fail_with_the_providers_message(openai_server: FakeOpenAI,
                                                         progress: Progress,
                                                         status: int) -> None:
    message = "Your request was rejected as a result of our safety system."
    openai_server.faults.append(("error", status, message))
    with pytest.raises(EngineError) as err:
        openai_images(config(openai_server), "recolor",
                      {"image": PHOTO, "target_color": "red", "garment_type": "top"}, progress)
    assert (err.value.code, err.value.message) == ("provider_error", message)
    assert len(openai_server.api_calls()) == 1  # no retry of a real error


def test_server_error_body_is_the_message(openai_server: FakeOpenAI, progress: Progress) -> None:
    openai_server.faults.append("500")
    with pytest.raises(EngineError) as err:
        openai_images(config(openai_server), "open_lab", {"prompt": "x"}, progress)
    assert err.value.code == "provider_error"
    assert err.value.message == "The server had an error while processing your request."


def test_a_wrong_key_fails_without_echoing_it(openai_server: FakeOpenAI,
                                              progress: Progress) -> None:
    with pytest.raises(EngineError) as err:
        openai_images(config(openai_server, api_key="sk-wrong-secret-key"), "open_lab",
                      {"prompt": "x"}, progress)
    assert err.value.code == "provider_error"
    assert err.value.message == "Incorrect API key provided: ***."


def test_a_non_json_answer_fails_clearly(openai_server: FakeOpenAI, progress: Progress) -> None:
    openai_server.faults.append("garbage")
    with pytest.raises(EngineError) as err:
        openai_images(config(openai_server), "open_lab", {"prompt": "x"}, progress)
    assert err.value.code == "provider_error"
    assert "something other than JSON" in err.value.message


def test_an_output_that_is_not_an_image_fails(progress: Progress) -> None:
    with fake_openai(output="not_image") as server, pytest.raises(EngineError) as err:
        openai_images(config(server), "open_lab", {"prompt": "x"}, progress)
    assert err.value.code == "provider_error"
    assert "not a PNG, JPEG or WebP" in err.value.message


def test_timeouts_fail_with_provider_timeout(openai_server: FakeOpenAI,
                                             progress: Progress) -> None:
    openai_server.faults.append("timeout")
    started = time.monotonic()
    with pytest.raises(EngineError) as err:
        openai_images(config(openai_server, timeout=0.3), "open_lab", {"prompt": "x"}, progress)
    assert err.value.code == "provider_timeout"
    assert time.monotonic() - started < openai_server.slow_seconds


def test_unreachable_server_fails_with_provider_error(progress: Progress) -> None:
    with fake_openai() as server:
        url = server.url
    with pytest.raises(EngineError) as err:
        openai_images(ProviderConfig(provider="openai", base_url=url, api_key="k"), "open_lab",
                      {"prompt": "x"}, progress)
    assert err.value.code == "provider_error"
    assert "could not be reached" in err.value.message


def test_a_missing_input_image_fails_before_any_call(openai_server: FakeOpenAI,
                                                     progress: Progress) -> None:
    with pytest.raises(EngineError) as err:
        openai_images(config(openai_server), "recolor",
                      {"target_color": "red", "garment_type": "top"}, progress)
    assert err.value.code == "bad_input"
    assert not openai_server.calls


# --- 429: bounded retries ----------------------------------------------------------------


def test_429_is_retried_with_backoff(openai_server: FakeOpenAI, progress: Progress) -> None:
    openai_server.faults.extend(["429", "429"])
    outputs = openai_images(config(openai_server), "open_lab", {"prompt": "x"}, progress)
    assert len(outputs) == 2
    assert len(openai_server.api_calls()) == 3
    assert "The image provider is busy; retrying" in progress.messages


def test_429_honours_retry_after(openai_server: FakeOpenAI, progress: Progress) -> None:
    openai_server.faults.append(("429", 0.4))
    started = time.monotonic()
    openai_images(config(openai_server), "open_lab", {"prompt": "x"}, progress)
    assert time.monotonic() - started >= 0.4
    assert len(openai_server.api_calls()) == 2


def test_429_retries_are_bounded(openai_server: FakeOpenAI, progress: Progress) -> None:
    openai_server.faults.extend(["429"] * 10)
    with pytest.raises(EngineError) as err:
        openai_images(config(openai_server, max_retries=2), "open_lab", {"prompt": "x"},
                      progress)
    assert err.value.code == "provider_error"
    assert err.value.message == "Rate limit reached for images per minute."
    assert len(openai_server.api_calls()) == 3


def test_429_waits_never_outlive_the_deadline(openai_server: FakeOpenAI,
                                              progress: Progress) -> None:
    openai_server.faults.append(("429", 30))
    started = time.monotonic()
    with pytest.raises(EngineError) as err:
        openai_images(config(openai_server, deadline=1.0, backoff_max=60), "open_lab",
                      {"prompt": "x"}, progress)
    assert err.value.code == "provider_error"
    assert time.monotonic() - started < 1.0


def test_a_cancel_during_backoff_stops_the_call(openai_server: FakeOpenAI) -> None:
    openai_server.faults.extend(["429"] * 3)
    progress = Progress(stop_after=1)
    with pytest.raises(Canceled):
        openai_images(config(openai_server, backoff=5.0), "open_lab", {"prompt": "x"}, progress)
    assert len(openai_server.api_calls()) == 1


# --- prompts per tool ------------------------------------------------------------------------


def test_editorial_prompt_uses_the_lead_and_the_texts() -> None:
    prompt = openai_prompt("editorial_generate", {
        "image": PHOTO, "outfit": "https://cdn.example/o.jpg",
        "lead": "A quiet luxury campaign", "scene_composition": "sunlit loft, concrete floor",
        "pose_action": "walking towards camera", "lighting": "soft window light from left.",
        "color_style": "muted earth tones", "camera_details": "85mm, f/2",
        "outfit_changes": "", "model_features": "short hair"})
    assert prompt == (
        "A quiet luxury campaign. Scene: sunlit loft, concrete floor. Pose: walking towards "
        "camera. Lighting: soft window light from left. Colour: muted earth tones. Camera: 85mm, "
        "f/2. Model: short hair. Keep the garments' design, colours and details exactly as in "
        "the input image.")


def test_editorial_prompt_without_a_lead_describes_the_task() -> None:
    prompt = openai_prompt("editorial_generate", {"lighting": "hard flash"})
    assert prompt.startswith("An editorial fashion photograph of the model wearing the outfit")
    assert "Lighting: hard flash." in prompt


def test_tonelab_prompt_mentions_the_reference_only_when_sent() -> None:
    with_ref = openai_prompt("tonelab_generate", {"image": PHOTO, "reference": PHOTO,
                                                  "color_style": "teal and orange"})
    without = openai_prompt("tonelab_generate", {"image": PHOTO})
    assert "second image" in with_ref and "Colour: teal and orange." in with_ref
    assert "second image" not in without


def test_design_tool_prompts() -> None:
    assert openai_prompt("open_lab", {"prompt": "  image to flat  "}) == "image to flat"
    assert openai_prompt("recolor", {"garment_type": "jacket", "target_color": "#112233"}) \
        .startswith("Recolour the jacket to #112233, keep everything else: ")
    assert openai_prompt("refabric", {"target_garment": "skirt", "re_fabric": "denim",
                                      "material_finish": "matte"}) \
        .startswith("Change the fabric of the skirt to matte denim, keep everything else")
    reshape = openai_prompt("reshape", {"target_garment": "dress", "changes": [
        {"place": "length", "instruction": "make it midi"},
        {"place": "sleeves", "instruction": "remove them"}]})
    assert reshape.startswith(
        "Reshape the dress: length: make it midi; sleeves: remove them. Keep everything else")
    assert openai_prompt("rebody", {"target_bodytype": "Athletic Build", "specs": "taller"}) \
        .startswith("Change the person's body type to Athletic Build (taller), keep everything")
    assert "'Marble' style" in openai_prompt("editorial_product", {"preset": "Marble",
                                                                  "prompt": "perfume"})
    assert openai_prompt("virtual_try_on", {}).startswith(
        "Dress the person in the first image in the garment shown in the second image")


def test_try_on_tools_send_the_person_first(openai_server: FakeOpenAI,
                                            progress: Progress) -> None:
    person, garment = png((1, 2, 3)), png((4, 5, 6))
    outputs = openai_images(config(openai_server), "restyle",
                            {"outfit": person, "garment": garment}, progress)
    assert [o.filename for o in outputs] == ["restyle-1.png"]
    assert [p.data for p in openai_server.api_calls()[0].files] == [person, garment]
