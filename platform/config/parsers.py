"""The API's JSON parser: plain JSON, refused with a 400 before it can hurt the server.

Python's decoder recurses once per level of nesting, so a body ~1,000 levels deep escapes as
`RecursionError` (a 500); a lone UTF-16 surrogate (`"\\ud800"`) decodes into a string that can
never be encoded again (UTF-8, the database, the error message echoing it). Both are refused
here, once, for every endpoint, instead of in each serializer.
"""

from __future__ import annotations

import codecs
import json
import math
import re
from collections.abc import Mapping
from typing import Any

from rest_framework import exceptions, parsers
from rest_framework.utils.json import strict_constant

# No payload of ours nests deeper than ~5 levels (cards → changes → change; the webhook
# wrapper adds two); 64 leaves room for any honest client and stays far from the recursion limit.
MAX_DEPTH = 64

_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKETS = re.compile(r"[\[\]{}]")
_SURROGATE = re.compile("[\ud800-\udfff]")


class InvalidText(exceptions.ValidationError):
    """Text that holds a lone surrogate: named by its path in the body, never echoed."""


def nesting_depth(text: str) -> int:
    """The deepest nesting of arrays and objects in JSON text (brackets inside strings skipped),
    counted without recursion."""
    depth = deepest = 0
    for bracket in _BRACKETS.findall(_STRINGS.sub("", text)):
        if bracket in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def escaped(text: str) -> str:
    """Text made safe to encode: a lone surrogate becomes its \\udXXX escape."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def surrogate_path(data: Any, path: str = "") -> str | None:
    """The path ("0.Width", "headers.k\\ud800") of the first string or key holding a lone
    surrogate, or None. Depth is bounded by MAX_DEPTH, so the recursion is too."""
    if isinstance(data, str):
        return path or "body" if _SURROGATE.search(data) else None
    if isinstance(data, dict):
        for key, value in data.items():
            here = f"{path}.{escaped(key)}" if path else escaped(key)
            if _SURROGATE.search(key):
                return here
            found = surrogate_path(value, here)
            if found:
                return found
    elif isinstance(data, list):
        for i, value in enumerate(data):
            found = surrogate_path(value, f"{path}.{i}" if path else str(i))
            if found:
                return found
    return None


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise exceptions.ParseError(f"JSON parse error - the number {text[:40]} is too large.")
    return value


class JSONParser(parsers.JSONParser):
    def parse(self, stream: Any, media_type: str | None = None,
              parser_context: Mapping[str, Any] | None = None) -> Any:
        encoding = parsers.get_encoding(parser_context or {})  # type: ignore[attr-defined]
        try:
            text = codecs.getreader(encoding)(stream).read()
        except ValueError as exc:
            raise exceptions.ParseError(f"JSON parse error - {exc}") from exc
        if nesting_depth(text) > MAX_DEPTH:
            raise exceptions.ParseError(
                f"JSON parse error - the body nests deeper than {MAX_DEPTH} levels.")
        try:
            data = json.loads(text, parse_float=_finite_float,
                              parse_constant=strict_constant if self.strict else None)
        except RecursionError as exc:  # the depth check above should make this unreachable
            raise exceptions.ParseError("JSON parse error - the body nests too deep.") from exc
        except ValueError as exc:
            raise exceptions.ParseError(f"JSON parse error - {escaped(str(exc))}") from exc
        path = surrogate_path(data)
        if path:
            raise InvalidText({path: ["Invalid text: holds a lone UTF-16 surrogate "
                                      "(not valid Unicode)."]})
        return data
