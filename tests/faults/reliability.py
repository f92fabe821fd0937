"""The reliability suite (tests/faults and tests/load) as a pytest plugin, registered once by
tests/conftest.py: it runs by `make faults` (deploy/local/faults.sh sets ATELIER_FAULTS=1),
not by `make test`, since it stops Redis and PostgreSQL and runs for minutes."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.faults.harness import Gunicorn, print_summary

SUITE = (Path(__file__).resolve().parent, Path(__file__).resolve().parents[1] / "load")


def pytest_collection_modifyitems(config: Any, items: list[Any]) -> None:
    if os.environ.get("ATELIER_FAULTS"):
        return
    skip = pytest.mark.skip(reason="reliability suite: run it with `make faults`")
    for item in items:
        if any(folder in Path(str(item.path)).resolve().parents for folder in SUITE):
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
