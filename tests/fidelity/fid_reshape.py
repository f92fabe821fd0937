"""Reshape measured: sleeves removed leave no fabric, a shorter hem on a model shows the
person's own legs, the backdrop away from the edit is untouched, implausible fills are refused.

Every figure is read off the engine's output picture with the fixtures' own pose and garment
mask (the engine's mask is never trusted):

- sleeve left: of the pixels of the old sleeve outside the armhole (worn: the body's side
  below the armpit carried up; product shots: beyond the body's column), grown over the
  sleeve's own colour where the garment mask missed it (a hem's shaded underside), the share
  whose colour in the output is still nearer the sleeve's own colour, shaded or lit, than the
  skin's or the backdrop's; each sleeve on its own, the worse one counts;
- leg ΔE: in the rows a shorter hem uncovered, the middle of each leg (where the pose puts it)
  against the person's own skin on the legs below the old hem (ΔE2000, mean);
- leg width: each filled leg's width in the output against the width the pose predicts there:
  the leg's visible width below the old hem carried up the hip-knee line with an adult thigh's
  taper (the upper thigh about 1.6 times the knee);
- arm width: on a model, each upper arm where the old sleeve was, straightened along the
  pose's shoulder-elbow line: its bare width in the output against the width the visible arm
  just below the old sleeve predicts there (an adult upper arm widens up to 1.15 times towards
  the deltoid); the median error over the filled rows, the worse arm counts. Shown, not
  held to a bar: where the body hides part of the arm the visible width is only a lower
  bound, and a flat-shaded plank of the right width passes it;
- arm streaks: in the same straightened filled arm, the fine lightness ripple across it that
  persists along it (high-passed across, averaged over a stretch along) against the same on
  the visible arm below: a fill copied down the arm row by row shows as lines along it;
- backdrop ΔE: mean ΔE2000 of everything farther than 3% of the image from the old garment;
- sleeveless changed: "remove the sleeves" on a garment with none (a tank top, a strappy
  dress) finds nothing to remove; the share of the photo's pixels the output changes by more
  than 8 levels in any channel, the worst case counts;
- refusals: each implausible request raises EngineError("implausible_fill").
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from tests.fidelity.common import Bar, ToolReport, contact_sheet, photo
from workers.engines import reshape
from workers.engines.base import EngineError
from workers.engines.imaging import garment as garment_mod
from workers.engines.imaging import pose as pose_mod
from workers.engines.imaging.color import delta_e2000, srgb8_to_oklab

SLEEVE_LEFT_MAX = 0.05
LEG_DE_MAX = 10.0
LEG_WIDTH_MAX = 0.25
BACKDROP_DE_MAX = 1.0
ARM_STREAK_MAX = 1.5
SLEEVELESS_CHANGED_MAX = 0.0005


@dataclass(frozen=True)
class Case:
    name: str
    garment: str
    place: str
    instruction: str


SLEEVE_CASES = (
    Case("model/051918_0", "t-shirt", "sleeves", "remove the sleeves"),
    Case("model/049205_0", "t-shirt", "sleeves", "sleeveless"),
    Case("model/049713_0", "t-shirt", "sleeves", "remove the sleeves"),
    Case("garment/00055_00", "t-shirt", "sleeves", "sleeves removed"),
)
# Nothing to remove: the armhole's rim beside a bare shoulder is not a sleeve.
SLEEVELESS_CASES = (
    Case("model/model_6.png", "top", "sleeves", "remove the sleeves"),
    Case("model/model_1.png", "top", "sleeves", "remove the sleeves"),
    Case("model/model_9.png", "dress", "sleeves", "sleeveless"),
)
HEM_CASES = (
    Case("model/052964_0", "dress", "length", "shorten to mid-thigh"),
    Case("model/053228_0", "dress", "hem", "shorter by 20%"),
)
REFUSAL_CASES = (
    # Would uncover hips and crotch: most of the body invented.
    Case("model/052964_0", "dress", "length", "crop it to the waist"),
    # The skirt's hem is below the frame: nothing to extend.
    Case("model/02849_00", "skirt", "length", "longer, to the knee"),
    # Long sleeves: removing them invents the whole arm.
    Case("model/01861_00", "top", "sleeves", "remove the sleeves"),
    Case("model/051962_0", "sweatshirt", "sleeves", "sleeveless"),
    # Her torso is turned: the sleeve found on her left takes in the top's shoulder up to the
    # neckline, and the arm under it hides behind her body.
    Case("model/02849_00", "top", "sleeves", "removed"),
    # Hands on the hips: the arm under the sleeve bends out of sight.
    Case("model/07966_00", "t-shirt", "sleeves", "remove the sleeves"),
    # Trousers to the ankle: no leg shows below the hem to continue.
    Case("model/049447_0", "trousers", "length", "shorten to the knee"),
    # A tee over trousers cropped: no bare midriff shows to continue.
    Case("model/049205_0", "t-shirt", "length", "shorter by 15%"),
    # A product dress grown by 80%: most of a new garment invented.
    Case("garment/053319_1", "dress", "hem", "longer by 80%"),
)


def run_case(case: Case) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(input, output, engine's final mask)."""
    rgb = photo(case.name)
    out, mask = reshape.reshape(rgb, case.garment, [reshape.parse_change(case.place,
                                                                          case.instruction)])
    return rgb, out, mask


def _de(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a = np.asarray(a, np.uint8).reshape(-1, 3)
    b = np.broadcast_to(np.asarray(b, np.uint8).reshape(-1, 3), a.shape)
    return delta_e2000(a, b).reshape(-1)


def _median(rgb: np.ndarray, sel: np.ndarray) -> np.ndarray:
    return np.median(rgb[sel].reshape(-1, 3), axis=0).astype(np.uint8)


def backdrop_de(before: np.ndarray, after: np.ndarray, garment: np.ndarray) -> float:
    """Mean ΔE2000 of everything farther than 3% of the image from the old garment."""
    r = max(2, int(0.03 * max(garment.shape)))
    near = cv2.dilate(garment.astype(np.uint8), np.ones((2 * r + 1, 2 * r + 1), np.uint8)) > 0
    far = ~near
    return float(_de(after[far], before[far]).mean()) if far.any() else float("nan")


def _garment(rgb: np.ndarray, garment: str) -> tuple[np.ndarray, np.ndarray, bool]:
    gm = garment_mod.garment_mask(rgb, garment)
    return gm.mask > 0.5, gm.skin > 0.5, gm.worn


def _body_side(garment: np.ndarray, cx: float, y0: float, y1: float, outward: int) -> float:
    """The x of the body's side on one side: the outer edge of the garment's middle run in the
    rows beside the hanging upper arm (below the armpit), at its widest."""
    edges = []
    for y in range(max(0, int(y0)), min(garment.shape[0], int(y1))):
        run = [r for r in reshape._runs(garment[y]) if r[0] <= cx <= r[1]]
        if run:
            edges.append(run[0][1] if outward > 0 else run[0][0])
    if not edges:
        return float("nan")
    return float(np.percentile(np.array(edges) * outward, 90) * outward)


def _sleeve_bounds(rgb: np.ndarray, garment: np.ndarray, worn: bool) -> list[np.ndarray]:
    """Where the old sleeves may lie, one mask per side: worn, outside the armhole (the body's
    side below the armpit carried straight up, as a sleeveless top's armhole runs; never
    inside the shoulder joint by more than a tenth of the shoulders), down to the elbows and no
    farther from the upper arm's bone than a full sleeve reaches; on product shots beside the
    body's column in the upper half."""
    h, w = garment.shape
    if worn:
        pose = pose_mod.detect_pose(rgb)
        assert pose is not None
        p = pose.points
        ls, rs = np.array(p["left_shoulder"]), np.array(p["right_shoulder"])
        sw = float(np.hypot(*(ls - rs)))
        cx = (ls[0] + rs[0]) / 2
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        sides = []
        for sh, elbow in ((ls, "left_elbow"), (rs, "right_elbow")):
            outward = 1 if sh[0] > cx else -1
            el = np.array(p[elbow]) if elbow in p else sh + np.array([0.0, sw])
            side = _body_side(garment, cx, el[1] - 0.15 * sw, el[1] + 0.15 * sw, outward)
            # How far out from the shoulder joint the armhole runs (negative: inside it).
            out = (side - sh[0]) * outward + 0.02 * sw if np.isfinite(side) else 0.1 * sw
            line = sh[0] + outward * float(np.clip(out, -0.1 * sw, 0.1 * sw))
            beyond = (xx - line) * outward > 0
            rows = (yy >= max(0, sh[1] - 0.4 * sw)) & (yy < el[1])
            seg = el - sh
            t = np.clip(((xx - sh[0]) * seg[0] + (yy - sh[1]) * seg[1]) / max(seg @ seg, 1.0),
                        0, 1)
            near = np.hypot(xx - sh[0] - t * seg[0], yy - sh[1] - t * seg[1]) < 0.45 * sw
            sides.append(beyond & rows & near)
        return sides
    ys, xs = np.nonzero(garment)
    top, bottom = ys.min(), ys.max()
    y_body = int(top + 0.75 * (bottom - top))
    cx = int(np.median(xs))
    runs = reshape._runs(garment[y_body])
    run = min(runs, key=lambda r: 0 if r[0] <= cx <= r[1] else min(abs(r[0] - cx),
                                                                    abs(r[1] - cx)))
    rows = np.zeros((h, 1), bool)
    rows[top : int(top + 0.5 * (bottom - top))] = True
    left, right = np.zeros((h, w), bool), np.zeros((h, w), bool)
    left[:, : max(0, run[0] - 2)] = True
    right[:, run[1] + 3 :] = True
    return [left & rows, right & rows]


# A colour in less light is the same colour scaled towards black in OKLab (its cube root makes
# it scale-invariant): a sleeve's shaded folds and the underside of its hem are the sleeve's
# colour times 0.35..1, and a lit fold a little over 1. Matching along that line tells a shaded
# flap of the sleeve from the backdrop, which a plain ΔE puts it nearer to.
SHADE_MIN, SHADE_MAX = 0.35, 1.1


def _shaded_dist(lab: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """OKLab distance from each colour to ``ref`` under any light in SHADE_MIN..SHADE_MAX."""
    k = np.clip(lab @ ref / max(float(ref @ ref), 1e-6), SHADE_MIN, SHADE_MAX)
    return np.linalg.norm(lab - k[:, None] * ref[None, :], axis=1)


def _nearest_ref(rgb: np.ndarray, refs: list[np.ndarray]) -> np.ndarray:
    """Per pixel of ``rgb`` (N x 3), the index of the nearest reference colour, shade-tolerant."""
    lab = srgb8_to_oklab(np.asarray(rgb, np.uint8).reshape(-1, 3))
    ref_lab = [srgb8_to_oklab(np.asarray(r, np.uint8).reshape(1, 3))[0] for r in refs]
    return np.stack([_shaded_dist(lab, r) for r in ref_lab], axis=1).argmin(axis=1)


def sleeve_region(rgb: np.ndarray, garment: np.ndarray, worn: bool,
                  refs: list[np.ndarray] | None = None) -> list[np.ndarray]:
    """The old sleeves, one mask per side: the garment beyond the shoulder joints (worn) or the
    body's column, grown over the connected pixels of the sleeve's own colour, shaded or lit,
    that the garment mask missed (the dark underside of a hem, a flap at the armhole).

    ``refs`` are the sleeve's, the backdrop's and the skin's colours, the sleeve's first;
    without them only the garment mask is used."""
    sides = _sleeve_bounds(rgb, garment, worn)
    out = []
    for bounds in sides:
        base = garment & bounds
        if refs is not None and base.any():
            cand = bounds.copy()
            cand[bounds] = _nearest_ref(rgb[bounds], refs) == 0
            n, labels = cv2.connectedComponents((cand | base).astype(np.uint8), connectivity=8)
            keep = np.zeros(n, bool)
            keep[np.unique(labels[base])] = True
            keep[0] = False
            base = keep[labels]
        out.append(base)
    return out


# Below this ΔE2000 between the sleeve and the backdrop, colour cannot tell fabric left behind
# from backdrop filled in (a white top on a pale grey sweep): the case is shown, not counted.
MIN_CONTRAST = 8.0


def sleeve_left(before: np.ndarray, after: np.ndarray, garment: np.ndarray,
                skin: np.ndarray, worn: bool) -> tuple[float, np.ndarray]:
    """Of the worse of the two old sleeves, the share of its pixels still nearer the sleeve's
    colour (shaded or lit) than the skin's or the backdrop's; and both sleeves' region. NaN
    when the sleeve and the backdrop are too alike in colour to tell apart.

    Each sleeve is counted on its own: a flap left on one arm is not diluted by the other."""
    plain = sleeve_region(before, garment, worn)
    region = np.logical_or.reduce(plain)
    sleeve_rgb = _median(before, region)
    back = ~cv2.dilate((garment | skin).astype(np.uint8), np.ones((9, 9), np.uint8)).astype(bool)
    if worn:
        person = pose_mod.person_mask(before) > 0.5
        back &= ~person
    refs = [sleeve_rgb, _median(before, back)]
    if worn and (skin & ~garment).sum() > 50:
        refs.append(_median(before, skin & ~garment))
    if float(_de(refs[0], refs[1])[0]) < MIN_CONTRAST:
        return float("nan"), region
    sides = [r for r in sleeve_region(before, garment, worn, refs) if r.sum() >= 30]
    shares = [float((_nearest_ref(after[r], refs) == 0).mean()) for r in sides]
    return max(shares), np.logical_or.reduce(sides)


def _straight_arm(img: np.ndarray, sh: np.ndarray, el: np.ndarray, half: float,
                  t_max: float) -> tuple[np.ndarray, float]:
    """``img`` resampled along the shoulder-elbow line: rows run from the shoulder (t = 0) to
    ``t_max`` times the upper arm's length, one pixel apart; columns across it, one pixel apart,
    ``half`` to either side. Also the row spacing in t."""
    seg = el - sh
    ln = float(np.hypot(*seg))
    n = np.array([-seg[1], seg[0]]) / max(ln, 1.0)
    rows = int(t_max * ln)
    t = np.arange(rows, dtype=np.float32) / max(ln, 1.0)
    v = np.arange(-int(half), int(half) + 1, dtype=np.float32)
    mx = (sh[0] + t[:, None] * seg[0] + v[None, :] * n[0]).astype(np.float32)
    my = (sh[1] + t[:, None] * seg[1] + v[None, :] * n[1]).astype(np.float32)
    interp = cv2.INTER_NEAREST if img.dtype == bool else cv2.INTER_LINEAR
    src = img.astype(np.uint8) if img.dtype == bool else img
    out = cv2.remap(src, mx, my, interp, borderMode=cv2.BORDER_REPLICATE)
    return (out > 0 if img.dtype == bool else out), 1.0 / max(ln, 1.0)


def _run_near(row: np.ndarray, c: float) -> tuple[int, int] | None:
    runs = reshape._runs(row)
    if not runs:
        return None
    return min(runs, key=lambda r: 0.0 if r[0] <= c <= r[1] else min(abs(r[0] - c),
                                                                       abs(r[1] - c)))


def _ripple(lum: np.ndarray, spans: list[tuple[int, int, int]], block: int) -> float:
    """The lightness ripple across an arm that persists along it: each row high-passed across
    (less its 1.5 px blur), the middle 60% of the arm kept, averaged over ``block`` rows in a
    stretch; the ripple's spread, over the stretches."""
    hp = lum - cv2.GaussianBlur(lum, (0, 0), sigmaX=1.5, sigmaY=0.01)
    vals = []
    for k in range(0, len(spans) - block + 1, block):
        chunk = spans[k : k + block]
        lo = max(a + int(0.2 * (b - a)) for _, a, b in chunk)
        hi = min(b - int(0.2 * (b - a)) for _, a, b in chunk)
        if hi - lo < 4:
            continue
        rows = [r for r, _, _ in chunk]
        vals.append(float(hp[rows, lo:hi].mean(axis=0).std()))
    return float(np.mean(vals)) if vals else float("nan")


def arm_figures(before: np.ndarray, after: np.ndarray, garment: np.ndarray,
                skin: np.ndarray, sleeves: list[np.ndarray]) -> dict[str, float]:
    """Width error and streak ratio of the worse upper arm filled where a sleeve was;
    ``sleeves`` are the old sleeves, the pose's left arm's first."""
    pose = pose_mod.detect_pose(before)
    assert pose is not None
    p = pose.points
    sw = float(np.hypot(*(np.array(p["left_shoulder"]) - p["right_shoulder"])))
    person = pose_mod.person_mask(before) > 0.5
    back = ~person & ~cv2.dilate((garment | skin).astype(np.uint8), np.ones((9, 9),
                                                                            np.uint8)).astype(bool)
    refs = [_median(before, skin & ~garment), _median(before, back), _median(before, garment)]
    half = 0.35 * sw
    widths, streaks = [], []
    for side, region in zip(("left", "right"), sleeves, strict=True):
        if f"{side}_elbow" not in p:
            continue
        sh, el = np.array(p[f"{side}_shoulder"]), np.array(p[f"{side}_elbow"])
        reg, dt = _straight_arm(region, sh, el, half, 1.4)
        rows_reg = np.nonzero(reg.any(axis=1))[0]
        if len(rows_reg) < 8:
            continue
        end = int(rows_reg[-1])  # the old sleeve's lowest row along the arm
        lum_b = before.astype(np.float32).mean(axis=2)
        lum_a = after.astype(np.float32).mean(axis=2)
        bare = {}
        for name, img in (("before", before), ("after", after)):
            st, _ = _straight_arm(img, sh, el, half, 1.4)
            bare[name] = (_nearest_ref(st, refs) == 0).reshape(st.shape[:2])
        # The visible arm just below the old sleeve: its width and where its middle lies.
        ref_rows = range(end + int(0.05 / dt), min(len(bare["before"]), end + int(0.17 / dt)))
        spans = []
        for r in ref_rows:
            run = _run_near(bare["before"][r], half)
            if run is not None and run[1] - run[0] >= 3:
                spans.append((r, run[0], run[1] + 1))
        if len(spans) < 4:
            continue
        arr = np.array(spans, np.float64)
        w_ref = float(np.median(arr[:, 2] - arr[:, 1]))
        c_ref = float(np.median((arr[:, 1] + arr[:, 2]) / 2))
        t_ref = float(np.median(arr[:, 0])) * dt

        def taper(t: float) -> float:  # adult upper arm: up to 1.15 x towards the deltoid
            return 1.0 + 0.15 * float(np.clip(1.0 - t, 0.0, 1.0))

        errs, fill_spans = [], []
        for r in range(int(0.3 / dt), end - int(0.05 / dt)):
            pred = w_ref * taper(r * dt) / taper(t_ref)
            run = _run_near(bare["after"][r], c_ref)
            got = 0.0 if run is None else float(run[1] + 1 - run[0])
            errs.append(abs(got / max(pred, 1.0) - 1.0))
            if run is not None and run[1] - run[0] >= 3:
                fill_spans.append((r, run[0], run[1] + 1))
        if len(errs) < 5:
            continue
        widths.append(float(np.median(errs)))
        st_a, _ = _straight_arm(lum_a, sh, el, half, 1.4)
        st_b, _ = _straight_arm(lum_b, sh, el, half, 1.4)
        rip_fill = _ripple(st_a, fill_spans, 8)
        rip_vis = _ripple(st_b, spans, 8)
        if np.isfinite(rip_fill) and np.isfinite(rip_vis):
            streaks.append(rip_fill / max(rip_vis, 0.25))
    return {"arm_width_err": max(widths) if widths else float("nan"),
            "arm_streak": max(streaks) if streaks else float("nan")}


def _leg_spans(row_skin: np.ndarray, centres: list[float]) -> list[float]:
    """Width of the skin run around each predicted leg centre, split between the legs."""
    out = []
    runs = reshape._runs(row_skin)
    for i, c in enumerate(centres):
        run = next((r for r in runs if r[0] <= c <= r[1]), None)
        if run is None:
            out.append(0.0)
            continue
        lo, hi = float(run[0]), float(run[1]) + 1
        if len(centres) == 2:
            mid = (centres[0] + centres[1]) / 2
            if i == 0:
                hi = min(hi, mid)
            else:
                lo = max(lo, mid)
        out.append(hi - lo)
    return out


def hem_figures(before: np.ndarray, after: np.ndarray, garment: np.ndarray,
                new_mask: np.ndarray) -> dict[str, float]:
    """Leg ΔE to the person's own skin and leg width error in the rows a shorter hem
    uncovered."""
    h, w = garment.shape
    pose = pose_mod.detect_pose(before)
    assert pose is not None
    p = pose.points
    old_bottom = int(np.nonzero(garment.any(axis=1))[0][-1])
    new_bottom = int(np.nonzero(new_mask.any(axis=1))[0][-1])
    person = pose_mod.person_mask(before) > 0.5
    back = ~person & ~cv2.dilate(garment.astype(np.uint8), np.ones((9, 9), np.uint8)).astype(bool)
    back_rgb = _median(before, back)
    hip_y = (p["left_hip"][1] + p["right_hip"][1]) / 2
    knee_y = (p["left_knee"][1] + p["right_knee"][1]) / 2
    leg_len = knee_y - hip_y
    # The legs as they show below the old hem: skin, apart from the backdrop.
    y0, y1 = old_bottom + int(0.06 * leg_len), old_bottom + int(0.16 * leg_len)
    rows = before[y0:y1]
    cand = person[y0:y1] & (_de(rows.reshape(-1, 3), back_rgb).reshape(rows.shape[:2]) > 6)
    skin_rgb = _median(rows, cand)
    legs = []
    for side in ("left", "right"):
        hip, knee = np.array(p[f"{side}_hip"]), np.array(p[f"{side}_knee"])
        legs.append((hip, knee))
    legs.sort(key=lambda hk: hk[1][0])

    def pose_x(hk: tuple[np.ndarray, np.ndarray], y: float) -> float:
        hip, knee = hk
        t = (y - hip[1]) / max(knee[1] - hip[1], 1.0)
        return float(hip[0] + t * (knee[0] - hip[0]))

    def taper(y: float) -> float:  # adult thigh: 1.6 x the knee at the hip joint
        return 1.0 + 0.6 * float(np.clip((knee_y - y) / max(leg_len, 1.0), 0.0, 1.0))

    def skin_row(img: np.ndarray, y: int) -> np.ndarray:
        row = img[y]
        d_skin, d_back = _de(row, skin_rgb), _de(row, back_rgb)
        return (d_skin < d_back) & (d_skin < 25)

    # Each leg as it shows below the old hem (the two widest skin runs, left to right): its
    # place and width there. Above, it follows its own hip-knee line from the pose.
    y_ref = (y0 + y1) // 2
    spans = []
    for y in range(y0, y1):
        runs = sorted(reshape._runs(skin_row(before, y)), key=lambda r: r[0] - r[1])[:2]
        if len(runs) == 2:
            spans.append(sorted(runs))
    if len(spans) < 3:
        return {"leg_de": float("nan"), "leg_width_err": float("nan"), "filled_rows": 0.0}
    arr = np.array(spans, np.float64)  # rows x leg x (start, end)
    refs_w = list(np.median(arr[:, :, 1] - arr[:, :, 0] + 1, axis=0))
    ref_c = list(np.median((arr[:, :, 0] + arr[:, :, 1] + 1) / 2, axis=0))
    offs = [c - pose_x(hk, y_ref) for hk, c in zip(legs, ref_c, strict=True)]
    # The filled rows, away from the new hem's band and the old hem's shadow.
    band = max(2, int(0.02 * h))
    rows_fill = range(new_bottom + band, old_bottom - band)
    de_vals, width_err = [], []
    for y in rows_fill:
        centres = [pose_x(hk, y) + o for hk, o in zip(legs, offs, strict=True)]
        pred = [rw * taper(y) / taper(y_ref) for rw in refs_w]
        got = _leg_spans(skin_row(after, y), centres)
        for c, pw, gw in zip(centres, pred, got, strict=True):
            a, b = int(round(c - 0.3 * pw)), int(round(c + 0.3 * pw)) + 1
            de_vals.append(_de(after[y, max(0, a) : min(w, b)], skin_rgb))
            width_err.append(abs(gw / max(pw, 1.0) - 1.0))
    return {
        "leg_de": float(np.concatenate(de_vals).mean()) if de_vals else float("nan"),
        "leg_width_err": float(np.median(width_err)) if width_err else float("nan"),
        "filled_rows": float(len(rows_fill)),
    }


def _diff(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    d = np.abs(before.astype(np.int16) - after.astype(np.int16)).max(axis=2)
    return np.clip(d * 4, 0, 255).astype(np.uint8)


def measure(out_dir: Path) -> ToolReport:
    report = ToolReport("reshape")
    sheet_rows = []
    sleeve_vals, leg_de, leg_w, back_vals, arm_w, arm_s = [], [], [], [], [], []
    for case in SLEEVE_CASES:
        rgb, out, mask = run_case(case)
        garment, skin, worn = _garment(rgb, case.garment)
        left, region = sleeve_left(rgb, out, garment, skin, worn)
        bde = backdrop_de(rgb, out, garment)
        if np.isfinite(left):
            sleeve_vals.append(left)
        else:
            report.notes.append(f"{case.name}: the sleeve is too close to the backdrop in colour "
                                "for the sleeve-left figure; judged on the contact sheet only.")
        back_vals.append(bde)
        row = {"case": f"{case.name} {case.instruction}",
               "sleeve left": left if np.isfinite(left) else "n/a", "backdrop ΔE": bde}
        if worn:
            arms = arm_figures(rgb, out, garment, skin, sleeve_region(rgb, garment, worn))
            if np.isfinite(arms["arm_width_err"]):
                arm_w.append(arms["arm_width_err"])
                row["arm width err"] = arms["arm_width_err"]
            if np.isfinite(arms["arm_streak"]):
                arm_s.append(arms["arm_streak"])
                row["arm streaks"] = arms["arm_streak"]
        report.rows.append(row)
        overlay = rgb.copy()
        overlay[region] = (0.5 * overlay[region] + [127, 0, 0]).astype(np.uint8)
        shown = f"{left:.1%}" if np.isfinite(left) else "n/a: sleeve colour = backdrop"
        sheet_rows.append((f"{case.name}: {case.instruction} (sleeve left {shown}) "
                           "before | after | old sleeve measured", [rgb, out, overlay]))
    for case in HEM_CASES:
        rgb, out, mask = run_case(case)
        garment, _, _ = _garment(rgb, case.garment)
        figs = hem_figures(rgb, out, garment, mask)
        bde = backdrop_de(rgb, out, garment)
        leg_de.append(figs["leg_de"])
        leg_w.append(figs["leg_width_err"])
        back_vals.append(bde)
        report.rows.append({"case": f"{case.name} {case.instruction}", "leg ΔE": figs["leg_de"],
                            "leg width err": figs["leg_width_err"], "backdrop ΔE": bde})
        sheet_rows.append((f"{case.name}: {case.instruction} (leg dE {figs['leg_de']:.1f}, "
                           f"width err {figs['leg_width_err']:.0%}) before | after | change",
                           [rgb, out, _diff(rgb, out)]))
    changed = []
    for case in SLEEVELESS_CASES:
        rgb, out, _ = run_case(case)
        share = float((np.abs(out.astype(int) - rgb.astype(int)).max(axis=2) > 8).mean())
        changed.append(share)
        report.rows.append({"case": f"{case.name} {case.instruction}",
                            "sleeveless changed": share})
    refused = 0
    for case in REFUSAL_CASES:
        try:
            run_case(case)
            verdict = "DELIVERED"
        except EngineError as err:
            ok = err.code == "implausible_fill"
            refused += ok
            verdict = f"{err.code}: {err.message}"
        report.rows.append({"case": f"{case.name} {case.instruction}", "refusal": verdict})
    report.bars += [
        Bar("old sleeve left after removal (worst case)", max(sleeve_vals) * 100,
            SLEEVE_LEFT_MAX * 100, unit="%"),
        Bar("filled legs ΔE2000 to own skin (worst case)", max(leg_de), LEG_DE_MAX),
        Bar("filled leg width vs pose prediction (worst case)", max(leg_w) * 100,
            LEG_WIDTH_MAX * 100, unit="%"),
        Bar("filled upper arm streaks vs the visible arm's (worst arm)", max(arm_s),
            ARM_STREAK_MAX),
        Bar("backdrop ΔE2000 outside the edit (worst case)", max(back_vals), BACKDROP_DE_MAX),
        Bar("photo changed when removing sleeves a sleeveless garment lacks (worst case)",
            max(changed) * 100, SLEEVELESS_CHANGED_MAX * 100, unit="%"),
        Bar("implausible fills refused", refused / len(REFUSAL_CASES) * 100, 100,
            at_least=True, unit="%"),
    ]
    if arm_w:
        report.notes.append(f"Filled upper arm width vs the visible arm's prediction, worst arm: "
                            f"{max(arm_w):.0%} (shown, no bar).")
    report.sheet = contact_sheet(out_dir / "reshape.png", sheet_rows)
    return report
