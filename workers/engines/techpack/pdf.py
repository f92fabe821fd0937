"""Tech Pack Lab's sheet as a vector PDF (what factories work from), drawn by the same layout
as the PNG (``sheet.draw_sheet``) on a reportlab page: text, tables, swatches and rules are
vector objects, and the flats' line art is traced into vector paths."""

from __future__ import annotations

import io

import cv2
import numpy as np
from reportlab.lib.pagesizes import A3, landscape
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen import canvas

from workers.engines import flatdraw
from workers.engines.techpack.sheet import (
    RGB,
    SHEET_SIZE,
    Pack,
    _fitted,
    draw_sheet,
)

FONT = "Helvetica"
# Sheet pixels to PDF points: the 16:9 sheet across an A3 landscape page's width.
PAGE_W, _ = landscape(A3)
SCALE = PAGE_W / SHEET_SIZE[0]
PAGE = (PAGE_W, SHEET_SIZE[1] * SCALE)


class PdfSurface:
    """``sheet.Surface`` on a PDF page: sheet pixels (y down) to points (y up)."""

    def __init__(self, buffer: io.BytesIO, title: str) -> None:
        # invariant: the same sheet gives the same bytes (no creation date, fixed ids).
        self.c = canvas.Canvas(buffer, pagesize=PAGE, invariant=1, pageCompression=1)
        self.c.setTitle(title)
        self.c.setCreator("Atelier Tech Pack Lab")

    def _x(self, x: float) -> float:
        return x * SCALE

    def _y(self, y: float) -> float:
        return PAGE[1] - y * SCALE

    @staticmethod
    def _colour(rgb: RGB) -> tuple[float, float, float]:
        return (rgb[0] / 255, rgb[1] / 255, rgb[2] / 255)

    def rect(self, box: tuple[float, float, float, float], *, fill: RGB | None = None,
             outline: RGB | None = None) -> None:
        x0, y0, x1, y1 = box
        if fill is not None:
            self.c.setFillColorRGB(*self._colour(fill))
        if outline is not None:
            self.c.setStrokeColorRGB(*self._colour(outline))
            self.c.setLineWidth(SCALE)
        self.c.rect(self._x(x0), self._y(y1), (x1 - x0) * SCALE, (y1 - y0) * SCALE,
                    stroke=int(outline is not None), fill=int(fill is not None))

    def text(self, xy: tuple[float, float], text: str, *, size: int, fill: RGB,
             anchor: str = "la") -> None:
        points = size * SCALE
        x, y = xy
        # anchors as Pillow's: l/m/r across; a (top), m (middle) down
        baseline = y + (0.78 * size if anchor[1] == "a" else 0.36 * size)
        self.c.setFillColorRGB(*self._colour(fill))
        self.c.setFont(FONT, points)
        draw = {"l": self.c.drawString, "m": self.c.drawCentredString,
                "r": self.c.drawRightString}[anchor[0]]
        draw(self._x(x), self._y(baseline), text)

    def line(self, a: tuple[float, float], b: tuple[float, float], *, fill: RGB) -> None:
        self.c.setStrokeColorRGB(*self._colour(fill))
        self.c.setLineWidth(SCALE)
        self.c.line(self._x(a[0]), self._y(a[1]), self._x(b[0]), self._y(b[1]))

    def flat(self, xy: tuple[int, int], flat: flatdraw.Flat) -> None:
        """The flat's line art as filled vector paths (outer edges and holes, even-odd)."""
        ink = (flat.rgb.min(axis=2) < 200).astype(np.uint8)  # grey dashes (seams) too
        contours, _ = cv2.findContours(ink, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
        path = self.c.beginPath()
        for contour in contours:
            points = contour.reshape(-1, 2)
            if len(points) < 3:
                continue
            path.moveTo(self._x(xy[0] + points[0][0]), self._y(xy[1] + points[0][1]))
            for px, py in points[1:]:
                path.lineTo(self._x(xy[0] + px), self._y(xy[1] + py))
            path.close()
        self.c.setFillColorRGB(*self._colour((20, 20, 20)))
        self.c.drawPath(path, stroke=0, fill=1, fillMode=0)  # 0: even-odd

    def fit(self, text: str, size: int, width: float) -> str:
        return _fitted(text, width, lambda t: stringWidth(t, FONT, size))

    def save(self) -> None:
        self.c.showPage()
        self.c.save()


def render_pdf(pack: Pack, flats: list[flatdraw.Flat]) -> bytes:
    buffer = io.BytesIO()
    surface = PdfSurface(buffer, f"{pack.style_name} · tech pack")
    draw_sheet(surface, pack, flats)
    surface.save()
    return buffer.getvalue()
