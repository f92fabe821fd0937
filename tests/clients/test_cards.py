"""The CLI's cards CSV and direct-tool flags, typed by the tools' fields as the stack's own
OpenAPI schema declares them (no server needed)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from atelier.cards import CardError, cards_from_csv, inputs_from_flags
from atelier.schema import tool_call
from drf_spectacular.generators import SchemaGenerator

from tools.apis import _choices
from tools.registry import TOOLS


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    generated = SchemaGenerator().get_schema(request=None, public=True)
    return dict(json.loads(json.dumps(generated, default=str)))


@pytest.fixture(scope="module")
def catalogue() -> list[dict[str, Any]]:
    return [{"slug": t.slug, "name": t.name, "choices": _choices(t)}
            for t in TOOLS.values() if not t.part_of]


def test_every_card_tool_is_found_with_its_fields(schema: Any, catalogue: Any) -> None:
    for tool in TOOLS.values():
        if tool.part_of or not tool.endpoint:
            continue
        call = tool_call(schema, catalogue, tool.slug)
        assert call.path == f"/api/{tool.endpoint}"
        assert call.cards == (tool.shape == "batch")
        example = tool.example[0] if isinstance(tool.example, list) else tool.example or {}
        assert set(example) <= {f.name for f in call.fields}, tool.slug
    assert tool_call(schema, catalogue, "try-on").slug == "virtual-try-on"
    assert tool_call(schema, catalogue, "recolor").urls_path == "/api/recoloring/urls"


def test_reshape_changes_as_dotted_columns_or_json(schema: Any, catalogue: Any) -> None:
    call = tool_call(schema, catalogue, "reshape")
    dotted = ("image_url,target_garment,changes.0.place,changes.0.instruction,"
              "changes.1.place,changes.1.instruction\n"
              "https://cdn.example.com/a.jpg,shirt,sleeves,short,,\n"
              ",,,,,\n"
              "https://cdn.example.com/b.jpg,dress,hem,longer,collar,wider\n")
    assert cards_from_csv(dotted, call) == [
        {"image_url": "https://cdn.example.com/a.jpg", "target_garment": "shirt",
         "changes": [{"place": "sleeves", "instruction": "short"}]},
        {"image_url": "https://cdn.example.com/b.jpg", "target_garment": "dress",
         "changes": [{"place": "hem", "instruction": "longer"},
                     {"place": "collar", "instruction": "wider"}]}]
    as_json = ('image_url,target_garment,changes\n'
               'https://cdn.example.com/a.jpg,shirt,"[{""place"": ""hem"", ""instruction"": ""x""}]"\n')
    assert cards_from_csv(as_json, call)[0]["changes"] == [{"place": "hem", "instruction": "x"}]


def test_numbers_are_converted_and_mistakes_named(schema: Any, catalogue: Any) -> None:
    earfit = tool_call(schema, catalogue, "earfit")
    cards = cards_from_csv("ring_image,ring_height_in\nhttps://cdn.example.com/r.jpg,0.8\n",
                           earfit)
    assert cards == [{"ring_image": "https://cdn.example.com/r.jpg", "ring_height_in": 0.8}]
    with pytest.raises(CardError, match="line 2, ring_height_in: 'tall' is not a valid number"):
        cards_from_csv("ring_image,ring_height_in\nhttps://cdn.example.com/r.jpg,tall\n", earfit)
    with pytest.raises(CardError, match="line 2: missing ring_height_in"):
        cards_from_csv("ring_image,ring_height_in\nhttps://cdn.example.com/r.jpg,\n", earfit)
    with pytest.raises(CardError, match="Unknown column 'colour'"):
        cards_from_csv("image_url,colour\nx,y\n", tool_call(schema, catalogue, "recolor"))


def test_direct_flags_by_any_spelling(schema: Any, catalogue: Any) -> None:
    call = tool_call(schema, catalogue, "try-on")
    expected = {"garmentUrl": "https://a.example/g.jpg", "modelUrl": "https://a.example/m.jpg"}
    for args in (["--garment", "https://a.example/g.jpg", "--model=https://a.example/m.jpg"],
                 ["--garment-url", "https://a.example/g.jpg", "--modelUrl",
                  "https://a.example/m.jpg"]):
        assert inputs_from_flags(args, call) == expected
    with pytest.raises(CardError, match="Missing --modelUrl"):
        inputs_from_flags(["--garment", "https://a.example/g.jpg"], call)
    with pytest.raises(CardError, match="no field 'colour'"):
        inputs_from_flags(["--colour", "red"], call)
