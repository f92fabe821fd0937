"""The reliability suite runs by `make faults` (deploy/local/faults.sh sets ATELIER_FAULTS=1),
not by `make test`: it stops Redis and PostgreSQL and runs for minutes."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.faults.harness import Gunicorn, print_summary

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config: Any, items: list[Any]) -> None:
    if os.environ.get("ATELIER_FAULTS"):
        return
    skip = pytest.mark.skip(reason="reliability suite: run it with `make faults`")
    for item in items:
        if HERE in Path(str(item.path)).resolve().parents:
            item.add_marker(skip)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    print_summary(terminalreporter)


@pytest.fixture
def procs(django_db_setup: Any) -> Iterator[list[Any]]:
    """Processes a scenario started; all are killed at its end, whatever happened."""
    started: list[Any] = []
    yield started
    for proc in reversed(started):
        try:
            if isinstance(proc, Gunicorn):
                proc.stop()
            else:
                proc.kill()
        except Exception:  # noqa: BLE001 - best effort, keep stopping the others
            pass


@pytest.fixture
def fake_google() -> Iterator[Any]:
    """A Google Drive v3 server on loopback (tests/support/fake_drive.py) with outages on
    demand."""
    from tests.support.fake_drive import FakeDrive

    fake = FakeDrive()
    fake.start()
    yield fake
    fake.stop()
