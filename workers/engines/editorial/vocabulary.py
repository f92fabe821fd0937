"""The documented vocabulary of the Editorial and Tonelab parameter texts.

Partners write free text ("golden hour, rim light from the left, teal-orange grade, 35mm film
grain"). The local engine only acts on words it understands, so every text is parsed against
this table and the words it does not know are handed back, not silently dropped: the notes of
a job say exactly what was applied and what was not.

Matching is on normalised word sequences, longest phrase first, so "hard flash" wins over
"hard" and "black and white" over "black". Numbers that carry a setting (a focal length, an
aperture, a colour temperature in kelvin, a percentage) are recognised by pattern.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# category -> canonical term -> phrases that mean it (the canonical term itself is implied).
VOCABULARY: dict[str, dict[str, tuple[str, ...]]] = {
    "light": {
        "golden hour": ("golden light", "sunset", "sunset light", "late afternoon sun", "magic hour", "warm sunlight"),
        "window light": ("natural window light", "window", "daylight from a window", "side window"),
        "rim light": ("rim", "rim lit", "rim lighting", "edge light", "hair light", "kicker"),
        "hard flash": ("direct flash", "on camera flash", "flash", "harsh flash", "paparazzi flash"),
        "low key": ("low-key", "dark and moody", "moody", "chiaroscuro", "dramatic shadows", "dark"),
        "high key": ("high-key", "bright and airy", "airy", "bright", "overexposed"),
        "overcast": ("cloudy", "diffused daylight", "open shade", "shade", "flat light"),
        "studio softbox": ("softbox", "studio lighting", "studio light", "beauty dish", "umbrella", "octabox", "strobe"),
        "backlit": ("backlight", "backlighting", "back lit", "contre jour", "against the light"),
        "daylight": ("natural light", "sunlight", "sun", "midday sun", "daylight balanced"),
        "tungsten": ("incandescent", "practical lights", "practicals", "lamplight"),
        "neon": ("neon lights", "neon signs", "city lights"),
        "soft light": ("soft", "softly lit", "diffused", "diffuse", "even light", "even", "wraparound"),
        "hard light": ("hard", "harsh", "crisp shadows", "hard shadows", "specular"),
        "side light": ("side lit", "side lighting", "split light", "split lighting"),
        "front light": ("front lit", "frontal", "flat frontal light"),
        "top light": ("overhead", "top lit", "butterfly light", "butterfly lighting", "paramount"),
        "night": ("at night", "night time", "nighttime", "after dark", "evening"),
        "fill": ("fill light", "reflector", "bounce", "bounced fill", "negative fill"),
        "key light": ("key", "main light", "key lighting"),
        "mid key": ("mid-key", "mid tones", "midtones", "balanced exposure"),
    },
    "pose": {
        "standing": ("stands", "upright", "upright torso", "standing tall"),
        "walking": ("walks", "mid stride", "mid-stride", "striding", "in motion", "stride"),
        "seated": ("sitting", "sits", "seated on", "crouching", "squatting", "kneeling"),
        "leaning": ("leans", "leaning against", "lean"),
        "arms raised": ("arm raised", "hands up", "arms up", "both arms raised", "hands in hair", "hand in hair"),
        "hands on hips": ("hand on hip", "akimbo", "both hands on hips"),
        "arms down": ("arm down", "arms relaxed", "arms relaxed down by the sides", "relaxed", "by the sides"),
        "arms crossed": ("crossed arms", "folded arms"),
        "hand across the body": ("hand across", "across the body"),
        "hands in pockets": ("hand in pocket", "hands in pocket"),
        "head turned": ("turned", "looking away", "looking over the shoulder", "over the shoulder", "glance"),
        "head tilted": ("tilted", "tilt", "tilted head"),
        "facing the camera": ("looking at the camera", "looking at camera", "eye contact", "square to the camera", "facing camera", "facing"),
        "profile": ("side profile", "in profile", "turned at an angle", "body turned", "three quarter turn"),
        "weight on one hip": ("contrapposto", "hip out", "weight shifted"),
        "jumping": ("jump", "leaping", "twirling", "spinning", "dancing", "movement"),
    },
    "direction": {
        "left": ("from the left", "camera left", "from camera left", "front left", "front-left", "upper left"),
        "right": ("from the right", "camera right", "from camera right", "front right", "front-right", "upper right"),
        "above": ("from above", "high", "overhead"),
        "behind": ("from behind", "behind the subject", "behind"),
        "front": ("from the front", "head on", "on axis", "on-axis", "frontal"),
    },
    "colour": {
        "warm": ("warmer", "warm tones", "warm tone", "amber", "golden", "honey", "sepia"),
        "cool": ("cooler", "cool tones", "cold", "blue tones", "icy", "bluish"),
        "neutral": ("neutral white balance", "true to life", "true-to-life", "natural colour", "natural color", "natural", "accurate", "balanced"),
        "pastel": ("pastels", "soft pastel", "candy", "powdery"),
        "teal-orange": ("teal and orange", "teal orange", "orange and teal", "blockbuster"),
        "monochrome": ("black and white", "black & white", "b w", "bw", "b and w", "greyscale", "grayscale", "mono", "noir"),
        "muted": ("desaturated", "muted tones", "subdued", "washed out", "faded", "matte", "understated"),
        "vivid": ("saturated", "oversaturated", "punchy", "rich colours", "rich colors", "bold colours", "bold colors", "vibrant", "bold", "rich"),
        "film": ("film look", "filmic", "analog", "analogue", "film stock", "colour negative", "color negative", "negative film", "slide film", "cine film", "kodachrome", "portra", "ektachrome", "cinestill", "velvia", "fuji", "kodak"),
        "high contrast": ("contrasty", "hard contrast", "strong contrast", "punchy contrast", "crushed blacks", "deep blacks", "rich blacks", "deep shadows"),
        "low contrast": ("gentle contrast", "soft contrast", "flat", "lifted shadows", "lifted blacks", "faded blacks", "lifted faded blacks", "lifted", "low-contrast", "moderate contrast"),
        "cross processed": ("cross processing", "cross-processed", "green yellow shift", "green-yellow shift", "expired film", "expired"),
        "skin tones": ("natural skin tones", "skin", "flattering skin"),
        "tonal": ("tone on tone", "monochromatic palette", "earthy", "earth tones", "neutrals"),
    },
    "framing": {
        "full body": ("full-length", "full length", "head to toe", "whole body", "full figure"),
        "three-quarter": ("three quarter", "3/4", "knee up", "knees up", "mid thigh", "thigh up", "american shot", "cowboy shot"),
        "half body": ("waist up", "medium shot", "mid shot", "upper body"),
        "close-up": ("close up", "closeup", "head and shoulders", "headshot", "portrait crop", "tight crop", "beauty shot", "close crop"),
        "wide": ("wide shot", "wide angle", "environmental", "establishing", "long shot", "wide frame"),
        "centred": ("centered", "central", "centre", "center", "symmetrical", "middle of the frame"),
        "rule of thirds": ("on the thirds", "thirds", "left third", "right third", "off centre", "off-centre", "off center"),
        "low angle": ("from below", "worm's eye", "looking up"),
        "high angle": ("from above looking down", "bird's eye", "looking down"),
        "eye level": ("eye-level", "straight on"),
        "negative space": ("empty space", "lots of space", "space around", "headroom", "generous headroom", "tight headroom"),
        "portrait orientation": ("portrait", "vertical", "portrait frame", "3:4", "4:5", "2:3", "9:16"),
        "landscape orientation": ("landscape frame", "horizontal", "16:9", "3:2"),
    },
    "scene": {
        "studio seamless": ("seamless", "seamless backdrop", "studio", "sweep", "paper backdrop", "cyclorama", "cyc", "studio backdrop", "backdrop", "plain backdrop", "plain background", "background"),
        "colour wall": ("coloured wall", "colored wall", "painted wall", "colour backdrop", "color backdrop", "wall"),
        "beach": ("seaside", "sea", "ocean", "shore", "sand", "dunes", "coast"),
        "street": ("urban", "city", "city street", "sidewalk", "pavement", "downtown", "alley", "crosswalk"),
        "garden": ("park", "greenery", "foliage", "flowers", "botanical", "meadow", "field", "leaves", "trees", "forest"),
        "interior": ("indoor", "indoors", "room", "apartment", "loft", "hotel", "living room", "home", "cafe", "café"),
        "desert": ("arid", "sand dunes"),
        "rooftop": ("roof", "terrace", "balcony"),
    },
    "camera": {
        "grain": ("grainy", "film grain", "heavy grain", "coarse grain", "fine grain", "visible grain", "noise", "noisy", "grit", "gritty"),
        "no grain": ("clean", "grainless", "no noise", "clean digital", "digital"),
        "halation": ("red halos", "red halo", "halos", "halo", "glow around highlights", "halated"),
        "vignette": ("corner vignetting", "vignetting", "vignetted", "dark corners", "corner falloff", "light falloff"),
        "no vignette": ("no vignetting", "even corners"),
        "bloom": ("diffusion", "diffusion filter", "glow", "soft glow", "dreamy", "hazy", "pro mist", "black pro mist", "soft focus"),
        "sharp": ("crisp", "tack sharp", "razor sharp", "sharpness", "crisp detail", "detailed", "high detail"),
        "shallow depth of field": ("shallow focus", "bokeh", "blurred background", "background blur", "wide open", "shallow dof", "shallow depth"),
        "deep focus": ("deep depth of field", "everything in focus", "stopped down", "deep dof"),
        "35mm film": ("35mm", "35 mm film", "35 mm"),
        "medium format": ("120 film", "6x7", "6x6", "hasselblad", "pentax 67", "mamiya"),
        "lo-fi": ("lo fi", "lofi", "toy camera", "plastic lens", "holga", "lomo", "lomography", "disposable camera"),
        "pushed": ("pushed two stops", "push processed", "push processing", "pushed film", "high speed film", "high-speed film"),
        "tungsten film": ("tungsten balanced", "800t", "500t", "cinestill 800t"),
        "colour filter": ("red filter", "orange filter", "yellow filter", "green filter"),
        "soft corners": ("soft edges", "blurry corners"),
        "highlight roll-off": ("highlight roll off", "highlight rolloff", "soft highlight roll off", "soft highlights", "roll off", "rolled off highlights", "bright highlights", "warm highlights", "highlights"),
    },
}

# Colour names a text may use for a backdrop or a wall ("dusty pink seamless", "sage wall").
# Shared with the palette namer of the analysis: the same words go both ways.
COLOUR_NAMES: dict[str, tuple[int, int, int]] = {
    "white": (245, 245, 242), "off-white": (236, 232, 222), "cream": (240, 228, 200),
    "beige": (214, 196, 168), "sand": (196, 172, 132), "camel": (184, 140, 90),
    "tan": (170, 130, 95), "brown": (110, 72, 45), "chocolate": (70, 42, 30),
    "black": (18, 18, 20), "charcoal": (55, 57, 60), "dark grey": (90, 92, 95),
    "grey": (140, 140, 140), "light grey": (200, 200, 198), "silver": (180, 182, 186),
    "red": (190, 30, 35), "burgundy": (110, 25, 40), "coral": (240, 120, 100),
    "orange": (235, 125, 40), "rust": (170, 80, 40), "mustard": (200, 160, 40),
    "yellow": (240, 210, 60), "olive": (110, 110, 50), "khaki": (170, 160, 110),
    "sage": (160, 175, 140), "green": (50, 130, 70), "forest green": (35, 80, 45),
    "mint": (170, 225, 200), "teal": (20, 120, 125), "turquoise": (60, 190, 190),
    "sky blue": (135, 190, 230), "light blue": (170, 200, 225), "denim blue": (80, 110, 150),
    "blue": (40, 80, 170), "cobalt": (0, 70, 170), "navy": (25, 35, 70),
    "lavender": (190, 175, 220), "purple": (110, 50, 130), "plum": (90, 40, 70),
    "pink": (240, 170, 190), "dusty pink": (215, 165, 165), "blush": (240, 205, 200),
    "fuchsia": (210, 40, 130), "skin tone": (205, 160, 130),
}

# Words that carry no setting of their own but are understood (grammar and generic photo talk).
FILLER: frozenset[str] = frozenset(
    """a an the and or with without of in on at to from by for as into onto over under near
    is are be being very slightly slight light lighting lit tone tones toned colour color colours
    colors colouring palette grade graded grading look looks feel mood style styled shot shots
    photo photograph photography photographed image picture editorial fashion campaign model
    subject person woman man her his their its camera lens lenses mm f stop stops at around
    about approximately approx some little bit more less most mostly quite gentle gently strong
    strongly subtle subtly heavy heavily fine light-grey rendering rendered film-like like
    frame framed framing filling fills fill-in percent of the height width shade shading key
    per cent plus also while that which this these those it into across toward towards against
    rated box speed mode one two three four visible overall background-only scene setting
    composition placed placement position positioned standing set up using use uses used
    texture textured detail soft-edged edge edges tones kept keep keeps natural-looking
    front-facing faces face body frame's plain shadow shadows transitions ratio exposure mid
    whites saturation no focus corners darker cropped between top bottom torso square legs out
    both sides head model's weight feet foot hand hands arm arms angle hip hips knee knees
    even cut edge sharp-focus readable away only upper lower portraits portrait's sources source cast around lifting""".split()
)

_NUMBER_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("kelvin", re.compile(r"^(\d{4,5})\s?k$")),
    ("focal length", re.compile(r"^(\d{2,3})\s?mm$")),
    ("aperture", re.compile(r"^f/?(\d{1,2}(?:\.\d)?)$")),
    ("percent", re.compile(r"^(\d{1,3})%$")),
    ("ratio", re.compile(r"^(\d+(?:\.\d+)?):(\d+(?:\.\d+)?)$")),
    ("hex colour", re.compile(r"^#[0-9a-f]{6}$")),
    ("number", re.compile(r"^\d+(?:\.\d+)?$")),
)

_TOKEN = re.compile(r"#[0-9a-f]{6}|f/\d{1,2}(?:\.\d)?|\d+(?:\.\d+)?(?::\d+(?:\.\d+)?|%|\s?mm\b|\s?k\b)?|[a-z][a-z'’]*")


def _normalise(text: str) -> str:
    t = text.lower().replace("’", "'")
    t = t.replace("b&w", "black and white").replace("&", " and ")
    t = re.sub(r"(?<=[a-z])-(?=[a-z])", " ", t)  # teal-orange, close-up, lo-fi, three-quarter
    return t


def tokens(text: str) -> list[str]:
    return [m.group(0).replace(" ", "") for m in _TOKEN.finditer(_normalise(text))]


def _phrase_table() -> dict[tuple[str, ...], tuple[str, str]]:
    table: dict[tuple[str, ...], tuple[str, str]] = {}
    for category, terms in VOCABULARY.items():
        for canonical, phrases in terms.items():
            for phrase in (canonical, *phrases):
                key = tuple(tokens(phrase))
                # First declaration wins, so a phrase listed twice keeps its main meaning.
                table.setdefault(key, (category, canonical))
    for name in COLOUR_NAMES:
        table.setdefault(tuple(tokens(name)), ("colour name", name))
    return table


_PHRASES = _phrase_table()
_LONGEST = max(len(k) for k in _PHRASES)


def parse(text: str | None) -> tuple[dict[str, list], list[str]]:
    """Recognised settings by category, and the words that were not understood (in order).

    Settings: {"light": [...], "direction": [...], "colour": [...], "framing": [...],
    "scene": [...], "camera": [...], "colour name": [...], "kelvin": [int], "focal length":
    [int], "aperture": [float]} (only categories that occur).
    """
    settings: dict[str, list] = {}
    unknown: list[str] = []
    toks = tokens(text or "")
    i = 0
    while i < len(toks):
        for n in range(min(_LONGEST, len(toks) - i), 0, -1):
            hit = _PHRASES.get(tuple(toks[i : i + n]))
            if hit is not None:
                _add(settings, hit[0], hit[1])
                i += n
                break
        else:
            tok = toks[i]
            i += 1
            number = _number(tok)
            if number is not None:
                if number[0] in ("kelvin", "focal length", "aperture"):
                    _add(settings, number[0], number[1])
                continue
            if tok in FILLER or len(tok) <= 1:
                continue
            if tok not in unknown:
                unknown.append(tok)
    return settings, unknown


def parse_many(texts: Iterable[str | None]) -> tuple[dict[str, list], list[str]]:
    merged: dict[str, list] = {}
    unknown: list[str] = []
    for text in texts:
        settings, words = parse(text)
        for key, values in settings.items():
            for v in values:
                _add(merged, key, v)
        unknown.extend(w for w in words if w not in unknown)
    return merged, unknown


def _add(settings: dict[str, list], key: str, value: object) -> None:
    values = settings.setdefault(key, [])
    if value not in values:
        values.append(value)


def _number(tok: str) -> tuple[str, float] | None:
    for name, pattern in _NUMBER_PATTERNS:
        m = pattern.match(tok)
        if m:
            if name in ("kelvin", "focal length"):
                return name, int(m.group(1))
            if name == "aperture":
                return name, float(m.group(1))
            return name, 0.0
    return None


def known_terms() -> dict[str, list[str]]:
    """The canonical terms per category, for documentation and the notes of a job."""
    out = {category: list(terms) for category, terms in VOCABULARY.items()}
    out["colour name"] = list(COLOUR_NAMES)
    return out
