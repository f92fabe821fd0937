from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, Error, register

from studio.crypto import MISSING


@register()
def provider_keys_secret_check(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    """Production (DEBUG off and a secret key of its own) must bring PROVIDER_KEYS_SECRET:
    settings derive one from SECRET_KEY only for the embedded defaults. Checked wherever
    Django runs its checks (migrate, runserver, check), so a deployment stops at start with this
    message instead of failing on the first provider key."""
    if getattr(settings, "PROVIDER_KEYS_SECRET", None):
        return []
    return [Error(MISSING, id="studio.E001")]
