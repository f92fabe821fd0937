"""Seconds per item on one core for Virtual Try-On, Restyle, Garment Integration, Ecommerce
Asset and Flats at catalogue size (the 768x1024 fixtures), as ratios to two baselines
measured in the same run on the call's model or outfit photo (engine_timing.Baselines). What
the specification quotes (Try-On about 2 min, Asset about 1 min, Integration about 20 s,
Restyle about 18 s, Flats a 150 s countdown) is printed as "spec says". Printed, not asserted.
The first call loads the mediapipe graphs and is reported apart.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.bench.engine_timing import (
    FIXTURES,
    Baselines,
    first_and_median,
    fixture_bytes,
    line,
    single_core,
)
from workers.engines import flats, tryon

REPEAT = int(os.environ.get("BENCH_TRYON_REPEAT", "3"))


@pytest.fixture(autouse=True)
def one_core() -> Iterator[None]:
    with single_core():
        yield


def _noop(*_a: object, **_k: object) -> None:
    return None


def _time(label: str, image: bytes, call: Callable[[], object], spec_says: str) -> None:
    first, per_item = first_and_median(call, REPEAT)
    print("\n" + line(label, per_item, Baselines(image, REPEAT), first=first,
                      spec_says=spec_says))


def bench_virtual_try_on() -> None:
    p = {"model": fixture_bytes("model/02849_00.jpg"), "garment": fixture_bytes("garment/050191_1.jpg")}
    _time("Virtual Try-On", p["model"], lambda: tryon.virtual_try_on(p, _noop), "about 2 minutes")


def bench_restyle() -> None:
    p = {"outfit": fixture_bytes("model/051918_0.jpg"), "garment": fixture_bytes("garment/00055_00.jpg")}
    _time("Restyle", p["outfit"], lambda: tryon.restyle(p, _noop), "about 18 s")


def bench_garment_integration() -> None:
    p = {"outfit": fixture_bytes("model/052964_0.jpg"), "garment": fixture_bytes("garment/050181_1.jpg")}
    _time("Garment Integration", p["outfit"], lambda: tryon.garment_integration(p, _noop),
          "about 20 s")


def bench_ecommerce_asset() -> None:
    p = {"outfit": fixture_bytes("model/049205_0.jpg"),
         "garment": fixture_bytes("accessory/bag_053514_0.jpg", FIXTURES), "kind": "bag"}
    _time("Ecommerce Asset", p["outfit"], lambda: tryon.ecommerce_asset(p, _noop),
          "about 1 minute")


def bench_flats() -> None:
    def item(name: str, base: Path = FIXTURES) -> dict[str, bytes]:
        data = fixture_bytes(name, base)
        return {"FRONT": data, "BACK": data}

    p = {
        "top": item("garment/050191_1.jpg"),
        "bottom": item("garment/051827_1.jpg"),
        "overlayer": item("garment/049805_1.jpg"),
        "shoes": item("shoes/shoes_049205_0.jpg", FIXTURES),
        "model": fixture_bytes("model/049205_0.jpg"),
    }
    _time("Flats (3 outputs)", p["model"], lambda: flats.run(p, _noop), "a 150 s countdown")
