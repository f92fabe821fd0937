"""Atelier's Python SDK: ``Atelier(base_url, token)`` with ``tools``, ``drives``, ``jobs`` and
``batches``; the ``atelier`` command is ``atelier.cli``."""

from atelier.client import Atelier, AtelierError, Update, UploadResult
from atelier.schema import Field, ToolCall

__all__ = ["Atelier", "AtelierError", "Field", "ToolCall", "Update", "UploadResult"]
__version__ = "0.1.0"
