from __future__ import annotations

import copy
from decimal import Decimal
from typing import Any, ClassVar

from django.http import QueryDict
from rest_framework import serializers


def json_kind(value: Any) -> str:
    """What a JSON value is, in the words of an error message."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float | Decimal):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return "an unknown type"


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float | Decimal) and not isinstance(value, bool)


def type_error(field: serializers.Field, value: Any, *, numeric_text: bool = False) -> str | None:
    """Why a JSON value is the wrong type for a field, or None when it is the right one.

    DRF coerces on its own (42 → "42" for a CharField, true → 1 for an IntegerField, "3" → 3);
    an API that takes a prompt of 42 or `seconds: true` hides a client's bug until it costs a
    job, so a JSON body's types must be the field's own. `numeric_text` also takes a number
    written as text, for the fields a page sends that way."""
    if value is None:
        return None  # allow_null / required decide
    expected: str | None = None
    ok = True
    if isinstance(field, serializers.BooleanField):
        expected, ok = "a boolean", isinstance(value, bool)
    elif isinstance(field, serializers.IntegerField | serializers.FloatField
                    | serializers.DecimalField):
        ok = _is_number(value) or (numeric_text and isinstance(value, str))
        expected = "a number"
    elif isinstance(field, serializers.MultipleChoiceField | serializers.ListField):
        expected, ok = "a list", isinstance(value, list)
        if ok and isinstance(field, serializers.ListField):
            for item in value:
                problem = type_error(field.child, item)
                if problem:
                    return f"Every item {problem[0].lower()}{problem[1:]}"
    elif isinstance(field, serializers.ChoiceField):
        if all(isinstance(choice, str) for choice in field.choices):
            expected, ok = "text", isinstance(value, str)
    elif isinstance(field, serializers.CharField | serializers.UUIDField
                    | serializers.DateTimeField | serializers.DateField
                    | serializers.TimeField | serializers.EmailField):
        expected, ok = "text", isinstance(value, str)
    elif isinstance(field, serializers.DictField | serializers.Serializer):
        expected, ok = "an object", isinstance(value, dict)
    elif isinstance(field, serializers.ListSerializer):
        expected, ok = "a list", isinstance(value, list)
    if ok or expected is None:
        return None
    return f"Must be {expected}, not {json_kind(value)}."


class StrictSerializer(serializers.Serializer):
    """A serializer that refuses fields it does not know, so typos are not silently dropped,
    and values of the wrong JSON type (see `type_error`), so nothing is coerced.

    Types are checked on JSON bodies only: form and multipart posts (a QueryDict) are text by
    nature, and so are query strings (`QueryParamsSerializer`)."""

    default_error_messages = {"unknown": "Unknown field."}
    strict_types: ClassVar[bool] = True
    # Number fields that also take a number written as text ("38"): only those the spec's own
    # pages send that way. Name them here, in the serializer, with the reason.
    numeric_text: ClassVar[tuple[str, ...]] = ()

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, dict):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError({name: ["Unknown field."] for name in unknown})
            if self.strict_types and not isinstance(data, QueryDict):
                wrong = {name: [problem] for name, field in self.fields.items()
                         if name in data and not field.read_only
                         and (problem := type_error(field, data[name],
                                                    numeric_text=name in self.numeric_text))}
                if wrong:
                    raise serializers.ValidationError(wrong)
        return super().to_internal_value(data)

    @classmethod
    def validated(cls, data: Any, **kwargs: Any) -> Any:
        serializer = cls(data=data, **kwargs)
        serializer.is_valid(raise_exception=True)
        return serializer.validated_data


class QueryParamsSerializer(StrictSerializer):
    """Filters read from a query string, where every value is text ("?limit=5"): the fields'
    own parsing is the check, so the JSON type check is off."""

    strict_types = False


# A ModelSerializer whose fields are derived from its model once per class, then copied for
# each instance, as DRF copies declared fields. DRF derives them again for every instance (the
# model's fields, their kwargs, their validators): on a job poll that was a quarter of the
# request. The fields depend on the class's Meta only, never on the instance or the context.
# (A comment, not a docstring: the API schema would show a docstring as every subclass's
# description.)
class FieldsBuiltOnce(serializers.ModelSerializer):  # type: ignore[type-arg]

    _built: ClassVar[dict[type, dict[str, serializers.Field]]] = {}

    def get_fields(self) -> dict[str, serializers.Field]:
        cls = type(self)
        built = FieldsBuiltOnce._built.get(cls)
        if built is None:
            built = FieldsBuiltOnce._built[cls] = super().get_fields()
        return copy.deepcopy(built)
