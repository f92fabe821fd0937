"""Flats: does one sync make one look worn together, are the shoes at the feet, and is no
output blank?

- One look: the sync's grouping rule (``drives.looks``) is given what the outside tester
  synced, a top and a pair of shoes named by their own SKUs; it must make one look holding
  both (the API test in tests/drives/test_flats_sync.py runs the same through the real sync).
- Worn together: the engine dresses each full-length model in that look; the front image
  must show the tee on the torso (share of the pose's torso box within ΔE2000 12 of the tee's
  main colour) and the shoes at the feet.
- Shoes at the feet: the pose of the model photo (before) gives each ankle and the floor line
  (lowest of heel and toe). The shoes are found in the output by difference, not by asking the
  engine: pixels below the shins that changed and are not the backdrop, split between the feet
  at the ankles' midpoint. Per foot, the ankle's distance to its shoe box (the box extended
  upward by a third of its height: an ankle stands in the collar or just above it) and the gap
  between the box's bottom and the sole line of the model's own shoe in the photo (its lowest
  pixel apart from the backdrop under that ankle and nearest that foot, so a foot stepping
  behind the other does not take the front shoe's sole for its own; the pose's heel and toe
  points sit inside the foot, a few per cent above the sole), both in per cent of the
  figure's height.
- Shoe size: per foot, the width of its shoe box over the shin's length (knee to ankle, in
  the photo's pose). A shoe is about 0.6 of the shin long seen from the side and far
  narrower seen from the front; a shoe sized off the model's own (a stiletto's heel, a boot's
  shaft, trousers over it) or off the product shot comes out wider than the shin is long
  allows, 0.75 at most.
- Blank: every delivered output's luminance standard deviation and share of pixels apart from
  its backdrop (the median colour of its outer frame); an output under 8 or under 2 % is
  blank. The cases include the one the tester saw blank (shoes alone: their back view).
  A refusal where the case can work (a full-length model, no model at all) fails its bar too.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from drives.looks import FlatFile, group_looks
from tests.fidelity.common import Bar, ToolReport, contact_sheet, decode, fixture_bytes, photo
from workers.engines import flats
from workers.engines.base import EngineError
from workers.engines.imaging import pose as pose_mod
from workers.engines.imaging.color import delta_e2000
from workers.engines.imaging.cutout import cut_out_product

TOP = "garment/050191_1.jpg"  # green tee
SHOES = "shoes/shoes_049205_0.jpg"  # black sneakers (a pair)
HALF_LENGTH = "model/01861_00.jpg"

MIN_TOP_SHARE = 0.5
MAX_SHOE_OFFSET = 2.0  # % of the figure's height
MAX_FLOOR_GAP = 3.0  # % of the figure's height
MAX_SHOE_TO_SHIN = 0.75  # a shoe's width on the picture / the shin's length (knee to ankle)
# Pixels off the person's silhouette (2 px out) between the shoulders' and the hips' rows that
# the look changed, per 100 pixels of the person in those rows: a top standing off the body
# (squared shoulders, a sleeve past the arm) or its faded rim shows there as a ghost of the new
# colour over the backdrop.
MAX_OFF_BODY = 1.0  # %
MIN_STD = 8.0
MIN_SHARE = 0.02


@dataclass(frozen=True)
class Case:
    model: str
    shoes: str = SHOES
    note: str = ""


# Full-length models whose own shoes differ from the product's: sneakers under jeans, flats
# under long printed trousers, stiletto heels, ankle boots, a step forward on a grey backdrop.
FULL_LENGTH = [
    Case("model/051918_0.jpg", note="sneakers, jeans"),
    Case("model/049447_0.jpg", note="flats, long printed trousers"),
    Case("model/052964_0.jpg", note="stilettos, bare legs"),
    Case("model/053228_0.jpg", note="ankle boots"),
    Case("model/049713_0.jpg", note="walking, grey backdrop"),
]


def is_visible(rgb: np.ndarray) -> bool:
    std, share = content(rgb)
    return std >= MIN_STD and share >= MIN_SHARE


def content(rgb: np.ndarray) -> tuple[float, float]:
    """(luminance std, share of pixels apart from the backdrop = median of the outer frame)."""
    h, w = rgb.shape[:2]
    m = max(2, min(h, w) // 50)
    frame = np.concatenate([rgb[:m].reshape(-1, 3), rgb[-m:].reshape(-1, 3),
                            rgb[:, :m].reshape(-1, 3), rgb[:, -m:].reshape(-1, 3)])
    bg = np.median(frame, axis=0)
    share = float((np.abs(rgb.astype(np.float32) - bg).max(axis=2) > 30).mean())
    lum = 0.299 * rgb[..., 0] + 0.587 * rgb[..., 1] + 0.114 * rgb[..., 2]
    return float(lum.std()), share


@functools.cache
def _main_colour(name: str) -> tuple[int, int, int]:
    cut = cut_out_product(photo(name))
    px = cut.rgb[cut.alpha > 0.9].astype(np.float32)
    crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.5)
    _, labels, centres = cv2.kmeans(px, 3, None, crit, 2, cv2.KMEANS_PP_CENTERS)
    c = centres[np.bincount(labels.ravel()).argmax()]
    return int(c[0]), int(c[1]), int(c[2])


@functools.cache
def _pose_of(name: str) -> dict[str, tuple[float, float]]:
    p = pose_mod.detect_pose(photo(name))
    if p is None:
        raise AssertionError(f"no pose on {name}")
    return dict(p.points)


def _feet(points: dict[str, tuple[float, float]]) -> list[tuple[np.ndarray, float, float]]:
    """(ankle, floor y, knee y) per foot, image-left first."""
    feet = []
    for side in ("left", "right"):
        ankle = np.array(points[f"{side}_ankle"])
        floor = max(points.get(f"{side}_{k}", ankle)[1] for k in ("heel", "foot_index", "ankle"))
        feet.append((ankle, float(floor), float(points[f"{side}_knee"][1])))
    return sorted(feet, key=lambda f: f[0][0])


def shoe_boxes(before: np.ndarray, after: np.ndarray, points: dict[str, tuple[float, float]]
               ) -> list[tuple[int, int, int, int] | None]:
    """Per foot, the box (x0, y0, x1, y1) of what the output shows new at the feet: changed
    pixels below the shins that are not the backdrop."""
    feet = _feet(points)
    h, w = before.shape[:2]
    y_from = int(min(k + 0.5 * (a[1] - k) for a, _, k in feet))
    band = after[y_from:].astype(np.float32)
    side = max(2, w // 12)
    bg = np.median(np.concatenate([band[:, :side], band[:, -side:]], axis=1).reshape(-1, 3), axis=0)
    changed = np.abs(band - before[y_from:].astype(np.float32)).max(axis=2) > 40
    solid = np.abs(band - bg).max(axis=2) > 30
    m = cv2.morphologyEx((changed & solid).astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    # Each pixel goes to the foot whose ankle-to-floor line is nearest (a foot stepping behind
    # the other is not cut in half by a vertical split).
    ys, xs = np.mgrid[y_from:h, 0:w].astype(np.float32)
    dist = []
    for ankle, floor, _ in feet:
        ty = np.clip(ys, ankle[1], max(floor, ankle[1] + 1))
        dist.append(np.hypot(xs - ankle[0], ys - ty))
    nearest = np.argmin(np.stack(dist), axis=0)
    boxes: list[tuple[int, int, int, int] | None] = []
    for i in range(len(feet)):
        part = (m > 0) & (nearest == i)
        if part.sum() < 20:
            boxes.append(None)
            continue
        n, labels, stats, _ = cv2.connectedComponentsWithStats(part.astype(np.uint8), connectivity=8)
        keep = np.isin(labels, [j for j in range(1, n) if stats[j, cv2.CC_STAT_AREA] >= 0.1 * part.sum()])
        yy, xx = np.nonzero(keep)
        boxes.append((int(xx.min()), y_from + int(yy.min()), int(xx.max()) + 1, y_from + int(yy.max()) + 1))
    return boxes


def sole_lines(before: np.ndarray, points: dict[str, tuple[float, float]]) -> list[float]:
    """Per foot, the lowest row under the ankle that is not the backdrop in the photo: where
    the model's own shoe meets the floor."""
    feet = _feet(points)
    h, w = before.shape[:2]
    y_from = int(min(a[1] for a, _, _ in feet))
    band = before[y_from:].astype(np.float32)
    side = max(2, w // 12)
    bg = np.median(np.concatenate([band[:, :side], band[:, -side:]], axis=1).reshape(-1, 3), axis=0)
    solid = cv2.morphologyEx((np.abs(band - bg).max(axis=2) > 30).astype(np.uint8),
                             cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)) > 0
    # Each pixel goes to the foot whose ankle-to-floor line is nearest, as in ``shoe_boxes``: a
    # foot stepping behind the other does not take the front shoe's sole for its own.
    ys, xs = np.mgrid[y_from:h, 0:w].astype(np.float32)
    dist = []
    for ankle, floor, _ in feet:
        ty = np.clip(ys, ankle[1], max(floor, ankle[1] + 1))
        dist.append(np.hypot(xs - ankle[0], ys - ty))
    nearest = np.argmin(np.stack(dist), axis=0)
    lines = []
    for i, (ankle, floor, _) in enumerate(feet):
        x = int(ankle[0])
        mine = solid & (nearest == i)
        cols = mine[:, max(0, x - 6):min(w, x + 7)].any(axis=1)
        rows = np.nonzero(cols)[0]
        lines.append(float(y_from + rows[-1] + 1) if len(rows) else floor)
    return lines


def on_model_figures(front: np.ndarray, case: Case) -> dict[str, Any]:
    """The tee on the torso and the shoes at the feet of one front on-model image."""
    before = photo(case.model)
    points = _pose_of(case.model)
    mask = pose_mod.person_mask(before) > 0.5
    rows = np.nonzero(mask.any(axis=1))[0]
    height = float(rows[-1] - rows[0])
    # Torso box: between the shoulders, from a little under them to a little above the hips.
    ls, rs = np.array(points["left_shoulder"]), np.array(points["right_shoulder"])
    lh, rh = np.array(points["left_hip"]), np.array(points["right_hip"])
    x0, x1 = sorted((ls[0], rs[0]))
    y0 = (ls[1] + rs[1]) / 2
    y1 = (lh[1] + rh[1]) / 2
    pad = 0.15 * (x1 - x0)
    box = front[int(y0 + 0.15 * (y1 - y0)):int(y1 - 0.1 * (y1 - y0)), int(x0 + pad):int(x1 - pad)]
    px = box.reshape(-1, 3)
    tee = np.broadcast_to(np.array(_main_colour(TOP), np.uint8), px.shape)
    top_share = float((delta_e2000(px, tee) < 12).mean()) if len(px) else 0.0
    band = slice(int(y0 - 0.1 * (y1 - y0)), int(y1))
    near = cv2.dilate(mask.astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
    changed = delta_e2000(front[band].reshape(-1, 3), before[band].reshape(-1, 3)) > 6
    off = changed.reshape(near[band].shape) & ~near[band]
    off_body = 100.0 * float(off.sum()) / max(1, int(mask[band].sum()))
    offsets, gaps, widths = [], [], []
    boxes = shoe_boxes(before, front, points)
    soles = sole_lines(before, points)
    for (ankle, _, knee), sole, b in zip(_feet(points), soles, boxes, strict=True):
        if b is None:
            offsets.append(float("inf"))
            gaps.append(float("inf"))
            widths.append(float("inf"))
            continue
        bx0, by0, bx1, by1 = b
        widths.append((bx1 - bx0) / max(ankle[1] - knee, 1.0))
        top = by0 - (by1 - by0) / 3
        dx = max(bx0 - ankle[0], 0.0, ankle[0] - bx1)
        dy = max(top - ankle[1], 0.0, ankle[1] - by1)
        offsets.append(100.0 * float(np.hypot(dx, dy)) / height)
        gaps.append(100.0 * abs(by1 - sole) / height)
    return {"top_share": top_share, "off_body": off_body, "shoe_offset": max(offsets),
            "floor_gap": max(gaps),
            "shoe_to_shin": max(widths),
            "boxes": boxes, "feet": _feet(points), "soles": soles}


def _diagnostic(front: np.ndarray, figures: dict[str, Any]) -> np.ndarray:
    out = front.copy()
    for b in figures["boxes"]:
        if b is not None:
            cv2.rectangle(out, b[:2], b[2:], (255, 0, 255), 2)
    for (ankle, _, _), sole in zip(figures["feet"], figures["soles"], strict=True):
        cv2.circle(out, (int(ankle[0]), int(ankle[1])), 4, (0, 160, 255), -1)
        cv2.line(out, (int(ankle[0]) - 15, int(sole)), (int(ankle[0]) + 15, int(sole)), (0, 160, 255), 2)
    return out


def tester_sync() -> list[Any]:
    """What the outside tester synced: a top and shoes, each named by its own SKU."""
    files = [FlatFile("top", f"TEE-4471_{v}", True, ("top", v)) for v in ("FRONT", "BACK")]
    files += [FlatFile("shoes", f"SNK_0093_{v}", True, ("shoes", v)) for v in ("FRONT", "BACK", "SIDE")]
    looks, _ = group_looks(files)
    return looks


def look_params(model: str | None, *, top: bool = True) -> dict[str, Any]:
    looks = tester_sync()
    params: dict[str, Any] = {"model": fixture_bytes(model) if model else None}
    for cat, views in looks[0].items.items():
        if cat == "top" and not top:
            continue
        source = TOP if cat == "top" else SHOES
        params[cat] = {view: fixture_bytes(source) for view in views}
    return params


def measure(out_dir: Path) -> ToolReport:
    report = ToolReport("flats")
    looks = tester_sync()
    worn_together = len(looks[0].items) if len(looks) == 1 else 0
    sheet_rows: list[tuple[str, list[np.ndarray]]] = []
    stds, shares, blank, wrong_refusals = [], [], 0, 0
    top_shares, offsets, gaps, widths, off_body = [], [], [], [], []

    def outputs_of(label: str, params: dict[str, Any], expect_ok: bool) -> list[np.ndarray]:
        nonlocal blank, wrong_refusals
        try:
            images = [decode(o.data) for o in flats.run(params, lambda *_: None)]
        except EngineError as exc:
            wrong_refusals += int(expect_ok)
            report.rows.append({"case": label, "outputs": 0, "refused": exc.code,
                                "message": exc.message[:70]})
            return []
        figures = [content(im) for im in images]
        stds.extend(f[0] for f in figures)
        shares.extend(f[1] for f in figures)
        blank += sum(not is_visible(im) for im in images)
        report.rows.append({"case": label, "outputs": len(images), "refused": "",
                            "min lum std": min(f[0] for f in figures),
                            "min non-backdrop %": 100 * min(f[1] for f in figures)})
        return images

    for case in FULL_LENGTH:
        label = f"top+shoes on {Path(case.model).stem} ({case.note})"
        images = outputs_of(label, look_params(case.model), True)
        if not images:
            top_shares.append(0.0)
            off_body.append(float("inf"))
            offsets.append(float("inf"))
            gaps.append(float("inf"))
            widths.append(float("inf"))
            continue
        fig = on_model_figures(images[0], case)
        top_shares.append(fig["top_share"])
        off_body.append(fig["off_body"])
        offsets.append(fig["shoe_offset"])
        gaps.append(fig["floor_gap"])
        widths.append(fig["shoe_to_shin"])
        report.rows[-1].update({"tee on torso": fig["top_share"],
                                "changed off body %": fig["off_body"],
                                "ankle-shoe %": fig["shoe_offset"],
                                "floor gap %": fig["floor_gap"],
                                "shoe/shin": fig["shoe_to_shin"]})
        sheet_rows.append((label + "  (model | front | back | flat-lay | shoes found, ankles)",
                           [photo(case.model), *images, _diagnostic(images[0], fig)]))

    # The tester's blank output: shoes alone (their back view), with and without a model.
    for label, params, ok in [
        ("shoes alone on 051918_0 (full-length)", look_params("model/051918_0.jpg", top=False), True),
        ("shoes alone, no model", look_params(None, top=False), True),
        ("top+shoes, no model", look_params(None), True),
        ("shoes alone on 01861_00 (half-length)", look_params(HALF_LENGTH, top=False), False),
        # Her long sleeves under the tee's short ones: the refusals' case (arms_covered).
        ("top+shoes on 01861_00 (half-length, long sleeves)", look_params(HALF_LENGTH), False),
    ]:
        images = outputs_of(label, params, ok)
        if images:
            sheet_rows.append((label, images))
        else:
            sheet_rows.append((label + ": refused, " + str(report.rows[-1]["refused"]),
                               [photo(HALF_LENGTH)] if "01861" in label else []))
    sheet_rows = [r for r in sheet_rows if r[1]]

    report.bars = [
        Bar("products worn in the one look of a top + shoes sync", worn_together, 2, at_least=True),
        Bar("blank outputs delivered", blank, 0),
        Bar("looks refused that can be made", wrong_refusals, 0),
        Bar("lowest luminance std of an output", min(stds) if stds else float("nan"), MIN_STD,
            at_least=True),
        Bar("lowest non-backdrop share of an output", 100 * min(shares) if shares else float("nan"),
            100 * MIN_SHARE, at_least=True, unit="%"),
        Bar("lowest tee share of the torso (full-length)", min(top_shares), MIN_TOP_SHARE,
            at_least=True),
        Bar("worst share changed off the silhouette beside the top (full-length)",
            max(off_body), MAX_OFF_BODY, unit="%"),
        Bar("worst ankle-to-shoe distance (full-length)", max(offsets), MAX_SHOE_OFFSET, unit="%"),
        Bar("worst shoe bottom to the own sole line (full-length)", max(gaps), MAX_FLOOR_GAP, unit="%"),
        Bar("widest shoe to its shin's length (full-length)", max(widths), MAX_SHOE_TO_SHIN),
    ]
    report.sheet = contact_sheet(out_dir / "flats.png", sheet_rows)
    report.notes.append("Distances in % of the figure's height (person mask of the photo).")
    return report
