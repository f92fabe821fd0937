from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from django.conf import settings
from django.db import transaction
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
)
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView
from webhooks.sending import DestinationRefused
from webhooks.services import job_callbacks_set

from accounts.permissions import IsPartner, request_org, request_partner
from config.errors import error_body, first_message
from config.schema import error_response, url_schema
from jobs.apis import JobSerializer
from jobs.models import JobStatus
from jobs.selectors import direct_wait_slot, job_wait
from jobs.services import job_submit, job_submit_batch, org_capacity_check
from tools.examples import tool_examples
from tools.registry import TOOLS, Shape, Tool, tool_allowed
from tools.serializers import CodesInput, webhook_unwrap
from tools.uploads import stash_base64

IDEMPOTENCY_HEADER = OpenApiParameter(
    "Idempotency-Key", {"type": "string", "minLength": 1, "maxLength": 255, "pattern": r"\S"},
    OpenApiParameter.HEADER, required=False,
    description="The same key returns the same job instead of creating a second one.",
)
PREFER_HEADER = OpenApiParameter(
    "Prefer", str, OpenApiParameter.HEADER, required=False,
    description="With `respond-async`: answer 202 with the job at once instead of waiting "
                "for the result (other preferences are ignored).",
)
MAX_IDEMPOTENCY_KEY = 255
WEBHOOK_URL_PARAM = OpenApiParameter(
    "webhook_url", url_schema(https_only=True), OpenApiParameter.QUERY, required=False,
    description="Also POST the job's finished event (`job.succeeded` or `job.failed`; a batch: "
                "each job's) to this URL, signed with the organisation's per-request secret "
                "(`GET /api/webhooks/request-secret/`) and retried as webhooks are. An http(s) "
                "URL whose host is public.",
)
_Submitted = TypeVar("_Submitted")


class SkippedSerializer(serializers.Serializer):
    name = serializers.CharField(help_text="The file, or the library model's name.")
    reason = serializers.CharField()
    model = serializers.CharField(required=False, help_text="The library model's id.")


class BatchSubmittedSerializer(serializers.Serializer):
    batch_id = serializers.UUIDField(allow_null=True, help_text="null when nothing was queued.")
    count = serializers.IntegerField(help_text="Jobs queued.")
    jobs = JobSerializer(many=True)
    skipped = SkippedSerializer(many=True, required=False, help_text=(
        "What was left out, and why (files of a drive folder, library models that do not "
        "fit the tool)."))


def idempotency_key(request: Request) -> str | None:
    key = request.headers.get("Idempotency-Key")
    if key is None:
        return None
    key = key.strip()
    if not key or len(key) > MAX_IDEMPOTENCY_KEY:
        message = f"Must be 1 to {MAX_IDEMPOTENCY_KEY} characters."
        raise ValidationError({"Idempotency-Key": [message]})
    return key


def submit_with_callback(request: Request, submit: Callable[[], _Submitted]) -> _Submitted:
    """Run ``submit`` (a job_submit or job_submit_batch call) and remember the request's
    `webhook_url` for its jobs in the same transaction: a job that ends at once still finds
    it, and a URL refused after all leaves no job behind."""
    raw = request.query_params.get("webhook_url")
    if raw is None:
        return submit()
    try:
        url = serializers.URLField(max_length=1000).run_validation(raw)
    except ValidationError as exc:
        raise ValidationError({"webhook_url": exc.detail}) from exc
    with transaction.atomic():
        submitted = submit()
        jobs = getattr(submitted, "jobs", None) or [submitted.job]  # type: ignore[attr-defined]
        try:
            job_callbacks_set(jobs=jobs, url=url)
        except DestinationRefused as exc:
            raise ValidationError({"webhook_url": [str(exc)]}) from exc
    return submitted


class ExampleSerializer(serializers.Serializer):
    src = serializers.CharField(help_text="Where the image (or, for Spinview, the video) is.")
    alt = serializers.CharField(help_text="What the example shows.")


class ToolListApi(APIView):
    """The catalogue as this partner sees it: locked and private tools are `locked` unless
    staff enabled them for the partner's organisation."""

    class OutputSerializer(serializers.Serializer):
        slug = serializers.CharField()
        name = serializers.CharField()
        category = serializers.CharField()
        route = serializers.CharField(allow_null=True)
        badge = serializers.CharField()
        access = serializers.CharField()
        locked = serializers.BooleanField()
        available = serializers.BooleanField()
        eta_text = serializers.CharField()
        examples = ExampleSerializer(many=True, help_text="The page's Examples gallery.")
        nav_group = serializers.CharField(
            allow_null=True, help_text="The navbar group's title (\"\" for the trailing "
                                       "untitled group); null when not in the navbar.")
        nav_label = serializers.CharField(help_text="The navbar entry's text.")
        choices = serializers.DictField(
            child=serializers.ListField(child=serializers.CharField()),
            help_text="Per choice field of the tool's input (by field name), the allowed "
                      "values in order.")

    @extend_schema(responses=OutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        user = request_partner(request)
        rows = [
            {**{f: getattr(t, f) for f in ("slug", "name", "category", "route", "badge",
                                           "eta_text", "available")},
             "access": t.access.value, "locked": not tool_allowed(t, user=user),
             "examples": tool_examples(t.slug), "nav_group": t.nav_group,
             "nav_label": t.nav_label or t.name, "choices": _choices(t)}
            for t in TOOLS.values() if (user.is_staff or not t.staff_only) and not t.part_of
        ]
        return Response(self.OutputSerializer(rows, many=True).data)


def _choices(tool: Tool) -> dict[str, list[str]]:
    """The choice lists of the tool and its parts."""
    found = dict(tool.choices)
    for part in TOOLS.values():
        if part.part_of == tool.slug:
            found.update(part.choices)
    return found


class ToolAllowed(BasePermission):
    message = "This tool is not enabled for your organisation."

    def has_permission(self, request: Request, view: Any) -> bool:
        return tool_allowed(view.tool, user=request.user)


class ToolApi(APIView):
    """A call of one tool's spec: partners of an organisation the tool is enabled for."""

    tool: Tool

    def get_permissions(self) -> list[Any]:
        return [IsPartner(), ToolAllowed()]

    def validated_object(self, body: Any) -> dict[str, Any]:
        """A JSON object body, checked by the tool's input serializer."""
        if not isinstance(body, dict):
            raise ValidationError({"non_field_errors": ["Expected a JSON object."]})
        assert self.tool.input_serializer is not None
        return dict(self.tool.input_serializer.validated(body))  # type: ignore[attr-defined]


class ToolJobSubmitApi(ToolApi):
    """Submit one job to a tool that answers with the job (202 and a Location to poll)."""

    def post(self, request: Request) -> Response:
        payload = self.validated_object(request.data)
        org_capacity_check(org=request_org(request), adding=1)
        submitted = submit_with_callback(request, lambda: job_submit(
            org=request_org(request), user=request_partner(request), tool=self.tool,
            payload=payload, idempotency_key=idempotency_key(request),
        ))
        body = JobSerializer(submitted.job, context={"request": request}).data
        resp = Response(body, status=status.HTTP_202_ACCEPTED if submitted.created
                        else status.HTTP_200_OK)
        resp["Location"] = reverse("job-detail", kwargs={"job_id": submitted.job.pk})
        return resp


def _card_errors(detail: Any) -> ValidationError:
    """Per-card errors as `cards.<n>.<field>`, with a message naming the card."""
    # DRF gives a list (one entry per card) or a dict keyed by the failing cards' indexes.
    if isinstance(detail, list):
        per_card = list(enumerate(detail))
    elif isinstance(detail, dict) and detail and all(isinstance(k, int) for k in detail):
        per_card = sorted(detail.items())
    else:
        return ValidationError(detail)
    fields: dict[str, Any] = {}
    message = ""
    for index, errors in per_card:
        if not isinstance(errors, dict):  # the card itself is wrong (not an object...)
            fields[f"cards.{index}"] = errors
            message = message or f"Card {index + 1}: {first_message(errors)}"
            continue
        for name, problems in errors.items():
            key = f"cards.{index}.{name}"
            fields[key] = problems
            if not message:
                message = f"Card {index + 1}, {name}: {first_message(problems)}"
    return ValidationError({"non_field_errors": [message], **fields})


class ToolBatchSubmitApi(ToolApi):
    """A card tool: an array of cards → one job per card in one batch (202)."""

    def post(self, request: Request) -> Response:
        assert self.tool.input_serializer is not None
        cards = self.tool.input_serializer(data=request.data, many=True)
        if not cards.is_valid():
            raise _card_errors(cards.errors)
        payloads = [dict(card) for card in cards.validated_data]
        skipped: list[dict[str, str]] = []
        if self.tool.expand_cards is not None:
            payloads = self.tool.expand_cards(self.tool, request_org(request), payloads, skipped)
        org_capacity_check(org=request_org(request), adding=len(payloads))
        submitted = submit_with_callback(request, lambda: job_submit_batch(
            org=request_org(request), user=request_partner(request), tool=self.tool,
            payloads=payloads, idempotency_key=idempotency_key(request),
        ))
        context = {"request": request}
        body = {"batch_id": submitted.batch_id, "count": len(submitted.jobs),
                "jobs": JobSerializer(submitted.jobs, many=True, context=context).data}
        if self.tool.expand_cards is not None:
            body["skipped"] = skipped  # library models left out, and why (as a sync's files)
        resp = Response(body, status=status.HTTP_202_ACCEPTED if submitted.created
                        else status.HTTP_200_OK)
        resp["Location"] = f"{reverse('job-list')}?batch={submitted.batch_id}"
        return resp


class ToolDirectApi(ToolApi):
    """A direct tool: the work still runs on the queue, and the request waits for it
    (DIRECT_WAIT_SECONDS, then 202 with the job and a Location to poll; the job goes on).
    With `Prefer: respond-async`, or when DIRECT_WAIT_SLOTS requests of this process are
    already waiting, it answers 202 with the job at once."""

    def post(self, request: Request) -> Response:
        body = webhook_unwrap(request.data) if self.tool.webhook_path else request.data
        data = self.validated_object(body)
        sources = {}
        for field, name in self.tool.base64_inputs.items():
            if data.get(field):
                sources[name] = stash_base64(org_id=request_org(request).pk, field=field,
                                             value=data.pop(field))
            else:
                data.pop(field, None)
        if sources:
            data["_sources"] = sources
        if self.tool.expand_direct is not None:
            data = self.tool.expand_direct(request_org(request), data)
        org_capacity_check(org=request_org(request), adding=1)
        submitted = submit_with_callback(request, lambda: job_submit(
            org=request_org(request), user=request_partner(request), tool=self.tool,
            payload=data, idempotency_key=idempotency_key(request),
        ))
        location = reverse("job-detail", kwargs={"job_id": submitted.job.pk})
        if "respond-async" in request.headers.get("Prefer", ""):
            # 202 for a new job; 200 for the same request again (its Idempotency-Key)
            resp = Response(JobSerializer(submitted.job, context={"request": request}).data,
                            status=status.HTTP_202_ACCEPTED if submitted.created
                            else status.HTTP_200_OK)
            resp["Location"] = location
            return resp
        # The request waits for the job's end notice (no database poll), if one of this
        # process's waiting slots is free: past them, or past the wait, it answers 202 with
        # the job, so waiting calls never hold every thread of the site.
        with direct_wait_slot() as waiting:
            job = (job_wait(job_id=submitted.job.pk, timeout=settings.DIRECT_WAIT_SECONDS)
                   if waiting else submitted.job)
        if job.status == JobStatus.SUCCEEDED:
            assert self.tool.respond is not None
            return Response(self.tool.respond(job, request))
        if job.status in (JobStatus.FAILED, JobStatus.CANCELED):
            body = error_body(job.error_code or "job_failed",
                              job.error_message or "The job did not finish.")
            return Response(body | {"success": False, "job_id": str(job.pk)},
                            status=status.HTTP_422_UNPROCESSABLE_ENTITY)
        resp = Response(JobSerializer(job, context={"request": request}).data,
                        status=status.HTTP_202_ACCEPTED)
        resp["Location"] = location
        return resp


def tool_view(tool: Tool) -> Any:
    """The view of a tool's spec call, by the shape it answers in."""
    base = {Shape.JOB: ToolJobSubmitApi, Shape.BATCH: ToolBatchSubmitApi,
            Shape.DIRECT: ToolDirectApi, Shape.SYNC: ToolSyncApi}[tool.shape]
    request_schema: Any = tool.input_serializer
    if tool.shape == Shape.BATCH and tool.input_serializer is not None:
        request_schema = tool.input_serializer(many=True)
    examples = ([OpenApiExample(f"{tool.name} example", value=tool.example, request_only=True)]
                if tool.example is not None else [])
    # (a sync takes what is new in the folders: no Idempotency-Key)
    parameters = [] if tool.shape == Shape.SYNC else [IDEMPOTENCY_HEADER, WEBHOOK_URL_PARAM]
    by_shape: dict[Shape, dict[int, Any]] = {
        Shape.JOB: {202: JobSerializer, 200: OpenApiResponse(
            JobSerializer, description="The job an earlier request of this Idempotency-Key "
                                       "made.")},
        Shape.BATCH: {202: BatchSubmittedSerializer, 200: OpenApiResponse(
            BatchSubmittedSerializer, description="The batch an earlier request of this "
                                                  "Idempotency-Key made.")},
        Shape.SYNC: {202: BatchSubmittedSerializer},
        Shape.DIRECT: {
            200: OpenApiResponse(OpenApiTypes.OBJECT, description=(
                "The tool's result; with `Prefer: respond-async`, the job an earlier request "
                "of this Idempotency-Key made.")),
            202: OpenApiResponse(JobSerializer, description=(
                "The job, to poll at `Location`: at once with `Prefer: respond-async`, else "
                "when the result takes longer than the request waits (the job goes on).")),
            422: error_response(422)},
    }
    responses = by_shape[tool.shape]
    if tool.shape == Shape.DIRECT:
        parameters.append(PREFER_HEADER)
    schema = extend_schema(request=request_schema, parameters=parameters,
                           summary=f"{tool.name}", examples=examples, responses=responses)

    class Api(base):  # type: ignore[valid-type,misc]
        @schema
        def post(self, request: Request) -> Response:
            return super().post(request)

    Api.tool = tool
    Api.__name__ = Api.__qualname__ = f"{tool.slug.title().replace('.', '').replace('-', '')}Api"
    return Api.as_view()


class ToolSyncApi(ToolApi):
    """A drive-fed tool: take in the new files of its input folders (202 with what was
    queued and what was skipped, and why)."""

    def post(self, request: Request) -> Response:
        from drives.sync import SyncRefused, drive_sync

        options = self.validated_object(request.data)
        org_capacity_check(org=request_org(request), adding=1)
        try:
            result = drive_sync(org=request_org(request), user=request_partner(request),
                                tool=self.tool, options=dict(options))
        except SyncRefused as exc:
            raise ValidationError({"non_field_errors": [str(exc)]}) from exc
        context = {"request": request}
        body = {"batch_id": result.batch_id, "count": len(result.jobs),
                "jobs": JobSerializer(result.jobs, many=True, context=context).data,
                "skipped": result.skipped}
        return Response(body, status=status.HTTP_202_ACCEPTED)


class ToolInputsDeleteApi(ToolApi):
    """DELETE {codes: [...]}: a drive-fed tool's Clean Input step (e.g. DELETE
    /api/catalog-video/inputs): the named products' files leave its input folder."""

    delete_reads_body = True  # for the schema (config.schema.AutoSchema)

    @extend_schema(request=CodesInput, responses={200: OpenApiTypes.OBJECT})
    def delete(self, request: Request) -> Response:
        from drives.sync import SyncRefused, drive_inputs_delete

        data = CodesInput.validated(request.data)
        try:
            return Response(drive_inputs_delete(org=request_org(request), tool=self.tool.slug,
                                                codes=data["codes"]))
        except SyncRefused as exc:  # the input drive refused (an admin's bucket gone...)
            raise ValidationError({"non_field_errors": [str(exc)]}) from exc


def inputs_delete_view(tool: Tool) -> Any:
    class Api(ToolInputsDeleteApi):
        pass

    Api.tool = tool
    Api.__name__ = Api.__qualname__ = f"{tool.slug.title().replace('-', '')}InputsApi"
    return Api.as_view()


class LibraryModelListApi(APIView):
    """GET /api/models/: the organisation's model library."""

    class OutputSerializer(serializers.Serializer):
        id = serializers.CharField(source="code")
        name = serializers.CharField()
        gender = serializers.CharField()
        height_cm = serializers.IntegerField()
        image = serializers.SerializerMethodField()
        shows = serializers.SerializerMethodField()
        fits = serializers.SerializerMethodField()

        def get_image(self, obj: Any) -> str:
            path = reverse("library-model-photo", kwargs={"code": obj.code})
            return str(self.context["request"].build_absolute_uri(path))

        @extend_schema_field(OpenApiTypes.OBJECT)
        def get_shows(self, obj: Any) -> dict[str, Any]:
            from tools.library import library_model_shows

            shows = library_model_shows(model=obj)
            return {k: v for k, v in shows.items() if k not in ("version", "measured")}

        @extend_schema_field(OpenApiTypes.OBJECT)
        def get_fits(self, obj: Any) -> dict[str, Any]:
            """Per tool: {ok, reason} or {ok, carry, note}, so pages say before a run which
            models are skipped or dressed differently."""
            from tools.library import library_model_fits, library_model_shows

            return library_model_fits(library_model_shows(model=obj))

    @extend_schema(responses=OutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        from tools.models import LibraryModel

        models = LibraryModel.objects.filter(organization=request_org(request))
        return Response(self.OutputSerializer(models, many=True,
                                              context={"request": request}).data)


class LibraryModelPhotoApi(APIView):
    """A library model's photo, for the pages of the organisation it belongs to."""

    @extend_schema(responses={(200, "image/*"): OpenApiTypes.BINARY})
    def get(self, request: Request, code: str) -> Any:
        from django.http import FileResponse
        from rest_framework.exceptions import NotFound

        from tools.models import LibraryModel

        model = LibraryModel.objects.filter(organization=request_org(request), code=code).first()
        if model is None:
            raise NotFound("No such model.")
        return FileResponse(model.photo.open("rb"))


class CameraTemplateListApi(APIView):
    """The camera style templates of Editorial and Tonelab, shared with the engine."""

    class OutputSerializer(serializers.Serializer):
        title = serializers.CharField()
        camera_details = serializers.CharField(allow_blank=True)

    @extend_schema(responses=OutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        from workers.vocabularies import CAMERA_TEMPLATES

        return Response(self.OutputSerializer(CAMERA_TEMPLATES, many=True).data)


class PhotoPresetListApi(APIView):
    """The photography presets of Editorial Product, shared with the engine."""

    class OutputSerializer(serializers.Serializer):
        title = serializers.CharField()
        sentence = serializers.CharField()

    @extend_schema(responses=OutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        from workers.vocabularies import PHOTO_PRESETS

        return Response(self.OutputSerializer(PHOTO_PRESETS, many=True).data)
