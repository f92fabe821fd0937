"""Tech Pack Lab's vocabulary: the words that name garment types, fabrics, fits, necklines and
sleeves, and per type the fabric, care, points of measure, bill of materials and construction a
technical designer would write. Data only: ``describe`` reads it, ``sheet`` falls back on it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SIZES = ("XS", "S", "M", "L", "XL")

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

