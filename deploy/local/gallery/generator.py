"""The generator: every tool page's gallery written with its manifest entry and the NOTICE."""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable

import cv2

from .common import OUT, ROOT, Example
from .edits import ex_rebody, ex_recolor, ex_refabric, ex_reshape
from .layout import jpeg
from .people import (
    ex_baghold,
    ex_earfit,
    ex_ecommerce_asset,
    ex_garment_integration,
    ex_model_swap,
    ex_remodel,
    ex_restyle,
    ex_virtual_try_on,
)
from .studio import (
    ex_editorial,
    ex_editorial_product,
    ex_flats,
    ex_open_lab,
    ex_spinview,
    ex_tech_pack,
    ex_tonelab,
)

TOOLS: dict[str, Callable[[], list[Example]]] = {
    "recolor": ex_recolor,
    "refabric": ex_refabric,
    "reshape": ex_reshape,
    "rebody": ex_rebody,
    "restyle": ex_restyle,
    "virtual-try-on": ex_virtual_try_on,
    "ecommerce-asset": ex_ecommerce_asset,
    "garment-integration": ex_garment_integration,
    "model-swap": ex_model_swap,
    "earfit": ex_earfit,
    "baghold": ex_baghold,
    "spinview": ex_spinview,
    "flats": ex_flats,
    "remodel": ex_remodel,
    "editorial": ex_editorial,
    "tonelab": ex_tonelab,
    "editorial-product": ex_editorial_product,
    "open-lab": ex_open_lab,
    "tech-pack": ex_tech_pack,
}

EXPECTED = {slug: 4 if slug == "flats" else 3 for slug in TOOLS}

NOTICE = """\
# Examples gallery assets

The images and videos in this folder are the fixed Examples galleries of the tool pages
(`manifest.json` lists them per tool page with their alt texts). Each one is a render of
Atelier's own engines (`workers/engines/`), made by `deploy/local/examples.py`:

- edit tools show the input (left) and the engine's result (right) on one canvas; where a tool
  takes a second input (the garment, accessory, earring, bag, reference image or library
  model) it is inset in a corner of the input;
- generation tools (Editorial, Flats Ecommerce, Tech Pack Lab) show the result itself;
- Spinview's examples are the engine's own MP4 turntables (H.264, yuv420p, 480x480, 3 s).

## Sources

Only material we may redistribute goes in:

1. **Our own drawings**, made in `deploy/local/examples.py`: garments rendered as flat-lay
   product shots from the parametric flat templates of `workers/engines/flatdraw.py` (T-shirt,
   polo, shirt, dress, skirt, trousers, jacket); earrings, bags, hats, a scarf, necklaces and
   sneakers drawn with OpenCV; turntable views of a tote, a fedora and a dress on a form
   rendered by the script's small mesh renderer.
2. **Two public-domain photographs** that ship inside packages of our requirements and are
   read through those packages:
   - *Astronaut Eileen Collins*, NASA portrait (a work of the US government, public domain),
     distributed with scikit-image as `skimage/data/astronaut.png`
     (`skimage.data.astronaut()`);
   - *Rear Admiral Grace Hopper*, US Navy portrait (a work of the US government, public
     domain), distributed with matplotlib as `mpl-data/sample_data/grace_hopper.jpg`
     (`matplotlib.cbook.get_sample_data("grace_hopper.jpg")`).

The licensed fashion photographs under `tests/fixtures/` are never used, not even as an input;
`tests/tools/test_examples.py` checks that no example matches any of them.

Both portraits are half-length, so the tools that work on a full figure (Rebody's hips and
thighs, Baghold's hand-held bags, Flats' shoes and bottoms on the model) can only show the
upper body here.

## Rebuilding

    make examples

(or `.venv/bin/python deploy/local/examples.py [slug ...]` for some tool pages only). The
output is deterministic for a given set of installed packages; rebuild after changing an
engine and look at the results before committing them.
"""


def write_tool(slug: str) -> list[dict[str, str]]:
    examples = TOOLS[slug]()
    if len(examples) != EXPECTED[slug]:
        raise SystemExit(f"{slug}: {len(examples)} examples, expected {EXPECTED[slug]}")
    folder = OUT / slug
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    entries = []
    for n, (media, alt) in enumerate(examples, start=1):
        if isinstance(media, bytes):
            name, data = f"{n}.mp4", media
        else:
            name, data = f"{n}.jpg", jpeg(media)
        (folder / name).write_bytes(data)
        entries.append({"file": f"{slug}/{name}", "alt": alt})
    return entries


def main(argv: list[str]) -> None:
    # One OpenCV thread: GrabCut and k-means draw from per-thread random states, so with a
    # thread pool the cut-outs (and the try-on renders built on them) vary from run to run.
    cv2.setNumThreads(1)
    unknown = [a for a in argv if a not in TOOLS]
    if unknown:
        raise SystemExit(f"Unknown tool page(s): {', '.join(unknown)}. Known: {', '.join(TOOLS)}")
    manifest_path = OUT / "manifest.json"
    manifest: dict[str, list[dict[str, str]]] = {}
    if argv and manifest_path.exists():
        manifest = json.loads(manifest_path.read_text())
    OUT.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    for slug in argv or list(TOOLS):
        t0 = time.monotonic()
        manifest[slug] = write_tool(slug)
        size = sum((OUT / e["file"]).stat().st_size for e in manifest[slug])
        print(f"{slug:20s} {len(manifest[slug])} examples  {size / 1024:6.0f} KB  "
              f"{time.monotonic() - t0:5.1f} s", flush=True)
    ordered = {slug: manifest[slug] for slug in TOOLS if slug in manifest}
    manifest_path.write_text(json.dumps(ordered, indent=2, ensure_ascii=False) + "\n")
    (OUT / "NOTICE.md").write_text(NOTICE)
    total = sum(p.stat().st_size for p in OUT.rglob("*") if p.is_file())
    print(f"{len(ordered)} tool pages, {total / 1e6:.1f} MB in {OUT.relative_to(ROOT)}, "
          f"{time.monotonic() - started:.0f} s")
