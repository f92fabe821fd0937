"""The job's representation, shared by the job API and the webhook payloads (which must not
import the API module)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.conf import settings
from django.core import signing
from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from config.serializers import FieldsBuiltOnce
from jobs.models import Job, JobOutput, JobStatus
from jobs.selectors import QueueFigures

OUTPUT_LINK_SALT = "atelier.job-output"


class JobOutputSerializer(FieldsBuiltOnce):
    url = serializers.SerializerMethodField()

    class Meta:
        model = JobOutput
        fields = ["index", "filename", "content_type", "size", "sha256", "url"]

    def get_url(self, obj: JobOutput) -> str:
        if self.context.get("signed_links"):  # webhooks: opens without a session, expires
            return settings.PUBLIC_BASE_URL.rstrip("/") + output_signed_path(output=obj)
        path = reverse("job-output", kwargs={"job_id": obj.job_id, "index": obj.index})
        request = self.context.get("request")
        return request.build_absolute_uri(path) if request else path


class JobSerializer(FieldsBuiltOnce):
    error = serializers.SerializerMethodField()
    queue_position = serializers.SerializerMethodField()
    eta_seconds = serializers.SerializerMethodField()
    outputs = JobOutputSerializer(many=True, read_only=True)
    # Which engine made the result (`local`, `fashn:tryon-v1.6`, ...) and its tier (`preview`,
    # `studio`); empty until the job has run.
    engine = serializers.CharField(source="made_by", read_only=True)
    tier = serializers.CharField(read_only=True)

    class Meta:
        model = Job
        fields = [
            "id", "tool", "status", "progress", "queue_position", "eta_seconds", "input",
            "error", "attempts", "batch_id", "created_at", "started_at", "finished_at",
            "engine", "tier", "outputs",
        ]

    def to_representation(self, instance: Job) -> dict[str, Any]:
        """What DRF's field by field representation answers (tests/test_prepared_reads.py
        compares the two), written out: on a job poll, copying the declared fields for each
        serializer and walking them was a fifth of the web process's CPU. The fields stay
        declared for the API schema; the values are formatted by DRF's own fields."""
        # One QueueFigures per response, so a page of jobs shares the per-tool averages.
        figures = self.context.setdefault("queue_figures", QueueFigures())
        position, eta = figures.position_and_eta(instance)
        outputs = list(instance.outputs.all())
        return {
            "id": _UUID.to_representation(instance.id),
            "tool": str(instance.tool),
            "status": _STATUS.to_representation(instance.status),
            "progress": int(instance.progress),
            "queue_position": position,
            "eta_seconds": eta,
            "input": instance.input,
            "error": self.get_error(instance),
            "attempts": int(instance.attempts),
            "batch_id": None if instance.batch_id is None
            else _UUID.to_representation(instance.batch_id),
            "created_at": _moment(instance.created_at),
            "started_at": _moment(instance.started_at),
            "finished_at": _moment(instance.finished_at),
            "engine": str(instance.made_by),
            "tier": str(instance.tier),
            "outputs": JobOutputSerializer(outputs, many=True, context=self.context).data
            if outputs else [],
        }

    @extend_schema_field({"type": "object", "nullable": True,
                          "properties": {"code": {"type": "string"},
                                         "message": {"type": "string"}},
                          "required": ["code", "message"],
                          "description": "Why the job failed; null unless it did."})
    def get_error(self, obj: Job) -> dict[str, str] | None:
        if not obj.error_code:
            return None
        return {"code": obj.error_code, "message": obj.error_message}

    @extend_schema_field({"type": "integer", "nullable": True,
                          "description": "Jobs queued ahead of it in its queue (0 when "
                                         "running); null once finished."})
    def get_queue_position(self, obj: Job) -> int | None:
        return None  # filled in by to_representation

    @extend_schema_field({"type": "number", "nullable": True,
                          "description": "Estimated seconds until the result; null once "
                                         "finished."})
    def get_eta_seconds(self, obj: Job) -> float | None:
        return None  # filled in by to_representation


# JobSerializer's formatting of its values: DRF's fields as ModelSerializer derives them for
# the model's columns. They hold no per-request state (never bound), so one of each serves
# every thread.
_UUID = serializers.UUIDField()
_STATUS = serializers.ChoiceField(choices=JobStatus.choices)  # the status column's choices
_DATETIME = serializers.DateTimeField()


def _moment(value: datetime | None) -> str | None:
    return None if value is None else _DATETIME.to_representation(value)


def output_signed_path(*, output: JobOutput) -> str:
    token = signing.dumps({"o": output.pk}, salt=OUTPUT_LINK_SALT, compress=True)
    return reverse("job-output-signed", kwargs={"token": token})


def job_payload(*, job: Job) -> dict[str, Any]:
    """A job as webhook deliveries carry it: its API representation, with output links that
    open without a session and expire."""
    return {"job": JobSerializer(job, context={"signed_links": True}).data}
