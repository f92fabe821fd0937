"""Virtual Try-On, Restyle, Garment Integration and Ecommerce Asset: one try-on core.

The core cuts the garment out of its product shot, reads its keypoints from the silhouette,
warps it onto the person's pose landmarks with a thin-plate spline and composites it keeping
the person's shading, with face, hair and bare arms left in front and the parts of the old
garment the new one does not cover painted over (skin on arms and midriff, the surroundings
elsewhere). The four entry points differ only in what they do around that:

- ``virtual_try_on``: the core, PNG.
- ``restyle``: the core on a full-body outfit photo, PNG named restyle-<n>.png.
- ``garment_integration``: the core on an editorial image, then the garment lit like the scene
  (a soft ramp along its light direction, a small gain toward its key) without its own colour
  or levels moving, PNG.
- ``ecommerce_asset``: an accessory (bag, hat, scarf, jewellery) placed on the model at the
  body part it belongs to, at a scale taken from the pose, JPEG.

The parts, by concern: ``images`` (decode and size), ``body`` (the person and the masks read
from it), ``garment`` (the product shot's cut-out), ``placement`` (fit and warp), ``shading``
(light, fills and shadows), ``core`` (``dress`` and the pipeline the first three tools share),
``accessories``; each tool's entry point is ``run`` in its own module.

This module keeps the names the engine registry, Flats and the tests import from
``workers.engines.tryon``.
"""

from __future__ import annotations

from workers.engines.imaging.cutout import composite as _paste
from workers.engines.tryon.accessories import ACCESSORY_KINDS, classify_accessory, place_accessory
from workers.engines.tryon.body import ARM_RADII, LEG_RADII, Body, Limb, analyse_body
from workers.engines.tryon.core import dress
from workers.engines.tryon.ecommerce_asset import run as ecommerce_asset
from workers.engines.tryon.garment import CATEGORY_ALIASES, Garment, prepare_garment
from workers.engines.tryon.garment_integration import light_direction, match_to_scene
from workers.engines.tryon.garment_integration import run as garment_integration
from workers.engines.tryon.images import MAX_PIXELS, MAX_SIDE
from workers.engines.tryon.images import load_image as _load
from workers.engines.tryon.placement import place_garment, sleeve_masks, warp_garment
from workers.engines.tryon.restyle import run as restyle
from workers.engines.tryon.shading import drop_shadow as _shadow
from workers.engines.tryon.virtual_try_on import run as virtual_try_on

__all__ = [
    "ACCESSORY_KINDS",
    "ARM_RADII",
    "CATEGORY_ALIASES",
    "LEG_RADII",
    "MAX_PIXELS",
    "MAX_SIDE",
    "Body",
    "Garment",
    "Limb",
    "_load",
    "_paste",
    "_shadow",
    "analyse_body",
    "classify_accessory",
    "dress",
    "ecommerce_asset",
    "garment_integration",
    "light_direction",
    "match_to_scene",
    "place_accessory",
    "place_garment",
    "prepare_garment",
    "restyle",
    "sleeve_masks",
    "virtual_try_on",
    "warp_garment",
]
