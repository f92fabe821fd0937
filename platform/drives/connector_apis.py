"""A drive folder's connector: any partner of the organisation reads it (credentials masked);
its admins point the folder at an S3 bucket or a Google Drive folder, test it, or take it
back to the local folder."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView
from studio.permissions import IsOrgAdmin, ReadPartnerWriteOrgAdmin

from config.serializers import StrictSerializer
from drives.apis import folder_or_404
from drives.connectors import (
    ConnectorInvalid,
    ConnectorRefused,
    connector_clear,
    connector_set,
    connector_test,
    describe,
)
from drives.models import ConnectorKind, DriveFolder, DriveKind
from drives.services import drive_client

CONNECT_DOC = (
    "Point this drive folder at an S3 bucket (`kind: s3`: `bucket`, optional `prefix`, "
    "`endpoint_url` for an S3-compatible store (empty: AWS), `region`, `access_key_id`, "
    "`secret_access_key`) or a Google Drive folder (`kind: google`: `service_account`, the "
    "service account's JSON key as text or object, and `folder_id`; share the folder, in a "
    "shared drive, with the account's e-mail). The folder is listed, a probe file written and "
    "removed; only then is the connector kept, and the folder's syncs, Get URLs and "
    "deliveries use it. Credentials are stored encrypted and never returned; when the kind "
    "stays the same, leaving them out keeps the stored ones. A drive that refuses answers "
    "400 with its reason. Organisation admins only.")


S3_EXAMPLE = OpenApiExample("S3", request_only=True, value={
    "kind": "s3", "endpoint_url": "https://s3.eu-west-3.amazonaws.com", "region": "eu-west-3",
    "bucket": "maison-catalogue", "prefix": "atelier/recolor/in", "access_key_id": "AKIA…",
    "secret_access_key": "…"})


class ConnectorSerializer(serializers.Serializer):
    folder = serializers.UUIDField()
    kind = serializers.ChoiceField(choices=DriveKind.choices)
    where = serializers.CharField(help_text="The folder's drive, in words.")
    bucket = serializers.CharField(allow_blank=True)
    prefix = serializers.CharField(allow_blank=True)
    endpoint_url = serializers.CharField(allow_blank=True)
    region = serializers.CharField(allow_blank=True)
    folder_id = serializers.CharField(allow_blank=True)
    credentials = serializers.CharField(
        allow_blank=True, help_text="The folder's own credentials, masked (an access key's "
                                    "ends, a service account's e-mail); empty: none.")
    can_manage = serializers.BooleanField(help_text="Whether the caller may change it.")


class ConnectorInput(StrictSerializer):
    kind = serializers.ChoiceField(choices=ConnectorKind.choices)
    endpoint_url = serializers.CharField(max_length=500, required=False, allow_blank=True)
    region = serializers.CharField(max_length=64, required=False, allow_blank=True)
    bucket = serializers.CharField(max_length=63, required=False, allow_blank=True)
    prefix = serializers.CharField(max_length=400, required=False, allow_blank=True)
    access_key_id = serializers.CharField(max_length=128, required=False, write_only=True)
    secret_access_key = serializers.CharField(max_length=256, required=False, write_only=True)
    service_account = serializers.JSONField(required=False, write_only=True)
    folder_id = serializers.CharField(max_length=200, required=False, allow_blank=True)


class DriveConnectionAnswerSerializer(serializers.Serializer):
    ok = serializers.BooleanField()
    message = serializers.CharField()
    files = serializers.IntegerField(help_text="Files the listing found.")


def connector_row(request: Request, folder: DriveFolder, view: Any) -> dict[str, Any]:
    s3 = folder.kind == DriveKind.S3
    bucket, _, prefix = folder.locator.partition("/") if s3 else ("", "", "")
    return {"folder": folder.pk, "kind": folder.kind, "where": describe(folder),
            "bucket": bucket, "prefix": prefix, "endpoint_url": folder.endpoint_url,
            "region": folder.region,
            "folder_id": folder.locator if folder.kind == DriveKind.GOOGLE else "",
            "credentials": folder.credentials_hint,
            "can_manage": IsOrgAdmin().has_permission(request, view)}


def _refused(exc: ConnectorRefused) -> ValidationError:
    return ValidationError({"connection": [str(exc)]})


class DriveConnectorApi(APIView):
    permission_classes = [ReadPartnerWriteOrgAdmin]

    @extend_schema(responses=ConnectorSerializer)
    def get(self, request: Request, folder_id: Any) -> Response:
        folder = folder_or_404(request, folder_id)
        return Response(ConnectorSerializer(connector_row(request, folder, self)).data)

    @extend_schema(request=ConnectorInput, responses=ConnectorSerializer,
                   description=CONNECT_DOC, examples=[S3_EXAMPLE])
    def put(self, request: Request, folder_id: Any) -> Response:
        folder = folder_or_404(request, folder_id)
        data = dict(ConnectorInput.validated(request.data))
        kind = data.pop("kind")
        try:
            folder = connector_set(folder=folder, kind=kind, fields=data)
        except ConnectorInvalid as exc:
            raise ValidationError(exc.fields) from exc
        except ConnectorRefused as exc:
            raise _refused(exc) from exc
        return Response(ConnectorSerializer(connector_row(request, folder, self)).data)

    @extend_schema(responses=ConnectorSerializer,
                   description="Back to the local folder; the stored credentials are dropped "
                               "(organisation admins).")
    def delete(self, request: Request, folder_id: Any) -> Response:
        folder = connector_clear(folder=folder_or_404(request, folder_id))
        return Response(ConnectorSerializer(connector_row(request, folder, self)).data)


class DriveConnectorTestApi(APIView):
    permission_classes = [IsOrgAdmin]

    @extend_schema(request=None, responses=DriveConnectionAnswerSerializer,
                   description="Test connection: list the folder, write a probe file and "
                               "remove it, with the credentials its jobs use; a drive that "
                               "refuses answers 400 with its reason (organisation admins).")
    def post(self, request: Request, folder_id: Any) -> Response:
        folder = folder_or_404(request, folder_id)
        try:
            answer = connector_test(folder=folder,
                                    client_of=lambda f: drive_client(f, quick=True))
        except ConnectorRefused as exc:
            raise _refused(exc) from exc
        return Response(DriveConnectionAnswerSerializer(answer).data)
