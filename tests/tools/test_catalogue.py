"""The catalogue holds together: every tool's spec names an engine that exists, accepts its
own example, has the drive folders its shape needs, and answers in its shape."""

from __future__ import annotations

import importlib

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from tools.registry import TOOLS, engine_paths
from tools.spec import Shape

RUNNABLE = [t for t in TOOLS.values() if t.engine]


@pytest.mark.parametrize("tool", RUNNABLE, ids=lambda t: t.slug)
def test_every_engine_exists(tool):
    module, _, function = (tool.engine_path or "").partition(":")
    assert callable(getattr(importlib.import_module(module), function))


def test_one_engine_name_one_engine():
    """Tools sharing an engine (Remodel and Model Swap) name the same function."""
    for tool in RUNNABLE:
        assert engine_paths()[tool.engine] == tool.engine_path, tool.slug


@pytest.mark.parametrize("tool", RUNNABLE, ids=lambda t: t.slug)
def test_every_serializer_accepts_its_example(tool):
    assert tool.example is not None, f"{tool.slug} has no example request"
    assert tool.input_serializer is not None
    many = tool.shape == Shape.BATCH
    serializer = tool.input_serializer(data=tool.example, many=many)
    assert serializer.is_valid(), serializer.errors


@pytest.mark.parametrize("tool", list(TOOLS.values()), ids=lambda t: t.slug)
def test_every_shape_has_what_it_needs(tool):
    if tool.shape == Shape.SYNC and tool.engine:
        assert tool.grouper is not None and tool.drive_categories, tool.slug
    if tool.urls_path or tool.grouper:
        assert tool.drive_categories, f"{tool.slug} reads a drive folder it does not declare"
    if tool.shape == Shape.DIRECT and tool.engine:
        assert tool.respond is not None
    if tool.part_of:
        assert tool.part_of in TOOLS and not TOOLS[tool.part_of].engine
    if tool.nav_group is not None:
        assert not tool.part_of and tool.category != "operations"


def test_routes_and_calls_are_unique():
    routes = [t.route for t in TOOLS.values() if t.route]
    calls = [t.endpoint for t in TOOLS.values() if t.endpoint]
    assert len(routes) == len(set(routes)) and len(calls) == len(set(calls))


@pytest.mark.django_db
def test_the_catalogue_serves_nav_and_choices(partner):
    api = APIClient()
    api.force_authenticate(partner)
    rows = {r["slug"]: r for r in api.get(reverse("tool-list")).json()}
    assert rows["recolor"]["nav_group"] == "DESIGN"
    assert rows["ai-agent"]["nav_group"] == ""
    assert rows["virtual-try-on"]["nav_group"] is None
    assert rows["reshape"]["choices"]["place"][:2] == ["back", "collar"]
    assert rows["baghold"]["choices"]["Gender"] == ["Male", "Female"]
    assert rows["flats"]["choices"]["categories"] == ["shoes", "bottom", "top", "overlayer"]
    assert "editorial.analyze" not in rows  # a part is not listed on its own
