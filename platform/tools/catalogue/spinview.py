"""Spinview (spec part 1 §6): a turntable video from a product's views in the drive."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from accounts.models import Organization
from drives.grouping import Found, Group, product_code
from tools.serializers import SyncInput
from tools.spec import drive_tool


def by_product(new: list[Found], everything: list[Found], options: dict[str, Any],
               org: Organization, skipped: list[dict[str, str]]) -> list[Group]:
    """One video per product with a new view, made of all its views (two at least)."""
    by_code: dict[str, list[Found]] = defaultdict(list)
    for found in everything:
        by_code[product_code(found.stem)].append(found)
    groups = []
    for code in sorted({product_code(f.stem) for f in new}):
        views = sorted(by_code[code], key=lambda f: f.file.name)
        if len(views) < 2:
            skipped.append({"name": views[0].file.name,
                            "reason": "A turntable needs at least two views of the product."})
            continue
        groups.append(Group(payload={"code": code, "seconds": 6, "fps": 24, "size": 1080},
                            sources={"views": [v.ref() for v in views]}, files=views))
    return groups


SPECS = [
    drive_tool("spinview", "Spinview", "/catalog-video", order=100,
               endpoint="catalog-video/sync", grouper=by_product, input_serializer=SyncInput,
               eta_text="about 110 seconds per video", expected_seconds=110, queue="video",
               group_key="code", inputs_path="catalog-video/inputs",
               sync_done="Your video queue is been processed. Average completion time: 110s "
                         "per video.",
               example={"action": "sync"}),
]
