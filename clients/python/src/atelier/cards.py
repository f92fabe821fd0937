"""Cards from a CSV file and a direct tool's inputs from command-line flags, both typed by the
tool's fields.

A CSV has one column per card field, named as the field (``image_url``, ``target_color``...).
Nested fields, such as Reshape's ``changes`` (a list of ``{place, instruction}``), are either
dotted columns (``changes.0.place``, ``changes.0.instruction``, ``changes.1.place``...) or
one column holding JSON (``changes`` = ``[{"place": "sleeves", "instruction": "short"}]``).
Empty cells are left out of the card; numbers and booleans are converted."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from atelier.schema import Field, ToolCall

TRUE = ("true", "yes", "1", "on")
FALSE = ("false", "no", "0", "off")


class CardError(ValueError):
    pass


def convert(f: Field | None, cell: str, where: str) -> Any:
    kind = f.type if f else "string"
    try:
        if kind == "integer":
            return int(cell)
        if kind == "number":
            return float(cell)
        if kind == "boolean":
            if cell.lower() in TRUE:
                return True
            if cell.lower() in FALSE:
                return False
            raise ValueError(cell)
        if kind in ("array", "object"):
            if cell[:1] in "[{":
                return json.loads(cell)
            if kind == "array" and f and f.item_type not in ("object", None):
                return [convert(Field(f.name, f.item_type or "string"), c.strip(), where)
                        for c in cell.split("|") if c.strip()]
            raise ValueError(cell)
    except ValueError as exc:
        raise CardError(f"{where}: {cell!r} is not a valid {kind}"
                        + (" (write it as JSON)" if kind in ("array", "object") else "")
                        ) from exc
    return cell


def _fields_help(fields: list[Field]) -> str:
    return ", ".join(f.name + ("*" if f.required else "") for f in fields)


def _listify(value: Any, f: Field | None) -> Any:
    """Dotted columns collect into dicts keyed by index; an array field's becomes a list."""
    if not isinstance(value, dict):
        return value
    if f is not None and f.type == "array":
        items = []
        for key in sorted(value, key=lambda k: int(k) if k.isdigit() else 10**9):
            items.append(_listify(value[key], Field(f.name, f.item_type or "object",
                                                    fields=f.fields)))
        return items
    sub = {s.name: s for s in (f.fields if f else [])}
    return {k: _listify(v, sub.get(k)) for k, v in value.items()}


def _nested_field(f: Field, parts: list[str]) -> Field | None:
    current: Field | None = f
    for part in parts:
        if current is None:
            return None
        if part.isdigit() and current.type == "array":
            continue
        current = next((s for s in current.fields if s.name == part), None)
    return current


def cards_from_csv(source: str | Path, call: ToolCall) -> list[dict[str, Any]]:
    """The cards of a CSV file (or its text), one per non-empty row."""
    text = Path(source).read_text(encoding="utf-8-sig") if isinstance(source, Path) or (
        "\n" not in str(source) and Path(str(source)).exists()) else str(source)
    reader = csv.DictReader(io.StringIO(text))
    headers = [h.strip() for h in (reader.fieldnames or [])]
    if not headers:
        raise CardError("The CSV has no header row; its columns are the card fields: "
                        + _fields_help(call.fields))
    for header in headers:
        top = header.split(".")[0]
        f = call.field(top)
        if f is None or (header != top and _nested_field(f, header.split(".")[1:]) is None):
            raise CardError(f"Unknown column {header!r} for {call.name}; its card fields are "
                            + _fields_help(call.fields)
                            + " (* required; nested fields as name.0.field or JSON)")
    cards: list[dict[str, Any]] = []
    for line, row in enumerate(reader, start=2):
        cells = {(k or "").strip(): (v or "").strip() for k, v in row.items()
                 if isinstance(v, str)}
        if not any(cells.values()):
            continue
        card: dict[str, Any] = {}
        for header, cell in cells.items():
            if not cell or not header:
                continue
            parts = header.split(".")
            f = call.field(parts[0])
            assert f is not None
            where = f"line {line}, {header}"
            if len(parts) == 1:
                card[header] = convert(f, cell, where)
                continue
            target = card.setdefault(parts[0], {})
            if not isinstance(target, dict):
                raise CardError(f"{where}: {parts[0]} is given both as JSON and as columns")
            for part in parts[1:-1]:
                target = target.setdefault(part, {})
            target[parts[-1]] = convert(_nested_field(f, parts[1:]), cell, where)
        card = {k: _listify(v, call.field(k)) for k, v in card.items()}
        missing = [f.name for f in call.fields if f.required and f.name not in card]
        if missing:
            raise CardError(f"line {line}: missing {', '.join(missing)}")
        cards.append(card)
    if not cards:
        raise CardError("The CSV has no cards (no non-empty rows under its header).")
    return cards


def _norm(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalnum())


def match_flag(flag: str, call: ToolCall) -> Field:
    """A flag's field: its name in any case or spelling (``--garment-url``, ``--garmentUrl``),
    or without a trailing ``Url`` (``--garment``)."""
    wanted = _norm(flag)
    for f in call.fields:
        if _norm(f.name) == wanted:
            return f
    for f in call.fields:
        if _norm(f.name) in (wanted + "url", wanted + "urls", wanted + "id"):
            return f
    raise CardError(f"{call.name} has no field {flag!r}; its fields: "
                    + ", ".join("--" + f.name for f in call.fields))


def inputs_from_flags(args: list[str], call: ToolCall) -> dict[str, Any]:
    """``--name value`` / ``--name=value`` pairs as the tool's input object."""
    inputs: dict[str, Any] = {}
    i = 0
    while i < len(args):
        arg = args[i]
        if not arg.startswith("--"):
            raise CardError(f"Unexpected {arg!r}: give fields as --name value")
        name, eq, value = arg[2:].partition("=")
        if not eq:
            if i + 1 < len(args) and not args[i + 1].startswith("--"):
                value = args[i + 1]
                i += 1
            else:
                value = "true"
        i += 1
        f = match_flag(name, call)
        inputs[f.name] = convert(f, value, f"--{name}")
    missing = [f.name for f in call.fields if f.required and f.name not in inputs]
    if missing:
        raise CardError("Missing " + ", ".join("--" + m for m in missing))
    return inputs
