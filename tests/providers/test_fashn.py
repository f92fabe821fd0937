"""The FASHN adapter, through the fashn library, against a loopback server speaking FASHN's API."""

from __future__ import annotations

import io
import time
from collections.abc import Callable
from typing import Any

import pytest
from PIL import Image

from tests.providers.conftest import GARMENT, MODEL, TRYON, Canceled, Progress, adapter_config
from tests.providers.servers import FakeFashn, data_url_bytes, fake_fashn
from tests.support.fake_providers import jpeg, png
from workers.engines.base import EngineError
from workers.providers.config import ProviderConfig
from workers.providers.fashn import fashn_run
from workers.providers.select import engine_for


def config(server: FakeFashn, **kwargs: Any) -> ProviderConfig:
    return adapter_config("fashn", server, **kwargs)


def polls(server: FakeFashn) -> list[Any]:
    return server.polls("/v1/status/")


def test_try_on_sends_the_documented_body_and_polls(fashn_server: FakeFashn,
                                                    progress: Progress) -> None:
    outputs = fashn_run(config(fashn_server), "virtual_try_on", TRYON, progress)

    assert [(o.filename, o.content_type) for o in outputs] == [("try-on.png", "image/png")]
    assert Image.open(io.BytesIO(outputs[0].data)).getpixel((0, 0)) == (0, 200, 0)
    run = fashn_server.api_calls("/v1/run")
    assert len(run) == 1
    assert run[0].method == "POST"
    assert run[0].headers["Authorization"] == f"Bearer {fashn_server.api_key}"
    body = run[0].json
    assert set(body) == {"model_name", "inputs"}
    assert body["model_name"] == "tryon-v1.6"
    assert set(body["inputs"]) == {"model_image", "garment_image", "category"}
    assert body["inputs"]["model_image"].startswith("data:image/jpeg;base64,")
    assert data_url_bytes(body["inputs"]["model_image"]) == MODEL
    assert body["inputs"]["garment_image"].startswith("data:image/png;base64,")
    assert data_url_bytes(body["inputs"]["garment_image"]) == GARMENT
    assert body["inputs"]["category"] == "auto"
    assert len(polls(fashn_server)) == 5  # starting, in_queue, processing x2, completed
    assert all(c.headers["Authorization"] == f"Bearer {fashn_server.api_key}"
               for c in polls(fashn_server))
    fetched = [c for c in fashn_server.calls if c.path.startswith("/files/")]
    assert len(fetched) == 1 and "Authorization" not in fetched[0].headers


def test_progress_follows_the_queue_status(fashn_server: FakeFashn, progress: Progress) -> None:
    fashn_server.statuses = ["starting", "in_queue", "processing", "processing", "processing",
                             "completed"]
    fashn_run(config(fashn_server), "virtual_try_on", TRYON, progress)
    values = progress.values
    assert values == sorted(values)
    assert {5, 10, 20, 90, 100} <= set(values)
    assert len({v for v in values if 30 < v < 90}) == 3  # one step per processing poll
    assert "Queued at the FASHN API" in progress.messages
    assert "The FASHN API is working" in progress.messages


def test_category_and_options_go_into_inputs(fashn_server: FakeFashn,
                                             progress: Progress) -> None:
    fashn_run(config(fashn_server, options={"mode": "quality", "garment_photo_type": "flat-lay"}),
              "restyle", {"outfit": MODEL, "garment": GARMENT, "category": "dress"}, progress)
    body = fashn_server.api_calls("/v1/run")[0].json
    assert body == {"model_name": "tryon-v1.6", "inputs": {
        "model_image": body["inputs"]["model_image"],
        "garment_image": body["inputs"]["garment_image"],
        "category": "one-pieces", "mode": "quality", "garment_photo_type": "flat-lay"}}
    assert data_url_bytes(body["inputs"]["model_image"]) == MODEL


def test_tryon_max_sends_product_image(fashn_server: FakeFashn, progress: Progress) -> None:
    fashn_run(config(fashn_server, model="tryon-max"), "garment_integration",
              {"outfit": MODEL, "garment": GARMENT}, progress)
    body = fashn_server.api_calls("/v1/run")[0].json
    assert body["model_name"] == "tryon-max"
    assert set(body["inputs"]) == {"model_image", "product_image"}


def test_remodel_is_product_to_model(fashn_server: FakeFashn, progress: Progress) -> None:
    face = jpeg((90, 60, 40), (40, 40))
    outputs = fashn_run(config(fashn_server), "remodel",
                        {"image": MODEL, "model_face": face, "model": "ines"}, progress)
    assert [o.filename for o in outputs] == ["remodel.png"]
    body = fashn_server.api_calls("/v1/run")[0].json
    assert body["model_name"] == "product-to-model"
    assert data_url_bytes(body["inputs"]["product_image"]) == MODEL
    assert data_url_bytes(body["inputs"]["model_image"]) == face


def test_model_swap_is_model_swap(fashn_server: FakeFashn, progress: Progress) -> None:
    face = jpeg((90, 60, 40), (40, 40))
    engine = engine_for("remodel", {"remodel": config(fashn_server)})
    outputs = engine({"image": MODEL, "model_face": face, "modelId": "m1",
                      "image_url": "https://x/p.jpg"}, progress)
    assert [o.filename for o in outputs] == ["remodel.png"]
    body = fashn_server.api_calls("/v1/run")[0].json
    assert body == {"model_name": "model-swap", "inputs": {
        "model_image": body["inputs"]["model_image"],
        "face_reference": body["inputs"]["face_reference"]}}
    assert data_url_bytes(body["inputs"]["face_reference"]) == face
    assert (engine.made_by, engine.tier) == ("fashn:model-swap", "studio")  # type: ignore[attr-defined]


def test_flats_runs_product_to_model_per_item(fashn_server: FakeFashn,
                                              progress: Progress) -> None:
    top, shoes = png((200, 0, 0)), png((0, 0, 0))
    fashn_server.statuses = ["completed"]
    outputs = fashn_run(config(fashn_server), "flats",
                        {"model": MODEL, "top": {"FRONT": top, "BACK": png((1, 1, 1))},
                         "shoes": {"SIDE": shoes}}, progress)
    assert [o.filename for o in outputs] == ["flats-top.png", "flats-shoes.png"]
    bodies = [c.json for c in fashn_server.api_calls("/v1/run")]
    assert [b["model_name"] for b in bodies] == ["product-to-model"] * 2
    assert [data_url_bytes(b["inputs"]["product_image"]) for b in bodies] == [top, shoes]
    assert all(data_url_bytes(b["inputs"]["model_image"]) == MODEL for b in bodies)


def test_data_url_outputs_and_several_outputs(progress: Progress) -> None:
    with fake_fashn(output="data_url", outputs=2, statuses=["completed"]) as server:
        outputs = fashn_run(config(server), "virtual_try_on", TRYON, progress)
    assert [o.filename for o in outputs] == ["try-on-1.png", "try-on-2.png"]
    assert outputs[0].data != outputs[1].data


def test_a_failed_prediction_fails_in_fashns_words(fashn_server: FakeFashn,
                                                   progress: Progress) -> None:
    fashn_server.statuses = ["starting", "processing", "failed"]
    with pytest.raises(EngineError) as err:
        fashn_run(config(fashn_server), "virtual_try_on", TRYON, progress)
    assert (err.value.code, err.value.message) == ("provider_error", fashn_server.error_message)


def test_429_waits_retry_after(fashn_server: FakeFashn, progress: Progress) -> None:
    fashn_server.faults.extend([("429", 0.3), "429"])
    started = time.monotonic()
    outputs = fashn_run(config(fashn_server), "virtual_try_on", TRYON, progress)
    assert len(outputs) == 1
    assert len(fashn_server.api_calls("/v1/run")) == 3
    assert time.monotonic() - started >= 0.3
    assert "The FASHN API is busy; retrying" in progress.messages


def test_a_500_on_run_is_not_retried(fashn_server: FakeFashn, progress: Progress) -> None:
    fashn_server.faults.append("500")
    with pytest.raises(EngineError) as err:
        fashn_run(config(fashn_server), "virtual_try_on", TRYON, progress)
    assert (err.value.code, err.value.message) == ("provider_error", "Internal server error.")
    assert len(fashn_server.api_calls("/v1/run")) == 1


def test_transient_poll_failures_are_tolerated(fashn_server: FakeFashn,
                                               progress: Progress) -> None:
    fashn_server.poll_faults.extend(["500", "500", "429"])
    outputs = fashn_run(config(fashn_server, max_retries=2), "virtual_try_on", TRYON, progress)
    assert len(outputs) == 1


@pytest.mark.parametrize(("where", "faults", "message", "calls"), [
    ("faults", ["429"] * 5, "Rate limit exceeded.", lambda s: s.api_calls("/v1/run")),
    ("poll_faults", ["500"] * 10, "Internal server error.", polls),
], ids=["429s on run", "500s on status"])
def test_failures_past_the_retries_fail_in_fashns_words(
    fashn_server: FakeFashn, progress: Progress, where: str, faults: list[Any], message: str,
    calls: Callable[[FakeFashn], list[Any]],
) -> None:
    getattr(fashn_server, where).extend(faults)
    with pytest.raises(EngineError) as err:
        fashn_run(config(fashn_server, max_retries=2), "virtual_try_on", TRYON, progress)
    assert (err.value.code, err.value.message) == ("provider_error", message)
    assert len(calls(fashn_server)) == 3


def test_the_deadline_is_honoured(fashn_server: FakeFashn, progress: Progress) -> None:
    fashn_server.statuses = ["processing"]
    started = time.monotonic()
    with pytest.raises(EngineError) as err:
        fashn_run(config(fashn_server, deadline=0.6, poll_interval=0.05), "virtual_try_on",
                  TRYON, progress)
    assert err.value.code == "provider_timeout"
    assert err.value.message == "The FASHN API did not finish within 0.6 seconds."
    assert 0.55 <= time.monotonic() - started < 1.5
    assert max(progress.values) < 90


def test_a_slow_answer_is_bounded_by_the_timeout(fashn_server: FakeFashn,
                                                 progress: Progress) -> None:
    fashn_server.faults.append("timeout")
    fashn_server.slow_seconds = 2.0
    started = time.monotonic()
    with pytest.raises(EngineError) as err:
        fashn_run(config(fashn_server, timeout=0.4), "virtual_try_on", TRYON, progress)
    assert err.value.code == "provider_timeout"
    assert err.value.message == "The FASHN API did not answer in time."
    assert time.monotonic() - started < 1.5


def test_a_cancel_stops_polling(fashn_server: FakeFashn) -> None:
    fashn_server.statuses = ["processing"]
    progress = Progress(stop_after=8)
    with pytest.raises(Canceled):
        fashn_run(config(fashn_server), "virtual_try_on", TRYON, progress)
    count = len(polls(fashn_server))
    time.sleep(0.2)
    assert len(polls(fashn_server)) == count


def test_a_cancel_during_a_429_wait_comes_out_as_itself(fashn_server: FakeFashn) -> None:
    fashn_server.faults.append(("429", 5))
    progress = Progress(stop_after=3)
    started = time.monotonic()
    with pytest.raises(Canceled):
        fashn_run(config(fashn_server, backoff_max=5), "virtual_try_on", TRYON, progress)
    assert time.monotonic() - started < 2


def test_output_urls_on_internal_addresses_need_the_allow_list(fashn_server: FakeFashn,
                                                               progress: Progress) -> None:
    with pytest.raises(EngineError) as err:
        fashn_run(config(fashn_server, fetch_allow=()), "virtual_try_on", TRYON, progress)
    assert err.value.code == "provider_error"
    assert "private or internal address" in err.value.message


def test_missing_images_fail_before_any_call(fashn_server: FakeFashn,
                                             progress: Progress) -> None:
    with pytest.raises(EngineError) as err:
        fashn_run(config(fashn_server), "virtual_try_on", {"model": MODEL}, progress)
    assert err.value.code == "bad_input"
    assert not fashn_server.calls


def test_the_old_tryon_provider_name_speaks_the_new_protocol(fashn_server: FakeFashn,
                                                             progress: Progress) -> None:
    engine = engine_for("virtual_try_on", {"virtual_try_on": {
        "provider": "tryon", "base_url": fashn_server.url, "api_key": fashn_server.api_key,
        "poll_interval": 0.02, "fetch_allow": ["127.0.0.1"]}})
    assert len(engine(TRYON, progress)) == 1
    assert fashn_server.api_calls("/v1/run")[0].json["model_name"] == "tryon-v1.6"
    assert engine.made_by == "fashn:tryon-v1.6"  # type: ignore[attr-defined]


def test_the_credits_fashn_reports_are_the_runs_usage(fashn_server: FakeFashn,
                                                      progress: Progress) -> None:
    engine = engine_for("virtual_try_on", {"virtual_try_on": config(fashn_server)})
    engine(TRYON, progress)
    assert engine.usage == {"credits": 1.0}  # type: ignore[attr-defined]
