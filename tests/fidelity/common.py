"""What every fidelity measurement shares: bars, reports, contact sheets and fixture photos.

A tool's module (`tests/fidelity/fid_<tool>.py`) exposes `measure(out_dir) -> ToolReport`:
it runs the real engine on our fixtures (and synthetic swatches), measures each bar of the
issue and writes one contact sheet (before | after) under `out_dir`. The runner
(`tests/fidelity/run.py`, `make fidelity`) collects the reports into `var/fidelity/latest.md`;
the engine tests call the same `measure` helpers so the bars are asserted in `make test` too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "fashion"
OUT_DIR = ROOT / "var" / "fidelity"


@dataclass(frozen=True)
class Bar:
    """One measured figure against its bar: `value <= limit` (or `>=` when `at_least`)."""

    name: str
    value: float
    limit: float
    at_least: bool = False
    unit: str = ""

    @property
    def met(self) -> bool:
        if not np.isfinite(self.value):
            return False
        return self.value >= self.limit if self.at_least else self.value <= self.limit

    def describe(self) -> str:
        sign = "≥" if self.at_least else "≤"
        return f"{self.name}: {self.value:.3g}{self.unit} ({sign} {self.limit:g}{self.unit})"


@dataclass
class ToolReport:
    tool: str
    bars: list[Bar] = field(default_factory=list)
    # Per-case figures for the table: each row a dict of column -> value (str or number).
    rows: list[dict[str, object]] = field(default_factory=list)
    sheet: Path | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def met(self) -> bool:
        return bool(self.bars) and all(b.met for b in self.bars)


def photo(name: str) -> np.ndarray:
    """A fixture photo ("garment/00055_00", "model/049205_0.jpg") as uint8 RGB."""
    path = FIXTURES / name
    if not path.suffix:
        path = path.with_suffix(".jpg")
    return np.asarray(Image.open(path).convert("RGB"))


def photo_any(name: str) -> np.ndarray:
    """A fixture photo named without its extension ("model/model_8"): the .jpg, else the .png."""
    for ext in (".jpg", ".png"):
        try:
            return photo(name + ext)
        except FileNotFoundError:
            continue
    raise FileNotFoundError(name)


def fixture_bytes(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def decode(data: bytes) -> np.ndarray:
    bgr = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if bgr is None:
        raise ValueError("not an image")
    return np.ascontiguousarray(bgr[..., ::-1])


def contact_sheet(
    path: Path,
    rows: Sequence[tuple[str, Sequence[np.ndarray]]],
    *,
    height: int = 320,
) -> Path:
    """One row per case: its label above, its images (before | after | ...) side by side at
    the same height. Written as a PNG a person opens."""
    gap, label_h = 6, 22
    rendered: list[Image.Image] = []
    for label, images in rows:
        tiles = []
        for im in images:
            im = np.asarray(im)
            if im.ndim == 2:
                im = np.repeat(im[..., None], 3, axis=2)
            if im.dtype != np.uint8:
                im = np.clip(im * (255 if im.max() <= 1.0 else 1), 0, 255).astype(np.uint8)
            h, w = im.shape[:2]
            tiles.append(Image.fromarray(im[..., :3]).resize(
                (max(1, round(w * height / h)), height), Image.Resampling.LANCZOS))
        width = sum(t.width for t in tiles) + gap * (len(tiles) - 1)
        row = Image.new("RGB", (max(width, 200), height + label_h), "white")
        ImageDraw.Draw(row).text((4, 4), label, fill=(0, 0, 0))
        x = 0
        for t in tiles:
            row.paste(t, (x, label_h))
            x += t.width + gap
        rendered.append(row)
    sheet = Image.new("RGB", (max(r.width for r in rendered),
                              sum(r.height + gap for r in rendered)), "white")
    y = 0
    for r in rendered:
        sheet.paste(r, (0, y))
        y += r.height + gap
    path.parent.mkdir(parents=True, exist_ok=True)
    sheet.save(path)
    return path
