"""Where a spec call's field names differ from its engine's parameters."""

from __future__ import annotations

from typing import Any

from workers.engines.base import EngineOutput, Progress


def editorial_analyze(params: dict[str, Any], progress: Progress) -> list[EngineOutput]:
    from workers.engines.editorial.analyze import run

    return run({**params, "fields": "editorial"}, progress)


def tonelab_analyze(params: dict[str, Any], progress: Progress) -> list[EngineOutput]:
    from workers.engines.editorial.analyze import run

    return run({**params, "fields": "tonelab"}, progress)


def techpack_process(params: dict[str, Any], progress: Progress) -> list[EngineOutput]:
    from workers.engines.techpack import process_run

    return process_run({**params, "description_markdown": params.get("tech_pack", "")},
                       progress)
