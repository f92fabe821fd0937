"""Fitting a garment to a body: its keypoints mapped to targets on the body's pose and torso,
then warped into the person's frame (a thin-plate spline for its body, each sleeve swung
rigidly onto its arm)."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from workers.engines.imaging import warp
from workers.engines.tryon.body import (
    LEG_RADII,
    Body,
    _reach,
    arm_hangs,
    as_point,
    limbs_of,
    old_garment,
    torso_sides,
)
from workers.engines.tryon.garment import Garment


def _along(chain: list[np.ndarray], dist: float) -> np.ndarray:
    """The point ``dist`` along a polyline, continuing past its end in the last direction."""
    for a, b in zip(chain, chain[1:], strict=False):
        seg = float(np.linalg.norm(b - a))
        if dist <= seg or b is chain[-1]:
            return a + (b - a) / max(seg, 1e-6) * dist
        dist -= seg
    return chain[-1]


def _similarity_parts(g_a: np.ndarray, g_b: np.ndarray, b_a: np.ndarray, b_b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(A, t) with f(q) = A q + t mapping segment g_a-g_b onto b_a-b_b."""
    gv, bv = g_b - g_a, b_b - b_a
    s = np.linalg.norm(bv) / max(np.linalg.norm(gv), 1e-6)
    ang = np.arctan2(bv[1], bv[0]) - np.arctan2(gv[1], gv[0])
    c, si = np.cos(ang), np.sin(ang)
    a = np.array([[c, -si], [si, c]]) * s
    return a, (b_a + b_b) / 2 - a @ ((g_a + g_b) / 2)


def _similarity(g_a: np.ndarray, g_b: np.ndarray, b_a: np.ndarray, b_b: np.ndarray):  # type: ignore[no-untyped-def]
    """Map garment points so segment g_a-g_b lands on b_a-b_b (rotation, scale, shift)."""
    a, t = _similarity_parts(g_a, g_b, b_a, b_b)
    s = float(np.linalg.norm(b_b - b_a) / max(np.linalg.norm(g_b - g_a), 1e-6))

    def f(q: tuple[float, float] | np.ndarray) -> np.ndarray:
        return a @ np.asarray(q, np.float64) + t

    return f, s


def sleeve_masks(g: Garment) -> dict[str, np.ndarray]:
    """The sleeves of a top or dress: garment pixels outside the shoulder-armpit line (above a
    dress's waist: a skirt flares out past that line too)."""
    pts = {k: as_point(v) for k, v in g.shape.points.items()}
    out: dict[str, np.ndarray] = {}
    if g.shape.category == warp.LOWER:
        return out
    h, w = g.alpha.shape
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    tw = float(np.linalg.norm(pts["shoulder_r"] - pts["shoulder_l"]))
    limit = pts["waist_l"][1] if g.shape.category == warp.ONE_PIECE and "waist_l" in pts else h
    for side, sgn in (("l", -1.0), ("r", 1.0)):
        if f"sleeve_{side}" not in pts:
            continue
        sh = pts[f"shoulder_{side}"]
        ap = pts.get(f"armpit_{side}", sh + np.array([0.0, 0.35 * tw]))
        d = ap - sh
        d /= max(np.linalg.norm(d), 1e-6)
        n = np.array([d[1], -d[0]])
        if n[0] * sgn < 0:
            n = -n
        side_dist = (xx - sh[0]) * n[0] + (yy - sh[1]) * n[1]
        out[side] = (side_dist > 0.02 * tw) & (g.alpha > 0.02) & (yy < limit)
    return out


def place_garment(g: Garment, body: Body) -> tuple[list[np.ndarray], list[np.ndarray], dict[str, Any]]:
    """Control point pairs (garment, body) for the TPS, and facts for the compositor."""
    pts = {k: as_point(v) for k, v in g.shape.points.items()}
    place = _place_bottoms if g.shape.category == warp.LOWER else _place_top
    return place(g, body, pts)


# A sleeved garment's shoulder seam lies on the top of the shoulder: read off the silhouette
# above the middle of the shoulder's cap (0.04 to 0.13 of the shoulders' width above the joint
# on our photos), held between these shares, less SHOULDER_SLOPE for the way the shoulder rounds
# down to the seam's end. Hair on the shoulder would read higher: the cap holds it.
SHOULDER_TOP = (0.06, 0.11)
SHOULDER_SLOPE = 0.02


def shoulder_top(body: Body, side: str) -> float:
    """Pixels from the shoulder joint on ``side`` ("l", "r") up to where a sleeved garment's
    shoulder seam ends."""
    sw = body.shoulder_width
    chain, sign, edge = ((body.left, -1.0, body.extras["edge"][0]) if side == "l"
                         else (body.right, 1.0, body.extras["edge"][1]))
    if not arm_hangs(chain, body.down):
        # A raised arm lifts its deltoid: the silhouette above it is not the shoulder's top.
        return SHOULDER_TOP[0] * sw
    cap = chain["shoulder"] + sign * body.u * 0.5 * edge
    up = _reach(body.mask > 0.5, cap, -body.down, SHOULDER_TOP[1] * sw + 2 * SHOULDER_SLOPE * sw)
    return float(np.clip(up / sw - SHOULDER_SLOPE, *SHOULDER_TOP)) * sw


def _place_top(g: Garment, body: Body, pts: dict[str, np.ndarray]) -> tuple[list[np.ndarray], list[np.ndarray], dict[str, Any]]:
    src: list[np.ndarray] = []
    dst: list[np.ndarray] = []
    info: dict[str, Any] = {}
    sw, torso = body.shoulder_width, body.torso_len
    L, R = body.left, body.right
    edge_l, edge_r = body.extras["edge"]
    one_piece = g.shape.category == warp.ONE_PIECE
    sleeveless = "armhole_l" in pts
    # Garment shoulders sit on the top of the shoulder, a little above the joints; a strap sits
    # on the joint itself.
    lift = -0.06 * sw * body.down
    if sleeveless:
        b_sl = L["shoulder"] - body.u * 0.2 * edge_l + 1.2 * lift
        b_sr = R["shoulder"] + body.u * 0.2 * edge_r + 1.2 * lift
    else:
        b_sl = L["shoulder"] - body.u * edge_l - shoulder_top(body, "l") * body.down
        b_sr = R["shoulder"] + body.u * edge_r - shoulder_top(body, "r") * body.down
    f, s = _similarity(pts["shoulder_l"], pts["shoulder_r"], b_sl, b_sr)
    g_mid = (pts["shoulder_l"] + pts["shoulder_r"]) / 2
    gu = pts["shoulder_r"] - pts["shoulder_l"]
    gu /= max(np.linalg.norm(gu), 1e-6)
    gd = np.array([-gu[1], gu[0]])
    b_mid = (b_sl + b_sr) / 2
    lift_len = float((body.shoulder_mid - b_mid) @ body.down)  # the shoulder line below b_mid

    def depth_of(q: np.ndarray) -> float:
        return float((q - g_mid) @ gd) * s

    def on_sides(depth: float, half_l: float, half_r: float) -> tuple[np.ndarray, np.ndarray]:
        c = b_mid + body.down * depth
        return c - body.u * half_l, c + body.u * half_r

    def fitted(depth: float, own_l: float, own_r: float, lo: float, hi: float | None) -> tuple[float, float]:
        """Half widths at ``depth``: the garment's own, held between lo and hi times the torso's."""
        _, tl, tr = torso_sides(body, max(depth - lift_len, 0.0))
        if hi is None:
            return max(own_l, lo * tl), max(own_r, lo * tr)
        return float(np.clip(own_l, lo * tl, hi * tl)), float(np.clip(own_r, lo * tr, hi * tr))

    src += [pts["shoulder_l"], pts["shoulder_r"]]
    dst += [b_sl, b_sr]
    for k in ("neck_l", "neck_r"):
        if k in pts:
            src.append(pts[k])
            dst.append(f(pts[k]))

    # Hem: straight down the body's torso axis at the garment's own length, counted from the
    # shoulder line as it sits on an average shoulder: a seam lifted onto a high shoulder
    # does not lift the hem with it, which would bare the old garment below.
    hem_c = (pts["hem_l"] + pts["hem_r"]) / 2
    raised = 0.0 if sleeveless else float(
        (body.shoulder_mid + lift - b_mid) @ body.down)
    depth = depth_of(hem_c) + raised
    if one_piece:
        ankles = [c["ankle"] for c in (L, R) if "ankle" in c]
        if ankles:
            floor = float((np.mean(ankles, axis=0) - b_mid) @ body.down)
            depth = min(depth, 0.97 * floor)
    else:
        # Flat product shots exaggerate length against the shoulders; a top ending past
        # 1.3 torso lengths would be a dress.
        depth = min(depth, 1.3 * torso + 0.06 * sw + raised)
    own_half = float(np.linalg.norm(pts["hem_r"] - pts["hem_l"])) * s / 2
    hl, hr = fitted(depth, own_half, own_half, 1.03, None if one_piece else 1.08)
    src += [pts["hem_l"], pts["hem_r"], hem_c]
    b_hem_l, b_hem_r = on_sides(depth, hl, hr)
    dst += [b_hem_l, b_hem_r, (b_hem_l + b_hem_r) / 2]
    info["hem_depth"] = depth
    # One vertical scale for everything between shoulders and hem, so prints keep their
    # proportions when the length is held to the body's.
    sv = depth / max(depth_of(hem_c), 1.0)

    def vdepth(q: np.ndarray) -> float:
        return depth_of(q) * sv

    # Armpits: the side seams start at the torso's sides, under the arms.
    g_pits: dict[str, np.ndarray] = {}
    for side in ("l", "r"):
        key = f"armpit_{side}" if f"armpit_{side}" in pts else f"armhole_{side}"
        if key in pts:
            g_pits[side] = pts[key]
    pit_depth = None
    if len(g_pits) == 2:
        pit_depth = float(np.clip(np.mean([vdepth(p) for p in g_pits.values()]),
                                  0.2 * torso + lift_len, 0.55 * torso + lift_len))
        # A boxy top is as wide at the armpits as its body; a fitted one hugs the chest.
        own_l, own_r = (abs(float((g_pits[k] - g_mid) @ gu)) * s for k in ("l", "r"))
        _, tl, tr = torso_sides(body, max(pit_depth - lift_len, 0.0))
        pl = float(np.clip(own_l, 1.03 * tl, max(1.1 * tl, hl)))
        pr = float(np.clip(own_r, 1.03 * tr, max(1.1 * tr, hr)))
        b_pl, b_pr = on_sides(pit_depth, pl, pr)
        src += [g_pits["l"], g_pits["r"]]
        dst += [b_pl, b_pr]
        # The chest line between the armpits stays straight and level: the swung sleeves pull
        # on it otherwise, and a print across the chest would bend.
        for t in (0.2, 0.5, 0.8):
            src.append(g_pits["l"] + t * (g_pits["r"] - g_pits["l"]))
            dst.append(b_pl + t * (b_pr - b_pl))

    # Down the sides: the garment's outline between armpit (or shoulder) and hem or waist.
    waist_depth = None
    if one_piece and "waist_l" in pts:
        waist_depth = float(np.clip(vdepth((pts["waist_l"] + pts["waist_r"]) / 2),
                                    0.5 * torso + lift_len, 0.95 * torso + lift_len))
        wl, wr = fitted(waist_depth, 0.0, 0.0, 1.04, None)
        src += [pts["waist_l"], pts["waist_r"]]
        dst += list(on_sides(waist_depth, wl, wr))
    outline: dict[str, list[np.ndarray]] = {"l": [b_sl], "r": [b_sr]}
    for i, side in enumerate(("l", "r")):
        top = g_pits.get(side, pts[f"shoulder_{side}"])
        if pit_depth is not None:
            outline[side].append(b_pl if side == "l" else b_pr)
        bottom_g = pts[f"waist_{side}"] if waist_depth is not None else pts[f"hem_{side}"]
        top_half = [pl, pr][i] if pit_depth is not None else None
        for t in (0.33, 0.67):
            gs = top + t * (bottom_g - top)
            d = vdepth(gs)
            own = abs(float((gs - g_mid) @ gu)) * s
            _, tl, tr = torso_sides(body, max(d - lift_len, 0.0))
            reach = [tl, tr][i]
            hi = (1.08 if waist_depth is None else 1.06) * reach
            if waist_depth is None and top_half is not None:
                # A top hangs straight from the armpit to the hem; it does not follow the waist in.
                hi = max(hi, top_half + t * ([hl, hr][i] - top_half))
            half = float(np.clip(own, 1.02 * reach, hi))
            src.append(gs)
            q = on_sides(d, half, half)[i]
            dst.append(q)
            outline[side].append(q)
        if waist_depth is not None:
            # The skirt: its own flare, never narrower than the hips.
            gs = pts[f"waist_{side}"] + 0.5 * (pts[f"hem_{side}"] - pts[f"waist_{side}"])
            d = vdepth(gs)
            own = abs(float((gs - g_mid) @ gu)) * s
            half_l, half_r = fitted(d, own, own, 1.05, None)
            src.append(gs)
            dst.append(on_sides(d, half_l, half_r)[0 if side == "l" else 1])
            outline[side].append(dst[-1])
        outline[side].append(b_hem_l if side == "l" else b_hem_r)
    # Inside this outline the garment may stand off the body (over the gap between arm and waist).
    info["outline"] = np.array(outline["l"] + outline["r"][::-1])
    # The centre line stays straight, so prints and plackets are not bent.
    for t in (0.35, 0.7):
        gq = g_mid + gd * (t * float((hem_c - g_mid) @ gd))
        src.append(gq)
        dst.append(b_mid + body.down * t * depth)

    # Sleeves follow the arms: each is swung rigidly about its shoulder onto the arm, the tip
    # the sleeve's length down it.
    sleeve_frac: dict[str, float] = {}
    sleeves: dict[str, np.ndarray] = {}
    a_sim, b_sim = _similarity_parts(pts["shoulder_l"], pts["shoulder_r"], b_sl, b_sr)
    g_sleeves = sleeve_masks(g)
    limbs = limbs_of(body)
    for side, chain_src in (("l", L), ("r", R)):
        key = f"sleeve_{side}"
        if key not in pts or "elbow" not in chain_src:
            continue
        shoulder_pt = b_sl if side == "l" else b_sr
        chain = [shoulder_pt, chain_src["elbow"]] + ([chain_src["wrist"]] if "wrist" in chain_src else [])
        length = float(np.linalg.norm(pts[key] - pts[f"shoulder_{side}"])) * s
        arm_len = sum(float(np.linalg.norm(b - a)) for a, b in zip(chain, chain[1:], strict=False))
        length = min(length, arm_len * 1.05)
        tip = _along(chain, length)
        sleeve_frac[side] = length / max(arm_len, 1e-6)
        v0 = f(pts[key]) - shoulder_pt
        v1 = tip - shoulder_pt
        ang = np.arctan2(v1[1], v1[0]) - np.arctan2(v0[1], v0[0])
        c, si = np.cos(ang), np.sin(ang)
        rot = np.array([[c, -si], [si, c]])
        # Across the arm the sleeve is fitted to it: seen from the front a sleeve is a little
        # wider than the arm (2.5 radii), where laid flat it is half its round; a flat sleeve
        # swung down as it is stands off the arm and leaves a hole at the armpit.
        widen = np.eye(2)
        arm = limbs.get(f"arm_{side}")
        if arm is not None and side in g_sleeves and g_sleeves[side].any():
            ys_, xs_ = np.nonzero(g_sleeves[side])
            axis = pts[key] - pts[f"shoulder_{side}"]
            axis_len = max(float(np.linalg.norm(axis)), 1e-6)
            axis /= axis_len
            rel = np.stack([xs_, ys_], 1) - pts[f"shoulder_{side}"]
            along, across = rel @ axis, rel @ np.array([-axis[1], axis[0]])
            mid = (along > 0.35 * axis_len) & (along < 0.75 * axis_len)
            if mid.sum() > 10:
                own_w = float(np.ptp(across[mid])) * s
                k = float(np.clip(2.5 * arm.radii[0] / max(own_w, 1.0), 0.7, 1.5))
                n = np.array([-v1[1], v1[0]]) / max(float(np.linalg.norm(v1)), 1e-6)
                widen = np.eye(2) + (k - 1.0) * np.outer(n, n)
        # As a 2x3 affine: q -> P + W R (f(q) - P), f(q) = A q + t.
        lin = widen @ rot @ a_sim
        sleeves[side] = np.hstack([lin, (shoulder_pt + widen @ rot @ (b_sim - shoulder_pt))[:, None]])
    info["sleeve_frac"] = sleeve_frac
    info["sleeves"] = sleeves
    info["scale"] = s
    return src, dst, info


def _place_bottoms(g: Garment, body: Body, pts: dict[str, np.ndarray]) -> tuple[list[np.ndarray], list[np.ndarray], dict[str, Any]]:
    """Waistband a little above the hip joints at the torso's width, crotch below them, each leg
    down its leg's hip-knee-ankle chain."""
    src: list[np.ndarray] = []
    dst: list[np.ndarray] = []
    info: dict[str, Any] = {}
    sw, torso = body.shoulder_width, body.torso_len
    L, R = body.left, body.right
    hl = L.get("hip", body.hip_mid - body.u * 0.2 * sw)
    hr = R.get("hip", body.hip_mid + body.u * 0.2 * sw)
    # The waistband where the old bottoms' was (a skirt at the natural waist, jeans lower),
    # else a little above the hip joints.
    waist_depth = 0.8 * torso
    old = old_garment(body, warp.LOWER)
    ys, xs = np.nonzero(old)
    if len(ys):
        q = np.stack([xs, ys], 1).astype(np.float64) - body.shoulder_mid
        central = np.abs(q @ body.u - float((body.hip_mid - body.shoulder_mid) @ body.u)) < 0.15 * sw
        if central.sum() > 20:
            waist_depth = float(np.clip(np.percentile(q[central] @ body.down, 2), 0.55 * torso, 0.85 * torso))
    waist_c, wl, wr = torso_sides(body, waist_depth)
    b_wl, b_wr = waist_c - body.u * 1.03 * wl, waist_c + body.u * 1.03 * wr
    _, s = _similarity(pts["waist_l"], pts["waist_r"], b_wl, b_wr)
    # A flat waistband is half the waist's round, wider than the body seen from the front.
    s *= 1.25
    src += [pts["waist_l"], pts["waist_r"]]
    dst += [b_wl, b_wr]
    waist_g = (pts["waist_l"] + pts["waist_r"]) / 2
    crotch_len = float(np.clip((pts["crotch"][1] - waist_g[1]) * s, 0.2 * torso, 0.45 * torso))
    b_crotch = waist_c + body.down * crotch_len
    src.append(pts["crotch"])
    dst.append(b_crotch)
    if "hip_l_out" in pts:
        c, ll, rr = torso_sides(body, waist_depth + crotch_len)
        own = float(np.linalg.norm(pts["hip_r_out"] - pts["hip_l_out"])) * s / 2
        src += [pts["hip_l_out"], pts["hip_r_out"]]
        dst += [c - body.u * max(own, 1.04 * ll), c + body.u * max(own, 1.04 * rr)]
    g_waist_y = float(waist_g[1])
    hip_to_waist = float((body.hip_mid - waist_c) @ body.down)
    for side, chain_src, hip in (("l", L, hl), ("r", R, hr)):
        knee = chain_src.get("knee", hip + body.down * 0.95 * torso)
        ankle = chain_src.get("ankle", knee + (knee - hip))
        chain = [hip, knee, ankle]
        leg_len = float(np.linalg.norm(knee - hip) + np.linalg.norm(ankle - knee))
        for part in ("knee", "hem"):
            ko, ki = f"{part}_{side}_out", f"{part}_{side}_in"
            if ko not in pts or ki not in pts:
                continue
            gc = (pts[ko] + pts[ki]) / 2
            length = (gc[1] - g_waist_y) * s - hip_to_waist
            if part == "hem" and length > 0.8 * leg_len:
                # Full-length trousers break on the shoe, whatever the product shot's scale says.
                length = leg_len + 0.3 * LEG_RADII[2] * sw
            length = min(length, leg_len + 0.3 * LEG_RADII[2] * sw if part == "hem" else 0.55 * leg_len)
            c = _along(chain, max(length, 0.0))
            seg = (knee - hip) if length <= np.linalg.norm(knee - hip) else (ankle - knee)
            ldir = seg / max(float(np.linalg.norm(seg)), 1e-6)
            lw = float(np.linalg.norm(pts[ko] - pts[ki])) * s / 2
            perp = np.array([-ldir[1], ldir[0]])
            # Outer side points away from the body's centre line.
            if float(perp @ body.u) * (-1 if side == "l" else 1) < 0:
                perp = -perp
            src += [pts[ko], pts[ki]]
            dst += [c + perp * lw, c - perp * lw]
    info["scale"] = s
    return src, dst, info


def warp_garment(g: Garment, body: Body) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """The garment in the person's frame: its body by a TPS on the torso's landmarks, each
    sleeve swung rigidly about its shoulder onto the arm and laid over it.

    One spline for both would have to fold a wide sleeve hanging down the arm into the
    body's side, pinching it; a sleeve pulled out of the body's spline leaves a gap at the
    armpit, so the body keeps a few pixels of each sleeve's root under the swung sleeve.
    ``info["sleeve_share"]`` says which part of the result is sleeve: arms go in front of the
    rest.
    """
    src, dst, info = place_garment(g, body)
    src_a, dst_a = np.array(src), np.array(dst)
    size = (body.w, body.h)
    sleeves = info.get("sleeves", {})
    smasks = {k: v for k, v in sleeve_masks(g).items() if k in sleeves}
    torso_alpha = g.alpha.copy()
    root = max(2, int(0.02 * g.alpha.shape[1]))
    kernel = np.ones((2 * root + 1, 2 * root + 1), np.uint8)
    body_part = (g.alpha > 0.5).astype(np.uint8)
    for m in smasks.values():
        body_part[m] = 0
    seam = cv2.dilate(body_part, kernel) > 0
    for m in smasks.values():
        torso_alpha[m & ~seam] = 0.0
    map_x, map_y = warp.tps_maps(src_a, dst_a, size)
    t_rgb = cv2.remap(g.rgb, map_x, map_y, interpolation=cv2.INTER_LINEAR,
                      borderMode=cv2.BORDER_REPLICATE)
    t_a = np.clip(cv2.remap(torso_alpha, map_x, map_y, interpolation=cv2.INTER_LINEAR,
                            borderMode=cv2.BORDER_CONSTANT, borderValue=0), 0, 1)
    swung = []
    # A sleeve's cut from the body (a pixel mask on the flat) is drawn over the body's warp:
    # scaled down without a filter its edge was a staircase, a dotted seam across the sleeve.
    # Blurred by half an output pixel first, as the resampling to that size would.
    soften = 0.5 / max(float(info.get("scale", 1.0)), 1e-3)
    for side, m in smasks.items():
        cut = m.astype(np.float32)
        if soften > 0.5:
            cut = cv2.GaussianBlur(cut, (0, 0), soften)
        sa = (g.alpha * cut).astype(np.float32)
        mat = sleeves[side].astype(np.float32)
        one_rgb = cv2.warpAffine(g.rgb, mat, size, flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_REPLICATE)
        one_a = np.clip(cv2.warpAffine(sa, mat, size, flags=cv2.INTER_LINEAR, borderValue=0), 0, 1)
        swung.append((one_rgb, one_a))
    # The blend in float only over the box where some part has alpha: outside it the alpha and
    # the sleeve share are 0 and the colour is the torso's warp as it is, the same figures as
    # blending the whole frame (a garment covers a fraction of the photo).
    rgb = t_rgb.copy()
    a = np.zeros_like(t_a)
    share = np.zeros_like(t_a)
    info["targets"] = dst_a
    info["sleeve_share"] = share
    support = t_a > 0
    for _, one_a in swung:
        support |= one_a > 0
    box = nonzero_box(support)
    if box is None:
        return rgb, a, info
    tb_rgb = t_rgb[box].astype(np.float32)
    tb_a = t_a[box]
    s_rgb = np.zeros_like(tb_rgb)
    s_a = np.zeros_like(tb_a)
    for one_rgb, one_a in swung:
        ob_rgb = one_rgb[box].astype(np.float32)
        ob_a = one_a[box]
        s_rgb = ob_rgb * ob_a[..., None] + s_rgb * (1 - ob_a[..., None])
        s_a = ob_a + s_a * (1 - ob_a)
    ab = s_a + tb_a * (1 - s_a)
    blend = (s_rgb * s_a[..., None] + tb_rgb * (tb_a * (1 - s_a))[..., None]) / np.maximum(ab, 1e-3)[..., None]
    blend = np.where(ab[..., None] > 1e-3, blend, tb_rgb)
    rgb[box] = np.clip(blend + 0.5, 0, 255).astype(np.uint8)
    a[box] = np.clip(ab, 0, 1)
    share[box] = np.clip(s_a / np.maximum(ab, 1e-3), 0, 1)
    return rgb, a, info


def nonzero_box(weight: np.ndarray) -> tuple[slice, slice] | None:
    """The bounding box of a weight map's non-zero pixels (None when there are none)."""
    rows = np.flatnonzero(weight.any(axis=1))
    if not len(rows):
        return None
    cols = np.flatnonzero(weight.any(axis=0))
    return slice(int(rows[0]), int(rows[-1]) + 1), slice(int(cols[0]), int(cols[-1]) + 1)
