"""Diagnostics (ops only): a job that sleeps, fails or outlives its limits on request, so ops
and the fault suites can check the job core end to end."""

from __future__ import annotations

from django.conf import settings
from rest_framework import serializers

from config.serializers import StrictSerializer
from tools.spec import Access, Shape, ToolSpec


class DiagnosticsSleepInput(StrictSerializer):
    seconds = serializers.FloatField(min_value=0, max_value=600, default=1.0)
    fail = serializers.BooleanField(default=False)  # type: ignore[assignment]
    # Ignore the soft time limit (the engine keeps sleeping through it), so that ops can
    # check what happens at the hard limit.
    ignore_soft_limit = serializers.BooleanField(default=False)
    outputs = serializers.IntegerField(min_value=0, max_value=5, default=1)
    # Seconds each output takes to produce once the sleep is over, as a slow store would: lets
    # ops check what happens when a time limit fires while results are being saved.
    save_seconds = serializers.FloatField(min_value=0, max_value=60, default=0.0)
    # A label of the caller's: each run of the job counts once under it in the worker's runs
    # file (workers/engines/diagnostics.py), so the fault suite sees a job that ran twice.
    mark = serializers.RegexField(r"^[A-Za-z0-9_-]{1,64}$", required=False)


SPECS = [
    ToolSpec(
        slug="diagnostics.sleep", name="Diagnostics: sleep", category="operations", route=None,
        badge="Staff", order=900, queue="interactive", engine="diagnostics.sleep",
        engine_path="workers.engines.diagnostics:sleep", input_serializer=DiagnosticsSleepInput,
             example={"seconds": 2, "outputs": 1},
        shape=Shape.JOB, eta_text="as long as asked", expected_seconds=1.0, access=Access.STAFF,
        # Short limits so ops and the fault tests can reach them quickly.
        soft_limit=settings.DIAGNOSTICS_SOFT_LIMIT, hard_limit=settings.DIAGNOSTICS_HARD_LIMIT,
    ),
]
