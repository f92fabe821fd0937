"""What a drive sync hands a tool's grouper: the files found in its input folders, and the
groups (one job each) a grouper makes of them. Tools' spec modules import this; it imports
no service, so a spec never pulls the sync in."""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from typing import Any

from accounts.models import Organization
from drives.models import DriveFolder
from tools.models import LibraryModel

# A product's view: "<code>_<view>" or "<code>-<view>" (a number or a short word).
PRODUCT_VIEW = re.compile(r"^(?P<code>.+?)[_-](?P<view>[0-9]{1,3}|[a-z]{1,6})$", re.IGNORECASE)


class SyncRefused(Exception):
    """Nothing can be synced (no library model, an unknown model id...): a 400 for the page."""


@dataclass(frozen=True)
class Found:
    folder: DriveFolder
    file: Any  # drivesync.base.DriveFile

    @property
    def stem(self) -> str:
        return posixpath.splitext(self.file.name)[0]

    def ref(self) -> dict[str, Any]:
        return {"drive": {"folder": str(self.folder.pk), "file": self.file.id}}


@dataclass
class Group:
    payload: dict[str, Any]
    sources: dict[str, Any]
    files: list[Found]


def product_code(stem: str) -> str:
    """The product a file shows, from its name without the view."""
    match = PRODUCT_VIEW.match(stem)
    return match.group("code") if match else stem


def library_model(org: Organization, code: str | None = None) -> LibraryModel:
    models = LibraryModel.objects.filter(organization=org)
    model = models.filter(code=code).first() if code else models.first()
    if model is None:
        raise SyncRefused(f"No model '{code}' in your model library." if code else
                          "Your model library is empty: ask Atelier to add your models.")
    return model


def storage_ref(model: LibraryModel) -> dict[str, Any]:
    return {"storage": model.photo.name}
