"""Provider configuration: plain dataclasses parsed from the ENGINE_PROVIDERS JSON.

No Django and no network here: settings call ``providers_parse`` at start-up so a bad entry
stops the process with a clear message instead of failing jobs one by one later.

ENGINE_PROVIDERS maps a tool's engine name (as workers.engines.registry names it) to its
provider, e.g.::

    {"editorial_generate": {"provider": "openai", "base_url": "http://127.0.0.1:9999/v1",
                            "api_key": "...", "model": "gpt-image-1", "fallback_local": true},
     "virtual_try_on": {"provider": "tryon", "base_url": "https://api.fashn.ai/v1",
                        "api_key_env": "FASHN_API_KEY", "fallback_local": false}}

Keys per entry (all but provider and base_url optional):

- provider: the kind of service (workers.providers.catalog, docs/providers/<kind>.md):
  "fashn" (FASHN API; "tryon" is its older name), "fal" (fal queue API), "vertex" (Vertex AI
  virtual try-on), "replicate" (Replicate predictions), "openai" (OpenAI-compatible image API),
  or "local" (the local engine, the default for engines not listed).
- base_url: the API root, e.g. "https://api.openai.com/v1" (no trailing path beyond it);
  when left out, the kind's documented root (catalog.DEFAULT_BASE_URL).
- api_key, or api_key_env: the name of an environment variable holding it. For vertex: the
  service account's JSON key (or give it as service_account).
- model: the provider's model id (fashn: model_name, default per tool; fal: the endpoint id,
  e.g. "fal-ai/leffa/virtual-tryon"; vertex: e.g. "virtual-try-on-preview-08-04"; replicate:
  "owner/name" or "owner/name:version"; openai: sent as "model").
- service_account, project, location (vertex): the service account JSON (text), the Google
  Cloud project (default: the service account's project_id) and region (default: from the
  base_url's host, else us-central1).
- fallback_local: on a provider failure, run the local engine instead of failing the job.
- size (openai, default "1024x1024"), n (openai, default per tool), quality (openai, optional),
  response_format (openai: "auto" sends "b64_json" except to gpt-image models, which reject the
  field; "" never sends it; any other value is sent as is), image_field (openai edits'
  multipart name for the input images, default "image[]").
- category (tryon: default "auto"; a job's own "category" parameter wins when it is one of
  tops, bottoms, one-pieces, auto).
- options: extra JSON fields merged into every request body (e.g. {"mode": "quality"}).
- timeout: seconds for one HTTP request (default 120); deadline: seconds for the whole call,
  retries and polling included (default 180: under the interactive queue's 240 s soft limit);
  poll_interval (tryon, default 2); max_retries: retries after HTTP 429 (default 3), each
  waiting Retry-After or an exponential backoff from backoff seconds (default 1), capped at
  backoff_max (default 20).
- fetch_allow: hosts or CIDR networks exempt from the address checks when fetching output
  URLs (a self-hosted server on a private network); settings add OUTBOUND_ALLOW.
- proxy: an HTTP(S) proxy URL for the provider calls (the environment's proxies are ignored).
- max_bytes: cap on one provider response or output image (default 64 MB).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any
from urllib.parse import urlsplit

from workers.providers.catalog import DEFAULT_BASE_URL, PROVIDERS, canonical_kind, provider_supports

TRYON_CATEGORIES = ("auto", "tops", "bottoms", "one-pieces")


class ProviderConfigError(ValueError):
    """ENGINE_PROVIDERS holds an entry that cannot work."""


@dataclass(frozen=True)
class ProviderConfig:
    provider: str
    base_url: str = ""
    api_key: str = field(default="", repr=False)  # never in reprs, logs or debug pages
    model: str = ""
    fallback_local: bool = False
    size: str = "1024x1024"
    n: int | None = None
    quality: str = ""
    response_format: str = "auto"
    image_field: str = "image[]"
    category: str = "auto"
    options: Mapping[str, Any] = field(default_factory=dict)
    timeout: float = 120.0
    deadline: float = 180.0
    poll_interval: float = 2.0
    max_retries: int = 3
    backoff: float = 1.0
    backoff_max: float = 20.0
    fetch_allow: tuple[str, ...] = ()
    proxy: str = ""
    max_bytes: int = 64 * 1024 * 1024
    service_account: str = field(default="", repr=False)  # vertex: the JSON key, as text
    project: str = ""
    location: str = ""

    @property
    def root(self) -> str:
        return self.base_url.rstrip("/")

    @property
    def kind(self) -> str:
        """The provider's canonical kind ("tryon" is read as "fashn")."""
        return canonical_kind(self.provider)


_FIELDS = {f.name for f in fields(ProviderConfig)}


def provider_config(
    engine: str,
    entry: Mapping[str, Any] | ProviderConfig,
    *,
    fetch_allow: Iterable[str] = (),
    environ: Mapping[str, str] | None = None,
) -> ProviderConfig:
    """One entry of ENGINE_PROVIDERS as a checked ProviderConfig."""
    if isinstance(entry, ProviderConfig):
        config = entry
    else:
        if not isinstance(entry, Mapping):
            raise ProviderConfigError(f"ENGINE_PROVIDERS[{engine!r}] must be an object.")
        data = dict(entry)
        key_env = data.pop("api_key_env", None)
        if key_env:
            env = os.environ if environ is None else environ
            if not env.get(str(key_env)):
                raise ProviderConfigError(
                    f"ENGINE_PROVIDERS[{engine!r}]: the environment variable {key_env} "
                    "holding its API key is not set.")
            data.setdefault("api_key", env[str(key_env)])
        unknown = sorted(set(data) - _FIELDS)
        if unknown:
            raise ProviderConfigError(
                f"ENGINE_PROVIDERS[{engine!r}]: unknown keys {', '.join(unknown)}.")
        if "provider" not in data:
            raise ProviderConfigError(f"ENGINE_PROVIDERS[{engine!r}]: provider is missing.")
        if "fetch_allow" in data:
            allow = data["fetch_allow"]
            data["fetch_allow"] = tuple([allow] if isinstance(allow, str) else allow)
        if isinstance(data.get("service_account"), Mapping):
            data["service_account"] = json.dumps(data["service_account"])
        if "options" in data and not isinstance(data["options"], Mapping):
            raise ProviderConfigError(f"ENGINE_PROVIDERS[{engine!r}]: options must be an object.")
        try:
            config = ProviderConfig(**data)
        except TypeError as exc:
            raise ProviderConfigError(f"ENGINE_PROVIDERS[{engine!r}]: {exc}") from exc
    if not config.base_url and config.kind in DEFAULT_BASE_URL:
        location = config.location or "us-central1"
        config = replace(config, base_url=DEFAULT_BASE_URL[config.kind].format(location=location))
    extra = tuple(a for a in fetch_allow if a not in config.fetch_allow)
    if extra:
        config = replace(config, fetch_allow=config.fetch_allow + extra)
    _check(engine, config)
    return config


def _check(engine: str, c: ProviderConfig) -> None:
    where = f"ENGINE_PROVIDERS[{engine!r}]"
    if c.provider not in PROVIDERS:
        raise ProviderConfigError(
            f"{where}: unknown provider {c.provider!r} (use one of {', '.join(PROVIDERS)}).")
    if c.provider == "local":
        return
    parts = urlsplit(c.base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ProviderConfigError(f"{where}: base_url must be an http(s) URL.")
    for name in ("timeout", "deadline", "poll_interval", "backoff", "backoff_max"):
        if not float(getattr(c, name)) > 0:
            raise ProviderConfigError(f"{where}: {name} must be positive.")
    if int(c.max_retries) < 0 or int(c.max_bytes) <= 0:
        raise ProviderConfigError(f"{where}: max_retries and max_bytes must be positive.")
    if c.n is not None and not 1 <= int(c.n) <= 10:
        raise ProviderConfigError(f"{where}: n must be between 1 and 10.")
    if c.kind == "fashn" and c.category not in TRYON_CATEGORIES:
        raise ProviderConfigError(
            f"{where}: category must be one of {', '.join(TRYON_CATEGORIES)}.")
    if c.kind == "vertex":
        try:
            info = json.loads(c.service_account or c.api_key or "null")
        except ValueError:
            info = None
        if not isinstance(info, Mapping) or not info.get("client_email") \
                or not info.get("private_key"):
            raise ProviderConfigError(
                f"{where}: vertex needs a service account's JSON key (client_email, "
                "private_key) as api_key or service_account.")
    if not provider_supports(c.provider, engine):
        raise ProviderConfigError(f"{where}: the {c.provider} provider cannot run this tool.")


def providers_parse(
    raw: str | Mapping[str, Any] | None,
    *,
    fetch_allow: Iterable[str] = (),
    environ: Mapping[str, str] | None = None,
) -> dict[str, ProviderConfig]:
    """ENGINE_PROVIDERS (its JSON text or the decoded object) → {engine name: ProviderConfig}."""
    if raw is None or raw == "":
        return {}
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise ProviderConfigError(f"ENGINE_PROVIDERS is not valid JSON: {exc}") from exc
    if not isinstance(raw, Mapping):
        raise ProviderConfigError("ENGINE_PROVIDERS must be a JSON object.")
    allow = tuple(fetch_allow)
    return {str(name): provider_config(str(name), entry, fetch_allow=allow, environ=environ)
            for name, entry in raw.items()}
