"""Inputs the try-on engines cannot dress, refused with a reason instead of a poor picture
delivered as a success: a "garment" that is a person wearing it (their face would be warped onto
the model's torso), a photo under ``MIN_SIDE`` px, two people, a person cropped above the parts
the garment covers, a seated person.

The checks are ``imaging.inputs``' (the ones the batch engines go through), called with what a
garment of each category needs; seated is read from the pose (``seated``).
"""

from __future__ import annotations

import numpy as np

from workers.engines.base import EngineError
from workers.engines.imaging import warp
from workers.engines.imaging.inputs import refuse_person_in_product, require_one_person
from workers.engines.imaging.pose import Pose

# What the person photo must show for a garment of each category.
NEEDS = {warp.UPPER: ("torso",), warp.ONE_PIECE: ("torso",), warp.LOWER: ("torso",)}
_NEEDED_BY = {warp.UPPER: "a top", warp.ONE_PIECE: "a dress", warp.LOWER: "trousers or a skirt"}
# A thigh is seated when it runs closer to level than this (its vertical extent over its length):
# standing it is near 1, a step or a lean about 0.8, sitting under 0.5.
SEATED_THIGH = 0.55


def check_garment(rgb: np.ndarray, alpha: np.ndarray | None) -> None:
    """Refuse a garment product shot that shows a person (a model wearing the garment)."""
    refuse_person_in_product(rgb, "garment", None if alpha is None else alpha)


def check_person(rgb: np.ndarray, what: str, category: str) -> None:
    """One person in the photo, showing what a garment of ``category`` covers."""
    require_one_person(rgb, f"The {what} photo", NEEDS[category],
                       needed_by={p: _NEEDED_BY[category] for p in NEEDS[category]})


def seated(pose: Pose) -> bool:
    """Whether the pose is seated: a thigh seen running near level, hip to knee."""
    p = pose.points
    for side in ("left", "right"):
        hip, knee = p.get(f"{side}_hip"), p.get(f"{side}_knee")
        if hip is None or knee is None:
            continue
        d = np.subtract(knee, hip)
        n = float(np.hypot(*d))
        if n > 1e-6 and abs(float(d[1])) / n < SEATED_THIGH:
            return True
    return False


def check_pose(pose: Pose, what: str, category: str) -> None:
    """Refuse a seated person (the torso folds at the hips: a hem lands on the lap, trousers
    bend where the warp cannot follow), and a person whose legs are cut off above the knees
    for bottoms."""
    if seated(pose):
        raise EngineError(
            "seated_person",
            f"The {what} photo shows a seated person; {_NEEDED_BY[category]} can only be put on "
            "a standing figure. Send a photo of the model standing.")
    if category == warp.LOWER and not any(f"{s}_knee" in pose.points for s in ("left", "right")):
        raise EngineError(
            "no_legs",
            f"The {what} photo does not show the legs down to the knees, which "
            f"{_NEEDED_BY[category]} need; send a photo showing the whole figure.")
