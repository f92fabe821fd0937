from __future__ import annotations

import re
from datetime import date
from typing import Any

from django.shortcuts import get_object_or_404
from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import IsPartner, request_org
from config.serializers import QueryParamsSerializer, StrictSerializer, json_kind
from studio.connection import connection_test
from studio.kinds import ProviderKind, default_base_url, kind_tools
from studio.models import ProviderAccount
from studio.permissions import IsOrgAdmin, ReadPartnerWriteOrgAdmin
from studio.selectors import UsageRow, provider_account_list, usage_for_month
from studio.services import (
    MAX_KEY_CHARS,
    MAX_MODEL_CHARS,
    AccountInvalid,
    provider_account_create,
    provider_account_delete,
    provider_account_update,
)

MAX_TOOLS = 50

KEY_DOC = ("The API key (for Vertex AI: the service account's JSON key). Write-only: it is "
           "stored encrypted and never returned; answers show `key_last4`.")


class ModelMapField(serializers.DictField):
    """Tool slug → model id; the values must be text (no number taken as a model id)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(child=serializers.CharField(max_length=MAX_MODEL_CHARS), **kwargs)

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, dict):
            if len(data) > MAX_TOOLS:
                raise ValidationError(f"At most {MAX_TOOLS} tools.")
            for slug, model in data.items():
                if not isinstance(model, str):
                    raise ValidationError(f"The model for {slug} must be text, not "
                                          f"{json_kind(model)}.")
        return super().to_internal_value(data)


class ProviderAccountSerializer(serializers.ModelSerializer):
    serves = serializers.SerializerMethodField(
        help_text="The tools this account runs: `tools`, or every tool its kind can run.")

    class Meta:
        model = ProviderAccount
        fields = ["id", "kind", "label", "key_last4", "base_url", "models", "fallback_local",
                  "tools", "serves", "created_at", "updated_at"]

    def get_serves(self, obj: ProviderAccount) -> list[str]:
        return list(obj.tools) if obj.tools else kind_tools(obj.kind)


class ProviderAccountInput(StrictSerializer):
    kind = serializers.ChoiceField(choices=ProviderKind.choices)
    label = serializers.CharField(  # type: ignore[assignment]  # a field, not Field.label
        max_length=100, required=False, allow_blank=True, default="")
    api_key = serializers.CharField(max_length=MAX_KEY_CHARS, write_only=True, help_text=KEY_DOC)
    base_url = serializers.URLField(max_length=500, required=False, allow_blank=True,
                                    default="",
                                    help_text="The API root; empty for the provider's own.")
    models = ModelMapField(required=False, default=dict,
                           help_text="Tool slug → the provider's model id for it.")
    fallback_local = serializers.BooleanField(required=False, default=False)
    tools = serializers.ListField(child=serializers.CharField(max_length=64), required=False,
                                  default=list, max_length=MAX_TOOLS,
                                  help_text="Tool slugs; empty for every tool of its kind.")


class ProviderAccountPatch(StrictSerializer):
    label = serializers.CharField(  # type: ignore[assignment]  # a field, not Field.label
        max_length=100, required=False, allow_blank=True)
    api_key = serializers.CharField(max_length=MAX_KEY_CHARS, write_only=True, required=False,
                                    help_text=KEY_DOC)
    base_url = serializers.URLField(max_length=500, required=False, allow_blank=True)
    models = ModelMapField(required=False)
    fallback_local = serializers.BooleanField(required=False)
    tools = serializers.ListField(child=serializers.CharField(max_length=64), required=False,
                                  max_length=MAX_TOOLS)


class ConnectionAnswerSerializer(serializers.Serializer):
    ok = serializers.BooleanField()
    message = serializers.CharField()


class KindSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=ProviderKind.choices)
    label = serializers.CharField()  # type: ignore[assignment]  # a field, not Field.label
    default_base_url = serializers.CharField()
    tools = serializers.ListField(child=serializers.CharField(),
                                 help_text="The tools this kind of provider can run.")


class ProviderCatalogueApi(APIView):
    """What the Settings page offers: the kinds, their default API roots and tools, and
    whether the caller may manage the organisation's accounts."""

    permission_classes = [IsPartner]

    class OutputSerializer(serializers.Serializer):
        can_manage = serializers.BooleanField()
        kinds = KindSerializer(many=True)

    @extend_schema(responses=OutputSerializer)
    def get(self, request: Request) -> Response:
        kinds = [{"kind": kind.value, "label": kind.label,
                  "default_base_url": default_base_url(kind.value),
                  "tools": kind_tools(kind.value)} for kind in ProviderKind]
        can_manage = IsOrgAdmin().has_permission(request, self)
        return Response(self.OutputSerializer({"can_manage": can_manage, "kinds": kinds}).data)


def _account_or_404(request: Request, account_id: Any) -> ProviderAccount:
    return get_object_or_404(ProviderAccount, organization=request_org(request), pk=account_id)


def _invalid(exc: AccountInvalid) -> ValidationError:
    return ValidationError(exc.fields)


class ProviderAccountListApi(APIView):
    permission_classes = [ReadPartnerWriteOrgAdmin]

    @extend_schema(responses=ProviderAccountSerializer(many=True),
                   description="The organisation's provider accounts (any partner may read).")
    def get(self, request: Request) -> Response:
        accounts = provider_account_list(org=request_org(request))
        return Response(ProviderAccountSerializer(accounts, many=True).data)

    @extend_schema(request=ProviderAccountInput, responses={201: ProviderAccountSerializer},
                   description="Connect a provider account (organisation admins).")
    def post(self, request: Request) -> Response:
        data = ProviderAccountInput.validated(request.data)
        try:
            account = provider_account_create(org=request_org(request), **data)
        except AccountInvalid as exc:
            raise _invalid(exc) from exc
        return Response(ProviderAccountSerializer(account).data, status=status.HTTP_201_CREATED)


class ProviderAccountDetailApi(APIView):
    permission_classes = [ReadPartnerWriteOrgAdmin]

    @extend_schema(responses=ProviderAccountSerializer)
    def get(self, request: Request, account_id: Any) -> Response:
        return Response(ProviderAccountSerializer(_account_or_404(request, account_id)).data)

    @extend_schema(request=ProviderAccountPatch, responses=ProviderAccountSerializer,
                   description="Change an account (organisation admins). `api_key` replaces "
                               "the key; `base_url: \"\"` restores the provider's own.")
    def patch(self, request: Request, account_id: Any) -> Response:
        account = _account_or_404(request, account_id)
        changes = dict(ProviderAccountPatch.validated(request.data))
        try:
            account = provider_account_update(account=account, **changes)
        except AccountInvalid as exc:
            raise _invalid(exc) from exc
        return Response(ProviderAccountSerializer(account).data)

    @extend_schema(responses={204: None})
    def delete(self, request: Request, account_id: Any) -> Response:
        provider_account_delete(account=_account_or_404(request, account_id))
        return Response(status=status.HTTP_204_NO_CONTENT)


class ProviderAccountTestApi(APIView):
    permission_classes = [IsOrgAdmin]

    @extend_schema(request=None, responses=ConnectionAnswerSerializer,
                   description="Test connection: one cheap authenticated call to the provider "
                               "with the stored key.")
    def post(self, request: Request, account_id: Any) -> Response:
        answer = connection_test(account=_account_or_404(request, account_id))
        return Response(ConnectionAnswerSerializer(answer).data)


MONTH = re.compile(r"^(\d{4})-(\d{2})$")


class MonthField(serializers.Field):
    """YYYY-MM → the month's first day."""

    def to_representation(self, value: Any) -> str:
        return f"{value.year:04d}-{value.month:02d}"

    def to_internal_value(self, data: Any) -> date:
        text = data.strip() if isinstance(data, str) else ""
        match = MONTH.match(text)
        try:
            if not match:
                raise ValueError(text)
            month = date(int(match[1]), int(match[2]), 1)
        except ValueError:
            raise ValidationError("Give the month as YYYY-MM, e.g. 2026-11.") from None
        if not 1970 <= month.year <= 9998:
            raise ValidationError("The month's year must be between 1970 and 9998.")
        return month


class UsageFiguresSerializer(serializers.Serializer):
    jobs = serializers.IntegerField()
    succeeded = serializers.IntegerField()
    failed = serializers.IntegerField()
    seconds = serializers.FloatField(help_text="Run time: the sum of finished − started.")


class _RowSerializer(UsageFiguresSerializer):
    tool = serializers.CharField()
    provider = serializers.CharField(help_text="`local`, or the provider kind (`fashn`, "
                                               "`fal`, ...).")


class _ToolSerializer(UsageFiguresSerializer):
    tool = serializers.CharField()


class _ProviderSerializer(UsageFiguresSerializer):
    provider = serializers.CharField()


class UsageApi(APIView):
    permission_classes = [IsPartner]

    class FilterSerializer(QueryParamsSerializer):
        month = MonthField(required=False)

    class OutputSerializer(serializers.Serializer):
        month = serializers.CharField()
        start = serializers.DateTimeField()
        end = serializers.DateTimeField()
        rows = _RowSerializer(many=True, help_text="Per tool and provider.")
        tools = _ToolSerializer(many=True)
        providers = _ProviderSerializer(many=True)
        total = UsageFiguresSerializer()

    @extend_schema(
        parameters=[OpenApiParameter(
            "month", {"type": "string",
                      "pattern": r"^(19[7-9]\d|[2-8]\d{3}|9[0-8]\d{2}|99[0-8]\d|999[0-8])"
                                 r"-(0[1-9]|1[0-2])$"},
            description="YYYY-MM (UTC), years 1970 to 9998; this month when absent.")],
        responses=OutputSerializer,
        description="The organisation's jobs created in a month, per tool and per provider "
                    "(any partner of the organisation may read).",
    )
    def get(self, request: Request) -> Response:
        filters = self.FilterSerializer.validated(request.query_params.dict())
        month = filters.get("month") or timezone.now().date().replace(day=1)
        usage = usage_for_month(org=request_org(request), month=month)

        def figures(row: UsageRow) -> dict[str, Any]:
            return {"jobs": row.jobs, "succeeded": row.succeeded, "failed": row.failed,
                    "seconds": round(row.seconds, 3)}

        return Response(self.OutputSerializer({
            "month": usage.month,
            "start": usage.start,
            "end": usage.end,
            "rows": [{"tool": tool, "provider": provider, **figures(row)}
                     for (tool, provider), row in usage.rows.items()],
            "tools": [{"tool": k, **figures(v)} for k, v in usage.by(0).items()],
            "providers": [{"provider": k, **figures(v)} for k, v in usage.by(1).items()],
            "total": figures(usage.total),
        }).data)
