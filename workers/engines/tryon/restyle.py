"""Restyle: the try-on core on a full-body outfit photo, PNG named restyle-<n>.png."""

from __future__ import annotations

from typing import Any

from workers.engines.base import EngineOutput, Progress
from workers.engines.imaging.decode import encode_png
from workers.engines.tryon.core import deliver, try_on


def run(params: dict[str, Any], progress: Progress) -> list[EngineOutput]:
    """params: garment (bytes, product shot), outfit (bytes, full-body outfit photo)."""
    out, body, _, info = try_on(params, progress, "outfit", "outfit")
    data = encode_png(deliver(out, body, info))
    progress(100)
    return [EngineOutput(data, "image/png", "restyle-1.png")]
