"""Editorial's analyse step: a reference photo written up as the five Editorial texts (the
measuring and writing are ``analysis``, shared with Tonelab's analyse step)."""

from __future__ import annotations

from typing import Any

from workers.engines.base import EngineOutput, Progress
from workers.engines.editorial.analysis import read_reference

FIELDS = ("scene_composition", "pose_action", "lighting", "color_style", "camera_details")


def run(params: dict[str, Any], progress: Progress) -> list[EngineOutput]:
    """params {image: bytes} -> one JSON output with the five Editorial fields."""
    return read_reference(params, progress, FIELDS)
