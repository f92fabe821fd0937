"""Baghold's bars: the whole bag inside the frame, the handle in the grip with the model's own
fingers in front of it, and the bag's body at its stated size.

Per case the real engine (`baghold.place_bag`, which `run` wraps) carries a synthetic bag of
known size on a fixture model. Measured on the delivered JPEG:

- frame: the bag's matte as placed touches no border of the output;
- grip (hand carries): the holding hand's mask overlaps the handle's matte (area > 0), and in
  that overlap the output shows the model's original hand pixels (mean ΔE2000 to the photo
  before the bag);
- size: the bag body's height along its own axis (a minimum-area rectangle around the body's
  matte, handle excluded) against the body scale times the stated height.

Half-length photos with no free hand must be carried from a shoulder inside the frame or be
refused with a reason; a delivered bag that is cut, or a refusal without a message, fails.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from PIL import Image, ImageDraw
from skimage.color import deltaE_ciede2000, rgb2lab

from tests.fidelity.common import ROOT, Bar, ToolReport, contact_sheet, decode, photo
from workers.engines import baghold
from workers.engines.base import EngineError
from workers.engines.imaging.cutout import jpeg_bytes
from workers.engines.imaging.pose import detect_pose, person_mask

GRIP_DE_LIMIT = 3.0
SIZE_LIMIT = 0.10


def tote(long_handle: bool = False) -> np.ndarray:
    """A synthetic tote on a white sweep: the short-handled one of the engine tests, or one whose
    handle is long enough to go over a shoulder."""
    sys.path.insert(0, str(ROOT / "tests" / "engines"))
    from synthetic_products import bag_shot

    if long_handle:
        image, _ = bag_shot(700, 800, body_w=380, body_h=300, handle_h=330)
    else:
        image, _ = bag_shot()
    return image


def portrait(name: str) -> np.ndarray:
    sys.path.insert(0, str(ROOT / "platform"))
    from tools.portraits import astronaut, grace_hopper

    return astronaut() if name == "astronaut" else grace_hopper()


@dataclass
class Case:
    label: str
    model: str  # a fixture path, or "portrait:<name>"
    params: dict[str, Any]
    expect: str  # "hand", "shoulder" or "refuse"
    long_handle: bool = False


CASES = [
    Case("full body, tote in hand", "model/model_9.png",
         {"width": 32, "height": 24, "depth": 12, "model_height_cm": 170}, "hand"),
    Case("full body (man), tote in hand", "model/049205_0.jpg",
         {"width": 32, "height": 24, "depth": 12, "model_height_cm": 182, "gender": "Male"},
         "hand"),
    Case("full body (dress), tote in hand", "model/053228_0.jpg",
         {"width": 28, "height": 22, "depth": 10, "model_height_cm": 175}, "hand"),
    Case("full body (man), tote in hand", "model/051918_0.jpg",
         {"width": 36, "height": 28, "depth": 14, "model_height_cm": 185, "gender": "Male"},
         "hand"),
    Case("full body (dress), small hands: found around the wrists", "model/052964_0.jpg",
         {"width": 30, "height": 22, "depth": 11, "model_height_cm": 176}, "hand"),
    Case("half length, strap 20 cm", "model/model_1.png",
         {"width": 20, "height": 14, "depth": 6, "strap": 20, "model_height_cm": 168},
         "shoulder"),
    Case("half length, long handle over the shoulder", "model/model_3.png",
         {"width": 26, "height": 21, "depth": 10, "model_height_cm": 168}, "shoulder",
         long_handle=True),
    Case("half length, hands at the bottom edge", "model/01861_00.jpg",
         {"width": 32, "height": 24, "depth": 12, "model_height_cm": 172}, "refuse"),
    Case("sample portrait (astronaut), no strap", "portrait:astronaut",
         {"width": 32, "height": 24, "depth": 12, "model_height_cm": 168}, "refuse"),
    Case("sample portrait (astronaut), strap 20 cm", "portrait:astronaut",
         {"width": 20, "height": 14, "depth": 6, "strap": 20, "model_height_cm": 168},
         "shoulder"),
    Case("sample portrait (Grace Hopper), strap 20 cm", "portrait:grace_hopper",
         {"width": 20, "height": 14, "depth": 6, "strap": 20, "model_height_cm": 168},
         "refuse"),
]


def model_photo(case: Case) -> np.ndarray:
    if case.model.startswith("portrait:"):
        return portrait(case.model.split(":", 1)[1])
    return photo(case.model)


def body_size(bag_alpha: np.ndarray, handle_alpha: np.ndarray) -> tuple[float, float]:
    """(height, width) in px of the bag's body as placed, along its own axes."""
    body = (bag_alpha > 0.5) & (handle_alpha < 0.5)
    ys, xs = np.nonzero(body)
    if len(xs) < 5:
        return 0.0, 0.0
    (_, _), (a, b), angle = cv2.minAreaRect(np.stack([xs, ys], 1).astype(np.float32))
    # OpenCV's angle is in [0, 90): the side of length `a` lies at `angle` from the x axis.
    if abs(angle) < 45:
        return float(b), float(a)
    return float(a), float(b)


def stature_scale(rgb: np.ndarray, height_cm: float) -> float | None:
    """Pixels per cm from the person's silhouette (top of head to soles, the soles' shadow on
    the floor included) when the head is in frame and the feet are too (the pose sees a
    heel or toes): independent of the engine's own scale."""
    rows = np.nonzero((person_mask(rgb) > 0.5).any(axis=1))[0]
    pose = detect_pose(rgb)
    if len(rows) == 0 or rows.min() <= 2 or pose is None:
        return None
    if not any(k in pose.points for k in ("left_heel", "right_heel", "left_foot_index",
                                          "right_foot_index")):
        return None
    return float(rows.max() - rows.min() + 1) / height_cm


def frame_gap(alpha: np.ndarray) -> int:
    """Pixels between the bag's matte and the nearest border (0 = it touches one)."""
    ys, xs = np.nonzero(alpha > 0.02)
    if len(xs) == 0:
        return 0
    h, w = alpha.shape
    return int(min(xs.min(), ys.min(), w - 1 - xs.max(), h - 1 - ys.max()))


def grip(out: np.ndarray, placed: baghold.Placement) -> tuple[int, float]:
    """(overlap area in px of the hand's mask and the handle, mean ΔE2000 there between the
    output and the photo before the bag)."""
    overlap = (placed.fingers > 0.5) & (placed.handle_alpha > 0.5)
    n = int(overlap.sum())
    if n == 0:
        return 0, float("nan")
    ys, xs = np.nonzero(overlap)
    y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    a = rgb2lab(out[y0:y1, x0:x1])
    b = rgb2lab(placed.base[y0:y1, x0:x1])
    de = deltaE_ciede2000(a, b)[overlap[y0:y1, x0:x1]]
    return n, float(de.mean())


def grip_depth(placed: baghold.Placement) -> float:
    """Where the handle comes out from under the hand, along the fingers, in units of their
    proximal segment: 0 at the knuckles (mean MCP joint), 1 at the mean PIP joint; the median
    over the handle's visible pixels that touch the hand's mask. Lying under curled fingers
    it comes out between the two; past 1 it meets the fingertips (the bag reads as pasted
    beside the hand)."""
    p = placed.hand_points
    if p is None:
        return float("nan")
    mcp = p[[5, 9, 13, 17]].mean(axis=0)
    pip = p[[6, 10, 14, 18]].mean(axis=0)
    seg = pip - mcp
    length = float(np.linalg.norm(seg))
    hand = (placed.fingers > 0.5).astype(np.uint8)
    touching = cv2.dilate(hand, np.ones((3, 3), np.uint8)) > hand
    ys, xs = np.nonzero(touching & (placed.handle_alpha > 0.5))
    if len(xs) == 0 or length < 1e-3:
        return float("nan")
    along = (np.stack([xs, ys], 1) - mcp) @ (seg / length)
    return float(np.median(along)) / length


def run_case(case: Case) -> tuple[dict[str, object], list[np.ndarray]]:
    """One case through the engine: its row of figures and its contact-sheet images."""
    before = model_photo(case)
    params = {"gender": "Female", "model_name": case.label, **case.params}
    row: dict[str, object] = {"case": case.label, "expected": case.expect}
    try:
        placed = baghold.place_bag(before, tote(case.long_handle), None, params)
    except EngineError as err:
        row.update(carry="refused", code=err.code, message_chars=len(err.message))
        row["ok"] = case.expect == "refuse" and bool(err.message.strip())
        return row, [before, _text_panel(before.shape, f"refused ({err.code}): {err.message}")]
    # Measured on what is delivered: the engine's JPEG, decoded.
    out = decode(jpeg_bytes(placed.image, quality=95))
    gap = frame_gap(placed.bag_alpha)
    body_h, body_w = body_size(placed.bag_alpha, placed.handle_alpha)
    size_err = abs(body_h / (placed.ppcm * float(case.params["height"])) - 1.0)
    width_err = abs(body_w / (placed.ppcm * float(case.params["width"])) - 1.0)
    row.update(carry=placed.carry, side=placed.side, extended_px=placed.extended_rows,
               border_gap_px=gap, size_err=size_err, width_err=width_err)
    # A check of the scale itself on full-length photos: stature from the silhouette.
    silhouette = stature_scale(before, float(case.params.get("model_height_cm", 175)))
    if silhouette is not None:
        expected = silhouette * float(case.params["height"])
        row["size_err_by_silhouette"] = abs(body_h / expected - 1.0)
    images = [before, out]
    if placed.carry == "hand":
        n, de = grip(out, placed)
        row.update(grip_overlap_px=n, grip_dE=de, grip_depth=grip_depth(placed), bag_tilt_deg=placed.tilt_deg,
                   forearm_deg=placed.forearm_deg if placed.forearm_deg is not None else "")
        images.append(_grip_panel(out, placed))
    carry_ok = placed.carry.startswith(case.expect) or case.expect == "refuse"
    row["ok"] = gap > 0 and carry_ok
    return row, images


def _grip_panel(out: np.ndarray, placed: baghold.Placement) -> np.ndarray:
    """The grip zoomed: the output, and beside it the hand's mask (red) over the handle's
    matte (green), overlap yellow."""
    ys, xs = np.nonzero(placed.fingers > 0.5)
    cx, cy = int(xs.mean()), int(ys.mean())
    r = max(16, int(1.6 * max(np.ptp(ys), np.ptp(xs))))
    h, w = out.shape[:2]
    x0, y0, x1, y1 = max(0, cx - r), max(0, cy - r), min(w, cx + r), min(h, cy + r)
    diag = np.stack([placed.fingers, placed.handle_alpha, 0.35 * placed.bag_alpha], -1)
    crop = out[y0:y1, x0:x1]
    mask = (np.clip(diag[y0:y1, x0:x1], 0, 1) * 255).astype(np.uint8)
    return np.hstack([crop, np.full((crop.shape[0], 2, 3), 255, np.uint8), mask])


def _text_panel(shape: tuple[int, ...], text: str) -> np.ndarray:
    h, w = shape[:2]
    im = Image.new("RGB", (w, h), (235, 235, 235))
    draw = ImageDraw.Draw(im)
    words, lines, line = text.split(), [], ""
    per_line = max(20, w // 7)
    for word in words:
        if len(line) + len(word) + 1 > per_line:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    lines.append(line)
    for i, ln in enumerate(lines):
        draw.text((8, 8 + 14 * i), ln, fill=(120, 0, 0))
    return np.asarray(im)


def _num(value: object) -> float:
    return float(value)  # type: ignore[arg-type]


def bars(rows: list[dict[str, object]]) -> list[Bar]:
    placed = [r for r in rows if r["carry"] != "refused"]
    held = [r for r in placed if r["carry"] == "hand"]
    touching = sum(1 for r in placed if _num(r["border_gap_px"]) <= 0)
    wrong = sum(1 for r in rows if not r["ok"])
    overlap = min((_num(r["grip_overlap_px"]) for r in held), default=float("nan"))
    grip_de = max((_num(r["grip_dE"]) for r in held), default=float("nan"))
    size = max((_num(r["size_err"]) for r in placed), default=float("nan"))
    depth = max((_num(r["grip_depth"]) for r in held), default=float("nan"))
    return [
        Bar("bags touching a border of the output", float(touching), 0.0),
        Bar("cases with the wrong outcome (cut, wrong carry, refusal without reason)",
            float(wrong), 0.0),
        Bar("grip overlap of hand mask and handle, smallest", overlap, 1.0, at_least=True,
            unit=" px"),
        Bar("ΔE2000 of the hand over the handle, worst mean", grip_de, GRIP_DE_LIMIT),
        Bar("where the handle comes out from under the fingers (MCP 0, PIP 1), worst",
            depth, 1.0, unit=" segments"),
        Bar("bag body height error, worst", 100 * size, 100 * SIZE_LIMIT, unit="%"),
    ]


def measure(out_dir: Path) -> ToolReport:
    rows, sheet_rows = [], []
    for case in CASES:
        row, images = run_case(case)
        rows.append(row)
        sheet_rows.append((f"{case.label} ({case.model}): {row['carry']}", images))
    report = ToolReport("baghold", bars=bars(rows), rows=rows)
    report.sheet = contact_sheet(out_dir / "baghold.png", sheet_rows)
    report.notes.append("Size is measured against the engine's body scale (stature when head "
                        "and feet are in frame, else torso and shoulder proportions).")
    return report
