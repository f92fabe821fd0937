"""A bag the model already carries on a strap: over a shoulder or across the body.

A bag's strap shows on a catalogue photo as a band a few centimetres wide that leaves the top
of a shoulder and runs on down the front of the body, past the chest, in one colour, with the
same thing (garment, skin or backdrop) on both sides of it. Garments have bands too, and each
fails one of those: a camisole's or a dress's straps end at the neckline, well above the
waist; a lapel, a neckline or the arm's edge is a step between two colours (its two halves
differ), not a band; an arm hanging beside the body has the skin's (or a sleeve's) colour and
lies along the silhouette's edge; a belt runs across, not down; a necklace is thinner and
ends at the breastbone; a print changes colour along the line.

Not seen: a strap the colour of what lies under it (a black strap on a black dress), a
strap the colour of the skin, a bag in the crook of an arm with no strap on the shoulder.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from workers.engines.imaging.color import srgb8_to_oklab
from workers.engines.imaging.pose import Pose

# Bag straps seen front-on: a thin leather strap to a wide webbing one.
STRAP_WIDTHS_CM = (1.2, 2.0, 3.2)
# Each side of the band, past a gap for its soft edge and its shadow, a strip this wide.
FLANK_GAP_CM = 0.6
FLANK_CM = 1.5
# The strap differs from what lies on each side of it by at least this (OKLab; a crease in a
# white top differed by 0.08), is one colour
# along its length (within STRAP_SAME, its lightness weighted by half), and its two halves are
# alike (within STRAP_SAME): across a step between two colours the halves differ.
STRAP_CONTRAST = 0.12
STRAP_SAME = 0.07
# The band must run from the shoulder's top down this share of the torso's length (shoulder
# to hip); a camisole's strap ends at the neckline, about a third of the way. Of the band's
# samples down there, this share must show it (hair or a hand may cross it, and near the
# bag a strap curves off the one bow it is followed along).
STRAP_REACH = 0.62
STRAP_SHOWN = 0.75
# Where the strap may end at the hips' row: from beyond the far hip to this far outside the
# near shoulder (a shoulder bag hangs at the side, its strap's outer leg further out).
STRAP_END_OUT_CM = 16.0
STEP_CM = 1.0
WORK_SIDE = 1024
MAX_OUTLINE = 0.5
NEAR_BODY_CM = 3.0
LIMB_CM = 6.0
# Over the shoulder's top a strap curves more than any one bow follows: it is judged from this
# far below the shoulder joint on.
STRAP_SKIP_CM = 6.0
SHADE_WEIGHTS = np.array([0.5, 1.0, 1.0], np.float32)
# A strap's sag off its chord, as a share of the chord (either way: toward the body's side or
# pulled across it by the bag's weight).
STRAP_BOWS = (-0.08, -0.04, 0.0, 0.04, 0.08)
# Where each strip along the band is sampled across it (shares of the strip's width).
_ACROSS = np.linspace(0.0, 1.0, 3, dtype=np.float32)
_WIDTHS_CM = np.array(STRAP_WIDTHS_CM, np.float32)


@dataclass(frozen=True)
class Strap:
    """A strap the model wears: the shoulder it hangs from ('left' or 'right', the body's own)
    and whether it crosses the body to the other side."""

    side: str
    across: bool
    start: tuple[float, float]
    end: tuple[float, float]
    width_cm: float

    def describe(self) -> str:
        if self.across:
            return f"on a strap across the body from the {self.side} shoulder"
        return f"on a strap over the {self.side} shoulder"


def carried_strap(rgb: np.ndarray, mask: np.ndarray, pose: Pose, ppcm: float) -> Strap | None:
    """The strap of a bag the model already wears, or None (in the photo's pixels)."""
    h, w = mask.shape
    scale = min(1.0, WORK_SIDE / max(h, w))
    if scale >= 1.0:
        return _strap(rgb, mask, pose, ppcm)
    # Looked for at a working size: a strap is centimetres wide, and on a 24 MP photo the
    # search took seconds.
    size = (max(1, round(w * scale)), max(1, round(h * scale)))
    small = Pose({k: (x * scale, y * scale) for k, (x, y) in pose.points.items()},
                 size[0], size[1])
    found = _strap(cv2.resize(rgb, size, interpolation=cv2.INTER_AREA),
                   cv2.resize(mask.astype(np.float32), size, interpolation=cv2.INTER_AREA),
                   small, ppcm * scale)
    if found is None:
        return None
    return Strap(found.side, found.across, (found.start[0] / scale, found.start[1] / scale),
                 (found.end[0] / scale, found.end[1] / scale), found.width_cm)


def _strap(rgb: np.ndarray, mask: np.ndarray, pose: Pose, ppcm: float) -> Strap | None:
    pts = pose.points
    if not all(k in pts for k in ("left_shoulder", "right_shoulder")) or ppcm <= 0:
        return None
    ls, rs = np.asarray(pts["left_shoulder"], float), np.asarray(pts["right_shoulder"], float)
    if "left_hip" in pts and "right_hip" in pts:
        torso_len = 0.5 * (pts["left_hip"][1] + pts["right_hip"][1]) - 0.5 * (ls[1] + rs[1])
    else:
        torso_len = 1.3 * float(np.linalg.norm(ls - rs))
    if torso_len <= 4 * ppcm:
        return None
    lab = srgb8_to_oklab(np.ascontiguousarray(rgb)).astype(np.float32)
    # A strap hanging beside the arm may be left out of the person's segmentation: it is
    # looked for on the person and within NEAR_BODY_CM of her.
    r = max(1, round(NEAR_BODY_CM * ppcm))
    body = (mask > 0.5).astype(np.float32)
    near_body = cv2.dilate((mask > 0.5).astype(np.uint8), np.ones((2 * r + 1, 2 * r + 1),
                                                                   np.uint8)) > 0
    # Colours a strap is not: the skin's, or a sleeve's (an arm hanging beside the body is a
    # band between the garment and the backdrop).
    skip = _limb_colours(lab, pose, ppcm)
    # Every candidate band's line is laid out first; the bands are then read and judged in
    # batches of the same length (one remap and one set of array operations each, rather
    # than a few dozen small ones per band: 2,600 bands on a 1024 px photo).
    sides: list[tuple[str, bool]] = []  # each band's shoulder and whether it crosses the body
    bands: list[_Band] = []
    for side, near, far in (("left", ls, rs), ("right", rs, ls)):
        outward = float(np.sign(near[0] - far[0])) or 1.0
        top = _shoulder_top_row(mask, near, ppcm)
        # The strap lies on the shoulder's top between the neck and the joint's outer side.
        starts = [near[0] + outward * d * ppcm for d in np.arange(-7.0, 2.1, 1.0)]
        y_end = 0.5 * (near[1] + far[1]) + torso_len
        ends = np.arange(far[0] - outward * 6.0 * ppcm,
                         near[0] + outward * (STRAP_END_OUT_CM * ppcm) + outward,
                         outward * 2.0 * ppcm)
        for sx in starts:
            for ex in ends:
                start = np.array([sx, top + 1.0 * ppcm])
                end = np.array([ex, y_end])
                across = bool((ex - 0.5 * (ls[0] + rs[0])) * outward < 0)
                for bow in STRAP_BOWS:
                    sides.append((side, across))
                    bands.append((start, end, bow, near[1] + STRAP_SKIP_CM * ppcm,
                                  near[1] + STRAP_REACH * torso_len))
    lines = _band_lines(near_body, bands, ppcm)
    found = [(i, line) for i, line in enumerate(lines) if line is not None]
    scores = _band_scores(lab, body, [line for _, line in found], ppcm, skip)
    best: tuple[float, int, float] | None = None  # score, band, width
    for (i, _), got in zip(found, scores):
        if got is not None and (best is None or got[0] > best[0]):  # the first of equal scores
            best = (got[0], i, got[1])
    if best is None:
        return None
    _, i, width = best
    start, end = bands[i][0], bands[i][1]
    return Strap(*sides[i], (float(start[0]), float(start[1])), (float(end[0]), float(end[1])),
                 width)


def _shoulder_top_row(mask: np.ndarray, shoulder: np.ndarray, ppcm: float) -> float:
    """The silhouette's top above the shoulder joint (at most 8 cm up)."""
    h, w = mask.shape
    x = int(np.clip(round(shoulder[0]), 0, w - 1))
    y = int(np.clip(round(shoulder[1]), 0, h - 1))
    y0 = max(0, y - round(8 * ppcm))
    col = mask[y0 : y + 1, x] > 0.5
    outside = np.nonzero(~col)[0]
    return float(y0 + outside.max() + 1) if len(outside) else float(y0)


def _limb_colours(lab: np.ndarray, pose: Pose, ppcm: float) -> list[np.ndarray]:
    """The colours of the forearms and the face: the median over a band 6 cm wide along each
    forearm, and around the nose. Not the upper arms: a shoulder bag's strap lies along one,
    and its colour was taken for the arm's."""
    pts = pose.points
    h, w = lab.shape[:2]
    pairs = [(f"{s}_elbow", f"{s}_wrist") for s in ("left", "right")] + [("nose", "nose")]
    out = []
    for a, b in pairs:
        if a not in pts or b not in pts:
            continue
        limb = np.zeros((h, w), np.uint8)
        cv2.line(limb, tuple(int(round(v)) for v in pts[a]),
                 tuple(int(round(v)) for v in pts[b]), 1, max(1, round(LIMB_CM * ppcm)))
        if limb.any():
            out.append(np.median(lab[limb > 0], axis=0))
    return out


# A candidate band: start, end, bow, the row it is judged from and the row it must reach.
_Band = tuple[np.ndarray, np.ndarray, float, float, float]


@dataclass(frozen=True)
class _BandLine:
    """A candidate band's centre line, sampled every STEP_CM from the shoulder down to the
    row it must reach: the points, the unit normals, the points judged (below the shoulder's
    curve) and those on or near the person."""

    centre: np.ndarray  # (n, 2)
    normal: np.ndarray  # (n, 2)
    judged: np.ndarray  # (n,) bool
    on_body: np.ndarray  # (n,) bool


def _band_lines(near_body: np.ndarray, bands: list[_Band], ppcm: float) -> list[_BandLine | None]:
    """For each candidate band (start, end, bow, from_y, reach_y), its centre line along
    start→end bowed by ``bow``, from ``start`` down to row ``reach_y`` (judged from row
    ``from_y`` on); None when no strap could run there (across rather than down, short of the
    row, or off the person). Bands sampled at the same number of points are laid out together.
    """
    out: list[_BandLine | None] = [None] * len(bands)
    by_points: dict[int, list[int]] = {}
    chords: dict[int, float] = {}
    for i, (start, end, _bow, _from_y, _reach_y) in enumerate(bands):
        d = end - start
        # The strap runs down: a belt or a neckline runs across.
        if d[1] <= 0 or abs(d[0]) > 1.2 * d[1]:
            continue
        chords[i] = chord = float(np.linalg.norm(d))
        by_points.setdefault(max(8, int(chord / (STEP_CM * ppcm))), []).append(i)
    h, w = near_body.shape
    for points, members in by_points.items():
        start = np.stack([bands[i][0] for i in members])[:, None, :]  # (m, 1, 2)
        end = np.stack([bands[i][1] for i in members])[:, None, :]
        bow = np.array([bands[i][2] for i in members])[:, None, None]
        chord = np.array([chords[i] for i in members])[:, None, None]
        d = end - start
        # A quadratic curve: a strap bows off the straight line from shoulder to bag.
        ctrl = start + 0.5 * d + 2.0 * bow * chord * np.concatenate(
            [-d[..., 1:], d[..., :1]], axis=-1) / chord
        t = np.linspace(0.0, 1.0, points)[:, None]
        curve = (1 - t) ** 2 * start + 2 * (1 - t) * t * ctrl + t**2 * end  # (m, points, 2)
        tangent = 2 * (1 - t) * (ctrl - start) + 2 * t * (end - ctrl)
        normal = np.stack([-tangent[..., 1], tangent[..., 0]], axis=-1)
        normal /= np.maximum(1e-6, np.linalg.norm(normal, axis=-1, keepdims=True))
        cx = np.clip(np.round(curve[..., 0]).astype(int), 0, w - 1)
        cy = np.clip(np.round(curve[..., 1]).astype(int), 0, h - 1)
        on_body = near_body[cy, cx]
        for k, i in enumerate(members):
            _, _, _, from_y, reach_y = bands[i]
            keep = curve[k, :, 1] <= reach_y
            if keep.sum() < 8 or curve[k][keep][-1, 1] < reach_y - 2 * STEP_CM * ppcm:
                continue
            centre = curve[k][keep]
            judged = centre[:, 1] >= from_y
            shown = on_body[k][keep]
            if judged.sum() < 8 or shown[judged].mean() < STRAP_SHOWN:
                continue  # off the person for too long to be shown as a strap on her
            out[i] = _BandLine(centre, normal[k][keep], judged, shown)
    return out


# Sample rows (band points) read in one remap: bounded memory, and under OpenCV's map size
# limits.
_BATCH_POINTS = 16384


def _band_scores(lab: np.ndarray, body: np.ndarray, lines: list[_BandLine], ppcm: float,
                 skip: list[np.ndarray]) -> list[tuple[float, float] | None]:
    """For each band line, how much the band along it stands out as a strap at the best of
    the strap widths: (score, width in cm), or None when it is not a strap there at any
    width. Lines of the same length are judged together."""
    out: list[tuple[float, float] | None] = [None] * len(lines)
    by_length: dict[int, list[int]] = {}
    for i, line in enumerate(lines):
        by_length.setdefault(len(line.centre), []).append(i)
    # For every width, four strips along the band, three samples across each: the band's two
    # inner halves, and a flank on each side past a gap for its soft edge and shadow.
    half = 0.5 * _WIDTHS_CM[:, None] * ppcm
    gap, flank = FLANK_GAP_CM * ppcm, FLANK_CM * ppcm
    spans = np.stack([np.hstack([-0.8 * half, -0.1 * half]), np.hstack([0.1 * half, 0.8 * half]),
                      np.hstack([-(half + gap + flank), -(half + gap)]),
                      np.hstack([half + gap, half + gap + flank])], axis=1)  # (widths, 4, 2)
    offs = (spans[..., :1] + (spans[..., 1:] - spans[..., :1]) * _ACROSS).reshape(-1)
    for n, members in by_length.items():
        step = max(1, _BATCH_POINTS // n)
        for k in range(0, len(members), step):
            batch = members[k:k + step]
            for i, got in zip(batch, _judge_bands(lab, body, [lines[j] for j in batch], n,
                                                   offs, skip)):
                out[i] = got
    return out


def _judge_bands(lab: np.ndarray, body: np.ndarray, lines: list[_BandLine], n: int,
                 offs: np.ndarray, skip: list[np.ndarray]) -> list[tuple[float, float] | None]:
    """``_band_scores`` for lines of ``n`` points each, as arrays over (line, width, point)."""
    g, nw = len(lines), len(_WIDTHS_CM)
    centre = np.stack([ln.centre for ln in lines])  # (g, n, 2)
    normal = np.stack([ln.normal for ln in lines])
    judged = np.stack([ln.judged for ln in lines])  # (g, n)
    on_body = np.stack([ln.on_body for ln in lines])
    xy = centre[:, :, None, :] + offs[None, None, :, None] * normal[:, :, None, :]
    mx = xy[..., 0].astype(np.float32).reshape(g * n, -1)
    my = xy[..., 1].astype(np.float32).reshape(g * n, -1)
    vals = cv2.remap(lab, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    # (g, widths, 4 strips, n, 3)
    vals = vals.reshape(g, n, nw, 4, 3, 3).mean(axis=4).transpose(0, 2, 3, 1, 4)
    inner_l, inner_r, left, right = vals[:, :, 0], vals[:, :, 1], vals[:, :, 2], vals[:, :, 3]
    band = 0.5 * (inner_l + inner_r)  # (g, widths, n, 3)
    colour = np.median(band, axis=2)  # (g, widths, 3)
    # An arm is shaded round: its hue is what tells it (as along the strap).
    ok = np.ones((g, nw), bool)
    for c in skip:
        ok &= np.linalg.norm((colour - c) * SHADE_WEIGHTS, axis=-1) >= STRAP_SAME
    # A band with the person on one side and the backdrop on the other for most of its length
    # is the silhouette's edge: an arm beside the body, between the garment and the backdrop,
    # was one. (A strap crosses the gap between an arm and the waist for a short way.)
    sides = cv2.remap(body, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    sides = sides.reshape(g, n, nw, 4, 3).mean(axis=4)[..., 2:] > 0.5  # (g, n, widths, 2)
    outline = (sides[..., 0] != sides[..., 1]).transpose(0, 2, 1)  # (g, widths, n)
    counted = judged.sum(axis=1)[:, None]  # (g, 1)
    ok &= (outline & judged[:, None, :]).sum(axis=2) / counted <= MAX_OUTLINE
    contrast = np.minimum(np.linalg.norm(band - left, axis=-1),
                          np.linalg.norm(band - right, axis=-1))  # (g, widths, n)
    split = np.linalg.norm(inner_l - inner_r, axis=-1)
    # Along its length a strap's shade changes (it turns over the shoulder, into the light),
    # its hue much less.
    same = np.linalg.norm((band - colour[:, :, None, :]) * SHADE_WEIGHTS, axis=-1)
    shown = ((contrast > STRAP_CONTRAST) & (split < STRAP_SAME) & (same < STRAP_SAME)
             & on_body[:, None, :] & judged[:, None, :])
    share = shown.sum(axis=2) / counted
    ok &= share >= STRAP_SHOWN
    out: list[tuple[float, float] | None] = []
    for b in range(g):
        if not ok[b].any():
            out.append(None)
            continue
        scores = [float(share[b, i] + contrast[b, i][shown[b, i]].mean()) if ok[b, i]
                  else -np.inf for i in range(nw)]
        best = int(np.argmax(scores))
        out.append((scores[best], float(_WIDTHS_CM[best])))
    return out
