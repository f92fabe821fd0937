"""Virtual Try-On: a product shot's garment on a model photo, PNG."""

from __future__ import annotations

from typing import Any

from workers.engines.base import EngineOutput, Progress
from workers.engines.imaging.decode import encode_png
from workers.engines.tryon.core import deliver, try_on


def run(params: dict[str, Any], progress: Progress) -> list[EngineOutput]:
    """params: garment (bytes, product shot), model (bytes), category (optional)."""
    out, body, _, info = try_on(params, progress, "model", "model")
    data = encode_png(deliver(out, body, info))
    progress(100)
    return [EngineOutput(data, "image/png", "try-on.png")]
