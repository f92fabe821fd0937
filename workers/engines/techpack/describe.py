"""Tech Pack Lab, step 1: a garment description (plus an optional photo) to a written tech pack.

``describe_run`` writes markdown a technical designer would hand to a factory:

1. Style summary: the garment type from the description's words (``TYPE_WORDS``), else from
   the photo's silhouette (``flatdraw.classify_silhouette``); fit, neckline and sleeve words.
2. Fabric and composition: the first fabric word found in ``FABRICS`` (else the type's usual
   base cloth), weight in g/m² adjusted by "lightweight"/"heavyweight", elastane added for
   "stretch"; an explicit "180 gsm" or "95% cotton 5% elastane" in the text wins.
3. Trims and bill of materials: per type (``BOM``), plus zips, drawcords, elastic and pocketing
   when the description asks for them.
4. Construction: seam and stitch types (ISO 4915 stitch numbers), stitches per inch and seam
   allowances per type (``CONSTRUCTION``).
5. Colourways: the photo's dominant garment colours (k-means in OKLab inside the garment mask,
   each named after the nearest entry of ``NAMED_COLOURS`` by ΔE2000, with its measured hex),
   else the colour words of the description.
6. Points of measure in cm, graded XS–XL from the size M value by an even grade per size step
   (``POM``), with tolerances. Every point grades, so each row strictly increases.
7. Labels and care: label placement and ISO 3758 care instructions for the fibre (``CARE``).
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from workers.engines import flatdraw
from workers.engines.base import EngineError, EngineOutput, Progress
from workers.engines.imaging.color import delta_e2000, srgb8_to_oklab, to_hex
from workers.engines.imaging.resize import limit_side
from workers.engines.techpack.vocabulary import (
    _NAMED_KEYS,
    _NAMED_RGB,
    BOM,
    CARE,
    CONSTRUCTION,
    CONSUMPTION,
    DEFAULT_FABRIC,
    FABRIC_BY_NAME,
    FABRICS,
    FIT_WORDS,
    KIND_NOUNS,
    NAMED_COLOURS,
    NECK_WORDS,
    POM,
    POMS,
    SECTION_TITLES,
    SIZES,
    SLEEVE_WORDS,
    TYPE_CODE,
    TYPE_LABEL,
    TYPE_NOUNS,
    TYPE_WORDS,
    FabricSpec,
)

MAX_DESCRIPTION = 4000
# Photos are looked at on a 512 px working copy: the silhouette and palette need no more, and
# it keeps step 1 well under a second.
WORK_SIDE = 512


# --- analysis ---------------------------------------------------------------------------------


@dataclass
class Colourway:
    name: str
    hex: str
    share: float | None = None  # of the garment area, when measured


@dataclass
class Analysis:
    description: str
    garment_type: str
    type_source: str
    fabric: FabricSpec
    composition: str
    gsm: int
    colours: list[Colourway]
    colour_source: str
    style_name: str
    style_number: str
    details: dict[str, str] = field(default_factory=dict)


def _find(text: str, words: tuple[str, ...]) -> str | None:
    for w in words:
        if re.search(r"(?<![a-z])" + re.escape(w) + r"(?![a-z])", text):
            return w
    return None


def garment_type_from_text(text: str) -> str | None:
    low = text.lower()
    hits: list[tuple[int, str]] = []
    for kind, words in TYPE_WORDS:
        for w in words:
            m = re.search(r"(?<![a-z\-])" + re.escape(w) + r"s?(?![a-z])", low)
            if m:
                hits.append((m.start(), kind))
    if not hits:
        return None
    # "shirt dress", "jacket over a tee": the garment is usually the first noun named, except
    # when a garment word qualifies a dress ("shirt dress", "slip dress").
    kinds = {k for _, k in hits}
    if "dress" in kinds and re.search(r"(shirt|slip|sweater|t-shirt|tee)\s*-?\s*dress", low):
        return "dress"
    return min(hits)[1]


def type_noun(text: str, kind: str) -> str:
    """The style's noun: the first word of its kind that the description names."""
    low = text.lower()
    words = dict(TYPE_WORDS)[kind]
    found = [(m.start(), w) for w in words
             if (m := re.search(r"(?<![a-z\-])" + re.escape(w) + r"s?(?![a-z])", low))]
    return TYPE_NOUNS.get(min(found)[1], KIND_NOUNS[kind]) if found else KIND_NOUNS[kind]


def fabric_from_text(text: str, garment_type: str) -> tuple[FabricSpec, str, int]:
    low = " " + text.lower() + " "
    spec = None
    for f in FABRICS:
        if _find(low, f.words):
            spec = f
            break
    if spec is None:
        spec = FABRIC_BY_NAME[DEFAULT_FABRIC[garment_type]]
    gsm = float(spec.gsm)
    if re.search(r"light\s*-?\s*weight|lightweight|sheer|airy", low):
        gsm *= 0.8
    elif re.search(r"heavy\s*-?\s*weight|heavyweight|heavy|thick|sturdy", low):
        gsm *= 1.2
    m = re.search(r"(\d{2,3})\s*(?:gsm|g/m2|g/m²|grams?)", low)
    if m:
        gsm = float(m.group(1))
    oz = re.search(r"(\d{1,2}(?:\.\d)?)\s*oz", low)
    if oz and not m:
        gsm = float(oz.group(1)) * 33.906  # 1 oz/yd² = 33.906 g/m²
    composition = spec.composition
    comp = re.findall(r"(\d{1,3})\s*%\s*([a-z]+(?:\s+wool)?)", low)
    if comp and sum(int(p) for p, _ in comp) == 100:
        composition = ", ".join(f"{p}% {fibre.title()}" for p, fibre in comp)
    elif re.search(r"stretch|elastane|spandex|lycra", low) and "Elastane" not in composition:
        main = composition.split(",")[0].split("% ", 1)[1]
        composition = f"97% {main}, 3% Elastane"
    if "organic" in low and "Cotton" in composition:
        composition = composition.replace("Cotton", "Organic cotton (GOTS certified)", 1)
    if "recycled" in low and "Polyester" in composition:
        composition = composition.replace("Polyester", "Recycled polyester (GRS certified)", 1)
    return spec, composition, int(round(gsm / 5.0) * 5)


def colours_from_text(text: str) -> list[Colourway]:
    low = text.lower()
    found: list[tuple[int, str]] = []
    taken: list[tuple[int, int]] = []
    for name in sorted(NAMED_COLOURS, key=len, reverse=True):
        for m in re.finditer(r"(?<![a-z])" + re.escape(name) + r"(?![a-z])", low):
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue
            taken.append((m.start(), m.end()))
            found.append((m.start(), name))
    for m in re.finditer(r"#[0-9a-f]{6}\b", low):
        found.append((m.start(), m.group(0)))
    out: list[Colourway] = []
    for _, name in sorted(found):
        hx = name if name.startswith("#") else NAMED_COLOURS[name]
        label = colour_name(hx) if name.startswith("#") else name
        if all(c.hex != hx for c in out):
            out.append(Colourway(label.title(), hx))
    return out


def colour_name(hex_or_rgb: str | np.ndarray) -> str:
    if isinstance(hex_or_rgb, str):
        rgb = np.array([int(hex_or_rgb.lstrip("#")[i : i + 2], 16) for i in (0, 2, 4)], np.uint8)
    else:
        rgb = np.asarray(hex_or_rgb, np.uint8)
    d = delta_e2000(np.repeat(rgb[None], len(_NAMED_RGB), 0), _NAMED_RGB)
    return _NAMED_KEYS[int(np.argmin(d))]


def garment_mask_small(rgb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(working copy, bool garment mask) for a product shot, at long side WORK_SIDE."""
    from workers.engines.imaging import garment as garment_mod

    small, _ = limit_side(rgb, WORK_SIDE)
    mask = garment_mod.product_mask(small) > 0.5
    if mask.sum() < 0.01 * mask.size:
        raise EngineError(
            "garment_not_found",
            "No garment could be separated from the background: send a product shot on a "
            "plain background.",
        )
    return small, mask


def dominant_colours(
    rgb: np.ndarray, mask: np.ndarray, k: int = 5, min_share: float = 0.07
) -> list[Colourway]:
    """The garment's main colours, largest first: k-means in OKLab inside the mask; each
    cluster's colour is the median of its pixels, named after the nearest NAMED_COLOURS."""
    px = rgb[mask]
    if len(px) > 40000:
        px = px[np.random.default_rng(0).choice(len(px), 40000, replace=False)]
    lab = srgb8_to_oklab(px).astype(np.float32)
    k = min(k, max(1, len(px) // 50))
    crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 1e-4)
    cv2.setRNGSeed(1)
    _, labels, _ = cv2.kmeans(lab, k, None, crit, 2, cv2.KMEANS_PP_CENTERS)
    labels = labels.ravel()
    out: list[Colourway] = []
    for idx in np.argsort(-np.bincount(labels, minlength=k)):
        share = float((labels == idx).mean())
        if share < min_share:
            continue
        med = np.median(px[labels == idx], axis=0)
        hx = to_hex(med)
        name = colour_name(med)
        if out and any(c.name == name.title() for c in out):
            # Two clusters of one named colour (a fold's shadow): keep the larger only.
            continue
        out.append(Colourway(name.title(), hx, share))
    return out


def analyse(description: str, rgb: np.ndarray | None) -> Analysis:
    text = description.strip()
    low = text.lower()
    mask = small = None
    if rgb is not None:
        small, mask = garment_mask_small(rgb)
    kind = garment_type_from_text(text)
    source = "description"
    if kind is None and mask is not None:
        kind, source = flatdraw.classify_silhouette(mask), "reference image silhouette"
    elif kind is None:
        kind, source = "top", "default (no garment word found)"
    spec, composition, gsm = fabric_from_text(text, kind)
    if mask is not None and small is not None:
        colours, csource = dominant_colours(small, mask), "measured on the reference image"
        named = colours_from_text(text)
        measured = {c.hex for c in colours}
        # Colours the designer names become further colourways after the measured one.
        names = {c.name for c in colours}
        colours += [c for c in named if c.hex not in measured and c.name not in names]
        if named:
            csource += "; further colourways from the description"
    else:
        colours, csource = colours_from_text(text), "from the description"
    if not colours:
        colours, csource = [Colourway("Black", NAMED_COLOURS["black"])], "default"
    noun = type_noun(text, kind)
    details = {
        "Fit": (_find(low, FIT_WORDS) or "regular").title(),
        "Neckline / collar": (
            _find(low, NECK_WORDS)
            or {"Polo": "polo collar", "Hoodie": "hood"}.get(noun)
            or {
                "top": "crew neck",
                "shirt": "collar",
                "dress": "scoop neck",
                "jacket": "notch lapel",
            }.get(kind, "—")
        ).title(),
        "Sleeves": (
            _find(low, SLEEVE_WORDS)
            or {
                "top": "short sleeve",
                "shirt": "long sleeve",
                "dress": "sleeveless",
                "jacket": "long sleeve",
            }.get(kind, "—")
        ).title(),
    }
    words = [w for w in re.findall(r"[A-Za-z][A-Za-z\-']+", text)][:7]
    name_bits = [details["Fit"]] if details["Fit"] != "Regular" else []
    if details["Neckline / collar"] not in ("—", "Collar", "Polo Collar", "Hood"):
        name_bits.append(details["Neckline / collar"])
    name_bits.append(noun)
    style_name = " ".join(name_bits) if len(name_bits) > 1 else " ".join(words[:4]).title()
    style_name = style_name or TYPE_LABEL[kind]
    number = f"ATL-{TYPE_CODE[kind]}-{zlib.crc32(text.encode()) % 10000:04d}"
    return Analysis(
        text, kind, source, spec, composition, gsm, colours, csource, style_name, number, details
    )


# --- step 1: markdown ---------------------------------------------------------------------------


def graded(p: POM) -> list[float]:
    return [round(p.base_m + (i - 2) * p.grade, 2) for i in range(len(SIZES))]


def _fmt(v: float) -> str:
    return f"{v:.2f}".rstrip("0").rstrip(".")


def bom_rows(a: Analysis) -> list[tuple[str, str, str, str]]:
    low = a.description.lower()
    rows = [
        (
            "Main fabric",
            f"{a.fabric.name}, {a.composition}, {a.gsm} g/m², 150 cm cuttable",
            "Body" + (", sleeves" if a.garment_type in ("top", "shirt", "jacket") else ""),
            CONSUMPTION[a.garment_type],
        )
    ]
    rows += BOM[a.garment_type]
    have = " ".join(r[0].lower() + " " + r[1].lower() for r in rows)
    if re.search(r"\bzip|zipper", low) and "zip" not in have:
        rows.append(("Zip", "YKK #5 coil zip, colour matched", "As designed", "1 pc"))
    if re.search(r"pocket", low) and "pocketing" not in have:
        rows.append(("Pocketing", "100% Cotton pocketing 110 g/m²", "Pocket bags", "0.2 m"))
    if re.search(r"drawstring|drawcord|hood", low):
        rows.append(
            ("Drawcord", "Flat drawcord 10 mm, metal-tipped aglets", "Hood / waist", "1.4 m")
        )
        rows.append(("Eyelets", "Metal eyelets 8 mm, antique brass", "Drawcord exits", "2 pcs"))
    if re.search(r"print|graphic", low):
        rows.append(
            (
                "Print",
                "Water-based screen print, max 6 colours, artwork per colourway",
                "As artwork",
                "1 pc",
            )
        )
    if re.search(r"embroider", low):
        rows.append(
            (
                "Embroidery",
                "Polyester embroidery thread 120D/2, artwork per colourway",
                "As artwork",
                "1 pc",
            )
        )
    if re.search(r"elastic", low):
        rows.append(("Elastic", "Knitted elastic 30 mm", "Waist", "0.8 m"))
    if re.search(r"button", low) and "button" not in have:
        rows.append(("Buttons", "18 L (11.5 mm) 4-hole, colour matched", "As designed", "6 pcs"))
    rows += [
        (
            "Sewing thread",
            "Polyester core-spun Tex 27 (ticket 120), colour matched",
            "All seams",
            "1 cone / 25 pcs",
        ),
        ("Main label", "Woven damask label 50 x 20 mm", "Centre back neck / waistband", "1 pc"),
        ("Size label", "Woven size label 15 x 15 mm", "Beside main label", "1 pc"),
        (
            "Care label",
            "Printed satin label, composition and ISO 3758 care",
            "Left side seam, 10 cm above hem",
            "1 pc",
        ),
        (
            "Hangtag",
            "FSC card 350 g/m², with string and barcode sticker",
            "Through main label",
            "1 set",
        ),
        ("Polybag", "Recycled LDPE polybag with suffocation warning", "Packing", "1 pc"),
    ]
    return rows


def construction_key(a: Analysis) -> str:
    if a.fabric.care == "denim":
        return "denim"
    if a.garment_type == "trousers":
        return "trousers"
    if a.garment_type == "jacket":
        return "jacket"
    if a.garment_type == "shirt" and a.fabric.structure == "woven":
        return "shirt"
    return "knit" if a.fabric.structure == "knit" else "woven"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out


def render_markdown(a: Analysis) -> str:
    L: list[str] = [f"# Tech Pack — {a.style_name}", ""]
    L += [f"## {SECTION_TITLES[0]}", ""]
    L += _table(
        ["Field", "Value"],
        [
            ["Style name", a.style_name],
            ["Style number", a.style_number],
            ["Garment type", TYPE_LABEL[a.garment_type]],
            ["Recognised from", a.type_source],
            *[[k, v] for k, v in a.details.items()],
            ["Base size", "M (sample size)"],
            ["Size range", "XS–XL"],
        ],
    )
    L += ["", f"**Designer's description:** {a.description}", ""]
    L += [f"## {SECTION_TITLES[1]}", ""]
    L += _table(
        ["Field", "Value"],
        [
            ["Fabric", a.fabric.name],
            ["Composition", a.composition],
            ["Weight", f"{a.gsm} g/m² (±5%)"],
            ["Structure", a.fabric.structure.title()],
            ["Cuttable width", "150 cm"],
            ["Shrinkage tolerance", "±3% length and width after 3 washes (ISO 6330)"],
        ],
    )
    L += ["", f"## {SECTION_TITLES[2]}", ""]
    L += _table(
        ["Component", "Description", "Placement", "Quantity"], [list(r) for r in bom_rows(a)]
    )
    L += ["", f"## {SECTION_TITLES[3]}", ""]
    L += _table(
        ["Operation", "Seam", "Stitch (ISO 4915)", "SPI", "Seam allowance"],
        [list(r) for r in CONSTRUCTION[construction_key(a)]],
    )
    L += [
        "",
        "Thread tension balanced; backtack 1 cm at seam ends; all raw edges finished; "
        "press seams as stated.",
        "",
    ]
    L += [f"## {SECTION_TITLES[4]}", ""]
    L += [f"Colours {a.colour_source}.", ""]
    rows = []
    for i, c in enumerate(a.colours, 1):
        share = f"{c.share * 100:.0f}%" if c.share is not None else "—"
        role = (
            "Main (body)"
            if i == 1
            else ("Secondary / print" if c.share is not None else "Alternative colourway")
        )
        rows.append([f"CW{i:02d}", c.name, c.hex.upper(), role, share])
    L += _table(["Code", "Colour", "Hex", "Role", "Share of garment"], rows)
    L += [
        "",
        "Lab dips to be approved under D65 and TL84 before bulk; ΔE2000 ≤ 1.0 to standard.",
        "",
    ]
    L += [f"## {SECTION_TITLES[5]}", ""]
    L += _table(
        ["POM", "Description", *SIZES, "Tol ±"],
        [
            [p.code, p.name, *(_fmt(v) for v in graded(p)), _fmt(p.tolerance)]
            for p in POMS[a.garment_type]
        ],
    )
    L += [
        "",
        "Measured flat, garment buttoned/zipped, in cm. Grade rule: even grade per size "
        "step from the size M sample.",
        "",
    ]
    L += [f"## {SECTION_TITLES[6]}", ""]
    L += [
        "- Main label: centre back neck (waistband for bottoms), stitched on all four sides.",
        "- Size label: beside the main label.",
        f"- Care label: left side seam, 10 cm above hem; composition: {a.composition} "
        "(EU 1007/2011 fibre names); country of origin; RN/style number.",
        "",
        "Care instructions (ISO 3758):",
        "",
    ]
    L += _table(["Symbol", "Instruction"], [list(r) for r in CARE[a.fabric.care]])
    L += [""]
    return "\n".join(L)


def _image_param(params: dict[str, Any]) -> np.ndarray | None:
    data = params.get("image")
    if data is None or data == b"" or data == "":
        return None
    if not isinstance(data, (bytes, bytearray)):
        raise EngineError("invalid_image", "The reference image must be sent as image bytes.")
    from workers.engines.imaging.decode import decode_image

    return decode_image(bytes(data)).rgb


def describe(params: dict[str, Any], progress: Progress | None = None) -> str:
    """Step 1 at array level: the tech pack markdown."""
    description = params.get("description")
    if not isinstance(description, str) or not description.strip():
        raise EngineError(
            "description_required", "Please enter a text description before proceeding."
        )
    if len(description) > MAX_DESCRIPTION:
        raise EngineError(
            "description_too_long",
            f"The description is {len(description)} characters; the limit is {MAX_DESCRIPTION}.",
        )
    rgb = _image_param(params)
    if progress:
        progress(20)
    a = analyse(description, rgb)
    if progress:
        progress(80)
    return render_markdown(a)


def describe_run(params: dict[str, Any], progress: Progress) -> list[EngineOutput]:
    """params: description (str, required, ≤ 4000 chars), image (bytes, optional)."""
    progress(5)
    md = describe(params, progress)
    progress(100)
    return [EngineOutput(md.encode("utf-8"), "text/markdown", "tech-pack.md")]


