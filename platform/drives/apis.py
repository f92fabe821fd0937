from __future__ import annotations

import mimetypes
from typing import Any

from django.conf import settings
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.parsers import MultiPartParser
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import request_org
from config.errors import ServiceUnavailable
from drives.models import DriveFolder, DriveKind, DriveRole
from drives.services import (
    IMAGE_EXTENSIONS,
    drive_client,
    drive_file_from_token,
    drive_file_signed_path,
    drive_folders_ensure,
    folder_locator,
)

LABELS = {DriveRole.INPUT: "Input Drive", DriveRole.OUTPUT: "Output Drive"}


def folder_or_404(request: Request, folder_id: Any) -> DriveFolder:
    folder = DriveFolder.objects.filter(organization=request_org(request), pk=folder_id).first()
    if folder is None:
        raise NotFound("No such drive folder.")
    return folder


def _drive_call(call: Any, *args: Any, **kwargs: Any) -> Any:
    """A drive call whose failure is the drive's, not the client's: 404 or 503, never 500."""
    from drivesync.errors import DriveError, DriveNotFound, DriveRefused

    try:
        return call(*args, **kwargs)
    except DriveNotFound as exc:
        raise NotFound(str(exc) or "No such file.") from exc
    except DriveRefused as exc:
        raise ValidationError({"file": [str(exc)]}) from exc
    except DriveError as exc:
        raise ServiceUnavailable(f"The drive is not answering: {exc}") from exc


class DriveFileSerializer(serializers.Serializer):
    id = serializers.CharField()
    name = serializers.CharField()
    size = serializers.IntegerField()
    content_type = serializers.CharField()
    modified_at = serializers.DateTimeField()
    url = serializers.CharField()


def file_rows(request: Request, folder: DriveFolder, files: Any) -> list[dict[str, Any]]:
    return [
        {"id": f.id, "name": f.name, "size": f.size, "content_type": f.content_type,
         "modified_at": f.modified_at,
         "url": request.build_absolute_uri(
             drive_file_signed_path(folder=folder, file_id=f.id, name=f.name))}
        for f in files
    ]


class DriveListApi(APIView):
    class OutputSerializer(serializers.Serializer):
        tool = serializers.CharField()
        role = serializers.CharField()
        category = serializers.CharField(allow_null=True)
        label = serializers.CharField()  # type: ignore[assignment]
        folder = serializers.UUIDField()
        kind = serializers.CharField()
        url = serializers.CharField()

    @extend_schema(responses=OutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        rows = [
            {"tool": f.tool, "role": f.role, "category": f.category or None,
             "label": f.category.upper() if f.category else LABELS[DriveRole(f.role)],
             "folder": f.pk, "kind": f.kind,
             "url": f"/drives/{f.pk}" if f.kind == DriveKind.LOCAL else f.web_url}
            for f in drive_folders_ensure(org=request_org(request))
        ]
        return Response(self.OutputSerializer(rows, many=True).data)


class DriveFilesApi(APIView):
    parser_classes = [MultiPartParser]

    @extend_schema(responses=DriveFileSerializer(many=True))
    def get(self, request: Request, folder_id: Any) -> Response:
        folder = folder_or_404(request, folder_id)
        client = drive_client(folder)
        files = _drive_call(lambda: list(client.list(folder_locator(folder))))
        files.sort(key=lambda f: f.name.lower())
        return Response(DriveFileSerializer(file_rows(request, folder, files), many=True).data)

    @extend_schema(request={"multipart/form-data": {"type": "object", "properties": {
        "file": {"type": "string", "format": "binary"}}}},
        responses={201: DriveFileSerializer})
    def post(self, request: Request, folder_id: Any) -> Response:
        folder = folder_or_404(request, folder_id)
        upload = request.FILES.get("file")
        if upload is None:
            raise ValidationError({"file": ["Send the file in the multipart field 'file'."]})
        if upload.size is None or upload.size > settings.DRIVE_UPLOAD_MAX_BYTES:
            limit = settings.DRIVE_UPLOAD_MAX_BYTES // (1024 * 1024)
            raise ValidationError({"file": [f"A file may be at most {limit} MB."]})
        client = drive_client(folder)
        written = _drive_call(client.write, folder_locator(folder), upload.name or "upload",
                              upload.read(), upload.content_type or "application/octet-stream")
        row = file_rows(request, folder, [written])[0]
        return Response(DriveFileSerializer(row).data, status=status.HTTP_201_CREATED)


class DriveFileApi(APIView):
    @extend_schema(responses={204: None})
    def delete(self, request: Request, folder_id: Any, file_id: str) -> Response:
        folder = folder_or_404(request, folder_id)
        _drive_call(drive_client(folder).delete, folder_locator(folder), file_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class DriveSignedFileApi(APIView):
    """A drive file through a signed, expiring link (Get URLs): the link is the permission,
    so workers and the partner's browser can open it."""

    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]

    @extend_schema(responses={(200, "application/octet-stream"): OpenApiTypes.BINARY})
    def get(self, request: Request, token: str, name: str = "") -> HttpResponse:
        found = drive_file_from_token(token)
        if found is None:
            raise NotFound("This link is not valid or has expired.")
        folder, file_id = found
        client = drive_client(folder)
        data = _drive_call(client.read, folder_locator(folder), file_id)
        content_type = mimetypes.guess_type(file_id)[0] or "application/octet-stream"
        resp = HttpResponse(data, content_type=content_type)
        resp["Cache-Control"] = "private, max-age=300"
        return resp


class ToolInputUrlsApi(APIView):
    """GET /api/<tool>/urls: the images of the tool's input folder as [{img_url}]."""

    tool: str
    urls_limit: int | None = None

    class OutputSerializer(serializers.Serializer):
        img_url = serializers.CharField()

    @extend_schema(responses=OutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        drive_folders_ensure(org=request_org(request))
        folder = DriveFolder.objects.get(organization=request_org(request), tool=self.tool,
                                         role=DriveRole.INPUT, category="")
        client = drive_client(folder)
        files = _drive_call(lambda: list(client.list(folder_locator(folder))))
        images = sorted((f for f in files if f.name.lower().endswith(IMAGE_EXTENSIONS)),
                        key=lambda f: f.name.lower())
        limit = self.urls_limit
        rows = [{"img_url": r["url"]} for r in file_rows(request, folder, images[:limit])]
        return Response(self.OutputSerializer(rows, many=True).data)


def urls_view(tool_slug: str, limit: int | None = None) -> Any:
    class Api(ToolInputUrlsApi):
        tool = tool_slug
        urls_limit = limit

    Api.__name__ = Api.__qualname__ = f"{tool_slug.title()}UrlsApi"
    return Api.as_view()
