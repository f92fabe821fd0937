"""The load runs belong to the reliability suite: run by `make faults` (ATELIER_FAULTS=1),
not by `make test`: they take minutes."""

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
