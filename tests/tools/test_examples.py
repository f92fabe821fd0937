"""The Examples galleries' assets (platform/tools/static/tools/examples, made by
`make examples`): every tool page has its examples, each one decodes within the size limits,
alt texts say something and differ, and none is (or contains) a licensed test fixture."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "platform" / "tools" / "static" / "tools" / "examples"
FIXTURES = ROOT / "tests" / "fixtures"

TOOL_PAGES = (
    "recolor", "refabric", "reshape", "rebody", "restyle", "virtual-try-on", "ecommerce-asset",
    "garment-integration", "model-swap", "earfit", "baghold", "spinview", "flats", "remodel",
    "editorial", "tonelab", "editorial-product", "open-lab", "tech-pack",
)
JPEG_LONG_SIDE = 960
JPEG_MAX_BYTES = 120_000
VIDEO_MAX_SIDE = 480
VIDEO_MAX_SECONDS = 3.05
VIDEO_MAX_BYTES = 400_000
FOLDER_MAX_BYTES = 6_000_000
# Correlation of 32x32 grey thumbnails above which two pictures count as the same photo. A
# fixture resized into a panel scores above 0.99 and a recoloured or restyled one well above
# this; our drawings and the two portraits score below 0.8 against every fixture.
SAME_PHOTO = 0.93


@pytest.fixture(scope="session", autouse=True)
def redis_server() -> Iterator[None]:
    # Overrides the suite-wide Redis fixture: these checks read files only.
    yield None


@cache
def manifest() -> dict[str, list[dict[str, str]]]:
    return dict(json.loads((EXAMPLES / "manifest.json").read_text()))


def entries() -> list[tuple[str, dict[str, str]]]:
    return [(slug, e) for slug, es in manifest().items() for e in es]


def video_frames(path: Path) -> tuple[dict[str, object], list[np.ndarray]]:
    import imageio_ffmpeg

    reader = imageio_ffmpeg.read_frames(str(path))
    meta = next(reader)
    w, h = meta["size"]
    frames = [np.frombuffer(f, np.uint8).reshape(h, w, 3) for f in reader]
    return meta, frames


def thumb(rgb: np.ndarray) -> np.ndarray:
    grey = Image.fromarray(rgb).convert("L").resize((32, 32), Image.Resampling.BOX)
    t = np.asarray(grey, np.float64).ravel()
    return (t - t.mean()) / (t.std() + 1e-6)


def panels(rgb: np.ndarray) -> list[np.ndarray]:
    """The whole picture, its halves and thirds, and the panels between white gap columns:
    wherever a before | after layout could have put a photo."""
    h, w = rgb.shape[:2]
    out = [rgb]
    for n in (2, 3):
        out += [rgb[:, round(k * w / n):round((k + 1) * w / n)] for k in range(n)]
    white = (rgb.min(axis=(0, 2)) >= 250).astype(np.int8)
    edges = np.flatnonzero(np.diff(np.concatenate([[1], white, [1]])))
    # edges alternate: start of content, end of content
    for x0, x1 in zip(edges[::2], edges[1::2], strict=True):
        if x1 - x0 > 0.15 * w:
            out.append(rgb[:, x0:x1])
    return out


@cache
def fixture_thumbs() -> dict[str, np.ndarray]:
    out = {}
    for path in sorted(FIXTURES.rglob("*")):
        if path.suffix.lower() in (".jpg", ".jpeg", ".png", ".webp"):
            out[str(path.relative_to(FIXTURES))] = thumb(
                np.asarray(Image.open(path).convert("RGB")))
    return out


@cache
def fixture_digests() -> set[str]:
    return {hashlib.sha256(p.read_bytes()).hexdigest() for p in FIXTURES.rglob("*")
            if p.is_file()}


def example_pictures(path: Path) -> list[np.ndarray]:
    if path.suffix == ".mp4":
        _, frames = video_frames(path)
        return [frames[0], frames[len(frames) // 2]]
    return [np.asarray(Image.open(path).convert("RGB"))]


def test_every_tool_page_has_its_examples() -> None:
    assert set(manifest()) == set(TOOL_PAGES)
    for slug in TOOL_PAGES:
        expected = 4 if slug == "flats" else 3
        assert len(manifest()[slug]) == expected, slug
        for n, entry in enumerate(manifest()[slug], start=1):
            suffix = "mp4" if slug == "spinview" else "jpg"
            assert entry["file"] == f"{slug}/{n}.{suffix}"


def test_alt_texts_are_sentences_and_distinct() -> None:
    alts = [e["alt"].strip() for _, e in entries()]
    assert all(len(a) >= 20 and a.endswith(".") for a in alts), alts
    assert len(set(alts)) == len(alts)


@pytest.mark.parametrize("slug,entry", [e for e in entries() if e[0] != "spinview"],
                         ids=lambda v: v["file"] if isinstance(v, dict) else v)
def test_image_example_decodes_within_limits(slug: str, entry: dict[str, str]) -> None:
    path = EXAMPLES / entry["file"]
    data = path.read_bytes()
    assert len(data) <= JPEG_MAX_BYTES
    with Image.open(path) as im:
        assert im.format == "JPEG"
        im.load()
        w, h = im.size
        rgb = np.asarray(im.convert("RGB"))
    assert max(w, h) <= JPEG_LONG_SIDE
    assert min(w, h) >= 300
    # A picture, not a blank or a flat fill.
    assert float(rgb.std()) > 15


@pytest.mark.parametrize("entry", manifest().get("spinview", []), ids=lambda e: e["file"])
def test_spinview_example_is_a_short_playable_video(entry: dict[str, str]) -> None:
    path = EXAMPLES / entry["file"]
    assert path.stat().st_size <= VIDEO_MAX_BYTES
    meta, frames = video_frames(path)
    w, h = meta["size"]  # type: ignore[misc]
    assert max(w, h) <= VIDEO_MAX_SIDE
    assert meta["codec"] == "h264"
    assert str(meta["pix_fmt"]).startswith("yuv420p")  # what Chromium plays
    assert float(meta["duration"]) <= VIDEO_MAX_SECONDS  # type: ignore[arg-type]
    assert len(frames) >= 24
    # It turns: the middle of the loop is not its first frame.
    assert np.abs(frames[0].astype(int) - frames[len(frames) // 3]).mean() > 2


def test_folder_stays_small() -> None:
    total = sum(p.stat().st_size for p in EXAMPLES.rglob("*") if p.is_file())
    assert total <= FOLDER_MAX_BYTES
    assert (EXAMPLES / "NOTICE.md").read_text().strip()


def test_no_example_is_a_test_fixture() -> None:
    digests = fixture_digests()
    fixtures = fixture_thumbs()
    assert len(fixtures) >= 20  # the comparison has something to compare against
    worst = (0.0, "", "")
    for _, entry in entries():
        path = EXAMPLES / entry["file"]
        assert hashlib.sha256(path.read_bytes()).hexdigest() not in digests, entry["file"]
        for picture in example_pictures(path):
            for part in panels(picture):
                t = thumb(part)
                for name, f in fixtures.items():
                    score = float(t @ f) / t.size
                    if score > worst[0]:
                        worst = (score, entry["file"], name)
    assert worst[0] < SAME_PHOTO, f"{worst[1]} looks like the fixture {worst[2]} ({worst[0]:.2f})"


def test_the_fixture_check_catches_a_fixture_in_a_panel() -> None:
    # given a before | after pair built from a fixture photo
    fixture = next(p for p in sorted(FIXTURES.rglob("*.jpg")))
    photo = np.asarray(Image.open(fixture).convert("RGB"))
    gap = np.full((photo.shape[0], 8, 3), 255, np.uint8)
    pair = np.concatenate([photo, gap, photo[:, :, ::-1]], axis=1)
    # when its panels are compared, then one of them is that fixture
    t = thumb(photo)
    assert max(float(thumb(p) @ t) / t.size for p in panels(pair)) >= SAME_PHOTO
