"""A reference photo written up as the Editorial parameter texts, from measurements.

Every sentence comes from a number measured on the picture: framing and placement from the
person mask and pose landmarks, light direction from the brightness slope across the face or
body (after removing each row's mean, so a dark skirt under a white top does not read as light
from above), lighting ratio from the lit and shaded halves, key from the tone histogram, white
point from the brightest near-neutral pixels (McCamy's CCT), palette from k-means in CIELab
named after the nearest of the vocabulary's colour names, grain from the high-frequency noise
of flat areas (Immerkær's estimator), vignetting from corner against mid-edge background
brightness and depth of field from background against subject Laplacian energy.

The texts use the words of ``vocabulary`` so that "Refill from Analysis" followed by Process
means something to the local engine too.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from workers.engines.base import EngineError, EngineOutput, Progress
from workers.engines.editorial.vocabulary import COLOUR_NAMES
from workers.engines.imaging.resize import limit_side

WORK_SIDE = 512  # analysis resolution: the detectors see 256 px anyway
NOISE_SIDE = 1024  # grain is measured closer to native resolution


@dataclass
class _Subject:
    mask: np.ndarray  # float32 HxW, 0..1
    core: np.ndarray  # bool, surely person
    background: np.ndarray  # bool, surely not person
    pose: Any  # imaging.pose.Pose | None
    faces: list[tuple[int, int, int, int]]


def read_reference(params: dict[str, Any], progress: Progress, fields: tuple[str, ...]) -> list[EngineOutput]:
    """params {image: bytes} -> one JSON output holding the texts of ``fields``: the analyse
    step of each tool that reads a reference (its engine module names its own fields)."""
    from workers.engines.imaging.decode import decode_image

    data = params.get("image")
    if not isinstance(data, (bytes, bytearray)) or not data:
        raise EngineError("missing_image", "A reference image is needed for the analysis.")
    progress(5)
    rgb, _alpha = decode_image(bytes(data))
    progress(20)
    result = analyze(rgb)
    progress(95)
    body = json.dumps({k: result[k] for k in fields}, ensure_ascii=False, indent=2).encode("utf-8")
    return [EngineOutput(data=body, content_type="application/json", filename="analysis.json")]


def analyze(rgb: np.ndarray) -> dict[str, str]:
    """The five parameter texts, each a few short sentences a photographer would write."""
    m = measure(rgb)
    return {
        "scene_composition": _scene_text(m),
        "pose_action": _pose_text(m),
        "lighting": _lighting_text(m),
        "color_style": _colour_text(m),
        "camera_details": _camera_text(m),
    }


# --- measuring -------------------------------------------------------------------------------


def measure(rgb: np.ndarray) -> dict[str, Any]:
    """Every number the texts are written from (also handy for tests and tuning)."""
    from workers.engines.imaging.pose import detect_pose, face_boxes, person_mask

    if rgb.ndim != 3 or rgb.shape[2] != 3 or min(rgb.shape[:2]) < 16:
        raise EngineError("unsupported_image", "The reference image is too small to analyse.")
    H0, W0 = rgb.shape[:2]
    small = _resize_long(rgb, WORK_SIDE)
    h, w = small.shape[:2]
    mask = person_mask(small)
    pose = detect_pose(small)
    faces = face_boxes(small)
    core = cv2.erode((mask > 0.6).astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
    background = cv2.erode((mask < 0.25).astype(np.uint8), np.ones((9, 9), np.uint8)) > 0
    subj = _Subject(mask=mask, core=core, background=background, pose=pose, faces=faces)

    lab = cv2.cvtColor(small.astype(np.float32) / 255.0, cv2.COLOR_RGB2LAB)  # L 0..100
    L = lab[..., 0]
    out: dict[str, Any] = {"width": W0, "height": H0}
    out.update(_framing(subj, h, w))
    out.update(_pose(subj, h, w))
    out.update(_background(small, lab, subj))
    out.update(_light(small, L, subj))
    out.update(_tones(L))
    out.update(_white_point(small))
    out.update(_palette(lab))
    out.update(_saturation(lab))
    out.update(_grain(_resize_long(rgb, NOISE_SIDE)))
    out.update(_vignette(L, subj))
    out.update(_depth_of_field(L, subj))
    return out


def _resize_long(rgb: np.ndarray, side: int) -> np.ndarray:
    return np.ascontiguousarray(limit_side(rgb, side)[0])


def _visible(pose: Any, name: str, h: int, w: int) -> tuple[float, float] | None:
    if pose is None:
        return None
    p = pose.points.get(name)
    if p is None or not (0 <= p[0] < w and 0 <= p[1] < h):
        return None
    return p


def _framing(s: _Subject, h: int, w: int) -> dict[str, Any]:
    person = s.mask > 0.5
    area = float(person.mean())
    if area < 0.01:
        return {"person": False}
    ys, xs = np.nonzero(person)
    y0, y1, x0, x1 = int(ys.min()), int(ys.max()), int(xs.min()), int(xs.max())
    weights = s.mask[person]
    cx = float((xs * weights).sum() / weights.sum()) / w
    vis = lambda n: _visible(s.pose, n, h, w)  # noqa: E731
    has = lambda *names: any(vis(n) is not None for n in names)  # noqa: E731
    feet = has("left_ankle", "right_ankle", "left_heel", "right_heel", "left_foot_index", "right_foot_index")
    knees = has("left_knee", "right_knee")
    hips = has("left_hip", "right_hip")
    head = has("nose", "left_eye", "right_eye")
    touches_bottom = y1 >= h - 3
    if s.pose is not None:
        if feet and not touches_bottom:
            framing = "full body"
        elif feet or knees:
            framing = "three-quarter"
        elif hips:
            # Cropped well below the hips (mid-thigh) reads as three-quarter, at the hips as waist-up.
            hip_y = max(p[1] for n in ("left_hip", "right_hip") if (p := vis(n)) is not None)
            sh = [p for n in ("left_shoulder", "right_shoulder") if (p := vis(n)) is not None]
            torso = hip_y - (np.mean([p[1] for p in sh]) if sh else hip_y - 0.3 * h)
            framing = "three-quarter" if (y1 - hip_y) > 0.45 * torso else "half body"
        else:
            framing = "close-up"
    else:
        frac = (y1 - y0) / h
        framing = "close-up" if s.faces and (s.faces[0][3] - s.faces[0][1]) / h > 0.25 else (
            "full body" if frac > 0.75 and not touches_bottom else "three-quarter"
        )
    if framing == "half body" and s.faces and (s.faces[0][3] - s.faces[0][1]) / h > 0.22:
        framing = "close-up"
    eye_y = None
    for n in ("left_eye", "right_eye"):
        p = vis(n)
        if p is not None:
            eye_y = p[1] / h if eye_y is None else (eye_y + p[1] / h) / 2
    return {
        "person": True,
        "framing": framing,
        "person_height": (y1 - y0 + 1) / h,
        "person_area": area,
        "centre_x": cx,
        "headroom": y0 / h,
        "head_cropped": y0 <= 2 and not head,
        "touches_bottom": touches_bottom,
        "eye_y": eye_y,
    }


def _angle(a: tuple[float, float], b: tuple[float, float], c: tuple[float, float]) -> float:
    v1 = np.subtract(a, b)
    v2 = np.subtract(c, b)
    cos = float(np.dot(v1, v2) / (np.linalg.norm(v1) * np.linalg.norm(v2) + 1e-6))
    return math.degrees(math.acos(max(-1.0, min(1.0, cos))))


def _pose(s: _Subject, h: int, w: int) -> dict[str, Any]:
    if s.pose is None:
        return {"pose_found": False}
    v = lambda n: _visible(s.pose, n, h, w)  # noqa: E731
    ls, rs, lh, rh = v("left_shoulder"), v("right_shoulder"), v("left_hip"), v("right_hip")
    out: dict[str, Any] = {"pose_found": True}
    if not (ls and rs):
        return out
    sh_w = abs(ls[0] - rs[0]) + 1e-3
    mid_sh = ((ls[0] + rs[0]) / 2, (ls[1] + rs[1]) / 2)
    torso = None
    if lh and rh:
        mid_hip = ((lh[0] + rh[0]) / 2, (lh[1] + rh[1]) / 2)
        torso = math.dist(mid_sh, mid_hip)
        out["hip_tilt_deg"] = math.degrees(math.atan2(lh[1] - rh[1], lh[0] - rh[0] + 1e-6))
        if out["hip_tilt_deg"] > 90:
            out["hip_tilt_deg"] -= 180
        elif out["hip_tilt_deg"] < -90:
            out["hip_tilt_deg"] += 180
    torso = torso or sh_w * 1.4
    out["shoulder_ratio"] = sh_w / torso  # about 0.7-0.9 square to camera, lower when turned
    out["shoulder_tilt_deg"] = math.degrees(math.atan2(ls[1] - rs[1], abs(ls[0] - rs[0]) + 1e-6))

    # Stance.
    lk, rk, la, ra = v("left_knee"), v("right_knee"), v("left_ankle"), v("right_ankle")
    stance = "upper body only"
    if lh and rh and (lk or rk):
        knee_drop = np.mean([k[1] - hp[1] for k, hp in ((lk, lh), (rk, rh)) if k]) / torso
        if knee_drop < 0.45:
            stance = "seated"
        elif la and ra and lk and rk:
            hip_w = abs(lh[0] - rh[0]) + 1e-3
            spread = abs(la[0] - ra[0]) / hip_w
            bend = min(_angle(lh, lk, la), _angle(rh, rk, ra))
            stance = "walking" if spread > 1.6 and bend < 168 else "standing"
            out["feet_spread"] = spread
            out["knee_angle"] = bend
        else:
            stance = "standing"
    out["stance"] = stance

    # Arms, per side of the subject.
    arms = {}
    for side, sh, hp in (("left", ls, lh), ("right", rs, rh)):
        el, wr = v(f"{side}_elbow"), v(f"{side}_wrist")
        if wr is None:
            arms[side] = "out of frame" if el is None else "bent"
            continue
        if wr[1] < sh[1]:
            arms[side] = "raised"
        elif hp is not None and math.dist(wr, hp) < 0.4 * torso and el is not None and (
            abs(el[0] - mid_sh[0]) > abs(sh[0] - mid_sh[0]) + 0.3 * sh_w
        ):
            arms[side] = "on hip"
        elif hp is not None and wr[1] < hp[1] - 0.15 * torso and abs(wr[0] - mid_sh[0]) < 0.45 * sh_w:
            arms[side] = "across the body"
        elif hp is not None and wr[1] < hp[1] - 0.15 * torso:
            arms[side] = "bent"
        else:
            arms[side] = "down"
    out["arms"] = arms

    # Head turn: the nose against the midpoint of the ears (or outer eye corners).
    nose = v("nose")
    pair = (v("left_ear"), v("right_ear"))
    if not all(pair):
        pair = (v("left_eye_outer"), v("right_eye_outer"))
    if nose and all(pair):
        span = abs(pair[0][0] - pair[1][0]) + 1e-3
        # Positive: nose towards the subject's left ear, i.e. head turned to their left.
        out["head_turn"] = (nose[0] - (pair[0][0] + pair[1][0]) / 2) / span * (
            1 if pair[0][0] > pair[1][0] else -1
        )
        le, re_ = v("left_eye"), v("right_eye")
        if le and re_:
            out["head_tilt_deg"] = math.degrees(math.atan2(le[1] - re_[1], abs(le[0] - re_[0]) + 1e-6))
    elif nose is None and (v("left_ear") or v("right_ear")):
        out["head_turn"] = None  # facing away
    return out


def _background(rgb: np.ndarray, lab: np.ndarray, s: _Subject) -> dict[str, Any]:
    bg = s.background
    if bg.mean() < 0.03:
        return {"bg_plain": None}
    pix = lab[bg]
    L = lab[..., 0]
    # Texture of the background at fine scale: a seamless sweep is smooth even where lit
    # unevenly, so measure the high-pass residual, not the raw spread.
    hp = np.abs(L - cv2.GaussianBlur(L, (0, 0), 3.0))
    texture = float(np.median(hp[bg]))
    spread = float(np.std(pix[:, 0]))
    mean_rgb = np.median(rgb[bg].reshape(-1, 3), axis=0)
    h = L.shape[0]
    rows = np.nonzero(bg)[0]
    top = L[bg & (np.arange(h)[:, None] < h * 0.3)]
    bottom = L[bg & (np.arange(h)[:, None] > h * 0.7)]
    floor_grad = float(np.mean(top) - np.mean(bottom)) if top.size > 50 and bottom.size > 50 else 0.0
    del rows
    return {
        "bg_plain": texture < 0.6 and spread < 8.0,
        "bg_texture": texture,
        "bg_spread": spread,
        "bg_name": _colour_name_rgb(mean_rgb),
        "bg_L": float(np.mean(pix[:, 0])),
        "bg_floor_gradient": floor_grad,
    }


def _light(rgb: np.ndarray, L: np.ndarray, s: _Subject) -> dict[str, Any]:
    h, w = L.shape
    region = None
    source = "subject"
    if s.faces:
        x0, y0, x1, y1 = s.faces[0]
        if (x1 - x0) >= 20:
            # The cheeks and forehead: the inner part of the face box is skin.
            mx, my = (x1 - x0) // 6, (y1 - y0) // 6
            region = np.zeros_like(s.core)
            region[y0 + my : y1 - my, x0 + mx : x1 - mx] = True
            region &= s.mask > 0.5
            if region.sum() < 150:
                region = None
            else:
                source = "face"
    if region is None:
        region = s.core if s.core.sum() > 300 else np.ones_like(s.core)
        source = "subject" if s.core.sum() > 300 else "frame"
    blur = cv2.GaussianBlur(L, (0, 0), max(1.5, 0.01 * max(h, w)))
    ys, xs = np.nonzero(region)
    vals = blur[ys, xs]
    # Per-row centring removes vertical albedo changes (top against trousers) and the
    # silhouette's shape; what is left across each row is mostly the light's slope.
    slope_num = 0.0
    slope_den = 0.0
    order = np.argsort(ys, kind="stable")
    ys, xs, vals = ys[order], xs[order], vals[order]
    splits = np.nonzero(np.diff(ys))[0] + 1
    for row_x, row_v in zip(np.split(xs, splits), np.split(vals, splits), strict=True):
        if row_x.size < 6:
            continue
        xc = row_x - row_x.mean()
        slope_num += float((xc * (row_v - row_v.mean())).sum())
        slope_den += float((xc * xc).sum())
    x_extent = float(xs.max() - xs.min() + 1) if xs.size else 1.0
    # L units change from one side of the region to the other.
    side_delta = slope_num / (slope_den + 1e-6) * x_extent if slope_den > 0 else 0.0
    # Vertical, on the face only (clothes make the body's vertical slope meaningless).
    vert_delta = 0.0
    if source == "face":
        yc = ys - ys.mean()
        vert_delta = float((yc * (vals - vals.mean())).sum() / ((yc * yc).sum() + 1e-6)) * float(ys.max() - ys.min() + 1)
    # Lighting ratio: mean linear luminance of the brighter half over the darker half.
    lin = (L / 100.0 + 0.16) / 1.16
    lin = np.where(lin > 6 / 29, lin**3, 3 * (6 / 29) ** 2 * (lin - 4 / 29))
    mid = np.median(xs) if xs.size else w / 2
    left = lin[ys[xs < mid], xs[xs < mid]]
    right = lin[ys[xs >= mid], xs[xs >= mid]]
    if left.size and right.size:
        a, b = float(left.mean()), float(right.mean())
        ratio = max(a, b) / max(1e-4, min(a, b))
    else:
        ratio = 1.0
    # Hardness: the share of the shading transition that happens at fine scale. A hard
    # light's shadow edge keeps its gradient under a small blur; a soft one is already wide.
    fine = cv2.GaussianBlur(L, (0, 0), 1.0)
    coarse = cv2.GaussianBlur(L, (0, 0), 4.0)
    gf = np.hypot(cv2.Sobel(fine, cv2.CV_32F, 1, 0), cv2.Sobel(fine, cv2.CV_32F, 0, 1))
    gc = np.hypot(cv2.Sobel(coarse, cv2.CV_32F, 1, 0), cv2.Sobel(coarse, cv2.CV_32F, 0, 1))
    sel = region & (gc > np.percentile(gc[region], 90) if region.any() else region)
    hardness = float(np.median(gc[sel] / (gf[sel] + 1e-3))) if sel.sum() > 20 else 0.5
    deep = float((L[region] < 15).mean()) if region.any() else 0.0
    # Backdrop slope as a second witness (a lit sweep is brighter on the key's side).
    bg_delta = 0.0
    if s.background.sum() > 500:
        bys, bxs = np.nonzero(s.background)
        xc = bxs - bxs.mean()
        bg_delta = float((xc * (blur[bys, bxs] - blur[bys, bxs].mean())).sum() / ((xc * xc).sum() + 1e-6)) * w
    return {
        "light_source": source,
        "light_side_delta": side_delta,  # + brighter on the right of the picture
        "light_vert_delta": vert_delta,  # + brighter lower down
        "light_bg_delta": bg_delta,
        "light_ratio": ratio,
        "light_hardness": hardness,  # coarse/fine gradient: near 1 hard edges, lower soft
        "deep_shadow_share": deep,
    }


def _tones(L: np.ndarray) -> dict[str, Any]:
    p2, p50, p98 = np.percentile(L, [2, 50, 98])
    return {
        "L_mean": float(L.mean()),
        "L_median": float(p50),
        "L_p2": float(p2),
        "L_p98": float(p98),
        "dark_share": float((L < 25).mean()),
        "bright_share": float((L > 75).mean()),
    }


def _white_point(rgb: np.ndarray) -> dict[str, Any]:
    x = rgb.reshape(-1, 3).astype(np.float32) / 255.0
    lin = np.where(x <= 0.04045, x / 12.92, ((x + 0.055) / 1.055) ** 2.4)
    y = lin @ np.array([0.2126, 0.7152, 0.0722], np.float32)
    ok = x.max(axis=1) < 0.975  # clipped pixels say nothing about the white balance
    if ok.sum() < 100:
        ok = np.ones_like(ok)
    # Bright and nearly neutral pixels (a white sweep, a shirt, the sky): the white point.
    mx, mn = lin.max(axis=1), lin.min(axis=1)
    sat = (mx - mn) / (mx + 1e-4)
    cand = ok & (sat < 0.5)
    if cand.sum() < 200:
        cand = ok
    thr = np.percentile(y[cand], 90)
    sel = cand & (y >= thr)
    white = lin[sel].mean(axis=0) if sel.any() else lin.mean(axis=0)
    X, Y, Z = np.array(
        [[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]
    ) @ white.astype(np.float64)
    s = X + Y + Z + 1e-9
    cx, cy = X / s, Y / s
    n = (cx - 0.3320) / (0.1858 - cy)
    cct = 449 * n**3 + 3525 * n**2 + 6823.3 * n + 5520.33
    cct = float(np.clip(cct, 1800, 15000))
    # Overall cast across the whole frame: mean b* and a* of the mid-tones.
    return {"white_cct": cct, "white_rgb": (white / max(white.max(), 1e-6)).tolist()}


def _palette(lab: np.ndarray) -> dict[str, Any]:
    small = cv2.resize(lab, (96, 128), interpolation=cv2.INTER_AREA).reshape(-1, 3).astype(np.float32)
    crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.5)
    cv2.setRNGSeed(11)
    _, labels, centres = cv2.kmeans(small, 5, None, crit, 3, cv2.KMEANS_PP_CENTERS)
    shares = np.bincount(labels.ravel(), minlength=5) / labels.size
    named: dict[str, float] = {}
    hexes: dict[str, str] = {}
    for c, share in sorted(zip(centres, shares, strict=True), key=lambda t: -t[1]):
        name = _colour_name_lab(c)
        named[name] = named.get(name, 0.0) + float(share)
        if name not in hexes:
            rgb = cv2.cvtColor(c.reshape(1, 1, 3).astype(np.float32), cv2.COLOR_LAB2RGB)[0, 0]
            hexes[name] = "#%02x%02x%02x" % tuple(int(np.clip(v * 255 + 0.5, 0, 255)) for v in rgb)
    palette = sorted(named.items(), key=lambda t: -t[1])
    return {"palette": [(n, round(s, 3), hexes[n]) for n, s in palette]}


_NAME_LAB: list[tuple[str, np.ndarray]] = []


def _colour_name_lab(lab: np.ndarray) -> str:
    if not _NAME_LAB:
        for name, rgb in COLOUR_NAMES.items():
            c = cv2.cvtColor(np.array([[rgb]], np.float32) / 255.0, cv2.COLOR_RGB2LAB)[0, 0]
            _NAME_LAB.append((name, c))
    # Lightness counts half: a dim white wall is still "white" to a photographer.
    wts = np.array([0.5, 1.0, 1.0], np.float32)
    return min(_NAME_LAB, key=lambda t: float(np.sum(((t[1] - lab) * wts) ** 2)))[0]


def _colour_name_rgb(rgb: np.ndarray) -> str:
    lab = cv2.cvtColor(np.asarray(rgb, np.float32).reshape(1, 1, 3) / 255.0, cv2.COLOR_RGB2LAB)[0, 0]
    return _colour_name_lab(lab)


def _saturation(lab: np.ndarray) -> dict[str, Any]:
    chroma = np.hypot(lab[..., 1], lab[..., 2])
    return {
        "chroma_p50": float(np.percentile(chroma, 50)),
        "chroma_p90": float(np.percentile(chroma, 90)),
        "chroma_p99": float(np.percentile(chroma, 99)),
        "mean_a": float(lab[..., 1].mean()),
        "mean_b": float(lab[..., 2].mean()),
    }


def _grain(rgb: np.ndarray) -> dict[str, Any]:
    g = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY).astype(np.float32)
    # Flat areas: little structure at a coarse scale and away from clipping, where the
    # Laplacian-of-Laplacian residual is noise rather than detail.
    coarse = cv2.GaussianBlur(g, (0, 0), 2.0)
    grad = np.hypot(cv2.Sobel(coarse, cv2.CV_32F, 1, 0), cv2.Sobel(coarse, cv2.CV_32F, 0, 1))
    flat = (grad < np.percentile(grad, 40)) & (coarse > 12) & (coarse < 243)
    kernel = np.array([[1, -2, 1], [-2, 4, -2], [1, -2, 1]], np.float32)
    resp = np.abs(cv2.filter2D(g, cv2.CV_32F, kernel))
    if flat.sum() < 500:
        flat = np.ones_like(flat)
    sigma = float(math.sqrt(math.pi / 2) * resp[flat].mean() / 6.0)
    return {"noise_sigma": sigma}


def _vignette(L: np.ndarray, s: _Subject) -> dict[str, Any]:
    h, w = L.shape
    ph, pw = max(4, h // 10), max(4, w // 10)
    usable = s.background if s.background.mean() > 0.1 else np.ones_like(s.background)

    def patch(y0: int, x0: int) -> float | None:
        sel = usable[y0 : y0 + ph, x0 : x0 + pw]
        if sel.sum() < 0.3 * ph * pw:
            return None
        return float(L[y0 : y0 + ph, x0 : x0 + pw][sel].mean())

    pairs = []
    # Each corner against the middle of the same horizontal edge (the same height on a
    # sweep's floor gradient) and of the same vertical edge.
    cy = h // 2 - ph // 2
    cx = w // 2 - pw // 2
    for y0 in (0, h - ph):
        for x0 in (0, w - pw):
            corner = patch(y0, x0)
            if corner is None:
                continue
            refs = [r for r in (patch(y0, cx), patch(cy, x0)) if r is not None]
            if refs:
                pairs.append((corner, max(refs)))
    if not pairs:
        return {"vignette": None}
    falloff = float(np.mean([1.0 - c / max(r, 1e-3) for c, r in pairs]))
    return {"vignette": falloff}


def _depth_of_field(L: np.ndarray, s: _Subject) -> dict[str, Any]:
    lap = cv2.Laplacian(L, cv2.CV_32F, ksize=3)
    subj = s.core
    bg = s.background
    if subj.sum() < 300:
        return {"subject_sharpness": float(lap.var()), "bg_sharpness": None}
    subj_var = float(lap[subj].var())
    bg_var = float(lap[bg].var()) if bg.sum() > 300 else None
    return {"subject_sharpness": subj_var, "bg_sharpness": bg_var}


# --- writing ---------------------------------------------------------------------------------


def _pct(x: float) -> str:
    return f"{round(100 * x)}%"


def _aspect(w: int, h: int) -> str:
    r = w / h
    best = min(
        (("1:1", 1.0), ("4:5", 0.8), ("3:4", 0.75), ("2:3", 2 / 3), ("9:16", 9 / 16), ("5:4", 1.25),
         ("4:3", 4 / 3), ("3:2", 1.5), ("16:9", 16 / 9)),
        key=lambda t: abs(t[1] - r),
    )
    kind = "square" if best[0] == "1:1" else ("portrait" if r < 1 else "landscape")
    return f"{kind} {best[0]} frame"


def _scene_text(m: dict[str, Any]) -> str:
    parts = []
    if not m.get("person"):
        parts.append(f"No model in frame; {_aspect(m['width'], m['height'])}.")
    else:
        framing = m["framing"]
        lead = {
            "full body": "Full body shot",
            "three-quarter": "Three-quarter shot, cropped between hip and knee",
            "half body": "Waist-up medium shot",
            "close-up": "Close-up, head and shoulders",
        }[framing]
        parts.append(f"{lead} in a {_aspect(m['width'], m['height'])}.")
        cx = m["centre_x"]
        if abs(cx - 0.5) < 0.08:
            place = "centred"
        elif abs(cx - 1 / 3) < 0.08:
            place = "on the left third"
        elif abs(cx - 2 / 3) < 0.08:
            place = "on the right third"
        else:
            place = "off centre to the left" if cx < 0.5 else "off centre to the right"
        parts.append(
            f"Model {place}, filling {_pct(min(1.0, m['person_height']))} of the frame height."
        )
        if m.get("head_cropped"):
            parts.append("Head cropped by the top edge.")
        else:
            hr = m["headroom"]
            word = "tight" if hr < 0.04 else ("generous" if hr > 0.15 else "moderate")
            parts.append(f"{word.capitalize()} headroom ({_pct(hr)} of the frame).")
            if m.get("eye_y") is not None and abs(m["eye_y"] - 1 / 3) < 0.06:
                parts.append("Eyes on the upper third line.")
    if m.get("bg_plain") is True:
        grad = m.get("bg_floor_gradient", 0.0)
        sweep = "seamless studio sweep" if grad > 3 else "seamless studio backdrop"
        parts.append(f"Plain {m['bg_name']} {sweep}.")
    elif m.get("bg_plain") is False:
        parts.append(f"Detailed {m['bg_name']} background, not a plain backdrop.")
    return " ".join(parts)


def _side_word(side: str, pose: str) -> str:
    return {"raised": f"{side} arm raised", "on hip": f"{side} hand on hip", "down": f"{side} arm down",
            "bent": f"{side} arm bent", "across the body": f"{side} hand across the body",
            "out of frame": f"{side} hand out of frame"}[pose]


def _pose_text(m: dict[str, Any]) -> str:
    if not m.get("person") or not m.get("pose_found"):
        return "No readable body pose." if m.get("person") else "No model in frame."
    parts = []
    stance = m.get("stance", "upper body only")
    turn_ratio = m.get("shoulder_ratio")
    body = ""
    if turn_ratio is not None:
        body = "square to the camera" if turn_ratio > 0.55 else "body turned at an angle to the camera"
    if stance == "standing":
        tilt = abs(m.get("hip_tilt_deg", 0.0))
        weight = "weight on one hip" if tilt > 4 else "weight even on both feet"
        parts.append(f"Standing, {body}, {weight}.")
    elif stance == "walking":
        parts.append(f"Walking, mid-stride, {body}.")
    elif stance == "seated":
        parts.append(f"Seated, {body}.")
    else:
        parts.append(f"Upright torso, {body}; legs out of frame." if body else "Upper body only.")
    arms = m.get("arms") or {}
    if arms:
        l, r = arms.get("left"), arms.get("right")
        if l == r == "down":
            parts.append("Both arms relaxed down by the sides.")
        elif l == r == "on hip":
            parts.append("Both hands on hips, akimbo.")
        elif l == r == "raised":
            parts.append("Both arms raised.")
        else:
            parts.append(
                f"{_side_word('Left', l).capitalize()}, {_side_word('right', r)} (model's left and right)."
            )
    if "head_turn" in m:
        ht = m["head_turn"]
        if ht is None:
            parts.append("Facing away from the camera.")
        elif abs(ht) < 0.12:
            parts.append("Head facing the camera.")
        else:
            amount = "slightly" if abs(ht) < 0.25 else "strongly"
            side = "left" if ht > 0 else "right"
            cam = "camera right" if ht > 0 else "camera left"
            parts.append(f"Head turned {amount} to the model's {side} ({cam}).")
        tilt = m.get("head_tilt_deg")
        if tilt is not None and abs(tilt) > 6:
            parts.append("Head tilted.")
    return " ".join(parts)


def _lighting_text(m: dict[str, Any]) -> str:
    parts = []
    side = m["light_side_delta"]
    # Positive side delta: brighter on the right of the picture = light from camera right.
    # The body's slope carries garment and arm asymmetries, so it must be steeper to count.
    threshold = 6.0 if m["light_source"] == "face" else 12.0
    if abs(side) < threshold and abs(m.get("light_bg_delta", 0.0)) < 6:
        direction = "frontal key light, even across the subject"
    else:
        use = side if abs(side) >= threshold else m["light_bg_delta"]
        direction = f"key light from camera {'right' if use > 0 else 'left'}"
    if m["light_source"] == "face" and m["light_vert_delta"] < -4:
        direction += ", from above"
    # Hardness is read on the face only; on clothes a black garment looks like deep shadow.
    hard = m["light_ratio"] > 3.5 or (
        m["light_source"] == "face" and m["light_hardness"] > 0.7 and m["light_ratio"] > 2.2
    )
    quality = "Hard light with crisp shadow edges" if hard else "Soft light with gentle shadow transitions"
    parts.append(f"{quality}; {direction}.")
    where = "across the face" if m["light_source"] == "face" else "across the body"
    parts.append(f"Lighting ratio about {m['light_ratio']:.1f}:1 {where}.")
    mean, dark, bright = m["L_mean"], m["dark_share"], m["bright_share"]
    if mean > 62 and dark < 0.2:
        key = "High key: bright, airy exposure with most tones above mid-grey"
    elif mean < 38 and bright < 0.15:
        key = "Low key: dark exposure with deep shadows"
    else:
        key = "Mid key exposure"
    span = m["L_p98"] - m["L_p2"]
    contrast = "high contrast" if span > 85 else ("low contrast" if span < 55 else "moderate contrast")
    parts.append(f"{key}; {contrast}.")
    return " ".join(parts)


def _colour_text(m: dict[str, Any]) -> str:
    parts = []
    cct = m["white_cct"]
    if m["chroma_p99"] < 4.0:
        parts.append("Black and white, monochrome.")
    else:
        k = int(round(cct / 100.0) * 100)
        if cct < 5400:
            wb = "Warm white balance"
        elif cct > 7400:
            wb = "Cool white balance"
        else:
            wb = "Neutral white balance"
        parts.append(f"{wb}, whites rendered at about {k} K.")
    pal = ", ".join(f"{n} {_pct(s)}" for n, s, _ in m["palette"] if s >= 0.01)
    parts.append(f"Palette: {pal}.")
    p90 = m["chroma_p90"]
    if m["chroma_p99"] >= 4.0:
        if p90 < 14:
            sat = "Muted, desaturated colour"
        elif p90 > 45:
            sat = "Vivid, saturated colour"
        else:
            sat = "Natural saturation"
        parts.append(f"{sat}.")
    return " ".join(parts)


def _graded(x: float, bands: tuple[tuple[float, str], ...], above: str) -> str:
    """The words of the first band whose upper limit ``x`` is under, else ``above``."""
    return next((words for limit, words in bands if x < limit), above)


def _camera_text(m: dict[str, Any]) -> str:
    parts = [_graded(m["noise_sigma"], ((2.0, "Clean digital rendering, no visible grain."),
                                        (4.0, "Fine grain."), (8.0, "Visible film grain.")),
                     "Heavy grain.")]
    v = m.get("vignette")
    corners = f"corners about {_pct(v or 0.0)} darker."
    parts.append(_graded(0.0 if v is None else v,
                         ((0.04, "No vignetting."), (0.12, f"Light vignette, {corners}")),
                         f"Strong vignette, {corners}"))
    bg, subj = m.get("bg_sharpness"), m["subject_sharpness"]
    if m.get("bg_plain"):
        parts.append("Subject in sharp focus against a plain backdrop.")
    elif bg is not None and subj > 0:
        parts.append(_graded(bg / subj, (
            (0.2, "Shallow depth of field: background blurred, subject sharp."),
            (0.6, "Moderate depth of field: background softened.")),
            "Deep focus: background as sharp as the subject."))
    parts.append(f"{_aspect(m['width'], m['height']).capitalize()}.")
    return " ".join(parts)
