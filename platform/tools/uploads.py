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
MAGIC = ((b"\x89PNG\r\n\x1a\n", "png"), (b"\xff\xd8\xff", "jpg"), (b"GIF8", "gif"),
         (b"BM", "bmp"), (b"RIFF", "webp"))


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
    kind = next((ext for magic, ext in MAGIC if data.startswith(magic)), None)
    if kind is None or (kind == "webp" and data[8:12] != b"WEBP"):
        raise ValidationError({field: ["Not an image (PNG, JPEG, WebP, GIF or BMP)."]})
    # Named by content, so the same request sent again (a retry with its Idempotency-Key)
    # refers to the same file and is recognised as the same request.
    name = f"uploads/{org_id}/{hashlib.sha256(data).hexdigest()}.{kind}"
    if not default_storage.exists(name):
        name = default_storage.save(name, ContentFile(data))
    return {"storage": name}
