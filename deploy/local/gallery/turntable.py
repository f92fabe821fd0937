"""Turntable views for Spinview: a small mesh renderer and three meshes (a tote, a fedora,
a dress on a form)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from .common import RGB

# Spinview takes photos of a product from several angles. Ours are renders of simple meshes
# (flat-shaded polygons, painter's order, 2x supersampled) turned about the vertical axis.


@dataclass(frozen=True)
class Poly:
    pts: np.ndarray  # Nx3, counter-clockwise seen from outside
    colour: RGB
    two_sided: bool = False


def _lathe(profile: Sequence[tuple[float, float]], segments: int,
           colour: Callable[[float, float], RGB], *, squash: float = 1.0,
           radius: Callable[[float, float, float], float] | None = None) -> list[Poly]:
    """A surface of revolution: profile (r, y) pairs from top to bottom, y up."""
    polys = []
    th = np.linspace(0, 2 * np.pi, segments + 1)
    for (r0, y0), (r1, y1) in zip(profile, profile[1:], strict=False):
        for a0, a1 in zip(th, th[1:], strict=False):
            def p(r: float, y: float, a: float) -> tuple[float, float, float]:
                rr = radius(r, y, a) if radius else r
                return (rr * math.sin(a), y, rr * math.cos(a) * squash)

            quad = np.array([p(r0, y0, a0), p(r0, y0, a1), p(r1, y1, a1), p(r1, y1, a0)])
            polys.append(Poly(quad[::-1], colour(0.5 * (a0 + a1), 0.5 * (y0 + y1)),
                              two_sided=True))
    return polys


def _box(x0: float, x1: float, y0: float, y1: float, z0: float, z1: float, colour: RGB,
         top_inset: float = 0.0) -> list[Poly]:
    """A box (or, with top_inset, a frustum narrowing upward)."""
    b = [(x0, y0, z0), (x1, y0, z0), (x1, y0, z1), (x0, y0, z1)]
    ti = top_inset
    t = [(x0 + ti, y1, z0 + ti / 3), (x1 - ti, y1, z0 + ti / 3), (x1 - ti, y1, z1 - ti / 3),
         (x0 + ti, y1, z1 - ti / 3)]
    faces = [
        [b[0], b[1], b[2], b[3]], [t[3], t[2], t[1], t[0]],
        [b[3], b[2], t[2], t[3]], [b[1], b[0], t[0], t[1]],
        [b[2], b[1], t[1], t[2]], [b[0], b[3], t[3], t[0]],
    ]
    return [Poly(np.array(f, np.float64), colour) for f in faces]


def _tube(path: np.ndarray, radius: float, colour: RGB, sides: int = 10) -> list[Poly]:
    """A round tube along a 3-D polyline (handles, straps)."""
    polys = []
    rings = []
    for i, c in enumerate(path):
        d = path[min(i + 1, len(path) - 1)] - path[max(i - 1, 0)]
        d /= np.linalg.norm(d) + 1e-9
        a = np.cross(d, [0.0, 0.0, 1.0]) if abs(d[2]) < 0.9 else np.cross(d, [1.0, 0, 0])
        a /= np.linalg.norm(a)
        b = np.cross(d, a)
        rings.append([c + radius * (math.cos(t) * a + math.sin(t) * b)
                      for t in np.linspace(0, 2 * np.pi, sides + 1)])
    for r0, r1 in zip(rings, rings[1:], strict=False):
        for k in range(sides):
            polys.append(Poly(np.array([r0[k], r0[k + 1], r1[k + 1], r1[k]]), colour,
                              two_sided=True))
    return polys


def render_view(polys: list[Poly], yaw_deg: float, *, size: int = 960, pitch_deg: float = 14,
                scale: float = 1.0, centre_y: float = 0.0,
                light: Sequence[float] = (-0.5, 0.7, 0.8),
                floor_shadow: bool = True) -> np.ndarray:
    """The meshes turned by yaw about the vertical axis, seen slightly from above, on white."""
    ss = 2
    S = size * ss
    yaw, pitch = math.radians(yaw_deg), math.radians(pitch_deg)
    ry = np.array([[math.cos(yaw), 0, math.sin(yaw)], [0, 1, 0],
                   [-math.sin(yaw), 0, math.cos(yaw)]])
    rx = np.array([[1, 0, 0], [0, math.cos(pitch), -math.sin(pitch)],
                   [0, math.sin(pitch), math.cos(pitch)]])
    rot = rx @ ry
    L = np.array(light, np.float64)
    L /= np.linalg.norm(L)
    dist = 4.0

    def project(p: np.ndarray) -> np.ndarray:
        f = dist / (dist - p[:, 2])
        return np.stack([S / 2 + p[:, 0] * f * S * 0.42 * scale,
                         S / 2 - (p[:, 1] - centre_y) * f * S * 0.42 * scale], axis=1)

    canvas = np.full((S, S, 3), 255, np.float32)
    if floor_shadow:
        lowest = min(float(p.pts[:, 1].min()) for p in polys)
        ground = np.array([[0.0, lowest, 0.0]]) @ rot.T
        c = project(ground)[0]
        shadow = np.zeros((S, S), np.float32)
        cv2.ellipse(shadow, (int(c[0]), int(c[1])), (int(0.3 * S * scale), int(0.035 * S * scale)),
                    0, 0, 360, 1.0, -1)
        shadow = cv2.GaussianBlur(shadow, (0, 0), 0.02 * S)
        canvas *= (1 - 0.22 * shadow)[..., None]
    drawn = []
    for poly in polys:
        p = poly.pts @ rot.T
        n = np.cross(p[1] - p[0], p[2] - p[0])
        if np.linalg.norm(n) < 1e-12:
            n = np.cross(p[2] - p[0], p[3 % len(p)] - p[0])
        n = n / (np.linalg.norm(n) + 1e-12)
        if n[2] < 0:
            if not poly.two_sided:
                continue
            n = -n
        lam = max(0.0, float(n @ L))  # the light stays with the camera as the product turns
        shade = 0.42 + 0.62 * lam
        drawn.append((float(p[:, 2].mean()), project(p), np.array(poly.colour) * shade))
    drawn.sort(key=lambda d: d[0])
    for _, q, col in drawn:
        cv2.fillConvexPoly(canvas, np.round(q * 16).astype(np.int32), col.tolist(),
                           cv2.LINE_AA, shift=4)
    out = cv2.resize(canvas, (size, size), interpolation=cv2.INTER_AREA)
    return np.clip(out + 0.5, 0, 255).astype(np.uint8)


def tote_mesh() -> list[Poly]:
    leather, seam, gold = (150, 92, 52), (95, 55, 30), (212, 178, 90)
    polys = _box(-0.42, 0.42, -0.34, 0.26, -0.15, 0.15, leather, top_inset=0.05)
    for z in (-0.135, 0.135):  # a handle on the front and one on the back
        t = np.linspace(0, np.pi, 28)
        path = np.stack([-0.19 * np.cos(t), 0.26 + 0.3 * np.sin(t), np.full_like(t, z)], axis=1)
        polys += _tube(path, 0.022, seam)
    # A brass plate and a stitched band on the front.
    polys.append(Poly(np.array([(-0.07, 0.1, 0.152), (0.07, 0.1, 0.152), (0.07, 0.16, 0.152),
                                (-0.07, 0.16, 0.152)]), gold))
    polys.append(Poly(np.array([(-0.372, 0.195, 0.151), (0.372, 0.195, 0.151),
                                (0.371, 0.205, 0.151), (-0.371, 0.205, 0.151)]), seam))
    return polys


def hat_mesh() -> list[Poly]:
    felt, band = (112, 84, 60), (36, 28, 24)
    crown = [(0.0, 0.40), (0.18, 0.40), (0.26, 0.36), (0.30, 0.25), (0.32, 0.1), (0.33, 0.0)]

    def pinch(r: float, y: float, a: float) -> float:
        # Front pinches: two dents either side of the front, only high on the crown.
        dent = math.exp(-((math.sin(a) - 0.55) / 0.18) ** 2) + math.exp(
            -((math.sin(a) + 0.55) / 0.18) ** 2)
        front = max(0.0, math.cos(a))
        return r * (1 - 0.16 * dent * front * max(0.0, y - 0.12) / 0.28)

    polys = _lathe(crown, 72, lambda a, y: band if y < 0.09 else felt, squash=0.85,
                   radius=pinch)
    brim = [(0.33, 0.0), (0.62, -0.02), (0.66, -0.04), (0.6, -0.045), (0.33, -0.03)]
    polys += _lathe(brim, 72, lambda a, y: felt, squash=0.85)
    # A small bow on the band at the wearer's left.
    bx, bz = 0.33 * math.sin(-1.9), 0.33 * math.cos(-1.9) * 0.85
    polys += _box(bx - 0.025, bx + 0.025, 0.0, 0.085, bz - 0.06, bz + 0.06, (20, 16, 14))
    return polys


def dress_form_mesh() -> list[Poly]:
    navy, cream, wood = (32, 44, 82), (238, 230, 214), (110, 74, 44)
    # Bodice and flared skirt, top to bottom, in a navy and cream stripe.
    profile = [(0.07, 0.95), (0.12, 0.93), (0.2, 0.88), (0.22, 0.78), (0.2, 0.66), (0.15, 0.52),
               (0.14, 0.46), (0.2, 0.40), (0.28, 0.25), (0.36, 0.08), (0.44, -0.10),
               (0.5, -0.26), (0.5, -0.3)]
    fine = []
    for (r0, y0), (r1, y1) in zip(profile, profile[1:], strict=False):
        n = max(1, int(abs(y1 - y0) / 0.05))
        fine += [(r0 + (r1 - r0) * k / n, y0 + (y1 - y0) * k / n) for k in range(n)]
    fine.append(profile[-1])

    def pattern(a: float, y: float) -> RGB:
        if 0.44 < y < 0.49:
            return (180, 30, 45)  # a red belt
        stripe = int(a / (2 * np.pi) * 36) % 2  # 18 pairs of stripes round the dress
        return cream if stripe else navy

    polys = _lathe(fine, 72, pattern, squash=0.7)
    polys += _lathe([(0.0, 1.05), (0.05, 1.04), (0.07, 0.95)], 24, lambda a, y: (225, 215, 195),
                    squash=0.7)
    polys += _lathe([(0.025, -0.3), (0.025, -0.6)], 12, lambda a, y: wood)
    polys += _lathe([(0.0, -0.6), (0.2, -0.62), (0.2, -0.66), (0.0, -0.66)], 36,
                    lambda a, y: wood)
    return polys


def turntable_views(mesh: list[Poly], n: int = 12, **kw: Any) -> list[np.ndarray]:
    return [render_view(mesh, 360.0 * k / n, **kw) for k in range(n)]
