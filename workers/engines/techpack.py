"""Tech Pack Lab: a garment description (plus an optional photo) to a written tech pack, and a
tech pack (plus the photo) to a one-page 16:9 sheet.

Step 1, ``describe_run``, writes markdown a technical designer would hand to a factory:

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

Step 2, ``process_run``, reads that markdown back (edited or not; sections it cannot find fall
back to what the text implies) and draws a 1920x1080 sheet: header, front and back flats (from
the photo's garment outline when a photo is given, else the type's template), the measurement
table, the bill of materials and colour swatches.
"""

from __future__ import annotations

import io
import re
import zlib
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from workers.engines import flatdraw
from workers.engines.base import EngineError, EngineOutput, Progress
from workers.engines.imaging.color import delta_e2000, srgb8_to_oklab, to_hex

MAX_DESCRIPTION = 4000
SIZES = ("XS", "S", "M", "L", "XL")
SHEET_SIZE = (1920, 1080)
# Photos are looked at on a 512 px working copy: the silhouette and palette need no more, and
# it keeps step 1 well under a second.
WORK_SIDE = 512

SECTION_TITLES = (
    "1. Style summary",
    "2. Fabric and composition",
    "3. Trims and bill of materials",
    "4. Construction",
    "5. Colourways",
    "6. Points of measure (cm)",
    "7. Labels and care",
)

# --- vocabularies -----------------------------------------------------------------------------

# Checked in order: "shirt dress" is a dress, "t-shirt" a top, "overshirt" a shirt.
TYPE_WORDS: list[tuple[str, tuple[str, ...]]] = [
    ("dress", ("dress", "gown", "sundress", "shirtdress", "frock")),
    ("jacket", ("jacket", "blazer", "coat", "bomber", "parka", "trench", "overcoat", "anorak")),
    (
        "trousers",
        (
            "trouser",
            "pants",
            "jeans",
            "chino",
            "jogger",
            "slacks",
            "legging",
            "culotte",
            "shorts",
            "cargo",
        ),
    ),
    ("skirt", ("skirt", "skort")),
    (
        "top",
        (
            "t-shirt",
            "tshirt",
            "tee",
            "tank",
            "camisole",
            "cami",
            "sweatshirt",
            "hoodie",
            "sweater",
            "jumper",
            "pullover",
            "crop top",
            "top",
            "bodysuit",
            "polo",
        ),
    ),
    ("shirt", ("shirt", "blouse", "button-down", "button down", "overshirt")),
]

TYPE_LABEL = {
    "top": "Top / T-shirt",
    "shirt": "Shirt / blouse",
    "dress": "Dress",
    "skirt": "Skirt",
    "trousers": "Trousers",
    "jacket": "Jacket",
}
TYPE_CODE = {
    "top": "TS",
    "shirt": "SH",
    "dress": "DR",
    "skirt": "SK",
    "trousers": "TR",
    "jacket": "JK",
}


@dataclass(frozen=True)
class FabricSpec:
    words: tuple[str, ...]
    name: str
    composition: str
    gsm: int
    structure: str  # "knit" or "woven"
    care: str  # key into CARE


# Weights are typical mill weights for that cloth in a catalogue garment (g/m²).
FABRICS: list[FabricSpec] = [
    FabricSpec(
        ("denim", "jean"),
        "Denim, 3/1 right-hand twill (12 oz)",
        "100% Cotton",
        400,
        "woven",
        "denim",
    ),
    FabricSpec(
        ("french terry", "sweatshirt", "hoodie", "loopback"),
        "French terry (loopback)",
        "80% Cotton, 20% Polyester",
        300,
        "knit",
        "cotton_knit",
    ),
    FabricSpec(
        ("fleece",), "Brushed-back fleece", "80% Cotton, 20% Polyester", 320, "knit", "cotton_knit"
    ),
    FabricSpec(("pique", "piqué", "polo"), "Piqué knit", "100% Cotton", 210, "knit", "cotton_knit"),
    FabricSpec(("rib",), "1x1 rib knit", "95% Cotton, 5% Elastane", 220, "knit", "cotton_knit"),
    FabricSpec(
        ("jersey", "t-shirt", "tshirt", "tee"),
        "Single jersey",
        "100% Cotton",
        180,
        "knit",
        "cotton_knit",
    ),
    FabricSpec(("poplin",), "Cotton poplin", "100% Cotton", 115, "woven", "cotton_woven"),
    FabricSpec(("oxford",), "Oxford cloth", "100% Cotton", 140, "woven", "cotton_woven"),
    FabricSpec(("chambray",), "Chambray", "100% Cotton", 130, "woven", "cotton_woven"),
    FabricSpec(
        ("corduroy", "cord "),
        "Corduroy, 14 wale",
        "98% Cotton, 2% Elastane",
        300,
        "woven",
        "cotton_woven",
    ),
    FabricSpec(
        ("twill", "chino", "gabardine", "drill"),
        "Cotton twill (2/1)",
        "98% Cotton, 2% Elastane",
        260,
        "woven",
        "cotton_woven",
    ),
    FabricSpec(("linen",), "Linen plain weave", "100% Linen", 170, "woven", "linen"),
    FabricSpec(
        ("chiffon", "georgette"),
        "Georgette chiffon",
        "100% Polyester",
        60,
        "woven",
        "synthetic_delicate",
    ),
    FabricSpec(
        ("satin", "charmeuse"), "Satin", "100% Polyester", 115, "woven", "synthetic_delicate"
    ),
    FabricSpec(("silk",), "Silk crêpe de chine (16 momme)", "100% Silk", 70, "woven", "silk"),
    FabricSpec(
        ("tulle",), "Tulle (hexagonal net)", "100% Polyamide", 25, "woven", "synthetic_delicate"
    ),
    FabricSpec(("lace",), "Corded lace", "100% Polyamide", 90, "woven", "synthetic_delicate"),
    FabricSpec(
        ("velvet",), "Velvet (cut pile)", "100% Polyester", 280, "woven", "synthetic_delicate"
    ),
    FabricSpec(("crepe", "crêpe"), "Viscose crêpe", "100% Viscose", 140, "woven", "viscose"),
    FabricSpec(
        ("viscose", "rayon", "challis"), "Viscose challis", "100% Viscose", 120, "woven", "viscose"
    ),
    FabricSpec(("tweed", "boucle", "bouclé"), "Wool tweed", "100% Wool", 400, "woven", "wool"),
    FabricSpec(
        ("melton", "overcoat", "coat"),
        "Wool melton",
        "80% Wool, 20% Polyamide",
        520,
        "woven",
        "wool",
    ),
    FabricSpec(
        ("knit", "sweater", "cardigan", "jumper", "merino", "cashmere"),
        "12-gauge flat knit (fully fashioned)",
        "100% Merino wool",
        280,
        "knit",
        "wool",
    ),
    FabricSpec(
        ("wool", "suiting", "tailored", "worsted"),
        "Worsted wool suiting (twill)",
        "98% Wool, 2% Elastane",
        260,
        "woven",
        "wool",
    ),
    FabricSpec(
        ("nylon", "ripstop", "puffer", "windbreaker", "anorak"),
        "Nylon ripstop",
        "100% Polyamide",
        70,
        "woven",
        "synthetic_delicate",
    ),
    FabricSpec(
        ("polyester",),
        "Polyester plain weave",
        "100% Polyester",
        110,
        "woven",
        "synthetic_delicate",
    ),
    FabricSpec(("cotton",), "Cotton plain weave", "100% Cotton", 140, "woven", "cotton_woven"),
]
FABRIC_BY_NAME = {f.name: f for f in FABRICS}
DEFAULT_FABRIC = {
    "top": "Single jersey",
    "shirt": "Cotton poplin",
    "dress": "Viscose crêpe",
    "skirt": "Cotton twill (2/1)",
    "trousers": "Cotton twill (2/1)",
    "jacket": "Worsted wool suiting (twill)",
}

# ISO 3758 care wording per fibre family (symbol, then its meaning).
CARE: dict[str, list[tuple[str, str]]] = {
    "cotton_knit": [
        ("Washtub 30, one bar", "Washing: maximum temperature 30 °C, mild process"),
        ("Crossed triangle", "Do not bleach"),
        (
            "Square with circle, one dot",
            "Tumble drying possible at lower temperature, maximum exhaust temperature 60 °C",
        ),
        ("Iron, two dots", "Iron at a maximum sole-plate temperature of 150 °C"),
        (
            "Circle P",
            "Professional dry cleaning in tetrachloroethene and all solvents listed for symbol F, normal process",
        ),
    ],
    "cotton_woven": [
        ("Washtub 40", "Washing: maximum temperature 40 °C, normal process"),
        ("Crossed triangle", "Do not bleach"),
        (
            "Square with circle, one dot",
            "Tumble drying possible at lower temperature, maximum exhaust temperature 60 °C",
        ),
        ("Iron, three dots", "Iron at a maximum sole-plate temperature of 200 °C"),
        (
            "Circle P",
            "Professional dry cleaning in tetrachloroethene and all solvents listed for symbol F, normal process",
        ),
    ],
    "denim": [
        (
            "Washtub 30",
            "Washing: maximum temperature 30 °C, normal process; wash inside out with like colours",
        ),
        ("Crossed triangle", "Do not bleach"),
        ("Crossed square with circle", "Do not tumble dry"),
        ("Square with vertical line", "Line drying"),
        ("Iron, two dots", "Iron at a maximum sole-plate temperature of 150 °C"),
        (
            "Circle P",
            "Professional dry cleaning in tetrachloroethene and all solvents listed for symbol F, normal process",
        ),
    ],
    "linen": [
        ("Washtub 40, one bar", "Washing: maximum temperature 40 °C, mild process"),
        ("Crossed triangle", "Do not bleach"),
        ("Crossed square with circle", "Do not tumble dry"),
        ("Square with vertical line", "Line drying"),
        ("Iron, three dots", "Iron at a maximum sole-plate temperature of 200 °C"),
        (
            "Circle P",
            "Professional dry cleaning in tetrachloroethene and all solvents listed for symbol F, normal process",
        ),
    ],
    "viscose": [
        ("Washtub 30, two bars", "Washing: maximum temperature 30 °C, very mild process"),
        ("Crossed triangle", "Do not bleach"),
        ("Crossed square with circle", "Do not tumble dry"),
        ("Square with horizontal line", "Flat drying"),
        ("Iron, two dots", "Iron at a maximum sole-plate temperature of 150 °C"),
        (
            "Circle P",
            "Professional dry cleaning in tetrachloroethene and all solvents listed for symbol F, normal process",
        ),
    ],
    "silk": [
        ("Washtub with hand", "Hand wash, maximum temperature 40 °C"),
        ("Crossed triangle", "Do not bleach"),
        ("Crossed square with circle", "Do not tumble dry"),
        ("Square with horizontal line in the shade", "Flat drying in the shade"),
        ("Iron, one dot", "Iron at a maximum sole-plate temperature of 110 °C without steam"),
        ("Circle F, one bar", "Professional dry cleaning in hydrocarbons, mild process"),
    ],
    "wool": [
        ("Washtub with hand", "Hand wash, maximum temperature 40 °C"),
        ("Crossed triangle", "Do not bleach"),
        ("Crossed square with circle", "Do not tumble dry"),
        ("Square with horizontal line", "Flat drying"),
        ("Iron, two dots", "Iron at a maximum sole-plate temperature of 150 °C"),
        (
            "Circle P",
            "Professional dry cleaning in tetrachloroethene and all solvents listed for symbol F, normal process",
        ),
    ],
    "synthetic_delicate": [
        ("Washtub 30, two bars", "Washing: maximum temperature 30 °C, very mild process"),
        ("Crossed triangle", "Do not bleach"),
        ("Crossed square with circle", "Do not tumble dry"),
        ("Square with vertical line", "Line drying"),
        ("Iron, one dot", "Iron at a maximum sole-plate temperature of 110 °C without steam"),
        (
            "Circle P, one bar",
            "Professional dry cleaning in tetrachloroethene and all solvents listed for symbol F, mild process",
        ),
    ],
}

# Fashion colour names (sRGB hex) used to name measured colours and to read colour words.
NAMED_COLOURS: dict[str, str] = {
    "black": "#111111",
    "jet black": "#0a0a0a",
    "charcoal": "#36393d",
    "graphite": "#4b4e53",
    "grey": "#8c8f93",
    "gray": "#8c8f93",
    "heather grey": "#b4b5b8",
    "light grey": "#cfd0d2",
    "silver": "#c0c2c5",
    "white": "#f7f7f5",
    "optic white": "#fbfbfb",
    "off white": "#efebe2",
    "ivory": "#f2ecd9",
    "cream": "#f1e6cf",
    "ecru": "#e4d8bf",
    "stone": "#cfc4ad",
    "sand": "#d6c3a0",
    "beige": "#d9c6a5",
    "camel": "#b58a5a",
    "khaki": "#b3a57c",
    "tan": "#c19a6b",
    "brown": "#6b4a33",
    "chocolate": "#4a2f23",
    "rust": "#a4482a",
    "terracotta": "#c0654a",
    "orange": "#e8731c",
    "coral": "#f0776a",
    "peach": "#f6b99b",
    "red": "#c4161c",
    "cherry": "#a3122a",
    "burgundy": "#6d1a2c",
    "wine": "#5e1a2e",
    "pink": "#f2a6bf",
    "blush": "#eac3c0",
    "light pink": "#f5cdd6",
    "fuchsia": "#d6267d",
    "magenta": "#c2185b",
    "lilac": "#c1a7d6",
    "lavender": "#b9a7e0",
    "purple": "#6a2c91",
    "plum": "#5b2a4f",
    "navy": "#1c2541",
    "midnight navy": "#141b2d",
    "indigo": "#2e3a6b",
    "royal blue": "#2350b5",
    "cobalt": "#1f4fc4",
    "blue": "#2f62c9",
    "denim blue": "#4a6a93",
    "sky blue": "#8fc1e6",
    "light blue": "#a9cbe8",
    "powder blue": "#b9d3ea",
    "teal": "#1f7a7a",
    "turquoise": "#2ab3b1",
    "mint": "#a8dcc0",
    "sage": "#a3b09a",
    "olive": "#6b6b3a",
    "khaki green": "#6e6b45",
    "forest green": "#2c5234",
    "bottle green": "#1f4a35",
    "emerald": "#16845a",
    "green": "#2e8b57",
    "kelly green": "#1d9a4e",
    "lime": "#b5d334",
    "yellow": "#f2cd2e",
    "mustard": "#d4a22b",
    "lemon": "#f5e56b",
    "gold": "#c8a24a",
}
_NAMED_RGB = np.array(
    [[int(h[i : i + 2], 16) for i in (1, 3, 5)] for h in NAMED_COLOURS.values()], np.uint8
)
_NAMED_KEYS = list(NAMED_COLOURS)


@dataclass(frozen=True)
class POM:
    code: str
    name: str
    base_m: float  # size M, cm
    grade: float  # cm per size step (even grade)
    tolerance: float  # ± cm


POMS: dict[str, list[POM]] = {
    "top": [
        POM("A", "Body length from HPS", 70.0, 2.0, 1.0),
        POM("B", "Chest width, 2.5 cm below armhole (half)", 52.0, 2.5, 1.0),
        POM("C", "Hem width (half)", 52.0, 2.5, 1.0),
        POM("D", "Shoulder width, seam to seam", 46.0, 1.5, 0.5),
        POM("E", "Sleeve length from shoulder point", 21.0, 0.75, 0.5),
        POM("F", "Sleeve opening (half)", 17.0, 0.75, 0.5),
        POM("G", "Armhole, straight", 22.0, 1.0, 0.5),
        POM("H", "Neck width, seam to seam", 18.0, 0.5, 0.5),
        POM("I", "Front neck drop from HPS", 9.0, 0.5, 0.3),
    ],
    "shirt": [
        POM("A", "Body length, centre back", 76.0, 1.5, 1.0),
        POM("B", "Chest width, 2.5 cm below armhole (half)", 55.0, 2.5, 1.0),
        POM("C", "Waist width (half)", 52.0, 2.5, 1.0),
        POM("D", "Hem sweep (half)", 54.0, 2.5, 1.0),
        POM("E", "Shoulder width, seam to seam", 46.0, 1.5, 0.5),
        POM("F", "Sleeve length from shoulder point", 64.0, 1.0, 0.5),
        POM("G", "Bicep, 2.5 cm below armhole (half)", 20.0, 0.8, 0.5),
        POM("H", "Cuff length, button to buttonhole", 24.0, 0.5, 0.3),
        POM("I", "Collar length, button to buttonhole", 40.0, 1.0, 0.5),
    ],
    "dress": [
        POM("A", "Body length from HPS", 98.0, 1.5, 1.0),
        POM("B", "Bust, 2.5 cm below armhole (half)", 46.0, 2.5, 1.0),
        POM("C", "Waist (half)", 38.0, 2.5, 1.0),
        POM("D", "High hip, 20 cm below waist (half)", 48.0, 2.5, 1.0),
        POM("E", "Hem sweep (half)", 62.0, 3.0, 1.5),
        POM("F", "Shoulder width", 36.0, 1.0, 0.5),
        POM("G", "Armhole, straight", 20.0, 1.0, 0.5),
        POM("H", "Neck width, seam to seam", 16.0, 0.5, 0.5),
        POM("I", "Front neck drop from HPS", 11.0, 0.5, 0.3),
    ],
    "skirt": [
        POM("A", "Waist, relaxed (half)", 36.0, 2.5, 1.0),
        POM("B", "Hip, 18 cm below waist (half)", 49.0, 2.5, 1.0),
        POM("C", "Hem sweep (half)", 62.0, 3.0, 1.5),
        POM("D", "Centre front length", 64.0, 1.0, 1.0),
        POM("E", "Centre back length", 65.0, 1.0, 1.0),
    ],
    "trousers": [
        POM("A", "Waist (half)", 39.0, 2.5, 1.0),
        POM("B", "Hip, 18 cm below waist (half)", 51.0, 2.5, 1.0),
        POM("C", "Front rise incl. waistband", 26.0, 0.6, 0.5),
        POM("D", "Back rise incl. waistband", 36.0, 0.8, 0.5),
        POM("E", "Thigh, 2.5 cm below crotch (half)", 31.0, 1.2, 0.5),
        POM("F", "Knee, 33 cm below crotch (half)", 21.0, 0.7, 0.5),
        POM("G", "Leg opening (half)", 19.0, 0.5, 0.5),
        POM("H", "Inseam", 78.0, 1.0, 1.0),
        POM("I", "Outseam incl. waistband", 104.0, 1.5, 1.0),
    ],
    "jacket": [
        POM("A", "Body length, centre back", 74.0, 1.5, 1.0),
        POM("B", "Chest, 2.5 cm below armhole (half)", 54.0, 2.5, 1.0),
        POM("C", "Waist (half)", 50.0, 2.5, 1.0),
        POM("D", "Hem (half)", 53.0, 2.5, 1.0),
        POM("E", "Shoulder width", 45.0, 1.5, 0.5),
        POM("F", "Sleeve length from shoulder point", 63.0, 1.0, 0.5),
        POM("G", "Bicep, 2.5 cm below armhole (half)", 19.5, 0.8, 0.5),
        POM("H", "Sleeve opening (half)", 14.0, 0.5, 0.3),
        POM("I", "Armhole, straight", 25.0, 1.0, 0.5),
    ],
}

# (component, description, placement, quantity) per type; main fabric first.
BOM: dict[str, list[tuple[str, str, str, str]]] = {
    "top": [
        ("Neck rib", "1x1 rib, self colour, 2 cm finished", "Neckline", "0.05 m"),
        ("Neck tape", "Cotton twill tape 1 cm, self colour", "Back neck, shoulder seams", "0.5 m"),
    ],
    "shirt": [
        (
            "Interlining",
            "Fusible woven interlining 90 g/m², white",
            "Collar, stand, cuffs, placket",
            "0.3 m",
        ),
        (
            "Buttons",
            "14 L (9 mm) 4-hole polyester, colour matched",
            "Placket x7, cuffs x2, spare x1",
            "10 pcs",
        ),
        ("Collar stays", "Removable polycarbonate stays 55 mm", "Collar points", "2 pcs"),
    ],
    "dress": [
        ("Invisible zip", "YKK #3 invisible zip 55 cm, colour matched", "Centre back", "1 pc"),
        ("Hook and eye", "Size 1 hook and eye, nickel free", "Top of zip", "1 set"),
        ("Facing interlining", "Fusible non-woven 30 g/m²", "Neck and armhole facings", "0.2 m"),
    ],
    "skirt": [
        ("Invisible zip", "YKK #3 invisible zip 20 cm, colour matched", "Centre back", "1 pc"),
        ("Button", "20 L (12.5 mm) 4-hole, colour matched", "Waistband", "1 pc"),
        ("Waistband interlining", "Fusible woven 90 g/m²", "Waistband", "0.1 m"),
    ],
    "trousers": [
        ("Zip", "YKK #4.5 metal zip 18 cm, antique brass, auto-lock", "Fly", "1 pc"),
        ("Shank button", "24 L (15 mm) metal shank button, antique brass", "Waistband", "1 pc"),
        ("Pocketing", "100% Cotton pocketing 110 g/m², white", "Front pocket bags", "0.3 m"),
        ("Waistband interlining", "Fusible woven 90 g/m²", "Waistband", "0.1 m"),
    ],
    "jacket": [
        ("Lining", "100% Cupro twill 90 g/m², colour matched", "Body and sleeves", "1.5 m"),
        ("Fusible", "Fusible woven 60 g/m²", "Fronts, facings, collar, hems", "0.9 m"),
        ("Shoulder pads", "Set-in shoulder pads 1 cm", "Shoulders", "1 pair"),
        ("Front buttons", "32 L (20 mm) 4-hole horn-effect", "Centre front", "2 pcs"),
        ("Sleeve buttons", "24 L (15 mm) 4-hole horn-effect", "Sleeve vents x4 each", "8 pcs"),
    ],
}
CONSUMPTION = {
    "top": "0.8 m",
    "shirt": "1.6 m",
    "dress": "2.2 m",
    "skirt": "1.0 m",
    "trousers": "1.3 m",
    "jacket": "1.7 m",
}  # at 150 cm cuttable width, size M

# (operation, seam, stitch type ISO 4915, SPI, seam allowance)
CONSTRUCTION: dict[str, list[tuple[str, str, str, str, str]]] = {
    "knit": [
        ("Shoulder seams", "Superimposed, taped", "514 four-thread overlock", "12", "1.0 cm"),
        ("Side seams and sleeve seams", "Superimposed", "514 four-thread overlock", "12", "1.0 cm"),
        ("Sleeve / armhole attach", "Superimposed", "514 four-thread overlock", "12", "1.0 cm"),
        (
            "Neckband attach and topstitch",
            "Bound, 2 cm rib",
            "514 + 406 coverstitch",
            "12",
            "0.6 cm",
        ),
        (
            "Body hem",
            "Single turn, 2.5 cm",
            "406 twin-needle coverstitch, 6.4 mm gauge",
            "12",
            "2.5 cm",
        ),
        ("Sleeve hems", "Single turn, 2 cm", "406 twin-needle coverstitch", "12", "2.0 cm"),
    ],
    "shirt": [
        ("Side and sleeve seams", "Flat-felled", "301 lockstitch, two rows", "14", "1.0 cm"),
        ("Yoke", "Enclosed (burrito method)", "301 lockstitch, edgestitch 1.5 mm", "14", "1.0 cm"),
        (
            "Collar, stand and cuffs",
            "Turned, fused",
            "301 lockstitch, edgestitch 1.5 mm",
            "16",
            "0.6 cm",
        ),
        ("Front placket", "Folded, 3.5 cm", "301 lockstitch, edgestitch both sides", "14", "—"),
        ("Hem", "Narrow double turn, 0.6 cm", "301 lockstitch", "14", "1.2 cm"),
        ("Buttonholes", "Straight, 15 mm", "304 zigzag buttonhole", "—", "—"),
    ],
    "woven": [
        (
            "Body seams",
            "Superimposed, pressed open",
            "301 lockstitch, edges 504 three-thread overlock",
            "12",
            "1.5 cm",
        ),
        ("Darts", "Stitched to a point, pressed to centre", "301 lockstitch", "12", "—"),
        ("Neckline and armholes", "Faced, understitched", "301 lockstitch", "12", "1.0 cm"),
        ("Invisible zip", "Set in", "301 lockstitch, invisible-zip foot", "12", "1.5 cm"),
        ("Hem", "Double turn, 2 cm", "103 blindstitch", "5", "4.0 cm"),
    ],
    "trousers": [
        ("Inseam", "Superimposed", "516 five-thread safety stitch", "12", "1.0 cm"),
        (
            "Outseam",
            "Superimposed, pressed open",
            "301 lockstitch, edges 504 overlock",
            "12",
            "1.5 cm",
        ),
        (
            "Seat seam",
            "Superimposed",
            "401 chainstitch, two needles",
            "12",
            "1.5 cm; 3 cm at centre back waist",
        ),
        ("Fly", "Shield and facing", "301 J-stitch topstitch", "10", "1.0 cm"),
        (
            "Waistband and belt loops",
            "Folded band; loops bartacked",
            "301 lockstitch; 304 bartack, 42 stitches",
            "10",
            "1.0 cm",
        ),
        ("Hem", "Single turn, overlocked edge", "103 blindstitch", "5", "4.0 cm"),
    ],
    "jacket": [
        ("Shell seams", "Superimposed, pressed open", "301 lockstitch", "12", "1.5 cm"),
        ("Lining", "Bagged, 1 cm ease pleat at centre back", "301 lockstitch", "12", "1.0 cm"),
        (
            "Lapels and front edge",
            "Turned, fused, pick-stitched 5 mm",
            "301 + 209 hand-effect pick stitch",
            "12",
            "1.0 cm",
        ),
        ("Sleeve head", "Set in with sleeve-head roll", "301 lockstitch", "12", "1.0 cm"),
        ("Hems, body and sleeves", "Fused, bagged to lining", "301 lockstitch", "12", "4.0 cm"),
        ("Buttonholes", "Keyhole with gimp, 22 mm", "304 keyhole buttonhole", "—", "—"),
    ],
    "denim": [
        ("Inseam", "Flat-felled", "401 two-needle chainstitch", "8", "1.0 cm"),
        (
            "Outseam",
            "Superimposed, topstitched",
            "516 safety stitch + 301 topstitch",
            "8",
            "1.0 cm",
        ),
        ("Seat seam and yoke", "Flat-felled", "401 two-needle chainstitch", "8", "1.0 cm"),
        ("Fly", "J-stitch, bartacked", "301 topstitch; 304 bartack", "8", "1.0 cm"),
        ("Waistband", "Folded band", "401 chainstitch, waistband attacher", "8", "1.0 cm"),
        ("Hem", "Double turn, 1.5 cm", "301 lockstitch, Tex 70 topstitch thread", "8", "3.0 cm"),
    ],
}

FIT_WORDS = (
    "oversized",
    "relaxed",
    "boxy",
    "slim",
    "regular",
    "loose",
    "fitted",
    "straight",
    "wide-leg",
    "wide leg",
    "tapered",
    "skinny",
    "a-line",
    "bodycon",
    "flared",
)
NECK_WORDS = (
    "crew neck",
    "crew-neck",
    "v-neck",
    "v neck",
    "scoop neck",
    "boat neck",
    "turtleneck",
    "mock neck",
    "square neck",
    "sweetheart",
    "halter",
    "collar",
    "cowl",
    "off-shoulder",
    "off the shoulder",
    "notch lapel",
    "shawl collar",
)
SLEEVE_WORDS = (
    "sleeveless",
    "short sleeve",
    "short-sleeve",
    "long sleeve",
    "long-sleeve",
    "3/4 sleeve",
    "cap sleeve",
    "puff sleeve",
    "raglan",
    "strappy",
    "spaghetti strap",
)


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


# What a style is called, by the first of its type's words the description uses: a polo is not a
# T-shirt, a blazer not a jacket.
TYPE_NOUNS = {
    "t-shirt": "T-Shirt", "tshirt": "T-Shirt", "tee": "T-Shirt", "tank": "Tank Top",
    "camisole": "Camisole", "cami": "Camisole", "sweatshirt": "Sweatshirt", "hoodie": "Hoodie",
    "sweater": "Sweater", "jumper": "Sweater", "pullover": "Pullover", "crop top": "Crop Top",
    "top": "Top", "bodysuit": "Bodysuit", "polo": "Polo", "blazer": "Blazer", "coat": "Coat",
    "bomber": "Bomber", "parka": "Parka", "trench": "Trench Coat", "overcoat": "Overcoat",
    "anorak": "Anorak", "jeans": "Jeans", "chino": "Chinos", "jogger": "Joggers",
    "legging": "Leggings", "culotte": "Culottes", "shorts": "Shorts", "blouse": "Blouse",
    "overshirt": "Overshirt", "gown": "Gown", "skort": "Skort",
}
KIND_NOUNS = {"top": "T-Shirt", "shirt": "Shirt", "dress": "Dress", "skirt": "Skirt",
              "trousers": "Trousers", "jacket": "Jacket"}


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

    h, w = rgb.shape[:2]
    s = min(1.0, WORK_SIDE / max(h, w))
    small = (
        rgb
        if s >= 1
        else cv2.resize(rgb, (round(w * s), round(h * s)), interpolation=cv2.INTER_AREA)
    )
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
