"""Issue 18's speed bar: every batch engine of the issue (Earfit, Baghold, Recolor, Refabric,
Reshape, Rebody, Flats) takes at most 2 s per 1024 px item on one core.

Each engine runs on one item whose photos are our fashion fixtures resized to a long side of
1024 px (the earring and the bag are the synthetic product shots of the engine tests, the
fixtures hold none, drawn at 1024 px too). One core and one OpenCV thread; the first call
(mediapipe graphs, imports) is reported apart, the figure is the median of BENCH_BAR_REPEAT
more calls. Beside it, the two baselines of every engine figure measured in the same run on the
item's main photo (engine_timing.Baselines), and the load average before and after: the 2 s
bar is an absolute time, so a busy machine shows in the load, not in a ratio. Flats is one
item of three outputs (front, back, flat lay), with each product's back view the same photo as
its front (prepared once) and, as partners' looks come, a back view of its own.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Iterator
from typing import Any

import cv2
import numpy as np
import pytest
from PIL import Image

from tests.bench.engine_timing import FIXTURES, Baselines, first_and_median, line, single_core
from tests.engines.placement_support import png
from tests.engines.synthetic_products import bag_shot, earring_shot
from workers.engines import baghold, earfit, flats, rebody, recolor, refabric, reshape
from workers.engines.imaging.decode import encode_jpeg

REPEAT = int(os.environ.get("BENCH_BAR_REPEAT", "3"))
SIDE = 1024
BAR_SECONDS = 2.0


@pytest.fixture(autouse=True)
def one_core() -> Iterator[None]:
    # ffmpeg and mediapipe inherit the affinity: the figures are for a single core.
    with single_core(opencv_threads=1):
        yield


def photo(name: str, side: int = SIDE) -> bytes:
    """A fixture photo ("model/049205_0.jpg") resized to a long side of ``side`` px, as JPEG."""
    path = FIXTURES / name
    if not path.exists():
        pytest.skip(f"{path} is not on this machine")
    im = Image.open(path).convert("RGB")
    w, h = im.size
    s = side / max(w, h)
    return encode_jpeg(np.asarray(im.resize((round(w * s), round(h * s)), Image.LANCZOS)))


def _drawn(rgb: np.ndarray, side: int = SIDE) -> bytes:
    h, w = rgb.shape[:2]
    s = side / max(h, w)
    return png(cv2.resize(rgb, (round(w * s), round(h * s)), interpolation=cv2.INTER_AREA))


def _noop(*_a: object, **_k: object) -> None:
    return None


def cases() -> dict[str, tuple[bytes, Callable[[], object]]]:
    """Each engine's 1024 px item: (its main photo, a call running the engine on it)."""
    earring = {"ring_image": _drawn(earring_shot(600, 1200)), "ring_height_in": 1.5,
               "model_image": photo("model/model_3.png"), "model_name": "Ana"}
    bag_rgb, _ = bag_shot(1400, 1400, body_w=840, body_h=600, handle_h=320)
    bag = {"bag_image": _drawn(bag_rgb), "width": 32, "height": 24, "depth": 12,
           "gender": "Female", "model_image": photo("model/model_9.png"), "model_height_cm": 170}
    colour = {"image": photo("model/049205_0.jpg"), "target_color": "#4A5D23",
              "garment_type": "trousers"}
    fabric = {"image": photo("model/049205_0.jpg"), "re_fabric": "tulle",
              "material_finish": "sheer", "target_garment": "tshirt"}
    shape = {"image": photo("model/049713_0.jpg"), "target_garment": "t-shirt",
             "changes": [{"place": "sleeves", "instruction": "removed"}]}
    body = {"image": photo("model/model_8.png"), "target_bodytype": "Hourglass"}

    def item(name: str, own_back: bool = False) -> dict[str, bytes]:
        data = photo(name)
        # The fixtures hold no back shots: the same photo (prepared once) or, as a look with
        # back shots of its own costs, the photo mirrored (prepared again).
        return {"FRONT": data, "BACK": _mirrored(data) if own_back else data}

    def look_of(own_back: bool) -> dict[str, Any]:
        return {
            "top": item("garment/050191_1.jpg", own_back),
            "bottom": item("garment/051827_1.jpg", own_back),
            "overlayer": item("garment/049805_1.jpg", own_back),
            "shoes": item("shoes/shoes_049205_0.jpg", own_back),
            "model": photo("model/049205_0.jpg"),
        }

    look, look_backs = look_of(False), look_of(True)
    return {
        "Earfit": (earring["model_image"], lambda: earfit.run(earring, _noop)),
        "Baghold": (bag["model_image"], lambda: baghold.run(bag, _noop)),
        "Recolor": (colour["image"], lambda: recolor.run(colour, _noop)),
        "Refabric": (fabric["image"], lambda: refabric.run(fabric, _noop)),
        "Reshape": (shape["image"], lambda: reshape.run(shape, _noop)),
        "Rebody": (body["image"], lambda: rebody.run(body, _noop)),
        "Flats (3 outputs)": (look["model"], lambda: flats.run(look, _noop)),
        "Flats (3 outputs, back shots of its own)": (look_backs["model"],
                                                     lambda: flats.run(look_backs, _noop)),
    }


def _mirrored(data: bytes) -> bytes:
    rgb = np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))
    return encode_jpeg(np.ascontiguousarray(rgb[:, ::-1]))


def _load() -> str:
    return " ".join(open("/proc/loadavg").read().split()[:3])


def bench_speed_bar() -> None:
    print(f"\nload average at start {_load()}; one core, median of {REPEAT} after a first call")
    figures: list[tuple[str, float]] = []
    for name, (main, call) in cases().items():
        first, per_item = first_and_median(call, REPEAT)
        figures.append((name, per_item))
        print(line(f"{name} 1024 px", per_item, Baselines(main, REPEAT), first=first))
    load = _load()
    print(f"load average at end {load}")
    for name, seconds in figures:
        verdict = "bar met" if seconds <= BAR_SECONDS else "NOT MET"
        print(f"{name}: {seconds:.2f} s per 1024 px item on one core (load {load}); "
              f"≤ {BAR_SECONDS:g} s per 1024 px item: {verdict}")
