"""Tech Pack Lab: a garment description (plus an optional photo) to a written tech pack, and a
tech pack (plus the photo) to a one-page 16:9 sheet.

- ``vocabulary``: the words and per-type tables (fabrics, care, points of measure, bill of
  materials, construction, named colours).
- ``describe``: step 1, ``describe_run``: the description to tech pack markdown.
- ``sheet``: step 2, ``process_run``: the markdown back to a 1920x1080 sheet; ``tech_pack_run``
  is the same under the tool spec's field name.

The names below are the ones other engines, the tests and the gallery read from
``workers.engines.techpack``; everything else is read from its module.
"""

from workers.engines.techpack.describe import (
    describe,
    describe_run,
    garment_mask_small,
    garment_type_from_text,
)
from workers.engines.techpack.sheet import parse_pack, process, process_run, tech_pack_run
from workers.engines.techpack.vocabulary import NAMED_COLOURS, SECTION_TITLES, TYPE_LABEL

__all__ = [
    "NAMED_COLOURS",
    "SECTION_TITLES",
    "TYPE_LABEL",
    "describe",
    "describe_run",
    "garment_mask_small",
    "garment_type_from_text",
    "parse_pack",
    "process",
    "process_run",
    "tech_pack_run",
]
