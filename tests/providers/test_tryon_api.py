"""The try-on API adapter (submit and poll) against a loopback server speaking that protocol."""

from __future__ import annotations

import base64
import io
import time
from typing import Any

import pytest
from PIL import Image

from tests.providers.conftest import Canceled, Progress
from tests.support.fake_providers import FakeTryOn, fake_tryon, jpeg, png
from workers.engines.base import EngineError
from workers.providers.config import ProviderConfig
from workers.providers.tryon_api import tryon_run

MODEL = jpeg((180, 150, 130), (60, 90))
GARMENT = png((20, 40, 200), (50, 50))


def config(server: FakeTryOn, **kwargs: Any) -> ProviderConfig:
    values: dict[str, Any] = {"provider": "tryon", "base_url": server.url,
                              "api_key": server.api_key, "poll_interval": 0.02,
                              "backoff": 0.01, "timeout": 5.0, "deadline": 10.0,
                              "fetch_allow": ("127.0.0.1",)}
    values.update(kwargs)
    return ProviderConfig(**values)


def data_url_bytes(value: str) -> tuple[str, bytes]:
    header, _, payload = value.partition(",")
    return header, base64.b64decode(payload)


def test_submit_poll_and_fetch(tryon_server: FakeTryOn, progress: Progress) -> None:
    outputs = tryon_run(config(tryon_server), "virtual_try_on",
                        {"model": MODEL, "garment": GARMENT, "garmentUrl": "https://x/g.png"},
                        progress)

    assert [(o.filename, o.content_type) for o in outputs] == [("try-on.png", "image/png")]
    image = Image.open(io.BytesIO(outputs[0].data))
    assert image.getpixel((0, 0)) == (0, 200, 0)

    run = tryon_server.api_calls("/run")
    assert len(run) == 1
    assert run[0].headers["Authorization"] == f"Bearer {tryon_server.api_key}"
    assert data_url_bytes(run[0].json["model_image"]) == ("data:image/jpeg;base64", MODEL)
    assert data_url_bytes(run[0].json["garment_image"]) == ("data:image/png;base64", GARMENT)
    assert run[0].json["category"] == "auto"
    assert "model_name" not in run[0].json
    polls = [c for c in tryon_server.calls if c.path.startswith("/v1/status/")]
    assert len(polls) == 5  # starting, in_queue, processing x2, completed
    assert all(c.headers["Authorization"] == f"Bearer {tryon_server.api_key}" for c in polls)
    fetched = [c for c in tryon_server.calls if c.path.startswith("/files/")]
    assert len(fetched) == 1 and "Authorization" not in fetched[0].headers


def test_progress_follows_the_remote_status(tryon_server: FakeTryOn, progress: Progress) -> None:
    tryon_server.statuses = ["starting", "in_queue", "processing", "processing", "processing",
                             "completed"]
    tryon_run(config(tryon_server), "virtual_try_on", {"model": MODEL, "garment": GARMENT},
              progress)
    values = progress.values
    assert values == sorted(values)  # never backwards
    assert {5, 10, 20, 90, 100} <= set(values)
    processing = sorted({v for v in values if 30 < v < 90})
    assert len(processing) == 3  # one step per processing poll
    assert "The try-on provider is working" in progress.messages


def test_model_name_category_and_options(tryon_server: FakeTryOn, progress: Progress) -> None:
    tryon_run(config(tryon_server, model="tryon-v1.6", options={"mode": "quality"}),
              "virtual_try_on", {"model": MODEL, "garment": GARMENT, "category": "dress"},
              progress)
    body = tryon_server.api_calls("/run")[0].json
    assert (body["model_name"], body["category"], body["mode"]) == (
        "tryon-v1.6", "one-pieces", "quality")


def test_restyle_sends_the_outfit_photo_as_the_model(tryon_server: FakeTryOn,
                                                     progress: Progress) -> None:
    outputs = tryon_run(config(tryon_server, category="tops"), "restyle",
                        {"outfit": MODEL, "garment": GARMENT}, progress)
    assert [o.filename for o in outputs] == ["restyle-1.png"]
    body = tryon_server.api_calls("/run")[0].json
    assert data_url_bytes(body["model_image"])[1] == MODEL
    assert body["category"] == "tops"


def test_data_url_outputs_and_several_outputs(progress: Progress) -> None:
    with fake_tryon(output="data_url", outputs=2, statuses=["completed"]) as server:
        outputs = tryon_run(config(server), "virtual_try_on",
                            {"model": MODEL, "garment": GARMENT}, progress)
    assert [o.filename for o in outputs] == ["try-on-1.png", "try-on-2.png"]
    assert outputs[0].data != outputs[1].data


def test_a_failed_job_fails_with_the_providers_message(tryon_server: FakeTryOn,
                                                       progress: Progress) -> None:
    tryon_server.statuses = ["starting", "processing", "failed"]
    with pytest.raises(EngineError) as err:
        tryon_run(config(tryon_server), "virtual_try_on", {"model": MODEL, "garment": GARMENT},
                  progress)
    assert (err.value.code, err.value.message) == ("provider_error", tryon_server.error_message)


def test_the_deadline_is_honoured(tryon_server: FakeTryOn, progress: Progress) -> None:
    tryon_server.statuses = ["processing"]  # never finishes
    started = time.monotonic()
    with pytest.raises(EngineError) as err:
        tryon_run(config(tryon_server, deadline=0.6, poll_interval=0.05), "virtual_try_on",
                  {"model": MODEL, "garment": GARMENT}, progress)
    elapsed = time.monotonic() - started
    assert err.value.code == "provider_timeout"
    assert err.value.message == "The try-on provider did not finish within 0.6 seconds."
    assert 0.55 <= elapsed < 1.5
    polls = [c for c in tryon_server.calls if c.path.startswith("/v1/status/")]
    assert len(polls) >= 3
    assert max(progress.values) < 90  # still "processing" when it gave up


def test_a_slow_status_answer_is_bounded_by_the_deadline(tryon_server: FakeTryOn,
                                                         progress: Progress) -> None:
    tryon_server.poll_faults.extend(["timeout"] * 5)
    started = time.monotonic()
    with pytest.raises(EngineError) as err:
        tryon_run(config(tryon_server, deadline=0.8, timeout=5.0), "virtual_try_on",
                  {"model": MODEL, "garment": GARMENT}, progress)
    assert err.value.code == "provider_timeout"
    assert time.monotonic() - started < 1.6


def test_submit_errors_fail_with_the_providers_message(tryon_server: FakeTryOn,
                                                       progress: Progress) -> None:
    tryon_server.faults.append(("error", 400, "garment_image: unsupported format"))
    with pytest.raises(EngineError) as err:
        tryon_run(config(tryon_server), "virtual_try_on", {"model": MODEL, "garment": GARMENT},
                  progress)
    assert (err.value.code, err.value.message) == ("provider_error",
                                                   "garment_image: unsupported format")


def test_submit_500_is_a_provider_error(tryon_server: FakeTryOn, progress: Progress) -> None:
    tryon_server.faults.append("500")
    with pytest.raises(EngineError) as err:
        tryon_run(config(tryon_server), "virtual_try_on", {"model": MODEL, "garment": GARMENT},
                  progress)
    assert err.value.code == "provider_error"
    assert len(tryon_server.api_calls("/run")) == 1


def test_submit_429_is_retried(tryon_server: FakeTryOn, progress: Progress) -> None:
    tryon_server.faults.extend(["429", ("429", 0.05)])
    outputs = tryon_run(config(tryon_server), "virtual_try_on",
                        {"model": MODEL, "garment": GARMENT}, progress)
    assert len(outputs) == 1
    assert len(tryon_server.api_calls("/run")) == 3


def test_a_wrong_key_is_a_provider_error(tryon_server: FakeTryOn, progress: Progress) -> None:
    with pytest.raises(EngineError) as err:
        tryon_run(config(tryon_server, api_key="fa-wrong"), "virtual_try_on",
                  {"model": MODEL, "garment": GARMENT}, progress)
    assert err.value.code == "provider_error"
    assert "fa-wrong" not in err.value.message


def test_transient_poll_failures_are_tolerated(tryon_server: FakeTryOn,
                                               progress: Progress) -> None:
    tryon_server.poll_faults.extend(["500", "500", "429"])
    outputs = tryon_run(config(tryon_server, max_retries=2), "virtual_try_on",
                        {"model": MODEL, "garment": GARMENT}, progress)
    assert len(outputs) == 1


def test_persistent_poll_failures_fail_the_job(tryon_server: FakeTryOn,
                                               progress: Progress) -> None:
    tryon_server.poll_faults.extend(["500"] * 10)
    with pytest.raises(EngineError) as err:
        tryon_run(config(tryon_server, max_retries=2), "virtual_try_on",
                  {"model": MODEL, "garment": GARMENT}, progress)
    assert err.value.code == "provider_error"
    assert err.value.message == "The server had an error while processing your request."
    polls = [c for c in tryon_server.calls if c.path.startswith("/v1/status/")]
    assert len(polls) == 3


def test_output_urls_on_internal_addresses_need_the_allow_list(tryon_server: FakeTryOn,
                                                               progress: Progress) -> None:
    with pytest.raises(EngineError) as err:
        tryon_run(config(tryon_server, fetch_allow=()), "virtual_try_on",
                  {"model": MODEL, "garment": GARMENT}, progress)
    assert err.value.code == "provider_error"
    assert "private or internal address" in err.value.message
    assert not [c for c in tryon_server.calls if c.path.startswith("/files/")]


def test_missing_images_fail_before_any_call(tryon_server: FakeTryOn,
                                             progress: Progress) -> None:
    with pytest.raises(EngineError) as err:
        tryon_run(config(tryon_server), "virtual_try_on", {"model": MODEL}, progress)
    assert err.value.code == "bad_input"
    assert not tryon_server.calls


def test_a_cancel_stops_polling(tryon_server: FakeTryOn) -> None:
    tryon_server.statuses = ["processing"]
    progress = Progress(stop_after=8)
    with pytest.raises(Canceled):
        tryon_run(config(tryon_server), "virtual_try_on", {"model": MODEL, "garment": GARMENT},
                  progress)
    polls = len([c for c in tryon_server.calls if c.path.startswith("/v1/status/")])
    time.sleep(0.2)
    assert len([c for c in tryon_server.calls if c.path.startswith("/v1/status/")]) == polls
