"""Engine tests: pure functions on real photos; no Django database, no Redis, no network."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "fashion"
LOG_DIR = Path(__file__).resolve().parents[2] / "var" / "test-logs" / "engines"

HAS_POSE = importlib.util.find_spec("workers.engines.imaging.pose") is not None


@pytest.fixture(scope="session", autouse=True)
def redis_server() -> Iterator[None]:
    # Overrides the suite-wide Redis fixture: engines never touch a broker.
    yield None


def photo(name: str) -> np.ndarray:
    """A fixture photo ("garment/00055_00", "model/049205_0") as uint8 RGB."""
    return np.asarray(Image.open(FIXTURES / f"{name}.jpg").convert("RGB"))


def save_log(name: str, *images: np.ndarray) -> None:
    """Side-by-side PNG under var/test-logs/engines for a human to look at."""
    LOG_DIR.mkdir(parents=True, exist_ok=True)
    h = max(i.shape[0] for i in images)
    row = np.concatenate(
        [np.pad(i, ((0, h - i.shape[0]), (0, 0), (0, 0))) for i in images], axis=1
    )
    Image.fromarray(row).save(LOG_DIR / f"{name}.png")


def noop_progress(*_args: object, **_kwargs: object) -> None:
    return None
