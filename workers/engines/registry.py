"""Engine names (as the tool registry declares them) to engine functions."""

from __future__ import annotations

from workers.engines import diagnostics
from workers.engines.base import Engine

ENGINES: dict[str, Engine] = {
    "diagnostics.sleep": diagnostics.sleep,
}
