"""Provider kinds, which tools (engine names) each can run, and their documented API roots.

Plain data, no imports of the adapters, of config or of select: both workers.providers.config
(which checks an entry) and workers.providers.select (which builds the engine) read it, so
neither imports the other. An adapter module checks on import that its own tool table matches
what is declared here (tests/providers/test_select.py does too).
"""

from __future__ import annotations

# "tryon" is the name ENGINE_PROVIDERS used before the kinds were split: FASHN's protocol.
ALIASES = {"tryon": "fashn"}

TRYON_FAMILY = frozenset({"virtual_try_on", "restyle", "garment_integration"})

OPENAI_ENGINES = frozenset({
    "editorial_generate", "tonelab_generate", "open_lab", "editorial_product", "recolor",
    "refabric", "reshape", "rebody", "virtual_try_on", "restyle", "garment_integration",
    "ecommerce_asset",
})

KIND_ENGINES: dict[str, frozenset[str]] = {
    "fashn": TRYON_FAMILY | {"flats", "remodel"},
    "fal": TRYON_FAMILY,
    "vertex": TRYON_FAMILY,
    "replicate": TRYON_FAMILY,
    "openai": OPENAI_ENGINES,
}

# The documented API root of each kind, used when an entry gives no base_url.
DEFAULT_BASE_URL = {
    "fashn": "https://api.fashn.ai/v1",
    "fal": "https://queue.fal.run",
    "vertex": "https://{location}-aiplatform.googleapis.com/v1",
    "replicate": "https://api.replicate.com/v1",
    "openai": "https://api.openai.com/v1",
}

PROVIDERS = ("local", *KIND_ENGINES, *ALIASES)


def canonical_kind(provider: str) -> str:
    """The kind a provider name stands for ("tryon" → "fashn")."""
    return ALIASES.get(provider, provider)


def provider_supports(provider: str, engine: str) -> bool:
    """Whether a provider can run the tool with that engine name."""
    if provider == "local":
        return True
    return engine in KIND_ENGINES.get(canonical_kind(provider), frozenset())
