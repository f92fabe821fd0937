"""GET /api/tools/ hands each tool page its Examples gallery from the shipped manifest."""

from __future__ import annotations

from pathlib import Path

from django.contrib.staticfiles import finders
from rest_framework.test import APIClient


def test_every_tool_page_lists_its_examples_with_served_files(api: APIClient) -> None:
    tools = {t["slug"]: t for t in api.get("/api/tools/").json()}

    assert len(tools["recolor"]["examples"]) == 3
    assert len(tools["flats"]["examples"]) == 4
    spin = tools["spinview"]["examples"]
    assert all(e["src"].endswith(".mp4") for e in spin)
    for slug in ("recolor", "flats", "spinview", "tech-pack"):
        for example in tools[slug]["examples"]:
            assert example["src"].startswith(f"/static/tools/examples/{slug}/")
            assert example["alt"]
            # the URL names a file the static files finders (and so collectstatic) serve
            found = finders.find(example["src"].removeprefix("/static/"))
            assert found and Path(str(found)).stat().st_size > 1000


def test_a_tool_without_a_gallery_lists_none(api: APIClient) -> None:
    tools = {t["slug"]: t for t in api.get("/api/tools/").json()}
    # the locked catalogue entries have no page to show examples on
    assert tools["ai-agent"]["examples"] == []
