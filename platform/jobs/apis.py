from __future__ import annotations

import csv
from datetime import date, datetime, time, timedelta
from typing import Any
from uuid import UUID

from django.conf import settings
from django.core import signing
from django.http import FileResponse, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import request_org
from config.schema import error_response, paginated
from config.serializers import QueryParamsSerializer
from jobs.models import Job, JobOutput, JobStatus
from jobs.selectors import (
    activity_list,
    batch_job_list,
    job_get,
    job_list,
    job_source,
    queues_overview,
)
from jobs.serializers import OUTPUT_LINK_SALT, JobSerializer  # also imported from here
from jobs.services import batch_retry_failed, job_cancel, job_retry


def job_or_404(request: Request, job_id: Any) -> Job:
    job = job_get(org=request_org(request), job_id=job_id)
    if job is None:
        raise NotFound("No such job.")
    return job


class DateOrDateTimeField(serializers.Field):
    """An ISO date or date-time, read as an aware date-time. A bare date stands for the start
    of that day, or with `end_of_day` for the start of the next one, so that "before the
    24th" read from a date picker includes the 24th."""

    default_error_messages = {"invalid": "Enter an ISO date (2026-11-24) or date-time "
                                         "(2026-11-24T18:00:00Z)."}

    def __init__(self, *, end_of_day: bool = False, **kwargs: Any) -> None:
        self.end_of_day = end_of_day
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> datetime:
        text = str(data).strip()
        # The date first: Python reads a bare date as a date-time at midnight too.
        try:
            day = parse_date(text)
        except ValueError:  # well formed but impossible: 2026-02-30
            day = None
        try:
            moment = None if day else parse_datetime(text)
        except ValueError:
            moment = None
        if moment is None and day is None:
            self.fail("invalid")
        if moment is None:
            assert isinstance(day, date)
            if self.end_of_day:
                day += timedelta(days=1)
            moment = datetime.combine(day, time.min)
        if timezone.is_naive(moment):
            moment = timezone.make_aware(moment)
        return moment

    def to_representation(self, value: datetime) -> str:
        return value.isoformat()


class JobPagination(LimitOffsetPagination):
    """`{count, next, previous, results}` without counting an organisation's whole history on
    every page: a page is read with one row more than asked, which says whether a next page
    exists; `count` is exact when the list ends on this page, else counted up to MAX_COUNT
    (past it, `count` reads MAX_COUNT: at least that many)."""

    # Counting reads the organisation's index up to here on every page that is not the last:
    # 10,000 made the list 1.2x slower at a million jobs of history than at none.
    MAX_COUNT = 1_000
    has_more = False

    def paginate_queryset(self, queryset: Any, request: Request, view: Any = None) -> Any:
        self.request = request
        self.limit = self.get_limit(request)
        if self.limit is None:
            return None
        self.offset = self.get_offset(request)
        rows = list(queryset[self.offset:self.offset + self.limit + 1])
        self.has_more = len(rows) > self.limit
        rows = rows[:self.limit]
        if not self.has_more and (rows or self.offset == 0):
            self.count = self.offset + len(rows)
        else:  # a bounded count: never more than MAX_COUNT rows of the index are read
            self.count = max(queryset.order_by()[:self.MAX_COUNT].count(),
                             self.offset + len(rows) + (1 if self.has_more else 0))
        return rows

    def get_next_link(self) -> str | None:
        if not self.has_more:
            return None
        return super().get_next_link()


# The schema of the filters' query parameters, as the FilterSerializers read them.
TOOL_FILTER = {"type": "string", "minLength": 1, "maxLength": 64,
               "pattern": r"^[^\x00]*\S[^\x00]*$"}
MAX_OFFSET = 2**31 - 1
DATE_OR_DATETIME = {"anyOf": [{"type": "string", "format": "date"},
                              {"type": "string", "format": "date-time"}]}


class JobListApi(APIView):
    class FilterSerializer(QueryParamsSerializer):
        tool = serializers.CharField(required=False, max_length=64)
        status = serializers.ChoiceField(choices=JobStatus.choices, required=False)
        batch = serializers.UUIDField(required=False)
        created_after = DateOrDateTimeField(required=False)
        created_before = DateOrDateTimeField(required=False, end_of_day=True)
        limit = serializers.IntegerField(required=False, min_value=1, max_value=500)
        # (bounded: a 40-digit offset overflowed the database's integer, a 500)
        offset = serializers.IntegerField(required=False, min_value=0, max_value=MAX_OFFSET)

    @extend_schema(
        parameters=[
            OpenApiParameter("tool", TOOL_FILTER),
            OpenApiParameter("status", str, enum=JobStatus.values),
            OpenApiParameter("batch", OpenApiTypes.UUID),
            OpenApiParameter(
                "created_after", DATE_OR_DATETIME,
                description="Jobs created at or after this ISO date or date-time "
                            "(a date: from the start of that day)."),
            OpenApiParameter(
                "created_before", DATE_OR_DATETIME,
                description="Jobs created before this ISO date-time, or up to the end of "
                            "this ISO date."),
            OpenApiParameter("limit", {"type": "integer", "minimum": 1, "maximum": 500},
                             description="Jobs per page (50 when absent)."),
            OpenApiParameter("offset", {"type": "integer", "minimum": 0,
                                        "maximum": MAX_OFFSET}),
        ],
        responses=paginated(JobSerializer), operation_id="api_jobs_list",
    )
    def get(self, request: Request) -> Response:
        filters = self.FilterSerializer.validated(request.query_params.dict())
        jobs = job_list(org=request_org(request), tool=filters.get("tool"),
                        status=filters.get("status"), batch=filters.get("batch"),
                        created_after=filters.get("created_after"),
                        created_before=filters.get("created_before"))
        paginator = JobPagination()
        page = paginator.paginate_queryset(jobs, request, view=self)
        data = JobSerializer(page, many=True, context={"request": request}).data
        return paginator.get_paginated_response(data)


class JobDetailApi(APIView):
    @extend_schema(responses=JobSerializer)
    def get(self, request: Request, job_id: Any) -> Response:
        job = job_or_404(request, job_id)
        return Response(JobSerializer(job, context={"request": request}).data)


class JobCancelApi(APIView):
    @extend_schema(request=None, responses={200: JobSerializer, 409: error_response(409)})
    def post(self, request: Request, job_id: Any) -> Response:
        job = job_cancel(job=job_or_404(request, job_id))
        return Response(JobSerializer(job, context={"request": request}).data)


class JobRetryApi(APIView):
    @extend_schema(request=None, responses={200: JobSerializer, 409: error_response(409)})
    def post(self, request: Request, job_id: Any) -> Response:
        job = job_retry(job=job_or_404(request, job_id))
        return Response(JobSerializer(job, context={"request": request}).data)


def batch_jobs_or_404(request: Request, batch_id: UUID) -> list[Job]:
    jobs = batch_job_list(org=request_org(request), batch_id=batch_id)
    if not jobs:
        raise NotFound("No such batch.")
    return jobs


class BatchRetryFailedApi(APIView):
    class OutputSerializer(serializers.Serializer):
        retried = serializers.IntegerField()

    @extend_schema(request=None, responses=OutputSerializer)
    def post(self, request: Request, batch_id: UUID) -> Response:
        batch_jobs_or_404(request, batch_id)
        retried = batch_retry_failed(org=request_org(request), batch_id=batch_id)
        return Response(self.OutputSerializer({"retried": retried}).data)


# A cell a spreadsheet would read as a formula (an error message, a file name) is kept text.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _csv_cell(value: Any) -> str:
    text = "" if value is None else str(value)
    return f"'{text}" if text.startswith(_FORMULA_START) else text


class BatchReportApi(APIView):
    HEADER = ["job_id", "tool", "source", "status", "error_code", "error_message",
              "created_at", "finished_at", "output_urls"]

    @extend_schema(responses={(200, "text/csv"): OpenApiTypes.STR},
                   operation_id="api_batches_report_retrieve")
    def get(self, request: Request, batch_id: UUID) -> HttpResponse:
        jobs = batch_jobs_or_404(request, batch_id)
        response = HttpResponse(content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="batch-{batch_id}.csv"'
        writer = csv.writer(response)
        writer.writerow(self.HEADER)
        for job in jobs:
            urls = [request.build_absolute_uri(
                reverse("job-output", kwargs={"job_id": job.pk, "index": output.index}))
                for output in job.outputs.all()]
            writer.writerow([_csv_cell(cell) for cell in (
                job.pk, job.tool, job_source(job=job), job.status, job.error_code,
                job.error_message, job.created_at.isoformat(),
                job.finished_at.isoformat() if job.finished_at else "", " ".join(urls),
            )])
        return response


def _serve_output(output: JobOutput) -> Any:
    url = output.file.storage.url(output.file.name)
    if url.startswith("http"):  # object storage: a short-lived signed URL
        return HttpResponseRedirect(url)
    try:
        handle = output.file.open("rb")
    except FileNotFoundError as exc:
        raise NotFound("This output has expired.") from exc
    return FileResponse(handle, content_type=output.content_type, as_attachment=False,
                        filename=output.filename)


class JobOutputSignedApi(APIView):
    """An output through a signed, expiring link (webhook deliveries)."""

    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]

    @extend_schema(responses={(200, "application/octet-stream"): OpenApiTypes.BINARY},
                   operation_id="api_jobs_outputs_signed_retrieve")
    def get(self, request: Request, token: str) -> Any:
        try:
            data = signing.loads(token, salt=OUTPUT_LINK_SALT,
                                 max_age=timedelta(seconds=settings.OUTPUT_LINK_SECONDS))
        except signing.BadSignature as exc:
            raise NotFound("This link is not valid or has expired.") from exc
        output = JobOutput.objects.filter(pk=data.get("o")).first()
        if output is None:
            raise NotFound("This output has expired.")
        return _serve_output(output)


class JobOutputApi(APIView):
    @extend_schema(responses={(200, "application/octet-stream"): OpenApiTypes.BINARY})
    def get(self, request: Request, job_id: Any, index: int) -> Any:
        job = job_or_404(request, job_id)
        output = job.outputs.filter(index=index).first()
        if output is None:
            raise NotFound("No such output.")
        return _serve_output(output)


class QueueListApi(APIView):
    class OutputSerializer(serializers.Serializer):
        tool = serializers.CharField()
        queue = serializers.CharField()
        queued = serializers.IntegerField()
        running = serializers.IntegerField()
        queue_position = serializers.IntegerField(
            allow_null=True,
            help_text="Jobs queued ahead of this organisation's oldest queued job of the tool, "
                      "all organisations alike: the `queue_position` of that job; null when "
                      "it has none queued.")
        avg_seconds = serializers.FloatField()
        eta_seconds = serializers.FloatField()

    @extend_schema(responses=OutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        rows = queues_overview(org=request_org(request), include_staff=request.user.is_staff)
        return Response(self.OutputSerializer(rows, many=True).data)


class ActivityListApi(APIView):
    class FilterSerializer(QueryParamsSerializer):
        tool = serializers.CharField(required=False, max_length=64)
        limit = serializers.IntegerField(required=False, min_value=1, max_value=200, default=5)

    class OutputSerializer(serializers.Serializer):
        id = serializers.IntegerField()
        timestamp = serializers.DateTimeField()
        tool = serializers.CharField()
        action = serializers.CharField()
        # A job's entry reads its outcome from the job (Activity.shown).
        status = serializers.CharField(source="shown_status")
        details = serializers.CharField(source="shown_details")
        job_id = serializers.UUIDField(allow_null=True)
        engine = serializers.CharField(source="job.made_by", default="",
                                       help_text="What made the job's result (see the job's).")
        tier = serializers.CharField(source="job.tier", default="",
                                     help_text="studio, preview or \"\" (see the job's).")

    @extend_schema(
        parameters=[OpenApiParameter("tool", TOOL_FILTER),
                    OpenApiParameter("limit", {"type": "integer", "minimum": 1, "maximum": 200},
                                     description="Entries (5 when absent).")],
        responses=OutputSerializer(many=True),
    )
    def get(self, request: Request) -> Response:
        filters = self.FilterSerializer.validated(request.query_params.dict())
        rows = activity_list(org=request_org(request), tool=filters.get("tool"),
                             limit=filters["limit"])
        return Response(self.OutputSerializer(rows, many=True).data)
