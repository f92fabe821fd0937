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
from typing import Any

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


def _fit_text(draw: ImageDraw.ImageDraw, text: str, font: Any, width: int) -> str:
    text = text.replace("g/m²", "gsm").translate(_GLYPHS)
    if draw.textlength(text, font=font) <= width:
        return text
    while text and draw.textlength(text + "…", font=font) > width:
        text = text[:-1]
    return text.rstrip() + "…"


def _draw_table(
    draw: ImageDraw.ImageDraw,
    x: int,
    y: int,
    widths: list[int],
    header: list[str],
    rows: list[list[str]],
    *,
    row_h: int,
    font: Any,
    bold: Any,
    max_rows: int,
    align_right_from: int = 99,
) -> int:
    total = sum(widths)
    draw.rectangle([x, y, x + total, y + row_h], fill=(28, 28, 28))
    cx = x
    for w, h_text in zip(widths, header):
        draw.text(
            (cx + 8, y + row_h // 2),
            _fit_text(draw, h_text, bold, w - 12),
            font=bold,
            fill="white",
            anchor="lm",
        )
        cx += w
    y += row_h
    shown = rows[:max_rows]
    for i, r in enumerate(shown):
        if i % 2:
            draw.rectangle([x, y, x + total, y + row_h], fill=(244, 244, 242))
        cx = x
        for j, (w, cell) in enumerate(zip(widths, r + [""] * (len(widths) - len(r)))):
            t = _fit_text(draw, cell, font, w - 12)
            if j >= align_right_from:
                draw.text(
                    (cx + w - 8, y + row_h // 2), t, font=font, fill=(20, 20, 20), anchor="rm"
                )
            else:
                draw.text((cx + 8, y + row_h // 2), t, font=font, fill=(20, 20, 20), anchor="lm")
            cx += w
        y += row_h
    draw.rectangle([x, y - row_h * (len(shown) + 1), x + total, y], outline=(28, 28, 28), width=1)
    if len(rows) > max_rows:
        draw.text(
            (x, y + 6),
            f"+ {len(rows) - max_rows} more rows in the written tech pack",
            font=font,
            fill=(90, 90, 90),
        )
        y += row_h
    return y


def render_sheet(pack: Pack, rgb: np.ndarray | None) -> np.ndarray:
    W, H = SHEET_SIZE
    im = Image.new("RGB", (W, H), "white")
    d = ImageDraw.Draw(im)
    f_title, f_h, f_b, f_s = _font(40), _font(22), _font(17), _font(15)
    # Header band.
    d.rectangle([0, 0, W, 96], fill=(20, 20, 20))
    d.text(
        (40, 48),
        _fit_text(d, pack.style_name, f_title, 1000),
        font=f_title,
        fill="white",
        anchor="lm",
    )
    meta = f"{pack.style_number}   ·   {TYPE_LABEL.get(pack.garment_type, pack.garment_type)}   ·   Sizes XS-XL (sample M)"
    d.text((W - 40, 36), meta, font=f_b, fill=(220, 220, 220), anchor="rm")
    d.text(
        (W - 40, 64),
        "TECH PACK · ATELIER TECH PACK LAB · MEASUREMENTS IN CM",
        font=f_s,
        fill=(160, 160, 160),
        anchor="rm",
    )
    # Flats.
    fw, fh = 420, 560
    flats = []
    if rgb is not None:
        _, mask = garment_mask_small(rgb)
        for view in ("front", "back"):
            flats.append(
                flatdraw.flat_from_mask(
                    mask, view=view, garment_type=pack.garment_type, size=(fw, fh), margin=0.05
                ).rgb
            )
    else:
        for view in ("front", "back"):
            flats.append(
                flatdraw.flat_from_template(
                    pack.garment_type, view=view, size=(fw, fh), margin=0.05
                ).rgb
            )
    for i, (flat, label) in enumerate(zip(flats, ("FRONT", "BACK"))):
        x0, y0 = 40 + i * (fw + 30), 130
        im.paste(Image.fromarray(flat), (x0, y0))
        d.rectangle([x0, y0, x0 + fw, y0 + fh], outline=(200, 200, 200), width=1)
        d.text((x0 + fw // 2, y0 + fh + 22), label, font=f_h, fill=(20, 20, 20), anchor="mm")
    # Swatches and fabric.
    sy = 760
    d.text((40, sy), "COLOURWAYS", font=f_h, fill=(20, 20, 20))
    for i, c in enumerate(pack.colours[:6]):
        x0 = 40 + i * 145
        rgbc = tuple(int(c.hex[k : k + 2], 16) for k in (1, 3, 5))
        d.rectangle([x0, sy + 36, x0 + 125, sy + 136], fill=rgbc, outline=(120, 120, 120))
        d.text((x0, sy + 144), f"CW{i + 1:02d}", font=f_s, fill=(90, 90, 90))
        d.text((x0, sy + 162), _fit_text(d, c.name, f_s, 135), font=f_s, fill=(20, 20, 20))
        d.text((x0, sy + 180), c.hex.upper(), font=f_s, fill=(90, 90, 90))
    d.text((40, sy + 218), "FABRIC", font=f_h, fill=(20, 20, 20))
    d.text((40, sy + 252), _fit_text(d, pack.fabric_line, f_b, 860), font=f_b, fill=(40, 40, 40))
    # Tables.
    tx = 960
    d.text((tx, 120), "POINTS OF MEASURE (CM)", font=f_h, fill=(20, 20, 20))
    n_sizes = max(0, len(pack.pom_header) - 3)
    widths = [60, 430] + [66] * n_sizes + [70]
    widths[1] = 920 - 60 - 66 * n_sizes - 70
    y = _draw_table(
        d,
        tx,
        152,
        widths,
        pack.pom_header,
        pack.pom_rows,
        row_h=30,
        font=f_b,
        bold=f_b,
        max_rows=11,
        align_right_from=2,
    )
    y += 26
    d.text((tx, y), "MATERIALS / BILL OF MATERIALS", font=f_h, fill=(20, 20, 20))
    bom_w = [190, 420, 200, 110]
    rows = [r[:4] for r in pack.bom_rows]
    max_rows = max(3, (H - 40 - (y + 32)) // 28 - 2)
    _draw_table(
        d,
        tx,
        y + 32,
        bom_w,
        ["Component", "Description", "Placement", "Qty"],
        rows,
        row_h=28,
        font=f_s,
        bold=f_s,
        max_rows=max_rows,
    )
    d.line([(930, 120), (930, H - 30)], fill=(220, 220, 220), width=1)
    return np.asarray(im)


def process(params: dict[str, Any], progress: Progress | None = None) -> np.ndarray:
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
    return render_sheet(pack, rgb)


def process_run(params: dict[str, Any], progress: Progress) -> list[EngineOutput]:
    """params: description_markdown (str, the step 1 text, edited or not), image (bytes, optional)."""
    progress(5)
    sheet = process(params, progress)
    progress(90)
    buf = io.BytesIO()
    Image.fromarray(sheet).save(buf, format="PNG", compress_level=3)
    progress(100)
    return [EngineOutput(buf.getvalue(), "image/png", "tech-pack.png")]


def tech_pack_run(params: dict[str, Any], progress: Progress) -> list[EngineOutput]:
    """The tool spec's entry: ``process_run`` with the pack under the spec's field name,
    ``tech_pack``."""
    return process_run({**params, "description_markdown": params.get("tech_pack", "")}, progress)
