"""Tech Pack Lab: the written pack (sections, graded measurements, measured colourways) and the
rendered 16:9 sheet, on real product shots."""

from __future__ import annotations

import base64
import io
import re
import zlib

import numpy as np
import pytest
from PIL import Image

from tests.engines.conftest import FIXTURES, LOG_DIR, noop_progress, photo
from workers.engines import techpack
from workers.engines.base import EngineError
from workers.engines.imaging import garment as garment_mod
from workers.engines.imaging.color import delta_e2000, srgb8_to_lab

DESCRIPTIONS = {
    "top": "Relaxed crew neck t-shirt in heavyweight organic cotton jersey with a printed graphic.",
    "shirt": "Classic long sleeve oxford shirt with button-down collar and chest pocket, light blue.",
    "dress": "Sleeveless A-line midi dress in viscose crepe with a centre back zip, burgundy.",
    "skirt": "A-line skirt in stretch cotton twill, knee length, olive and black.",
    "trousers": "High-waisted wide-leg trousers in wool suiting with a zip fly and pockets, navy.",
    "jacket": "Single-breasted blazer with notch lapels and flap pockets in wool tweed, camel.",
}


def _pom_rows(md: str) -> list[list[str]]:
    block = md.split("## 6. Points of measure (cm)")[1].split("## 7.")[0]
    rows = [
        [c.strip() for c in ln.strip().strip("|").split("|")]
        for ln in block.splitlines()
        if ln.strip().startswith("|")
    ]
    return [r for r in rows[2:]]  # header and separator dropped


@pytest.mark.parametrize("kind", sorted(DESCRIPTIONS))
def test_pack_has_every_section_and_the_described_garment_type(kind: str) -> None:
    md = techpack.describe({"description": DESCRIPTIONS[kind]})

    for title in techpack.SECTION_TITLES:
        assert f"\n## {title}\n" in md
    assert f"| Garment type | {techpack.TYPE_LABEL[kind]} |" in md
    assert re.search(r"\| Weight \| \d+ g/m²", md)
    assert "ISO 3758" in md and "Do not bleach" in md


@pytest.mark.parametrize("description,name", [
    ("Relaxed-fit cotton piqué polo shirt, 220 gsm, three-button placket.", "Relaxed Polo"),
    (DESCRIPTIONS["top"], "Relaxed Crew Neck T-Shirt"),
    (DESCRIPTIONS["jacket"], "Notch Lapel Blazer"),
    ("Oversized hoodie in french terry with a kangaroo pocket.", "Oversized Hoodie"),
])
def test_style_name_says_what_the_garment_is(description: str, name: str) -> None:
    md = techpack.describe({"description": description})
    assert f"| Style name | {name} |" in md


@pytest.mark.parametrize("kind", sorted(DESCRIPTIONS))
def test_points_of_measure_strictly_increase_from_xs_to_xl(kind: str) -> None:
    md = techpack.describe({"description": DESCRIPTIONS[kind]})

    rows = _pom_rows(md)
    assert len(rows) >= 5
    for row in rows:
        values = [float(v) for v in row[2:7]]
        assert all(b > a for a, b in zip(values, values[1:], strict=False)), row


def test_fabric_weight_and_composition_follow_the_words() -> None:
    light = techpack.describe({"description": "Lightweight linen shirt"})
    heavy = techpack.describe({"description": "Heavyweight linen shirt with stretch"})

    w_light = int(re.search(r"\| Weight \| (\d+)", light).group(1))
    w_heavy = int(re.search(r"\| Weight \| (\d+)", heavy).group(1))
    assert "Linen plain weave" in light and w_light < 170 < w_heavy
    assert "3% Elastane" in heavy


def _dominant_hex(rgb: np.ndarray) -> np.ndarray:
    """The garment's most common colour, measured apart from the engine: the fullest 6-unit
    CIELab bin inside the product mask, averaged."""
    small, _ = garment_mod.working_copy(rgb)
    mask = garment_mod.product_mask(small) > 0.5
    px = small[mask]
    lab = srgb8_to_lab(px)
    bins = np.floor(lab / 6.0).astype(int)
    keys, inverse, counts = np.unique(bins, axis=0, return_inverse=True, return_counts=True)
    top = np.argmax(counts)
    return px[inverse.ravel() == top].mean(axis=0).round().astype(np.uint8)


@pytest.mark.parametrize("name", ["garment/050181_1", "garment/051988_1", "garment/00055_00"])
def test_colourways_are_measured_on_the_reference_image(name: str) -> None:
    rgb = photo(name)
    data = (FIXTURES / f"{name}.jpg").read_bytes()

    md = techpack.describe({"description": "Garment for the summer drop.", "image": data})

    block = md.split("## 5. Colourways")[1].split("## 6.")[0]
    hexes = re.findall(r"#[0-9A-F]{6}", block)
    assert hexes
    listed = np.array([[int(h[i : i + 2], 16) for i in (1, 3, 5)] for h in hexes], np.uint8)
    dominant = _dominant_hex(rgb)
    de = delta_e2000(np.repeat(dominant[None], len(listed), 0), listed)
    assert de.min() <= 10.0, (hexes, dominant, de)
    assert "measured on the reference image" in block


def test_silhouette_gives_the_type_when_the_description_names_none() -> None:
    data = (FIXTURES / "garment/051988_1.jpg").read_bytes()

    md = techpack.describe({"description": "Core piece for autumn, beige.", "image": data})

    assert "| Garment type | Trousers |" in md
    assert "| Recognised from | reference image silhouette |" in md


def test_description_is_required_and_bounded() -> None:
    with pytest.raises(EngineError) as empty:
        techpack.describe_run({"description": "   "}, noop_progress)
    with pytest.raises(EngineError) as long:
        techpack.describe_run({"description": "x" * 4001}, noop_progress)

    assert empty.value.code == "description_required"
    assert long.value.code == "description_too_long"


@pytest.mark.parametrize(
    "name,description",
    [
        ("garment/050181_1", DESCRIPTIONS["top"]),
        (
            "garment/052234_1",
            "Smocked puff-sleeve midi dress in cotton poplin, sky blue and white.",
        ),
        (None, DESCRIPTIONS["jacket"]),
        (None, DESCRIPTIONS["trousers"]),
    ],
)
def test_sheet_is_a_16_9_png_with_flats_tables_and_swatches(
    name: str | None, description: str
) -> None:
    data = (FIXTURES / f"{name}.jpg").read_bytes() if name else None
    md = techpack.describe_run({"description": description, "image": data}, noop_progress)[0]

    out = techpack.process_run(
        {"description_markdown": md.data.decode(), "image": data}, noop_progress
    )

    assert [o.content_type for o in out] == ["image/png", "application/pdf"]
    sheet = np.asarray(Image.open(io.BytesIO(out[0].data)).convert("RGB"))
    h, w = sheet.shape[:2]
    assert (w, h) == (1920, 1080) and w * 9 == h * 16
    # The flats: dark line art inside the front and back boxes, white around it.
    front = sheet[130:690, 40:460]
    assert 0.01 < (front.min(axis=2) < 100).mean() < 0.25
    # The first swatch is the first colourway's colour.
    first_hex = re.search(r"\| CW01 \| [^|]+ \| (#[0-9A-F]{6})", md.data.decode()).group(1)
    swatch = sheet[760 + 50, 40 + 60]
    assert (
        np.abs(swatch.astype(int) - [int(first_hex[i : i + 2], 16) for i in (1, 3, 5)]).max() <= 2
    )
    LOG_DIR.mkdir(parents=True, exist_ok=True)
    Image.fromarray(sheet).save(
        LOG_DIR / f"techpack_sheet_{(name or description.split()[0]).replace('/', '_')}.png"
    )


def test_sheet_reads_an_edited_pack_and_a_free_text_one() -> None:
    md = techpack.describe({"description": DESCRIPTIONS["skirt"]})
    edited = md.replace(
        "| A | Waist, relaxed (half) | 31 | 33.5 | 36 |",
        "| A | Waist, relaxed (half) | 30 | 33 | 36 |",
    )

    pack = techpack.parse_pack(edited)
    sheet_a = techpack.process({"description_markdown": edited})
    sheet_b = techpack.process(
        {"description_markdown": "A denim jacket with a corduroy collar, indigo."}
    )

    assert pack.garment_type == "skirt" and pack.pom_rows[0][2:4] == ["30", "33"]
    assert sheet_a.shape == sheet_b.shape == (1080, 1920, 3)
    with pytest.raises(EngineError) as err:
        techpack.process({"description_markdown": "  "})
    assert err.value.code == "tech_pack_required"


def test_the_sheet_also_comes_as_a_vector_pdf() -> None:
    """The same sheet as a PDF a factory opens: one A3 landscape page whose text is text (not
    a picture of it) and whose flats are vector paths; the same input gives the same bytes."""
    data = (FIXTURES / "garment/051988_1.jpg").read_bytes()
    md = techpack.describe_run({"description": DESCRIPTIONS["shirt"], "image": data},
                               noop_progress)[0].data.decode()
    runs = [techpack.process_run({"description_markdown": md, "image": data}, noop_progress)
            for _ in range(2)]
    pdf = runs[0][1]
    assert (pdf.content_type, pdf.filename) == ("application/pdf", "tech-pack.pdf")
    assert pdf.data.startswith(b"%PDF-") and pdf.data == runs[1][1].data
    # reportlab's page stream: ASCII85 over Flate
    (raw,) = re.findall(rb"stream\r?\n(.*?)~>\r?\n?endstream", pdf.data, re.S)
    page = zlib.decompress(base64.a85decode(raw))
    assert b"(POINTS OF MEASURE \\(CM\\)) Tj" in page  # the table heading is text
    assert page.count(b" l ") > 500  # the flats' line art: path segments, not an image
    assert b"/Subtype /Image" not in pdf.data
