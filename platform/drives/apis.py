from __future__ import annotations

import mimetypes
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from django.conf import settings
from django.core.exceptions import TooManyFieldsSent, TooManyFilesSent
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, PolymorphicProxySerializer, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.parsers import MultiPartParser
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import request_org
from config.errors import ServiceUnavailable, error_body, first_message
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


def _client(folder: DriveFolder) -> Any:
    """The folder's client; one that cannot be made (an admin's credentials no secret can
    read any more) is the drive's failure too."""
    return _drive_call(drive_client, folder)


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
             # Our drive page, which lists any folder through its client and holds its
             # connector; a folder staff gave a web address links there instead.
             "url": f.web_url if f.kind != DriveKind.LOCAL and f.web_url else f"/drives/{f.pk}"}
            for f in drive_folders_ensure(org=request_org(request))
        ]
        return Response(self.OutputSerializer(rows, many=True).data)


# Bulk upload limits per request (settings of the same names override them). A file's own
# limit is DRIVE_UPLOAD_MAX_BYTES; a zip counts by what it expands to.
DRIVE_UPLOAD_MAX_FILES = 200
DRIVE_UPLOAD_MAX_TOTAL_BYTES = 200 * 1024 * 1024
# A zip entry that expands more than this many times its compressed size is refused (a zip
# bomb); small entries (under a megabyte) are let through whatever their ratio.
DRIVE_ZIP_MAX_RATIO = 100
ZIP_TYPES = ("application/zip", "application/x-zip-compressed", "application/x-zip")


class SkippedFileSerializer(serializers.Serializer):
    name = serializers.CharField()
    reason = serializers.CharField()


class DriveBulkUploadSerializer(serializers.Serializer):
    uploaded = DriveFileSerializer(many=True)
    skipped = SkippedFileSerializer(many=True)


class DriveUploadErrorSerializer(serializers.Serializer):
    error = serializers.CharField()
    message = serializers.CharField()
    fields = serializers.DictField()  # type: ignore[assignment]
    uploaded = DriveFileSerializer(many=True, required=False)
    skipped = SkippedFileSerializer(many=True, required=False)


@dataclass
class _Candidate:
    name: str
    content_type: str
    read: Any  # () -> bytes


class _Limits:
    def __init__(self) -> None:
        self.file_bytes = settings.DRIVE_UPLOAD_MAX_BYTES
        self.files = getattr(settings, "DRIVE_UPLOAD_MAX_FILES", DRIVE_UPLOAD_MAX_FILES)
        self.total_bytes = getattr(settings, "DRIVE_UPLOAD_MAX_TOTAL_BYTES",
                                   DRIVE_UPLOAD_MAX_TOTAL_BYTES)
        self.ratio = getattr(settings, "DRIVE_ZIP_MAX_RATIO", DRIVE_ZIP_MAX_RATIO)

    def mb(self, value: int) -> str:
        return f"{value // (1024 * 1024)} MB" if value >= 1024 * 1024 else f"{value} bytes"


def _is_zip(upload: Any) -> bool:
    return (str(upload.name or "").lower().endswith(".zip")
            or (upload.content_type or "").lower() in ZIP_TYPES)


def _zip_members(upload: Any, limits: _Limits,
                 skipped: list[dict[str, str]]) -> Iterator[_Candidate]:
    """The images of a zip, flattened to their base names; everything else in ``skipped``.
    Nothing is trusted from the archive: names lose their folders (no path leaves the drive
    folder), sizes are checked against the header and again while reading."""
    label = str(upload.name or "upload.zip")
    try:
        archive = zipfile.ZipFile(upload)
        members = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError):
        skipped.append({"name": label, "reason": "This is not a readable zip file."})
        return
    with archive:
        for info in members:
            if info.is_dir():
                continue
            path = info.filename.replace("\\", "/")
            name = PurePosixPath(path).name
            where = f"{label}/{path}"
            if path.startswith("__MACOSX/") or name.startswith("._") or name in (".DS_Store",):
                skipped.append({"name": where, "reason": "Operating-system metadata, not an "
                                                         "image."})
                continue
            if not name.lower().endswith(IMAGE_EXTENSIONS):
                skipped.append({"name": where, "reason": "Not an image (only "
                                + ", ".join(IMAGE_EXTENSIONS) + " are taken from a zip)."})
                continue
            if info.flag_bits & 0x1:
                skipped.append({"name": where, "reason": "Encrypted zip entries are not read."})
                continue
            if info.file_size > limits.file_bytes:
                skipped.append({"name": where, "reason":
                                f"A file may be at most {limits.mb(limits.file_bytes)}."})
                continue
            if (info.file_size > 1024 * 1024
                    and info.file_size > limits.ratio * max(info.compress_size, 1)):
                skipped.append({"name": where, "reason": "Compressed beyond any image's ratio "
                                                         "(a zip bomb?); refused."})
                continue
            yield _Candidate(name=name, content_type=mimetypes.guess_type(name)[0]
                             or "application/octet-stream",
                             read=_member_reader(archive, info, limits.file_bytes))


def _member_reader(archive: zipfile.ZipFile, info: zipfile.ZipInfo, limit: int) -> Any:
    def read() -> bytes:
        with archive.open(info) as handle:
            data = handle.read(limit + 1)
        if len(data) > limit:  # the header understated the size
            raise _Refused("Expands beyond its declared size; refused.")
        return data
    return read


class _Refused(Exception):
    pass


class DriveFilesApi(APIView):
    """The files of a drive folder. POST takes one file (`file`, answered with the file as
    before), or many (`file` repeated, or `files`) and zips (each image inside becomes a file),
    answered with what was uploaded and what was skipped, and why."""

    parser_classes = [MultiPartParser]

    @extend_schema(responses=DriveFileSerializer(many=True))
    def get(self, request: Request, folder_id: Any) -> Response:
        folder = folder_or_404(request, folder_id)
        client = _client(folder)
        files = _drive_call(lambda: list(client.list(folder_locator(folder))))
        files.sort(key=lambda f: f.name.lower())
        return Response(DriveFileSerializer(file_rows(request, folder, files), many=True).data)

    @extend_schema(
        description=(
            "Upload into the folder. One file in `file` answers 201 with that file. Several "
            "files (`file` repeated, or `files`), or a `.zip` (each image inside becomes a "
            "file, folders flattened, anything else skipped), answer 201 with `{uploaded, "
            "skipped: [{name, reason}]}`; when nothing could be taken, 400 with the error "
            f"envelope and the same lists. Limits per request: {DRIVE_UPLOAD_MAX_FILES} files "
            f"and {DRIVE_UPLOAD_MAX_TOTAL_BYTES // (1024 * 1024)} MB (zips counted expanded), "
            "each file at most DRIVE_UPLOAD_MAX_BYTES (25 MB by default), and the request "
            "body at most MAX_UPLOAD_BODY_BYTES. A file of an existing name replaces it."),
        request={"multipart/form-data": {"type": "object", "properties": {
            "file": {"type": "array", "items": {"type": "string", "format": "binary"},
                     "description": "One file, or the field repeated for several."},
            "files": {"type": "array", "items": {"type": "string", "format": "binary"},
                      "description": "Several files (or zips)."}}}},
        responses={
            201: PolymorphicProxySerializer(
                component_name="DriveUploadResult",
                serializers=[DriveFileSerializer, DriveBulkUploadSerializer],
                resource_type_field_name=None),
            400: DriveUploadErrorSerializer,
        },
        examples=[OpenApiExample("Bulk upload", response_only=True, status_codes=["201"],
                                 value={"uploaded": [{
                                     "id": "polo.jpg", "name": "polo.jpg", "size": 48213,
                                     "content_type": "image/jpeg",
                                     "modified_at": "2026-11-24T10:00:00Z",
                                     "url": "https://atelier.example/api/drives/files/…"}],
                                     "skipped": [{"name": "looks.zip/notes.txt",
                                                  "reason": "Not an image."}]})],
    )
    def post(self, request: Request, folder_id: Any) -> Response:
        folder = folder_or_404(request, folder_id)
        try:
            uploads = [*request.FILES.getlist("file"), *request.FILES.getlist("files")]
        except (TooManyFilesSent, TooManyFieldsSent) as exc:
            limit = settings.DATA_UPLOAD_MAX_NUMBER_FILES
            raise ValidationError({"files": [
                f"At most {limit} files per request; send more in a zip, or in several "
                "requests."]}) from exc
        if not uploads:
            raise ValidationError({"file": ["Send the file in the multipart field 'file'."]})
        if len(uploads) == 1 and "file" in request.FILES and not _is_zip(uploads[0]):
            return self._one(request, folder, uploads[0])
        return self._many(request, folder, uploads)

    def _one(self, request: Request, folder: DriveFolder, upload: Any) -> Response:
        if upload.size is None or upload.size > settings.DRIVE_UPLOAD_MAX_BYTES:
            limit = settings.DRIVE_UPLOAD_MAX_BYTES // (1024 * 1024)
            raise ValidationError({"file": [f"A file may be at most {limit} MB."]})
        client = _client(folder)
        written = _drive_call(client.write, folder_locator(folder), upload.name or "upload",
                              upload.read(), upload.content_type or "application/octet-stream")
        row = file_rows(request, folder, [written])[0]
        return Response(DriveFileSerializer(row).data, status=status.HTTP_201_CREATED)

    def _many(self, request: Request, folder: DriveFolder, uploads: list[Any]) -> Response:
        from drivesync.errors import DriveRefused

        limits = _Limits()
        skipped: list[dict[str, str]] = []
        written: list[Any] = []
        names: set[str] = set()
        total = 0
        client = _client(folder)
        locator = folder_locator(folder)
        for candidate in self._candidates(uploads, limits, skipped):
            if len(written) >= limits.files:
                skipped.append({"name": candidate.name, "reason":
                                f"Over the limit of {limits.files} files per request."})
                continue
            if candidate.name.lower() in names:
                skipped.append({"name": candidate.name, "reason": "A file of the same name "
                                "came earlier in this request."})
                continue
            try:
                data = candidate.read()
            except _Refused as exc:
                skipped.append({"name": candidate.name, "reason": str(exc)})
                continue
            except (zipfile.BadZipFile, OSError, EOFError, ValueError,
                    NotImplementedError, RuntimeError):
                skipped.append({"name": candidate.name, "reason": "Could not be read from "
                                                                 "the zip."})
                continue
            if total + len(data) > limits.total_bytes:
                skipped.append({"name": candidate.name, "reason": "Over the limit of "
                                f"{limits.mb(limits.total_bytes)} per request."})
                continue
            try:
                written.append(_drive_call(client.write, locator, candidate.name, data,
                                           candidate.content_type))
            except ValidationError as exc:  # the drive refused the name
                skipped.append({"name": candidate.name,
                                "reason": first_message(exc.detail) or "Refused."})
                continue
            except DriveRefused as exc:  # pragma: no cover - _drive_call turns it into a 400
                skipped.append({"name": candidate.name, "reason": str(exc)})
                continue
            names.add(candidate.name.lower())
            total += len(data)
        body = {"uploaded": file_rows(request, folder, written), "skipped": skipped}
        if not written:
            reasons = [f"{s['name']}: {s['reason']}" for s in skipped] or ["No file to take."]
            return Response(error_body("invalid", f"Nothing was uploaded. {reasons[0]}",
                                       {"files": reasons}) | {
                "uploaded": [], "skipped": skipped}, status=status.HTTP_400_BAD_REQUEST)
        return Response(DriveBulkUploadSerializer(body).data, status=status.HTTP_201_CREATED)

    @staticmethod
    def _candidates(uploads: list[Any], limits: _Limits,
                    skipped: list[dict[str, str]]) -> Iterator[_Candidate]:
        for upload in uploads:
            name = str(upload.name or "upload")
            if _is_zip(upload):
                yield from _zip_members(upload, limits, skipped)
                continue
            if upload.size is None or upload.size > limits.file_bytes:
                skipped.append({"name": name, "reason":
                                f"A file may be at most {limits.mb(limits.file_bytes)}."})
                continue
            yield _Candidate(name=name, content_type=upload.content_type
                             or "application/octet-stream", read=upload.read)


class DriveFileApi(APIView):
    @extend_schema(responses={204: None})
    def delete(self, request: Request, folder_id: Any, file_id: str) -> Response:
        folder = folder_or_404(request, folder_id)
        _drive_call(_client(folder).delete, folder_locator(folder), file_id)
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
        client = _client(folder)
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
        client = _client(folder)
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
