"""Images sent inline as base64 (canvas exports, tech pack references, model pictures):
checked, then kept in storage so that a job's input holds a reference, not megabytes."""

from __future__ import annotations

import base64
import binascii
import hashlib
from typing import Any

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from rest_framework.exceptions import ValidationError

from config.errors import PayloadTooLarge

# The spec's pages send canvas exports and photos; 20 MB of image is far beyond them.
MAX_INLINE_IMAGE_BYTES = 20 * 1024 * 1024
# The file extension a stored image keeps, by the format the engines' decoder reads it as.
EXTENSIONS = {"JPEG": "jpg", "PNG": "png", "WEBP": "webp", "GIF": "gif", "BMP": "bmp",
              "TIFF": "tiff", "HEIF": "heic", "AVIF": "avif"}


def stash_base64(*, org_id: Any, field: str, value: str) -> dict[str, str]:
    """A storage reference for a base64 image (with or without a data: prefix)."""
    text = value.strip()
    if text.startswith("data:"):
        text = text.split(",", 1)[-1]
    if len(text) * 3 // 4 > MAX_INLINE_IMAGE_BYTES:
        raise PayloadTooLarge(f"{field}: an image may be at most 20 MB.")
    try:
        data = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ValidationError({field: ["Not valid base64."]}) from exc
    from workers.engines.imaging.decode import sniff_format

    fmt = sniff_format(data)
    if fmt is None:
        raise ValidationError({field: [
            "Not an image (PNG, JPEG, WebP, GIF, BMP, TIFF, HEIC or AVIF)."]})
    kind = EXTENSIONS[fmt]
    # Named by content, so the same request sent again (a retry with its Idempotency-Key)
    # refers to the same file and is recognised as the same request.
    name = f"uploads/{org_id}/{hashlib.sha256(data).hexdigest()}.{kind}"
    if not default_storage.exists(name):
        name = default_storage.save(name, ContentFile(data))
    return {"storage": name}
