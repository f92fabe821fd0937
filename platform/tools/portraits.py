"""The two public-domain portraits that ship inside packages of our requirements: the library's
sample models and the Examples galleries' people. Pure (no Django), so the examples script can
read them too."""

from __future__ import annotations

import numpy as np
from PIL import Image


def astronaut() -> np.ndarray:
    """NASA portrait of astronaut Eileen Collins (public domain), from scikit-image (RGB)."""
    import skimage.data

    return np.ascontiguousarray(skimage.data.astronaut()[..., :3])


def grace_hopper() -> np.ndarray:
    """US Navy portrait of Rear Admiral Grace Hopper (public domain), from matplotlib (RGB)."""
    from matplotlib import cbook

    path = cbook.get_sample_data("grace_hopper.jpg", asfileobj=False)
    with Image.open(str(path)) as image:
        return np.asarray(image.convert("RGB"))
