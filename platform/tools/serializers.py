"""Input serializers of the tools: the spec's fields, limits and messages."""

from __future__ import annotations

from rest_framework import serializers

from config.serializers import StrictSerializer


class DiagnosticsSleepInput(StrictSerializer):
    seconds = serializers.FloatField(min_value=0, max_value=600, default=1.0)
    fail = serializers.BooleanField(default=False)  # type: ignore[assignment]
    # Ignore the soft time limit (the engine keeps sleeping through it), so that ops can
    # check what happens at the hard limit.
    ignore_soft_limit = serializers.BooleanField(default=False)
    outputs = serializers.IntegerField(min_value=0, max_value=5, default=1)
