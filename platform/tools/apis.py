from __future__ import annotations

from typing import Any

from django.urls import reverse
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import IsPartner, request_org, request_partner
from jobs.apis import JobSerializer
from jobs.services import job_submit
from tools.registry import TOOLS, Tool, tool_allowed

IDEMPOTENCY_HEADER = OpenApiParameter(
    "Idempotency-Key", str, OpenApiParameter.HEADER, required=False,
    description="The same key returns the same job instead of creating a second one.",
)
MAX_IDEMPOTENCY_KEY = 255


def idempotency_key(request: Request) -> str | None:
    key = request.headers.get("Idempotency-Key")
    if key is None:
        return None
    key = key.strip()
    if not key or len(key) > MAX_IDEMPOTENCY_KEY:
        message = f"Must be 1 to {MAX_IDEMPOTENCY_KEY} characters."
        raise ValidationError({"Idempotency-Key": [message]})
    return key


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

    @extend_schema(responses=OutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        user = request_partner(request)
        rows = [
            {**{f: getattr(t, f) for f in ("slug", "name", "category", "route", "badge",
                                           "eta_text", "available")},
             "access": t.access.value, "locked": not tool_allowed(t, user=user)}
            for t in TOOLS.values() if user.is_staff or not t.staff_only
        ]
        return Response(self.OutputSerializer(rows, many=True).data)


class ToolAllowed(BasePermission):
    message = "This tool is not enabled for your organisation."

    def has_permission(self, request: Request, view: Any) -> bool:
        return tool_allowed(view.tool, user=request.user)


class ToolJobSubmitApi(APIView):
    """Submit one job to a tool that answers with the job (202 and a Location to poll)."""

    tool: Tool

    def get_permissions(self) -> list[Any]:
        return [IsPartner(), ToolAllowed()]

    def post(self, request: Request) -> Response:
        if not isinstance(request.data, dict):
            raise ValidationError({"non_field_errors": ["Expected a JSON object."]})
        assert self.tool.input_serializer is not None
        serializer = self.tool.input_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        submitted = job_submit(
            org=request_org(request), user=request_partner(request), tool=self.tool,
            payload=dict(serializer.validated_data), idempotency_key=idempotency_key(request),
        )
        body = JobSerializer(submitted.job, context={"request": request}).data
        resp = Response(body, status=status.HTTP_202_ACCEPTED if submitted.created
                        else status.HTTP_200_OK)
        resp["Location"] = reverse("job-detail", kwargs={"job_id": submitted.job.pk})
        return resp


def job_submit_view(slug: str) -> Any:
    tool = TOOLS[slug]
    schema = extend_schema(
        request=tool.input_serializer, responses={202: JobSerializer, 200: JobSerializer},
        parameters=[IDEMPOTENCY_HEADER], summary=f"Submit a {tool.name} job",
    )

    class Api(ToolJobSubmitApi):
        @schema
        def post(self, request: Request) -> Response:
            return super().post(request)

    Api.tool = tool
    Api.__name__ = Api.__qualname__ = f"{tool.slug.title().replace('.', '')}SubmitApi"
    return Api.as_view()
