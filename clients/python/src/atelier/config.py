"""Where ``atelier login`` keeps the stack's URL and the token: a JSON file in the user's
config directory (``ATELIER_CONFIG`` names another file)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any


def config_path() -> Path:
    if os.environ.get("ATELIER_CONFIG"):
        return Path(os.environ["ATELIER_CONFIG"])
    base = os.environ.get("XDG_CONFIG_HOME") or ""
    if os.name == "nt":
        base = base or os.environ.get("APPDATA", "")
    elif not base:
        home = Path.home()
        mac = home / "Library" / "Application Support"
        base = str(mac) if mac.is_dir() and os.uname().sysname == "Darwin" else str(
            home / ".config")
    return Path(base) / "atelier" / "config.json"


def load_config() -> dict[str, Any]:
    path = config_path()
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def save_config(url: str, token: str) -> Path:
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        json.dump({"url": url, "token": token}, handle, indent=2)
    os.chmod(path, 0o600)
    return path
