"""Render the Examples galleries of the tool pages with our own engines.

    .venv/bin/python deploy/local/examples.py            (or: make examples)
    .venv/bin/python deploy/local/examples.py recolor    (only the named tool pages)

Writes platform/tools/static/tools/examples/<slug>/<n>.jpg (Spinview: .mp4), manifest.json and
NOTICE.md. Every input is one we may redistribute:

* our own drawings: garments from the parametric flat templates (workers/engines/flatdraw.py)
  rendered as flat-lay product shots; earrings, bags, hats, a scarf, a necklace and shoes drawn
  with OpenCV; turntable views of a bag, a hat and a dress on a form rendered by a small mesh
  renderer below;
* two public-domain photographs that ship inside packages of our requirements, found through
  those packages: scikit-image's astronaut (NASA portrait of Eileen Collins) and matplotlib's
  grace_hopper.jpg (US Navy portrait of Grace Hopper).

The licensed fashion fixtures under tests/fixtures are never read here (tests/tools/
test_examples.py checks that no example is one of them). Output is deterministic: the same
packages give the same bytes.

The drawings, layouts and per-tool galleries are the package deploy/local/gallery/; this script
prepares the process (import paths, native logging) and runs its generator.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

# mediapipe's native logging: warnings only, not the per-graph chatter.
os.environ.setdefault("GLOG_minloglevel", "2")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

ROOT = Path(__file__).resolve().parents[2]
for path in (ROOT, ROOT / "platform"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from gallery.generator import main  # noqa: E402

if __name__ == "__main__":
    main(sys.argv[1:])
