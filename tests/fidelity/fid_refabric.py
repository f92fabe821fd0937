"""Refabric measured: the new fabric keeps the garment's folds, reaches the outline, leaves the
background, prints and logos alone, does not burn highlights, and is drawn at its real size.

Cases are product shots and model photos with fabrics and finishes from the card's lists,
chosen to stress each bar: a shiny finish on a dark garment (burn), a metallic finish that
changes the colour (a ring of the old colour would show), garments with prints and logos, and
coarse fabrics whose repeat can be measured in centimetres.

Bars (the Recolor bars' analogues for a tool that keeps the garment's colour):
- background ΔE2000 < 1 (mean outside the garment, its soft rim and 2 px more);
- ring: in a 3 px band inside the outline, the mean ΔE2000 to the garment's interior
  new-fabric mean colour ≤ 6 (no ring of the old fabric or colour);
- print/logo ΔE2000 ≤ 5 (mean over the print's pixels, before vs after), and ≤ 10 for each
  print element on its own (a connected piece: a letter, a label), the worst counted, so a
  few broken letters are not hidden in a large print's mean;
- shading kept: correlation of the low-pass lightness before and after inside the garment
  ≥ 0.8 (the folds stay where they were);
- burn: share of the garment's fabric pixels that clip (a channel at 254 or 255) beyond those that
  already clipped ≤ 0.5 %;
- texture scale: the dominant horizontal repeat of the rendered relief, in cm (pixels over
  pixels per cm, taken independently of the engine: the mask's height over the garment length
  the engine documents on a product shot, the pose's shoulder width over 40 cm on a model),
  within 15 % of the fabric's stated period, on a product shot and on a model photo;
- no aliasing: of the power the edit adds to the lightness's 2-D spectrum inside the garment
  (32 px Hann windows, above 1/8 cycle per pixel), at most 20 % lies beyond 0.42 cycle per
  pixel. A repeat that fine cannot be shown by the pixels: it is what a weave drawn finer than
  they allow turns into (a diagonal twill of 2-3 px reads as a checkerboard, a knit's loops
  as a grid, a plain weave as a pixel check), and what a band-limited texture leaves out;
- no grid: of that added fine power, at most 10 % in sharp spectral peaks (a tiled repeat)
  running in a second direction 30° or more from the strongest one's: a grid or a checkerboard
  repeats two ways, a twill or a knit's wales one way, and heather, slubs and fuzz no way.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

import cv2
import numpy as np

from tests.fidelity.common import Bar, ToolReport, contact_sheet, photo_any
from workers.engines.imaging import garment
from workers.engines.imaging.color import delta_e2000, srgb8_to_lab, srgb8_to_oklab

SHOULDER_CM = 40.0  # adult shoulder width between the pose's shoulder points
TORSO_CM = 50.0  # adult shoulders' midpoint to hips' midpoint


@dataclass(frozen=True)
class Case:
    name: str
    garment_type: str
    fabric: str
    finish: str
    worn: bool
    scale: bool = False  # measure the texture's repeat in cm on this case


CASES: tuple[Case, ...] = (
    Case("swatch/navy", "tshirt", "cotton", "metallic", False),
    Case("swatch/red", "tshirt", "silk", "glossy", False),
    Case("garment/051988_1", "trousers", "denim", "textured", False),
    Case("garment/051988_1", "trousers", "wool", "matte", False, scale=True),
    Case("garment/050181_1", "tshirt", "silk", "glossy", False),
    Case("garment/049805_1", "sweatshirt", "cotton", "metallic", False),
    Case("garment/00151_00", "top", "velvet", "textured", False),
    Case("model/049447_0", "tshirt", "wool", "textured", True, scale=True),
    Case("model/049205_0", "tshirt", "leather", "glossy", True),
    Case("model/model_1", "jeans", "tweed", "textured", True),
    Case("model/01861_00", "top", "nylon", "textured", True, scale=True),
)


def swatch(kind: str) -> tuple[np.ndarray, np.ndarray]:
    """A synthetic product shot: a tee-shaped garment of one colour with soft folds and an
    antialiased outline on a plain backdrop, and its exact mask. Its band and interior are the
    same cloth, so any difference after the edit is a ring the engine made."""
    h, w = 512, 384
    colour, backdrop = {"navy": ((28, 32, 70), (245, 245, 243)),
                        "red": ((200, 30, 40), (120, 124, 128))}[kind]
    big = np.zeros((h * 4, w * 4), np.uint8)
    body = np.array([[90, 60], [294, 60], [360, 170], [310, 200], [290, 160], [290, 470],
                     [94, 470], [94, 160], [74, 200], [24, 170]], np.int32) * 4
    cv2.fillPoly(big, [body], 255)
    cover = cv2.resize(big.astype(np.float32) / 255, (w, h), interpolation=cv2.INTER_AREA)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    folds = 1.0 + 0.18 * np.sin(xx / 23.0 + 0.3 * np.sin(yy / 40.0)) - 0.1 * (yy / h)
    cloth = np.clip(np.array(colour, np.float32) * folds[..., None], 0, 255)
    img = cloth * cover[..., None] + np.array(backdrop, np.float32) * (1 - cover[..., None])
    return np.clip(img + 0.5, 0, 255).astype(np.uint8), cover


def load(name: str) -> np.ndarray:
    if name.startswith("swatch/"):
        return swatch(name.split("/")[1])[0]
    return photo_any(name)


@cache
def mask_of(name: str, garment_type: str) -> np.ndarray:
    if name.startswith("swatch/"):
        return swatch(name.split("/")[1])[1]
    return garment.garment_mask(load(name), garment_type).mask


@cache
def render(case: Case):  # type: ignore[no-untyped-def]
    from workers.engines.refabric import refabric_image

    return refabric_image(load(case.name), fabric=case.fabric, finish=case.finish,
                          garment_type=case.garment_type,
                          mask=mask_of(case.name, case.garment_type))


# --- regions ----------------------------------------------------------------------------------


def inside_distance(mask: np.ndarray) -> np.ndarray:
    return cv2.distanceTransform((mask > 0.5).astype(np.uint8), cv2.DIST_L2, 5)


def background(mask: np.ndarray) -> np.ndarray:
    near = cv2.dilate((mask > 0.004).astype(np.uint8), np.ones((5, 5), np.uint8))
    return near == 0


def print_pixels(rgb: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Prints, logos and trims: garment pixels far in colour from the garment's own fabric.

    The fabric is the commonest colour (and its shades); a pixel more than 20 ΔE2000 from
    every shade of it, on a lightly smoothed copy so JPEG noise does not count, is print.
    """
    core = inside_distance(mask) > 2
    lab = srgb8_to_lab(cv2.GaussianBlur(rgb, (0, 0), 1.0)).astype(np.float32)
    px = lab[core]
    # Shades of the fabric: the modal chroma-hue bin, at every lightness the garment shows.
    ab = np.round(px[:, 1:] / 6).astype(int)
    keys, counts = np.unique(ab, axis=0, return_counts=True)
    main = keys[np.argmax(counts)] * 6.0
    chroma_gap = np.hypot(lab[..., 1] - main[0], lab[..., 2] - main[1])
    base = core & (chroma_gap < 8)
    lo, hi = np.percentile(lab[..., 0][base], [10, 90])
    light = lab[..., 0]
    light_gap = np.maximum(lo - light, light - hi)
    far = (chroma_gap > 12) | (light_gap > 12)
    out = core & far
    out = cv2.morphologyEx(out.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    # Printed, so with a crisp edge: a fade or a wash of another tone (worn jeans) is fabric.
    n, labels, _, _ = cv2.connectedComponentsWithStats(out, connectivity=8)
    grad = np.hypot(cv2.Sobel(lab[..., 0], cv2.CV_32F, 1, 0), cv2.Sobel(lab[..., 0], cv2.CV_32F,
                                                                        0, 1)) / 8
    grad += np.hypot(cv2.Sobel(chroma_gap.astype(np.float32), cv2.CV_32F, 1, 0),
                     cv2.Sobel(chroma_gap.astype(np.float32), cv2.CV_32F, 0, 1)) / 8
    rim = (out - cv2.erode(out, np.ones((3, 3), np.uint8))) > 0
    strength = np.bincount(labels[rim], weights=grad[rim], minlength=n)
    count = np.bincount(labels[rim], minlength=n)
    crisp = strength / np.maximum(count, 1) > 6.0  # ΔL* per pixel across the print's edge
    crisp[0] = False
    out = crisp[labels] & (out > 0)
    # The print's own antialiased edge is neither print nor fabric: leave it out.
    return cv2.erode(out.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0


# --- figures ----------------------------------------------------------------------------------


def background_de(before: np.ndarray, after: np.ndarray, mask: np.ndarray) -> float:
    bg = background(mask)
    return float(delta_e2000(before[bg], after[bg]).mean())


def ring_de(img: np.ndarray, mask: np.ndarray, prints: np.ndarray,
            control: bool = False) -> float:
    """Mean ΔE2000 of the 3 px band inside the outline to the new fabric's mean colour just
    inside it (4 to 12 px in, averaged over about 5 px along the outline), so a stripe or a
    shadow elsewhere on the garment does not count, a ring of another colour does.

    With ``control`` the same figure for a band 5 to 8 px in: what the cloth's own texture
    gives, which a ring has to stand out from."""
    dist = inside_distance(mask)
    grow = cv2.dilate(prints.astype(np.uint8), np.ones((7, 7), np.uint8)) > 0
    band = ((dist > 5) & (dist <= 8) if control else (dist > 0) & (dist <= 3)) & ~grow
    interior = ((dist > 4) & (dist <= 12) & ~grow).astype(np.float32)
    lab = srgb8_to_lab(img).astype(np.float32)
    den = cv2.GaussianBlur(interior, (0, 0), 5.0)
    ref = np.dstack([cv2.GaussianBlur(lab[..., c] * interior, (0, 0), 5.0) for c in range(3)])
    ref = ref / np.maximum(den, 1e-4)[..., None]
    band &= den > 0.02
    from skimage.color import deltaE_ciede2000

    return float(deltaE_ciede2000(lab[band], ref[band]).mean())


def ring_excess(before: np.ndarray, after: np.ndarray, mask: np.ndarray,
                prints: np.ndarray) -> float:
    """How much more the outline band stands out from the cloth after the edit than before,
    each measured against the cloth's own texture a few pixels further in."""

    def stands_out(img: np.ndarray) -> float:
        return ring_de(img, mask, prints) - ring_de(img, mask, prints, control=True)

    return stands_out(after) - stands_out(before)


def print_de(before: np.ndarray, after: np.ndarray, prints: np.ndarray) -> float:
    if prints.sum() < 30:
        return float("nan")
    return float(delta_e2000(before[prints], after[prints]).mean())


def print_element_de(before: np.ndarray, after: np.ndarray, prints: np.ndarray) -> float:
    """The print element (a letter, a label, an emblem: a connected piece of print) that
    changed most, its mean ΔE2000. A print's mean hides a few broken letters among many kept
    ones; each element on its own does not. Pieces under 6 px are noise of the detector."""
    n, labels, stats, _ = cv2.connectedComponentsWithStats(prints.astype(np.uint8),
                                                           connectivity=8)
    big = np.nonzero(stats[1:, cv2.CC_STAT_AREA] >= 6)[0] + 1
    if not len(big):
        return float("nan")
    de = delta_e2000(before, after)
    sums = np.bincount(labels.ravel(), weights=de.ravel(), minlength=n)
    return float(np.max(sums[big] / stats[big, cv2.CC_STAT_AREA]))


def shading_corr(before: np.ndarray, after: np.ndarray, mask: np.ndarray,
                 prints: np.ndarray) -> float:
    """Pearson correlation of low-pass lightness inside the garment (prints left out)."""
    where = (inside_distance(mask) > 3) & ~(cv2.dilate(prints.astype(np.uint8),
                                                       np.ones((9, 9), np.uint8)) > 0)
    ys, _ = np.nonzero(mask > 0.5)
    sigma = max(3.0, 0.02 * float(ys.max() - ys.min()))
    wgt = where.astype(np.float32)

    def lowpass(img: np.ndarray) -> np.ndarray:
        L = srgb8_to_oklab(img)[..., 0]
        return cv2.GaussianBlur(L * wgt, (0, 0), sigma) / np.maximum(
            cv2.GaussianBlur(wgt, (0, 0), sigma), 1e-4)

    a, b = lowpass(before)[where], lowpass(after)[where]
    return float(np.corrcoef(a, b)[0, 1])


def burn_share(before: np.ndarray, after: np.ndarray, mask: np.ndarray,
               prints: np.ndarray) -> float:
    fabric = (inside_distance(mask) > 2) & ~prints
    clipped_before = before[fabric].max(axis=1) > 253
    clipped_after = after[fabric].max(axis=1) > 253
    return float((clipped_after & ~clipped_before).mean())


def pixels_per_cm(case: Case, mask: np.ndarray) -> float:
    """Measured here, not read from the engine: on a model, the pose's shoulder width over
    40 cm, or its shoulder-to-hip length over 50 cm when the body is turned (a turn
    foreshortens the shoulders, never the torso); on a product shot, the mask's height over
    the garment length the engine documents for that type."""
    if case.worn:
        from workers.engines.imaging import pose as pose_mod

        p = pose_mod.detect_pose(load(case.name))
        assert p is not None, f"no pose on {case.name}"
        pts = {k: np.array(v) for k, v in p.points.items()}
        shoulders = float(np.linalg.norm(pts["left_shoulder"] - pts["right_shoulder"]))
        torso = float(np.linalg.norm((pts["left_shoulder"] + pts["right_shoulder"]) / 2
                                     - (pts["left_hip"] + pts["right_hip"]) / 2))
        return max(shoulders / SHOULDER_CM, torso / TORSO_CM)
    from workers.engines.refabric import GARMENT_LENGTH_CM

    ys, _ = np.nonzero(mask > 0.5)
    return float(ys.max() - ys.min() + 1) / GARMENT_LENGTH_CM[case.garment_type]


def _row_power(img: np.ndarray, where: np.ndarray, n: int) -> tuple[np.ndarray, int]:
    L = srgb8_to_oklab(img)[..., 0]
    win = np.hanning(n).astype(np.float32)
    power = np.zeros(n // 2 + 1)
    segments = 0
    for y in range(0, where.shape[0], 2):
        row = where[y]
        x = 0
        while x + n <= row.size:
            if row[x:x + n].all():
                seg = L[y, x:x + n]
                power += np.abs(np.fft.rfft((seg - seg.mean()) * win)) ** 2
                segments += 1
                x += n // 2
            else:
                x += 4
    return power, segments


def dominant_period_px(before: np.ndarray, after: np.ndarray, where: np.ndarray,
                       longest: float = 24.0) -> float:
    """The new relief's dominant horizontal repeat in pixels: the peak of the power the edit
    added to the rows' spectrum (after minus before, 64 px Hann windows inside ``where``), so
    the photo's own shading and detail do not count; the peak is refined by a parabola."""
    n = 64
    p_after, segments = _row_power(after, where, n)
    p_before, _ = _row_power(before, where, n)
    if segments < 4:
        return float("nan")
    ratio = p_after - p_before  # the power the new relief added
    freqs = np.fft.rfftfreq(n)
    idx = np.nonzero((freqs >= 1.0 / longest) & (freqs <= 1.0 / 2.2))[0]
    k = int(idx[np.argmax(ratio[idx])])
    shift = 0.0
    if 0 < k < len(ratio) - 1:
        a, b, c = ratio[k - 1:k + 2]
        if (a - 2 * b + c) != 0:
            shift = float(np.clip(0.5 * (a - c) / (a - 2 * b + c), -0.5, 0.5))
    return float(n / (k + shift))


ALIAS_F = 0.42  # cycles per pixel: finer than this, a repeat reads as a pixel grid or moiré


def _spectrum_2d(img: np.ndarray, where: np.ndarray, n: int = 32) -> tuple[np.ndarray, int]:
    """Mean 2-D power spectrum of the lightness over n x n Hann windows wholly inside
    ``where`` (half-overlapping), zero frequency at the centre."""
    L = srgb8_to_oklab(img)[..., 0].astype(np.float64)
    win = np.outer(np.hanning(n), np.hanning(n))
    ok = cv2.erode(where.astype(np.uint8), np.ones((n, n), np.uint8), anchor=(0, 0))
    power = np.zeros((n, n))
    count = 0
    for y in range(0, where.shape[0] - n, n // 2):
        for x in range(0, where.shape[1] - n, n // 2):
            if ok[y, x]:
                seg = L[y:y + n, x:x + n]
                power += np.abs(np.fft.fft2((seg - seg.mean()) * win)) ** 2
                count += 1
    return np.fft.fftshift(power / max(count, 1)), count


def alias_share(before: np.ndarray, after: np.ndarray, where: np.ndarray,
                n: int = 32) -> float:
    """Of the power the edit added to the fine detail (the spectrum after minus before, above
    1/8 cycle per pixel), the share beyond ALIAS_F cycles per pixel: detail the pixels cannot
    show as a repeat, seen as a checkerboard, a pixel grid or moiré. Texture band-limited to
    the pixel scale puts next to none there."""
    p_before, count = _spectrum_2d(before, where, n)
    p_after, _ = _spectrum_2d(after, where, n)
    if count < 2:
        return float("nan")
    f = np.fft.fftshift(np.fft.fftfreq(n))
    radius = np.hypot(*np.meshgrid(f, f))
    added = np.maximum(p_after - p_before, 0.0)
    fine = added[radius >= 1 / 8].sum()
    return float(added[radius >= ALIAS_F].sum() / fine) if fine > 0 else 0.0


def lattice_share(before: np.ndarray, after: np.ndarray, where: np.ndarray,
                  n: int = 32) -> float:
    """How much of the fine detail the edit added is a lattice: sharp spectral peaks (a bin
    above 4x its ring's median and 4x its power before) in two directions at least 30° apart,
    as a grid or a checkerboard has. The weaker direction's peak power over all the added
    power above 1/8 cycle per pixel. A twill or a knit's wales repeat one way (one direction);
    heather, slubs and fuzz are noise (no peaks)."""
    p_before, count = _spectrum_2d(before, where, n)
    p_after, _ = _spectrum_2d(after, where, n)
    if count < 2:
        return float("nan")
    f = np.fft.fftshift(np.fft.fftfreq(n))
    fx, fy = np.meshgrid(f, f)
    radius = np.hypot(fx, fy)
    band = radius >= 1 / 8
    added = np.maximum(p_after - p_before, 0.0)
    total = added[band].sum()
    if total <= 0:
        return 0.0
    ring = np.round(radius * n).astype(int)
    peak = np.zeros_like(added)
    for r in np.unique(ring[band]):
        on = (ring == r) & band
        med = np.median(added[on])
        peak[on] = np.where((added[on] > 4 * med) & (p_after[on] > 4 * p_before[on]),
                            added[on] - med, 0.0)
    # Power of the peaks by orientation (a repeat's direction, modulo 180°), 15° sectors.
    angle = (np.degrees(np.arctan2(fy, fx)) % 180.0)[band]
    sectors = np.bincount(np.minimum((angle // 15).astype(int), 11), weights=peak[band],
                          minlength=12)
    main = int(np.argmax(sectors))
    away = [s for s in range(12) if min(abs(s - main), 12 - abs(s - main)) >= 2]
    return float(sectors[away].max() / total)


def measured_scale_cm(case: Case, after: np.ndarray, mask: np.ndarray,
                      prints: np.ndarray) -> tuple[float, float]:
    """(measured period in cm, stated period in cm) of the case's fabric."""
    from workers.engines.refabric import FABRICS

    where = (inside_distance(mask) > 4) & ~(cv2.dilate(prints.astype(np.uint8),
                                                       np.ones((9, 9), np.uint8)) > 0)
    period = dominant_period_px(load(case.name), after, where)
    return period / pixels_per_cm(case, mask), float(FABRICS[case.fabric].period_cm)


def case_figures(case: Case) -> dict[str, object]:
    before = load(case.name)
    mask = mask_of(case.name, case.garment_type)
    after = render(case).rgb
    prints = print_pixels(before, mask)
    row: dict[str, object] = {
        "case": f"{case.name.split('/')[-1]} {case.garment_type} → {case.fabric} {case.finish}",
        "background ΔE": background_de(before, after, mask),
        "ring ΔE (before)": ring_de(before, mask, prints),
        "ring ΔE": ring_de(after, mask, prints),
        "ring excess": ring_excess(before, after, mask, prints),
        "print px": int(prints.sum()),
        "print ΔE": print_de(before, after, prints),
        "element ΔE": print_element_de(before, after, prints),
        "shading r": shading_corr(before, after, mask, prints),
        "burn %": 100 * burn_share(before, after, mask, prints),
    }
    cloth = (inside_distance(mask) > 3) & ~(
        cv2.dilate(prints.astype(np.uint8), np.ones((9, 9), np.uint8)) > 0)
    row["alias %"] = 100 * alias_share(before, after, cloth)
    row["lattice %"] = 100 * lattice_share(before, after, cloth)
    if case.scale:
        got, stated = measured_scale_cm(case, after, mask, prints)
        row["period cm"] = got
        row["stated cm"] = stated
        row["scale err %"] = 100 * abs(got - stated) / stated
    return row


def _edge_zoom(img: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """A 4x zoom of the garment's outline where it is busiest (a ring would show here)."""
    m = (mask > 0.5).astype(np.uint8)
    edge = cv2.morphologyEx(m, cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8))
    ys, xs = np.nonzero(edge)
    i = len(ys) // 3
    y, x = int(ys[i]), int(xs[i])
    h, w = m.shape
    s = 40
    y0, x0 = int(np.clip(y - s, 0, h - 2 * s)), int(np.clip(x - s, 0, w - 2 * s))
    crop = img[y0:y0 + 2 * s, x0:x0 + 2 * s]
    return cv2.resize(crop, (8 * s, 8 * s), interpolation=cv2.INTER_NEAREST)


def measure(out_dir: Path) -> ToolReport:
    report = ToolReport("refabric")
    sheet_rows = []
    for case in CASES:
        report.rows.append(case_figures(case))
        before, mask = load(case.name), mask_of(case.name, case.garment_type)
        after = render(case).rgb
        sheet_rows.append((str(report.rows[-1]["case"]),
                           [before, after, _edge_zoom(before, mask), _edge_zoom(after, mask)]))
    rows = report.rows

    def worst(key: str, fn=max) -> float:  # type: ignore[no-untyped-def]
        vals = [float(r[key]) for r in rows if key in r and np.isfinite(float(r[key]))]
        return fn(vals) if vals else float("nan")

    report.bars += [
        Bar("background ΔE2000, worst case", worst("background ΔE"), 1.0),
        Bar("3 px band inside the outline: mean ΔE2000 to the interior, synthetic garments",
            max(float(r["ring ΔE"]) for r, c in zip(rows, CASES, strict=True)
                if c.name.startswith("swatch/")), 6.0),
        Bar("3 px band inside the outline: how much more it stands out from the cloth than in "
            "the photo (ΔE2000), worst",
            worst("ring excess"), 4.0),
        Bar("print/logo ΔE2000, worst", worst("print ΔE"), 5.0),
        Bar("print/logo element (letter, label, emblem) ΔE2000, worst element",
            worst("element ΔE"), 10.0),
        Bar("low-pass lightness correlation before/after, worst", worst("shading r", min),
            0.8, at_least=True),
        Bar("new clipped highlights, worst", worst("burn %"), 0.5, unit="%"),
        Bar("added fine texture beyond 0.42 cycle/px (aliasing: grid, checkerboard, moiré), "
            "worst", worst("alias %"), 20.0, unit="%"),
        Bar("added fine texture in sharp peaks of a second direction (a grid or checkerboard), "
            "worst", worst("lattice %"), 10.0, unit="%"),
    ]
    for kind, worn in (("product shot", False), ("model photo", True)):
        errs = [float(r["scale err %"]) for r, c in zip(rows, CASES, strict=True)
                if c.scale and c.worn == worn]
        report.bars.append(Bar(f"texture period vs stated, {kind}, worst",
                               max(errs) if errs else float("nan"), 15.0, unit="%"))
    report.sheet = contact_sheet(out_dir / "refabric.png", sheet_rows)
    report.notes.append("The ring bar is set on synthetic garments (one cloth from the outline "
                        "in): on a photo the band holds seams, shadows and prints that the "
                        "interior does not, so there the bar is how much more the band stands "
                        "out from the cloth 5-8 px in than it did in the photo.")
    report.notes.append("Sheet columns: before | after | outline before (4x) | outline after (4x).")
    return report
