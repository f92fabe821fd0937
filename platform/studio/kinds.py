"""The provider kinds an organisation can connect, and which tools each can run.

Which tools a kind runs is declared by the tools themselves (``ToolSpec.providers``) and by
the adapters (workers.providers.catalog, per engine); an account serves a tool only where both
agree. The kinds' documented API roots are the adapters' too.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import models

from workers.providers.catalog import DEFAULT_BASE_URL, provider_supports


class ProviderKind(models.TextChoices):
    FASHN = "fashn", "FASHN"
    FAL = "fal", "fal"
    VERTEX = "vertex", "Vertex AI"
    REPLICATE = "replicate", "Replicate"
    OPENAI = "openai", "OpenAI-compatible"


@dataclass(frozen=True)
class KindInfo:
    # How the connection test presents the key when the adapters offer no check of their own.
    auth_scheme: str
    # A cheap authenticated GET below the base URL ("" for the base URL itself).
    probe_path: str = ""


# docs/providers/<kind>.md: fal takes "Key <key>"; Vertex AI a service account's JSON key,
# exchanged for an access token.
KIND_INFO: dict[str, KindInfo] = {
    ProviderKind.FASHN: KindInfo("Bearer"),
    ProviderKind.FAL: KindInfo("Key"),
    ProviderKind.VERTEX: KindInfo("Bearer"),
    ProviderKind.REPLICATE: KindInfo("Bearer", "/account"),
    ProviderKind.OPENAI: KindInfo("Bearer", "/models"),
}
# Vertex AI answers per region; an account that names none uses the adapters' default.
VERTEX_DEFAULT_LOCATION = "us-central1"


def default_base_url(kind: str) -> str:
    return DEFAULT_BASE_URL[kind].format(location=VERTEX_DEFAULT_LOCATION)


def tool_catalogue() -> dict[str, object]:
    from tools.registry import TOOLS

    return dict(TOOLS)


def _runs(kind: str, tool: object) -> bool:
    engine = getattr(tool, "engine", None)
    return (kind in (getattr(tool, "providers", None) or ()) and bool(engine)
            and provider_supports(kind, str(engine)))


def kind_tools(kind: str) -> list[str]:
    """The slugs of the tools a provider kind can run, in catalogue order."""
    return [slug for slug, tool in tool_catalogue().items() if _runs(kind, tool)]


def kind_serves(kind: str, tool_slug: str) -> bool:
    tool = tool_catalogue().get(tool_slug)
    return tool is not None and _runs(kind, tool)
