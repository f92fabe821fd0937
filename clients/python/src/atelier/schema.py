"""How a tool is called, read from the stack's OpenAPI schema: the path of its call, whether it
takes an array of cards or one object, and its fields (types, choices, nested fields)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Field:
    name: str
    type: str  # string, integer, number, boolean, array, object
    required: bool = False
    choices: list[str] | None = None
    fields: list[Field] = field(default_factory=list)  # of an object, or of an array's items
    item_type: str | None = None  # of an array
    description: str = ""


@dataclass
class ToolCall:
    slug: str
    name: str
    path: str
    cards: bool  # an array of cards (one job per card, one batch) or one object
    fields: list[Field]
    urls_path: str | None = None  # the Get URLs call of a card tool

    def field(self, name: str) -> Field | None:
        return next((f for f in self.fields if f.name == name), None)


def _resolve(schema: dict[str, Any], node: Any) -> dict[str, Any]:
    seen = 0
    while isinstance(node, dict) and seen < 20:
        seen += 1
        if "$ref" in node:
            ref = node["$ref"]
            target: Any = schema
            for part in ref.lstrip("#/").split("/"):
                target = target.get(part, {}) if isinstance(target, dict) else {}
            node = target
            continue
        for key in ("allOf", "oneOf", "anyOf"):
            options = [o for o in node.get(key, [])
                       if not (isinstance(o, dict) and o.get("$ref", "").endswith("NullEnum"))
                       and o.get("type") != "null"]
            if options:
                merged = {k: v for k, v in node.items() if k != key}
                node = {**merged, **_resolve(schema, options[0])}
                break
        else:
            return node
    return node if isinstance(node, dict) else {}


def _fields(schema: dict[str, Any], obj: dict[str, Any],
            choices: dict[str, list[str]]) -> list[Field]:
    required = set(obj.get("required", []))
    found = []
    for name, raw in obj.get("properties", {}).items():
        prop = _resolve(schema, raw)
        if prop.get("readOnly"):
            continue
        kind = prop.get("type") or ("string" if "enum" in prop else "object")
        f = Field(name=name, type=kind, required=name in required,
                  description=str(prop.get("description", "")))
        enum = [str(v) for v in prop.get("enum", []) if v not in (None, "")]
        f.choices = enum or choices.get(name)
        if kind == "array":
            item = _resolve(schema, prop.get("items", {}))
            f.item_type = item.get("type") or ("object" if "properties" in item else "string")
            if "properties" in item:
                f.fields = _fields(schema, item, choices)
        elif kind == "object" and "properties" in prop:
            f.fields = _fields(schema, prop, choices)
        found.append(f)
    return found


def _norm(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalnum())


def tool_call(schema: dict[str, Any], catalogue: list[dict[str, Any]], name: str) -> ToolCall:
    """The call of the tool named ``name``: its slug (``recolor``), its name (``Recolor``) or
    its path (``try-on``, ``recoloring/recolor``)."""
    ops: list[tuple[str, dict[str, Any]]] = []
    for path, methods in schema.get("paths", {}).items():
        op = methods.get("post") if isinstance(methods, dict) else None
        if not op or not op.get("summary"):
            continue
        if "application/json" not in op.get("requestBody", {}).get("content", {}):
            continue
        ops.append((path, op))
    tool = next((t for t in catalogue if t["slug"] == name), None) or next(
        (t for t in catalogue if _norm(t["name"]) == _norm(name)), None)
    wanted = name.strip("/")
    if wanted.startswith("api/"):
        wanted = wanted[4:]
    matches = [(p, o) for p, o in ops if tool and o["summary"] == tool["name"]]
    if not matches:
        matches = [(p, o) for p, o in ops if p.strip("/") == f"api/{wanted}"]
    if not matches:
        matches = [(p, o) for p, o in ops
                   if wanted in p.strip("/").split("/")[1:] or _norm(o["summary"]) == _norm(name)]
    api = [(p, o) for p, o in matches if p.startswith("/api/")]
    matches = api or matches
    if not matches:
        slugs = sorted(t["slug"] for t in catalogue)
        raise ValueError(f"No tool {name!r}. Tools: {', '.join(slugs)}")
    if len(matches) > 1:
        raise ValueError(f"{name!r} names several calls: "
                         + ", ".join(p for p, _ in matches) + "; give the path instead.")
    path, op = matches[0]
    tool = tool or next((t for t in catalogue if t["name"] == op["summary"]), None)
    body = _resolve(schema, op["requestBody"]["content"]["application/json"]["schema"])
    cards = body.get("type") == "array"
    obj = _resolve(schema, body.get("items", {})) if cards else body
    choices = dict(tool.get("choices") or {}) if tool else {}
    urls = path.rstrip("/").rsplit("/", 1)[0] + "/urls"
    urls_path = urls if cards and "get" in schema.get("paths", {}).get(urls, {}) else None
    return ToolCall(slug=tool["slug"] if tool else wanted, name=str(op["summary"]), path=path,
                    cards=cards, fields=_fields(schema, obj, choices), urls_path=urls_path)
