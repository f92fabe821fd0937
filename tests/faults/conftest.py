"""The fault scenarios' own fixtures; what they share with the load runs (the skip outside
`make faults`, the figures, ``procs``) is the plugin tests/faults/reliability.py."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture
def fake_google() -> Iterator[Any]:
    """A Google Drive v3 server on loopback (tests/support/fake_drive.py) with outages on
    demand."""
    from tests.support.fake_drive import FakeDrive

    fake = FakeDrive()
    fake.start()
    yield fake
    fake.stop()
