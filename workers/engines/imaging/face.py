"""Face mesh with iris (mediapipe, shipped in its wheel), earlobe estimates and pixels per inch.

The human iris is close to 11.7 mm across whatever the age, sex or build, which makes it the
one ruler every portrait carries: ppi = iris diameter in pixels / (11.7 / 25.4).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import cv2
import numpy as np

IRIS_MM = 11.7
MM_PER_INCH = 25.4

# Face mesh indices (mediapipe canonical face model, 478 points with refine_landmarks).
CHIN = 152
FOREHEAD = 10
NOSE_TIP = 1
SUBNASALE = 2
RIGHT_EDGE = 234  # the subject's right cheek edge (image left on a frontal face)
LEFT_EDGE = 454
IRIS_RINGS = ((469, 470, 471, 472), (474, 475, 476, 477))
IRIS_CENTRES = (468, 473)
FACE_OVAL = (
    10,
    338,
    297,
    332,
    284,
    251,
    389,
    356,
    454,
    323,
    361,
    288,
    397,
    365,
    379,
    378,
    400,
    377,
    152,
    148,
    176,
    149,
    150,
    136,
    172,
    58,
    132,
    93,
    234,
    127,
    162,
    21,
    54,
    103,
    67,
    109,
)
# Contour points beside the ear, top to bottom; the lobe hangs outside the lower ones.
RIGHT_EAR_SIDE = (127, 234, 93, 132)
LEFT_EAR_SIDE = (356, 454, 323, 361)
CHEEKS = (205, 425, 50, 280)

# Half the disc round a lobe is background or neck; hair over the ear leaves almost no skin.
VISIBLE_SKIN_FRACTION = 0.08

_lock = threading.Lock()
_mesh = None
_detector = None


@dataclass(frozen=True)
class Earlobe:
    side: str  # the subject's "left" or "right"
    point: tuple[float, float]  # pixel (x, y) where a hook or stud goes through the lobe
    outward: float  # +1 when the ear lies towards larger x from the face, else -1
    visible: bool
    skin_fraction: float
    # find_earlobes: how clearly a lobe stands out (its skin minus skin below and beyond it)
    score: float = 0.0


@dataclass(frozen=True)
class Face:
    points: np.ndarray  # float32 (478, 2) pixel coordinates
    width: int
    height: int

    @property
    def iris_diameter_px(self) -> float:
        sizes = []
        for a, b, c, d in IRIS_RINGS:
            p = self.points
            horizontal = float(np.linalg.norm(p[a] - p[c]))
            vertical = float(np.linalg.norm(p[b] - p[d]))
            # A turned head foreshortens one axis only; the larger one is the true diameter.
            sizes.append(max(horizontal, vertical))
        return float(np.mean(sizes))

    @property
    def ppi(self) -> float:
        return self.iris_diameter_px / (IRIS_MM / MM_PER_INCH)

    @property
    def face_width(self) -> float:
        return float(np.linalg.norm(self.points[RIGHT_EDGE] - self.points[LEFT_EDGE]))

    @property
    def box(self) -> tuple[int, int, int, int]:
        x0, y0 = self.points[:468].min(axis=0)
        x1, y1 = self.points[:468].max(axis=0)
        return int(x0), int(y0), int(np.ceil(x1)), int(np.ceil(y1))

    def oval(self) -> np.ndarray:
        return self.points[list(FACE_OVAL)]


def _get_mesh():  # type: ignore[no-untyped-def]
    global _mesh
    if _mesh is None:
        import mediapipe as mp

        _mesh = mp.solutions.face_mesh.FaceMesh(
            static_image_mode=True,
            max_num_faces=1,
            refine_landmarks=True,
            min_detection_confidence=0.5,
        )
    return _mesh


def _get_detector():  # type: ignore[no-untyped-def]
    global _detector
    if _detector is None:
        import mediapipe as mp

        # The full-range model finds the small faces of full-body shots the mesh's own
        # short-range detector misses.
        _detector = mp.solutions.face_detection.FaceDetection(
            model_selection=1, min_detection_confidence=0.5
        )
    return _detector


def _mesh_points(rgb: np.ndarray) -> np.ndarray | None:
    with _lock:
        res = _get_mesh().process(np.ascontiguousarray(rgb))
    if not res.multi_face_landmarks:
        return None
    lm = res.multi_face_landmarks[0].landmark
    h, w = rgb.shape[:2]
    return np.array([(p.x * w, p.y * h) for p in lm], np.float32)


def detect_face(rgb: np.ndarray) -> Face | None:
    """The most prominent face's 478 landmarks, or None.

    Small faces (full-body shots) are found with the full-range detector first and the mesh
    runs on an upscaled crop around them.
    """
    h, w = rgb.shape[:2]
    pts = _mesh_points(rgb)
    if pts is None or _too_small(pts, w, h):
        with _lock:
            det = _get_detector().process(np.ascontiguousarray(rgb))
        if det.detections:
            best = max(det.detections, key=lambda d: d.score[0])
            bb = best.location_data.relative_bounding_box
            cx, cy = (bb.xmin + bb.width / 2) * w, (bb.ymin + bb.height / 2) * h
            side = max(bb.width * w, bb.height * h) * 2.2
            x0, y0 = int(max(0, cx - side / 2)), int(max(0, cy - side / 2))
            x1, y1 = int(min(w, cx + side / 2)), int(min(h, cy + side / 2))
            if x1 - x0 >= 16 and y1 - y0 >= 16:
                crop = rgb[y0:y1, x0:x1]
                s = 512.0 / max(crop.shape[:2])
                crop = cv2.resize(
                    crop,
                    (round(crop.shape[1] * s), round(crop.shape[0] * s)),
                    interpolation=cv2.INTER_CUBIC,
                )
                cpts = _mesh_points(crop)
                if cpts is not None:
                    pts = cpts / s + np.array([x0, y0], np.float32)
    if pts is None or len(pts) < 478:
        return None
    return Face(points=pts, width=w, height=h)


def _too_small(pts: np.ndarray, w: int, h: int) -> bool:
    span = pts[:468].max(axis=0) - pts[:468].min(axis=0)
    return float(span.max()) < 0.12 * max(w, h)


def turned_away(face: Face, side: str) -> bool:
    """Whether the head is turned past about 35 degrees away from this side: the nose is within
    a quarter of the face's width of the other side's edge, and this side's ear and cheek are
    behind or foreshortened to a sliver."""
    p = face.points
    lateral, _ = head_axes(face)
    nose = float(np.dot(p[NOSE_TIP] - p[RIGHT_EDGE], lateral)) / (face.face_width + 1e-6)
    return nose < 0.25 if side == "right" else nose > 0.75


def _seen_cheeks(face: Face) -> tuple[int, ...]:
    """The cheek landmarks the picture shows: a cheek on a side turned away is a sliver between
    the nose and the silhouette, and a square round it takes in the nose's highlight and the
    backdrop, which makes the skin's colour so loose that a grey backdrop passes for skin (and
    catches an earring's shadow). The lobe search keeps all four cheeks: it also weighs the
    colours beyond the ear, and its limits were set on them."""
    right, left = CHEEKS[0::2], CHEEKS[1::2]
    if turned_away(face, "right"):
        return left
    if turned_away(face, "left"):
        return right
    return CHEEKS


def _skin_model(rgb: np.ndarray, face: Face) -> tuple[np.ndarray, np.ndarray]:
    lab = cv2.cvtColor(rgb, cv2.COLOR_RGB2LAB).astype(np.float32)
    s = _cheek_lab(lab, face, _seen_cheeks(face))
    return s.mean(axis=0), np.maximum(s.std(axis=0), np.array([6.0, 3.0, 3.0], np.float32))


def skin_probability(rgb: np.ndarray, face: Face, region: tuple[int, int, int, int]) -> np.ndarray:
    """Per-pixel skin likelihood in region (x0, y0, x1, y1) against the cheeks' colour."""
    mean, std = _skin_model(rgb, face)
    x0, y0, x1, y1 = region
    lab = cv2.cvtColor(rgb[y0:y1, x0:x1], cv2.COLOR_RGB2LAB).astype(np.float32)
    # Ears sit in shade more often than cheeks: lightness may wander far, hue may not.
    dl = (lab[..., 0] - mean[0]) / (3.0 * std[0] + 20.0)
    dab = np.linalg.norm((lab[..., 1:] - mean[1:]) / (2.5 * std[1:] + 6.0), axis=2)
    return np.exp(-0.5 * (dl**2 + dab**2)).astype(np.float32)


def earlobes(rgb: np.ndarray, face: Face) -> list[Earlobe]:
    """Both earlobe estimates (subject's right, then left), each marked visible or not.

    The mesh has no ear points: the lobe is placed from the face's own frame (cheek edge,
    subnasale height, face width), then checked for skin so hair or a turned head hides it.
    """
    p = face.points
    fw = face.face_width
    up = p[FOREHEAD] - p[CHIN]
    up = up / (np.linalg.norm(up) + 1e-6)
    lateral = p[LEFT_EDGE] - p[RIGHT_EDGE]
    lateral = lateral / (np.linalg.norm(lateral) + 1e-6)
    out = []
    for side, edge_ids, sign in (("right", RIGHT_EAR_SIDE, -1.0), ("left", LEFT_EAR_SIDE, 1.0)):
        edge = p[edge_ids[2]]  # contour at the lower ear
        # Lobe piercing: a little below the contour point 93/323 (tragus-to-lobe is about
        # a tenth of face width) and just outside the cheek line.
        along = float(np.dot(p[SUBNASALE] - edge, up))
        pt = edge + lateral * sign * 0.035 * fw + up * (along - 0.10 * fw)
        x, y = float(pt[0]), float(pt[1])
        # A head turned past ~35 degrees hides the far ear behind the cheek.
        hidden = turned_away(face, side)
        r = max(2, int(0.06 * fw))
        x0, y0 = int(max(0, x - r)), int(max(0, y - r))
        x1, y1 = int(min(face.width, x + r + 1)), int(min(face.height, y + r + 1))
        inside = 0 <= x < face.width and 0 <= y < face.height
        frac = (
            float((skin_probability(rgb, face, (x0, y0, x1, y1)) > 0.3).mean())
            if inside and x1 > x0 and y1 > y0
            else 0.0
        )
        outward = float(np.sign(lateral[0] * sign)) or sign
        out.append(
            Earlobe(
                side=side,
                point=(x, y),
                outward=outward,
                visible=bool(inside and not hidden and frac >= VISIBLE_SKIN_FRACTION),
                skin_fraction=frac,
            )
        )
    return out


# --- Lobes found on the real ear -----------------------------------------------------------
#
# The mesh has no ear points, and where the lobe hangs beside the contour varies with head pitch
# by about a tenth of the face width. So the contour only gives a prior; the lobe itself is then
# looked for in the picture: a patch of skin (the model's own cheek colour, told apart from the
# hair and backdrop sampled beyond the ear) that sticks out of the face's silhouette, with no
# skin right below it (the lobe's free edge) and none further out (not a skin-toned backdrop).
# Everything is measured in a head-aligned frame sampled at a hundredth of the face width, so
# the same fractions hold on a 512 px catalogue thumbnail and on a 24 MP original.

LOBE_FRAME_STEPS = 100  # samples per face width
FAR_MIN_SHARE = 0.05  # of the band beyond the ear, for a colour to count as hair or backdrop
LOBE_BELOW_CONTOUR = 0.08  # prior: lobe below contour point 93/323, in face widths
LOBE_OUT_OF_CONTOUR = 0.015
LOBE_RADIUS = 0.035  # the lobe disc tested for skin, in face widths
LOBE_MIN_SKIN = 0.6  # of the lobe disc, counting every skin-coloured pixel
LOBE_MIN_SMOOTH = 0.4  # of the lobe disc, smooth skin only: strands of skin-toned hair are not
# The lobe's shape on smooth skin: the disc minus the skin right below it (a lobe has a free
# edge, a cheek or a neck has not) and further out (a skin-toned backdrop is no ear).
LOBE_MIN_SCORE = 0.25
# The texture test reads steep shading as strands too: a lobe a few pixels across is all rim and
# shading, and the folds of a larger ear shade it more steeply than the cheeks' own texture
# allows on a smooth, retouched face. So when the smooth-skin test fails, a lobe is judged on its
# shape over every skin-coloured pixel, held to more: a clear lobe shape, hanging out of the
# face's silhouette (a jaw edge the mesh's contour falls short of does not), in the cheeks' own
# hue and colourfulness (shade darkens skin without turning it; strands of skin-toned hair
# against a light backdrop are paler and yellower).
LOBE_SHAPE_MIN_SCORE = 0.45
LOBE_MIN_PROTRUSION = 0.06  # face widths beyond the face oval, at the lobe's rows
LOBE_MAX_HUE_SHIFT = 10.0  # degrees of Lab hue from the cheeks', towards yellow
# An ear is often redder than the cheeks (thinner skin, light shining through it); skin-toned
# hair is yellower, never redder.
LOBE_MAX_REDDER = 20.0
LOBE_MIN_CHROMA = 0.8  # of the cheeks' Lab chroma


@dataclass(frozen=True)
class EarFrame:
    """A head-aligned sampling grid beside one ear: u outward from the face, v down the face."""

    side: str
    origin: np.ndarray  # pixel (x, y) of u = v = 0
    out: np.ndarray  # unit pixel vector of +u
    down: np.ndarray  # unit pixel vector of +v
    step: float  # pixels per sample
    us: np.ndarray  # sample offsets in pixels
    vs: np.ndarray

    def to_pixel(self, u: float, v: float) -> tuple[float, float]:
        p = self.origin + u * self.out + v * self.down
        return float(p[0]), float(p[1])

    def maps(self) -> tuple[np.ndarray, np.ndarray]:
        U, V = np.meshgrid(self.us, self.vs)
        mx = self.origin[0] + U * self.out[0] + V * self.down[0]
        my = self.origin[1] + U * self.out[1] + V * self.down[1]
        return mx.astype(np.float32), my.astype(np.float32)


def head_axes(face: Face) -> tuple[np.ndarray, np.ndarray]:
    """Unit vectors (lateral towards the subject's left, down the face) in pixels."""
    p = face.points
    down = p[CHIN] - p[FOREHEAD]
    down = down / (np.linalg.norm(down) + 1e-6)
    lateral = p[LEFT_EDGE] - p[RIGHT_EDGE]
    lateral = lateral / (np.linalg.norm(lateral) + 1e-6)
    return lateral, down


def roll_degrees(face: Face) -> float:
    """The head's roll: the angle of the line between the iris centres (image y down)."""
    a, b = face.points[IRIS_CENTRES[0]], face.points[IRIS_CENTRES[1]]
    if b[0] < a[0]:
        a, b = b, a
    return float(np.degrees(np.arctan2(b[1] - a[1], b[0] - a[0])))


def ear_frame(face: Face, side: str, u_range=(-0.10, 0.40), v_range=(-0.30, 0.30)) -> EarFrame:
    p = face.points
    fw = face.face_width
    lateral, down = head_axes(face)
    out = -lateral if side == "right" else lateral
    contour = p[RIGHT_EAR_SIDE[2] if side == "right" else LEFT_EAR_SIDE[2]]
    origin = contour + down * LOBE_BELOW_CONTOUR * fw + out * LOBE_OUT_OF_CONTOUR * fw
    step = fw / LOBE_FRAME_STEPS
    us = np.arange(u_range[0] * fw, u_range[1] * fw, step, dtype=np.float32)
    vs = np.arange(v_range[0] * fw, v_range[1] * fw, step, dtype=np.float32)
    return EarFrame(side, origin.astype(np.float32), out, down, step, us, vs)


def sample(img: np.ndarray, frame: EarFrame, border: float = 0.0) -> np.ndarray:
    mx, my = frame.maps()
    if img.dtype == np.uint8:
        return cv2.remap(img, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return cv2.remap(
        img, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=border
    )


def _local_std(L: np.ndarray) -> np.ndarray:
    m1 = cv2.blur(L, (3, 3))
    m2 = cv2.blur(L * L, (3, 3))
    return np.sqrt(np.maximum(m2 - m1 * m1, 0))


def cheek_texture(rgb: np.ndarray, face: Face) -> float:
    """Median local lightness spread of the cheeks, sampled at the ear frame's resolution."""
    step = face.face_width / LOBE_FRAME_STEPS
    r = max(2, int(0.05 * face.face_width))
    vals = []
    for i in CHEEKS:
        x, y = face.points[i].astype(int)
        patch = rgb[max(0, y - r) : y + r + 1, max(0, x - r) : x + r + 1]
        if patch.size == 0:
            continue
        size = (max(3, round(patch.shape[1] / step)), max(3, round(patch.shape[0] / step)))
        patch = cv2.resize(
            patch, size, interpolation=cv2.INTER_AREA if step > 1 else cv2.INTER_LINEAR
        )
        L = cv2.cvtColor(patch, cv2.COLOR_RGB2LAB)[..., 0].astype(np.float32)
        vals.append(_local_std(L)[1:-1, 1:-1].ravel())
    return float(np.median(np.concatenate(vals))) if vals else 1.0


def _cheek_lab(lab: np.ndarray, face: Face, cheeks: tuple[int, ...] = CHEEKS) -> np.ndarray:
    """The Lab pixels (N x 3) of small squares round the cheek landmarks, a twentieth of the
    face's width across: the face's own skin under the face's own light."""
    r = max(2, int(0.05 * face.face_width))
    return np.concatenate([
        lab[max(0, y - r): y + r + 1, max(0, x - r): x + r + 1].reshape(-1, 3)
        for x, y in (face.points[i].astype(int) for i in cheeks)
    ])


def ear_skin(
    rgb: np.ndarray, face: Face, frame: EarFrame, person: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Boolean skin masks on the frame's grid, outside the face: the cheeks' colour and nearer to
    it than to any colour of the hair or backdrop beyond the ear, on the person; and the same
    where it is also smooth like the cheeks (hair of a skin-like colour has strands)."""
    H, W = rgb.shape[:2]
    fw = face.face_width
    lab_all = cv2.cvtColor(rgb, cv2.COLOR_RGB2LAB).astype(np.float32)
    cheek = _cheek_lab(lab_all, face)
    mean = cheek.mean(axis=0)
    std = np.maximum(cheek.std(axis=0), np.array([4.0, 2.0, 2.0], np.float32))

    crop = sample(rgb, frame)
    lab = cv2.cvtColor(crop, cv2.COLOR_RGB2LAB).astype(np.float32)
    mx, my = frame.maps()
    inside = (mx >= 0) & (mx <= W - 1) & (my >= 0) & (my <= H - 1)
    # Ears sit in shade more often than cheeks: lightness may wander far, hue much less.
    d_skin = np.linalg.norm(
        (lab - mean) / (np.array([2.5, 1.5, 1.5], np.float32) * std + [20.0, 4.0, 4.0]), axis=2
    )
    w = np.array([0.5, 1.0, 1.0], np.float32)
    U = np.meshgrid(frame.us, frame.vs)[0]
    far = lab[(U > 0.27 * fw) & inside]
    if len(far) >= 10:
        k = min(5, len(far))
        crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.5)
        cv2.setRNGSeed(1)
        _, labels, centres = cv2.kmeans(
            (far * w).astype(np.float32), k, None, crit, 2, cv2.KMEANS_PP_CENTERS
        )
        # A colour in a sliver of the band is not what lies behind the ear: on a turned head
        # the ear's own rim reaches into it, and its skin taken for backdrop would leave no
        # lobe. One of at most five colours always covers a fifth.
        share = np.bincount(labels.ravel(), minlength=k) / len(far)
        centres = centres[share >= FAR_MIN_SHARE]
        d_out = np.min(
            np.linalg.norm((lab * w)[..., None, :] - centres[None, None], axis=3), axis=2
        )
    else:
        d_out = np.full(lab.shape[:2], 1e6, np.float32)
    d_skin_e = np.linalg.norm((lab - mean) * w, axis=2)
    smooth = _local_std(lab[..., 0]) < max(3.5 * cheek_texture(rgb, face), 4.0)
    oval = _oval_in_frame(face, frame, U.shape)
    oval = cv2.erode(oval, np.ones((7, 7), np.uint8))
    mask = (d_skin < 3.0) & (d_skin_e < 0.8 * d_out) & inside & (oval == 0)
    if person is not None:
        mask &= sample(person, frame) > 0.3
    return mask, mask & smooth


def _oval_in_frame(face: Face, frame: EarFrame, shape: tuple[int, ...]) -> np.ndarray:
    """The face oval drawn into the ear frame's sample grid (uint8, 1 inside)."""
    oval = np.zeros(shape, np.uint8)
    pts = face.oval() - frame.origin
    grid = np.stack(
        [
            (pts @ frame.out - frame.us[0]) / frame.step,
            (pts @ frame.down - frame.vs[0]) / frame.step,
        ],
        1,
    )
    cv2.fillPoly(oval, [np.round(grid * 4).astype(np.int32)], 1, shift=2)
    return oval


def _box_mean(S: np.ndarray, h0: int, h1: int, w0: int, w1: int) -> np.ndarray:
    H, W = S.shape
    integral = np.zeros((H + 1, W + 1))
    integral[1:, 1:] = S.cumsum(0).cumsum(1)
    ii, jj = np.meshgrid(np.arange(H), np.arange(W), indexing="ij")
    r0, r1 = np.clip(ii + h0, 0, H), np.clip(ii + h1, 0, H)
    c0, c1 = np.clip(jj + w0, 0, W), np.clip(jj + w1, 0, W)
    s = integral[r1, c1] - integral[r0, c1] - integral[r1, c0] + integral[r0, c0]
    return s / ((h1 - h0) * (w1 - w0))


def head_person_mask(rgb: np.ndarray, face: Face) -> np.ndarray:
    """Person probability around the head, segmented on a crop so the ears are not a pixel wide."""
    from workers.engines.imaging.pose import person_mask

    fw = face.face_width
    c = face.points[:468].mean(axis=0)
    s = 1.6 * fw
    H, W = rgb.shape[:2]
    x0, y0 = int(max(0, c[0] - s)), int(max(0, c[1] - s))
    x1, y1 = int(min(W, c[0] + s)), int(min(H, c[1] + s))
    out = np.zeros((H, W), np.float32)
    if x1 - x0 >= 8 and y1 - y0 >= 8:
        out[y0:y1, x0:x1] = person_mask(np.ascontiguousarray(rgb[y0:y1, x0:x1]))
    # The segmentation's edge is soft and often shaves the ear's rim: widen it a little.
    k = max(1, int(0.06 * fw))
    return cv2.dilate(out, np.ones((k, k), np.uint8))


def _lobe_shape(skin: np.ndarray, fw: float, prior: np.ndarray) -> np.ndarray:
    """Per sample of the ear frame: the skin disc round it, minus the skin right below it and
    further out, minus the distance from the contour's prediction."""
    g = lambda x: max(1, int(round(x * LOBE_FRAME_STEPS)))  # noqa: E731
    rho = g(LOBE_RADIUS)
    s = skin.astype(np.float64)
    disc = _box_mean(s, -rho, rho + 1, -rho, rho + 1)
    below = _box_mean(s, g(0.05), g(0.10), -rho, rho + 1)
    beyond = _box_mean(s, -rho, rho + 1, g(0.06), g(0.10))
    return disc - 1.2 * below - beyond - prior


def _hue_chroma(lab: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    a = lab[..., 1].astype(np.float32) - 128.0
    b = lab[..., 2].astype(np.float32) - 128.0
    return np.degrees(np.arctan2(b, a)), np.hypot(a, b)


def _strict_lobe(
    rgb: np.ndarray,
    face: Face,
    frame: EarFrame,
    loose: np.ndarray,
    edge_u: np.ndarray,
    i: int,
    j: int,
    shape: float,
) -> bool:
    """The stricter test of a lobe judged on all its skin-coloured pixels (see above)."""
    fw = face.face_width
    rho = max(1, int(round(LOBE_RADIUS * LOBE_FRAME_STEPS)))
    r0, r1 = max(0, i - rho), i + rho + 1
    c0, c1 = max(0, j - rho), j + rho + 1
    # The shape score counts the disc's skin itself: its rim blends into hair or backdrop over
    # a pixel, a large share of a small disc, and the rest must then be all skin.
    if shape < LOBE_SHAPE_MIN_SCORE:
        return False
    # Out of the silhouette: the skin joined to the disc reaches this far beyond the oval.
    _, labels = cv2.connectedComponents(loose.astype(np.uint8), connectivity=8)
    ids = np.unique(labels[r0:r1, c0:c1])
    blob = np.isin(labels, ids[ids > 0])
    protrusion = 0.0
    for k in range(r0, min(len(frame.vs), r1)):
        cols = np.nonzero(blob[k])[0]
        if len(cols) and edge_u[k] > -1e8:
            protrusion = max(protrusion, float(frame.us[cols.max()] - edge_u[k]) / fw)
    if protrusion < LOBE_MIN_PROTRUSION:
        return False
    # The cheeks' hue and colourfulness.
    lab_all = cv2.cvtColor(rgb, cv2.COLOR_RGB2LAB).astype(np.float32)
    cheek_hue, cheek_chroma = _hue_chroma(_cheek_lab(lab_all, face).mean(axis=0))
    lab = cv2.cvtColor(sample(rgb, frame), cv2.COLOR_RGB2LAB).astype(np.float32)
    seen = lab[r0:r1, c0:c1][loose[r0:r1, c0:c1]]
    hue, chroma = _hue_chroma(seen)
    shift = (float(np.median(hue)) - float(cheek_hue) + 180.0) % 360.0 - 180.0
    return -LOBE_MAX_REDDER <= shift <= LOBE_MAX_HUE_SHIFT and float(np.median(chroma)) >= LOBE_MIN_CHROMA * float(
        cheek_chroma
    )


def _lobe_at(
    face: Face, frame: EarFrame, loose: np.ndarray, i: int, j: int
) -> tuple[float, float, float, bool]:
    """The share of skin-coloured pixels in the lobe disc at sample (i, j) (the lobe's rim and
    shading included), its pixel, and whether that pixel is in the picture."""
    rho = max(1, int(round(LOBE_RADIUS * LOBE_FRAME_STEPS)))
    r0, r1 = max(0, i - rho), i + rho + 1
    c0, c1 = max(0, j - rho), j + rho + 1
    on = float(loose[r0:r1, c0:c1].mean())
    x, y = frame.to_pixel(float(frame.us[j]), float(frame.vs[i]))
    return on, x, y, bool(0 <= x < face.width and 0 <= y < face.height)


def find_earlobes(rgb: np.ndarray, face: Face, person: np.ndarray | None = None) -> list[Earlobe]:
    """Each ear's lobe as seen in the picture (subject's right, then left).

    A lobe is visible only when a skin disc sits outside the face's contour near where the
    contour predicts it, with its free edge below (no skin there) and no skin further out. A
    lobe whose shading fails the smoothness test is held to the stricter shape and colour test
    of ``_strict_lobe`` instead.
    """
    if person is None:
        person = head_person_mask(rgb, face)
    fw = face.face_width
    out: list[Earlobe] = []
    for side in ("right", "left"):
        frame = ear_frame(face, side)
        loose, smooth = ear_skin(rgb, face, frame, person)
        g = lambda x: max(1, int(round(x * LOBE_FRAME_STEPS)))  # noqa: E731
        rho = g(LOBE_RADIUS)
        U, V = np.meshgrid(frame.us, frame.vs)
        # Nearer the contour's prediction is likelier; far from it only a clear lobe wins.
        prior = ((U / (0.12 * fw)) ** 2 + (V / (0.15 * fw)) ** 2) * 0.15
        disc = _box_mean(smooth.astype(np.float64), -rho, rho + 1, -rho, rho + 1)
        smooth_shape = _lobe_shape(smooth, fw, prior)
        oval = _oval_in_frame(face, frame, U.shape)
        edge_u = np.array(
            [frame.us[np.nonzero(r)[0].max()] if r.any() else -1e9 for r in oval], np.float32
        )
        allowed = (U > edge_u[:, None] + 0.02 * fw) & (U < 0.14 * fw) & (np.abs(V) < 0.18 * fw)
        score = np.where(allowed, smooth_shape, -9.0)
        i, j = np.unravel_index(int(np.argmax(score)), score.shape)
        hidden = turned_away(face, side)

        on, x, y, ok = _lobe_at(face, frame, loose, i, j)
        ok = ok and not hidden
        visible = bool(
            ok
            and on >= LOBE_MIN_SKIN
            and disc[i, j] >= LOBE_MIN_SMOOTH
            and score[i, j] >= LOBE_MIN_SCORE
        )
        best = float(score[i, j])
        if not visible:
            # Located on smooth and all skin-coloured pixels alike, judged on the latter.
            loose_shape = _lobe_shape(loose, fw, prior)
            both = np.where(allowed, 0.5 * (smooth_shape + loose_shape), -9.0)
            i2, j2 = np.unravel_index(int(np.argmax(both)), both.shape)
            on2, x2, y2, ok2 = _lobe_at(face, frame, loose, int(i2), int(j2))
            if (
                ok2
                and not hidden
                and _strict_lobe(rgb, face, frame, loose, edge_u, i2, j2, float(loose_shape[i2, j2]))
            ):
                on, x, y, visible, best = on2, x2, y2, True, float(both[i2, j2])
        outward = float(np.sign(frame.out[0])) or (-1.0 if side == "right" else 1.0)
        out.append(
            Earlobe(
                side=side,
                point=(x, y),
                outward=outward,
                visible=visible,
                skin_fraction=on,
                score=best,
            )
        )
    return out
