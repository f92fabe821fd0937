"""Tech Pack Lab, step 2: a tech pack (plus the photo) to a one-page 16:9 sheet.

``process_run`` reads the markdown of step 1 (``describe``) back, edited or not (sections it
cannot find fall back to what the text implies), and draws a 1920x1080 sheet: header, front and
back flats (from the photo's garment outline when a photo is given, else the type's template),
the measurement table, the bill of materials and colour swatches.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from workers.engines import flatdraw
from workers.engines.base import EngineError, EngineOutput, Progress
from workers.engines.techpack.describe import (
    Colourway,
    _fmt,
    _image_param,
    analyse,
    bom_rows,
    colour_name,
    garment_mask_small,
    garment_type_from_text,
    graded,
)
from workers.engines.techpack.vocabulary import POMS, SIZES, TYPE_LABEL

SHEET_SIZE = (1920, 1080)
FLAT_SIZE = (420, 560)


# --- step 2: the sheet --------------------------------------------------------------------------


@dataclass
class Pack:
    style_name: str
    style_number: str
    garment_type: str
    fabric_line: str
    pom_header: list[str]
    pom_rows: list[list[str]]
    bom_rows: list[list[str]]
    colours: list[Colourway]


def _sections(md: str) -> dict[str, str]:
    out: dict[str, str] = {}
    cur = ""
    for line in md.splitlines():
        m = re.match(r"^\s*#{2,3}\s*(.+?)\s*$", line)
        if m:
            cur = re.sub(r"^\d+[.)]\s*", "", m.group(1)).lower()
            out[cur] = ""
        else:
            out[cur] = out.get(cur, "") + line + "\n"
    return out


def _rows(block: str) -> list[list[str]]:
    rows = []
    for line in block.splitlines():
        line = line.strip()
        if not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        if all(re.fullmatch(r":?-{2,}:?", c) for c in cells if c):
            continue
        rows.append(cells)
    return rows


def _section(secs: dict[str, str], *keys: str) -> str:
    for name, body in secs.items():
        if any(k in name for k in keys):
            return body
    return ""


def parse_pack(md: str) -> Pack:
    """Read a tech pack markdown back, tolerating edits; what is missing comes from the text."""
    secs = _sections(md)
    fallback = analyse(md, None)
    title = re.search(r"^\s*#\s+(.+)$", md, re.M)
    name = fallback.style_name
    if title:
        name = re.sub(r"^tech\s*pack\s*[—:\-–]\s*", "", title.group(1).strip(), flags=re.I)
    summary = {r[0].lower(): r[1] for r in _rows(_section(secs, "style summary")) if len(r) >= 2}
    kind = fallback.garment_type
    if "garment type" in summary:
        kind = garment_type_from_text(summary["garment type"]) or kind
    number = summary.get("style number", fallback.style_number)
    fab = {r[0].lower(): r[1] for r in _rows(_section(secs, "fabric")) if len(r) >= 2}
    fabric_line = ", ".join(v for k, v in fab.items() if k in ("fabric", "composition", "weight"))
    if not fabric_line:
        fabric_line = f"{fallback.fabric.name}, {fallback.composition}, {fallback.gsm} g/m²"
    pom = _rows(_section(secs, "points of measure", "measurement"))
    if len(pom) >= 2:
        pom_header, pom_rows = pom[0], pom[1:]
    else:
        pom_header = ["POM", "Description", *SIZES, "Tol ±"]
        pom_rows = [
            [p.code, p.name, *(_fmt(v) for v in graded(p)), _fmt(p.tolerance)] for p in POMS[kind]
        ]
    bom = _rows(_section(secs, "bill of materials", "trims"))
    if len(bom) >= 2:
        bom = bom[1:]
    else:
        fallback.garment_type = kind
        bom = [list(r) for r in bom_rows(fallback)]
    colours = []
    for r in _rows(_section(secs, "colourway", "colorway", "colour", "color")):
        hx = next((c for c in r if re.fullmatch(r"#[0-9a-fA-F]{6}", c)), None)
        if hx:
            nm = r[1] if len(r) > 1 and not r[1].startswith("#") else colour_name(hx).title()
            colours.append(Colourway(nm, hx.lower()))
    if not colours:
        colours = fallback.colours
    return Pack(name, number, kind, fabric_line, pom_header, pom_rows, bom, colours)


def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


# The default font has no superscript two nor en/em dashes.
_GLYPHS = str.maketrans({"²": "2", "–": "-", "—": "-", "ê": "e", "é": "e"})

RGB = tuple[int, int, int]


class Surface(Protocol):
    """What the sheet is drawn on, in the sheet's pixels (1920x1080, y down): the PNG's
    raster or the PDF's vector page."""

    def rect(self, box: tuple[float, float, float, float], *, fill: RGB | None = None,
             outline: RGB | None = None) -> None: ...

    def text(self, xy: tuple[float, float], text: str, *, size: int, fill: RGB,
             anchor: str = "la") -> None: ...

    def line(self, a: tuple[float, float], b: tuple[float, float], *, fill: RGB) -> None: ...

    def flat(self, xy: tuple[int, int], flat: flatdraw.Flat) -> None: ...

    def fit(self, text: str, size: int, width: float) -> str: ...


def _fitted(text: str, width: float, measure: Any) -> str:
    """The text cut to ``width`` with an ellipsis, by the surface's own measure."""
    text = text.replace("g/m²", "gsm").translate(_GLYPHS)
    if measure(text) <= width:
        return text
    while text and measure(text + "…") > width:
        text = text[:-1]
    return text.rstrip() + "…"


class PngSurface:
    def __init__(self) -> None:
        self.image = Image.new("RGB", SHEET_SIZE, "white")
        self.draw = ImageDraw.Draw(self.image)

    def rect(self, box: tuple[float, float, float, float], *, fill: RGB | None = None,
             outline: RGB | None = None) -> None:
        self.draw.rectangle(box, fill=fill, outline=outline, width=1)

    def text(self, xy: tuple[float, float], text: str, *, size: int, fill: RGB,
             anchor: str = "la") -> None:
        self.draw.text(xy, text, font=_font(size), fill=fill, anchor=anchor)

    def line(self, a: tuple[float, float], b: tuple[float, float], *, fill: RGB) -> None:
        self.draw.line([a, b], fill=fill, width=1)

    def flat(self, xy: tuple[int, int], flat: flatdraw.Flat) -> None:
        self.image.paste(Image.fromarray(flat.rgb), xy)

    def fit(self, text: str, size: int, width: float) -> str:
        font = _font(size)
        return _fitted(text, width, lambda t: self.draw.textlength(t, font=font))


def _draw_table(
    surface: Surface,
    x: int,
    y: int,
    widths: list[int],
    header: list[str],
    rows: list[list[str]],
    *,
    row_h: int,
    size: int,
    max_rows: int,
    align_right_from: int = 99,
) -> int:
    total = sum(widths)
    surface.rect((x, y, x + total, y + row_h), fill=(28, 28, 28))
    cx = x
    for w, h_text in zip(widths, header):
        surface.text((cx + 8, y + row_h // 2), surface.fit(h_text, size, w - 12), size=size,
                     fill=(255, 255, 255), anchor="lm")
        cx += w
    y += row_h
    shown = rows[:max_rows]
    for i, r in enumerate(shown):
        if i % 2:
            surface.rect((x, y, x + total, y + row_h), fill=(244, 244, 242))
        cx = x
        for j, (w, cell) in enumerate(zip(widths, r + [""] * (len(widths) - len(r)))):
            t = surface.fit(cell, size, w - 12)
            if j >= align_right_from:
                surface.text((cx + w - 8, y + row_h // 2), t, size=size, fill=(20, 20, 20),
                             anchor="rm")
            else:
                surface.text((cx + 8, y + row_h // 2), t, size=size, fill=(20, 20, 20),
                             anchor="lm")
            cx += w
        y += row_h
    surface.rect((x, y - row_h * (len(shown) + 1), x + total, y), outline=(28, 28, 28))
    if len(rows) > max_rows:
        surface.text((x, y + 6), f"+ {len(rows) - max_rows} more rows in the written tech pack",
                     size=size, fill=(90, 90, 90))
        y += row_h
    return y


def sheet_flats(pack: Pack, rgb: np.ndarray | None) -> list[flatdraw.Flat]:
    """Front and back flats: from the photo's garment outline, else the type's template."""
    fw, fh = FLAT_SIZE
    if rgb is not None:
        _, mask = garment_mask_small(rgb)
        return [flatdraw.flat_from_mask(mask, view=view, garment_type=pack.garment_type,
                                        size=(fw, fh), margin=0.05)
                for view in ("front", "back")]
    return [flatdraw.flat_from_template(pack.garment_type, view=view, size=(fw, fh),
                                        margin=0.05)
            for view in ("front", "back")]


def draw_sheet(surface: Surface, pack: Pack, flats: list[flatdraw.Flat]) -> None:
    W, H = SHEET_SIZE
    ink, white = (20, 20, 20), (255, 255, 255)
    # Header band.
    surface.rect((0, 0, W, 96), fill=(20, 20, 20))
    surface.text((40, 48), surface.fit(pack.style_name, 40, 1000), size=40, fill=white,
                 anchor="lm")
    meta = (f"{pack.style_number}   ·   {TYPE_LABEL.get(pack.garment_type, pack.garment_type)}"
            "   ·   Sizes XS-XL (sample M)")
    surface.text((W - 40, 36), meta, size=17, fill=(220, 220, 220), anchor="rm")
    surface.text((W - 40, 64), "TECH PACK · ATELIER TECH PACK LAB · MEASUREMENTS IN CM",
                 size=15, fill=(160, 160, 160), anchor="rm")
    # Flats.
    fw, fh = FLAT_SIZE
    for i, (flat, label) in enumerate(zip(flats, ("FRONT", "BACK"))):
        x0, y0 = 40 + i * (fw + 30), 130
        surface.flat((x0, y0), flat)
        surface.rect((x0, y0, x0 + fw, y0 + fh), outline=(200, 200, 200))
        surface.text((x0 + fw // 2, y0 + fh + 22), label, size=22, fill=ink, anchor="mm")
    # Swatches and fabric.
    sy = 760
    surface.text((40, sy), "COLOURWAYS", size=22, fill=ink)
    for i, c in enumerate(pack.colours[:6]):
        x0 = 40 + i * 145
        rgbc = (int(c.hex[1:3], 16), int(c.hex[3:5], 16), int(c.hex[5:7], 16))
        surface.rect((x0, sy + 36, x0 + 125, sy + 136), fill=rgbc, outline=(120, 120, 120))
        surface.text((x0, sy + 144), f"CW{i + 1:02d}", size=15, fill=(90, 90, 90))
        surface.text((x0, sy + 162), surface.fit(c.name, 15, 135), size=15, fill=ink)
        surface.text((x0, sy + 180), c.hex.upper(), size=15, fill=(90, 90, 90))
    surface.text((40, sy + 218), "FABRIC", size=22, fill=ink)
    surface.text((40, sy + 252), surface.fit(pack.fabric_line, 17, 860), size=17,
                 fill=(40, 40, 40))
    # Tables.
    tx = 960
    surface.text((tx, 120), "POINTS OF MEASURE (CM)", size=22, fill=ink)
    n_sizes = max(0, len(pack.pom_header) - 3)
    widths = [60, 430] + [66] * n_sizes + [70]
    widths[1] = 920 - 60 - 66 * n_sizes - 70
    y = _draw_table(surface, tx, 152, widths, pack.pom_header, pack.pom_rows, row_h=30, size=17,
                    max_rows=11, align_right_from=2)
    y += 26
    surface.text((tx, y), "MATERIALS / BILL OF MATERIALS", size=22, fill=ink)
    rows = [r[:4] for r in pack.bom_rows]
    max_rows = max(3, (H - 40 - (y + 32)) // 28 - 2)
    _draw_table(surface, tx, y + 32, [190, 420, 200, 110],
                ["Component", "Description", "Placement", "Qty"], rows, row_h=28, size=15,
                max_rows=max_rows)
    surface.line((930, 120), (930, H - 30), fill=(220, 220, 220))


def render_sheet(pack: Pack, rgb: np.ndarray | None) -> np.ndarray:
    surface = PngSurface()
    draw_sheet(surface, pack, sheet_flats(pack, rgb))
    return np.asarray(surface.image)


def _read(params: dict[str, Any], progress: Progress | None) -> tuple[Pack, list[flatdraw.Flat]]:
    md = params.get("description_markdown", params.get("tech_pack"))
    if not isinstance(md, str) or not md.strip():
        raise EngineError(
            "tech_pack_required", "Please complete Step 1 before processing the tech pack."
        )
    if len(md) > 40000:
        raise EngineError(
            "tech_pack_too_long", "The tech pack text is longer than 40000 characters."
        )
    rgb = _image_param(params)
    if progress:
        progress(15)
    pack = parse_pack(md)
    if progress:
        progress(40)
    return pack, sheet_flats(pack, rgb)


def process(params: dict[str, Any], progress: Progress | None = None) -> np.ndarray:
    """The sheet's pixels."""
    pack, flats = _read(params, progress)
    surface = PngSurface()
    draw_sheet(surface, pack, flats)
    return np.asarray(surface.image)


def process_run(params: dict[str, Any], progress: Progress) -> list[EngineOutput]:
    """params: description_markdown (str, the step 1 text, edited or not), image (bytes,
    optional). The sheet as a PNG and as a vector PDF (the same layout)."""
    from workers.engines.techpack.pdf import render_pdf

    progress(5)
    pack, flats = _read(params, progress)
    surface = PngSurface()
    draw_sheet(surface, pack, flats)
    buf = io.BytesIO()
    surface.image.save(buf, format="PNG", compress_level=3)
    progress(70)
    pdf = render_pdf(pack, flats)
    progress(100)
    return [EngineOutput(buf.getvalue(), "image/png", "tech-pack.png"),
            EngineOutput(pdf, "application/pdf", "tech-pack.pdf")]


def tech_pack_run(params: dict[str, Any], progress: Progress) -> list[EngineOutput]:
    """The tool spec's entry: ``process_run`` with the pack under the spec's field name,
    ``tech_pack``."""
    return process_run({**params, "description_markdown": params.get("tech_pack", "")}, progress)
