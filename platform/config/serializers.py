from __future__ import annotations

from typing import Any

from rest_framework import serializers


class StrictSerializer(serializers.Serializer):
    """A serializer that refuses fields it does not know, so typos are not silently dropped."""

    default_error_messages = {"unknown": "Unknown field."}

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, dict):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError({name: ["Unknown field."] for name in unknown})
        return super().to_internal_value(data)

    @classmethod
    def validated(cls, data: Any, **kwargs: Any) -> Any:
        serializer = cls(data=data, **kwargs)
        serializer.is_valid(raise_exception=True)
        return serializer.validated_data
