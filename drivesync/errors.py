"""Errors every drive client raises, whatever the backend underneath.

The sync service decides what to do from the class alone:

- ``DriveQuotaExceeded``: stop the batch and tell the organisation; retrying cannot help.
- ``DriveUnavailable``: transient, and the client's own retries already ran out; the task may
  retry later (``retry_after`` says when, if the server said).
- ``DriveNotFound`` / ``DriveRefused``: the request itself is wrong (a file gone, a bad name,
  no permission); retrying the same request gives the same answer.
"""

from __future__ import annotations

from typing import TypedDict, Unpack


class _Where(TypedDict, total=False):
    """Where an error came from: what ``DriveError`` takes besides its message."""

    code: str | None
    backend: str | None
    status: int | None


class DriveError(Exception):
    """Base of every drive error. ``code`` is a stable machine-readable string."""

    default_code = "drive_error"
    retryable = False

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        backend: str | None = None,
        status: int | None = None,
    ) -> None:
        self.code = code or self.default_code
        self.backend = backend
        self.status = status
        self.message = message
        super().__init__(message)

    def __str__(self) -> str:
        where = f"{self.backend}: " if self.backend else ""
        status = f", HTTP {self.status}" if self.status else ""
        return f"{where}{self.message} [{self.code}{status}]"


class DriveNotFound(DriveError):
    """The folder or file does not exist (or is not visible to these credentials)."""

    default_code = "not_found"


class DriveQuotaExceeded(DriveError):
    """A storage or daily quota is exhausted. Never retried: stop the batch."""

    default_code = "quota_exceeded"


class DriveUnavailable(DriveError):
    """A transient failure (rate limit, 5xx, dropped connection) outlasted the retries."""

    default_code = "unavailable"
    retryable = True

    def __init__(self, message: str, *, attempts: int = 0, retry_after: float | None = None,
                 **where: Unpack[_Where]) -> None:
        super().__init__(message, **where)
        self.attempts = attempts
        self.retry_after = retry_after


class DriveRefused(DriveError):
    """The request cannot succeed as made: a bad name, no permission, a malformed locator."""

    default_code = "refused"
