"""What every engine shares: its output type, its errors, the progress callback type and an
image's size.

Engines are pure: no Django, no database, no network.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class EngineOutput:
    data: bytes
    content_type: str
    filename: str


class SizedImage:
    """An image held as ``rgb`` (H x W x 3): its width and height in pixels."""

    rgb: Any

    @property
    def width(self) -> int:
        return int(self.rgb.shape[1])

    @property
    def height(self) -> int:
        return int(self.rgb.shape[0])


class EngineError(Exception):
    """A failure to tell the partner about, with a stable code and a clear message."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


# progress(percent, message=None). It raises when the job must stop (canceled, taken over).
Progress = Callable[..., None]


class Engine(Protocol):
    def __call__(self, params: dict[str, Any], progress: Progress) -> list[EngineOutput]: ...
