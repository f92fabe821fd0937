"""What the tool catalogue shows and the engines work from: pure data, read by both sides,
so the platform's specs and APIs never import an engine for a list or a measure."""

from __future__ import annotations

# --- Editorial and Tonelab: the camera style templates ---------------------------------------

# The texts fill the Camera Details box when a template is chosen. They are written so the
# vocabulary recognises every setting in them (a test checks that), which keeps template text,
# template look and free-text look in agreement.
CAMERA_TEMPLATES: list[dict[str, str]] = [
    {"title": "Custom", "camera_details": ""},
    {
        "title": "Warm 70s Film Look",
        "camera_details": (
            "Shot on 35mm colour negative film with a warm 1970s rendering: golden amber cast, "
            "lifted faded blacks, soft highlight roll-off, slightly muted colours, fine film grain "
            "and a light vignette. 50mm lens at f/2.8."
        ),
    },
    {
        "title": "Grainy High-Contrast B&W",
        "camera_details": (
            "Black and white 35mm film pushed two stops: deep blacks, bright highlights, hard "
            "contrast, heavy visible grain and slight corner vignetting; red filter lifting skin "
            "tones. 35mm lens at f/4."
        ),
    },
    {
        "title": "Soft Pastel Portraits",
        "camera_details": (
            "Medium format colour film overexposed by a stop: airy high-key pastel tones, low "
            "contrast, lifted shadows, soft diffusion glow on highlights, very fine grain. 85mm "
            "lens at f/2, shallow depth of field."
        ),
    },
    {
        "title": "Night Film with Red Halos",
        "camera_details": (
            "Tungsten-balanced cine film at night: red halation halos around highlights and light "
            "sources, deep shadows with a teal cast, warm highlights, visible grain and slight "
            "vignetting. 35mm lens wide open."
        ),
    },
    {
        "title": "Sharp & Vivid Color Film",
        "camera_details": (
            "Colour slide film: saturated, vivid colours, punchy contrast with rich blacks, crisp "
            "detail, neutral white balance and fine grain. 50mm lens at f/8, deep focus."
        ),
    },
    {
        "title": "Saturated Lo-Fi with Vignetting",
        "camera_details": (
            "Plastic-lens toy camera on expired colour film: oversaturated colours, heavy dark "
            "vignetting, cross-processed green-yellow shift, crushed blacks, coarse grain and soft "
            "corners."
        ),
    },
    {
        "title": "Clean & Natural Color Film",
        "camera_details": (
            "Portrait colour negative film at box speed: natural true-to-life skin tones, neutral "
            "white balance, gentle contrast, soft highlight roll-off, very fine grain and no "
            "vignetting. 50mm lens at f/4."
        ),
    },
]

# --- Editorial Product: the photography presets -----------------------------------------------

PHOTO_PRESETS: list[dict[str, str]] = [
    {
        "title": "Minimalist White",
        "sentence": (
            "Products on a seamless pure white sweep under soft, even overhead daylight, a faint "
            "contact shadow grounding each piece, crisp true-to-colour minimalist catalogue finish."
        ),
    },
    {
        "title": "Lifestyle Editorial",
        "sentence": (
            "Products styled on a warm natural linen surface against a softly lit plaster wall, "
            "late-morning window light from the left, gentle shadows and a relaxed, lived-in "
            "editorial mood."
        ),
    },
    {
        "title": "Luxury Fashion",
        "sentence": (
            "Products on a polished dark stone plinth with a subtle mirror reflection, a single "
            "warm spotlight falling off into deep charcoal, rich contrast and a refined high-end "
            "finish."
        ),
    },
    {
        "title": "Studio Catalog",
        "sentence": (
            "Products on a neutral light-grey studio sweep under balanced softbox lighting, a soft "
            "shadow beneath each item, accurate colour and clean edges for an e-commerce catalogue."
        ),
    },
    {
        "title": "Urban Street",
        "sentence": (
            "Products against a raw concrete wall on grey pavement, hard late-afternoon sun from "
            "the right casting defined shadows, cool tones and punchy, vivid street contrast."
        ),
    },
    {
        "title": "Vintage Editorial",
        "sentence": (
            "Products on a warm cream paper backdrop with a soft vignette, golden tungsten light, "
            "faded blacks and fine film grain for a 1970s magazine editorial feel."
        ),
    },
]

# --- Baghold --------------------------------------------------------------------------------

# Over a shoulder a handle or strap needs at least this drop (cm) to fit round the shoulder: the
# engine's carry rule, and the note the model library shows for a shoulder carry.
MIN_SHOULDER_DROP_CM = 18.0

# --- the model library ------------------------------------------------------------------------

# What each tool needs to see of its model. The engines decide the finer points themselves
# (Earfit a visible lobe, Baghold a hand or a shoulder carry that fits the frame, Flats where
# the shoes go): these are what no engine can do without.
TOOL_NEEDS: dict[str, tuple[str, ...]] = {
    "earfit": ("face", "ear"),
    "baghold": ("upper body",),
    "flats": ("upper body",),
    "remodel": ("face",),
    "rebody": ("torso",),
}
