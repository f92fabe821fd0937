"""The Examples gallery of each tool page: fixed assets that `make examples` renders with our
own engines from images we may redistribute, listed in static/tools/examples/manifest.json."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from django.templatetags.static import static

MANIFEST = Path(__file__).resolve().parent / "static" / "tools" / "examples" / "manifest.json"


@cache
def _manifest() -> dict[str, list[dict[str, str]]]:
    try:
        return dict(json.loads(MANIFEST.read_text()))
    except FileNotFoundError:
        return {}


def tool_examples(slug: str) -> list[dict[str, str]]:
    """[{src, alt}] for the tool's gallery; empty when it has none."""
    return [{"src": static(f"tools/examples/{entry['file']}"), "alt": entry["alt"]}
            for entry in _manifest().get(slug, [])]
